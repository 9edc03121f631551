"""The state-machine API: games, immutable states, legal moves, successors and goals.

>>> import gdl
>>> game = gdl.load("games/tictactoe.kif")
>>> game.roles
('xplayer', 'oplayer')
>>> state = game.initial_state()
>>> [str(m) for m in state.legal_moves("oplayer")]
['noop']
>>> state = state.next({"xplayer": "(mark 2 2)", "oplayer": "noop"})
>>> state.is_terminal()
False

GDL-II games add nature, the role ``random`` (:attr:`Game.chance_role`), which picks uniformly among its
legal moves and has no goal, and percepts, ``(sees ?role ?percept)``, which each role receives after a
joint move (:meth:`State.percepts`). :attr:`Game.players` are the roles other than nature. What one
player knows is its :class:`gdl.views.View`; the states consistent with it are a :class:`gdl.belief.Belief`.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from gdl.budget import LOAD_SECONDS, budget
from gdl.check import CheckedProgram, check
from gdl.engines.base import Reasoner, goal_number
from gdl.errors import (
    GameDefinitionError,
    GameTooLargeError,
    IllegalMoveError,
    InvalidGameError,
    InvalidStateError,
    KifSyntaxError,
    UnknownRoleError,
)
from gdl.files import read_text_file
from gdl.syntax.model import Constant, Function, Term, Variable
from gdl.syntax.reader import parse_term, parse_terms, read
from gdl.syntax.spelling import spell

#: A move as accepted from users: a term of the clause model or its KIF text.
MoveLike = Term | str

#: A joint move as accepted from users: role name -> move, or one move per role in :attr:`Game.roles` order.
JointLike = Mapping[str, MoveLike] | Sequence[MoveLike]

#: About how many characters of fluents a state's repr (and so an error message) shows.
REPR_LIMIT = 240

#: The GDL-II role of nature.
CHANCE_ROLE = "random"


class Game:
    """A checked game with a reasoning engine; states come from :meth:`initial_state`."""

    def __init__(self, checked: CheckedProgram, reasoner: Reasoner[Any], name: str = "game") -> None:
        self.checked = checked
        self.reasoner = reasoner
        self.name = name
        #: Every role in declaration order, nature (``random``) included.
        self.roles: tuple[str, ...] = reasoner.roles
        self._role_index = {role: i for i, role in enumerate(self.roles)}
        #: ``"random"`` when the game declares nature as a role (GDL-II), else None.
        self.chance_role: str | None = CHANCE_ROLE if CHANCE_ROLE in self._role_index else None
        #: The roles that play for a goal: every role but nature.
        self.players: tuple[str, ...] = tuple(r for r in self.roles if r != CHANCE_ROLE)
        #: Whether the game has ``sees`` rules (GDL-II percepts).
        self.has_percepts: bool = any(rule.head.relation == "sees" for rule in checked.program.rules)

    def __repr__(self) -> str:
        return f"<Game {self.name!r} roles={self.roles!r} engine={type(self.reasoner).__name__}>"

    def spell(self, item: object) -> str:
        """The KIF text of a term, rule or name with the names spelled as the rules spell them: what
        gdl sends, records or shows (other systems compare names case-sensitively)."""
        return spell(item, self.checked.program.spellings)

    def role_index(self, role: str) -> int:
        """The position of ``role`` (any case) in :attr:`roles`; :class:`UnknownRoleError` if none."""
        try:
            return self._role_index[str(role).lower()]
        except KeyError:
            raise UnknownRoleError(
                f"unknown role: {role!r} (roles: {', '.join(self.roles)})"
            ) from None

    def initial_state(self) -> State:
        """The state of the ``init`` facts, where every match starts."""
        return State(self, self.reasoner.initial())

    def state(self, fluents: Iterable[Term | str] | str) -> State:
        """The state with exactly these fluents: terms, their KIF texts, or one text of them all
        (``"(cell 1 1 x) (control oplayer)"``).

        Raises :class:`InvalidStateError`, whatever the engine, for a fluent that is not ground or that can
        never hold in this game: no ``init`` fact and no ``next`` rule can make it true (e.g. a fluent of
        another game), or none can from any state the rules reach when every negation is left out (the
        instantiation of :mod:`gdl.ground`; a game too large for it within the budget of
        ``engine="auto"`` is checked against the rules' heads only). Raises :class:`KifSyntaxError` for
        text that is not terms.
        """
        terms = parse_terms(fluents) if isinstance(fluents, str) else [as_term(f) for f in fluents]
        for term in terms:
            if not term.is_ground():
                raise InvalidStateError(f"fluent {str(term)!r} is not ground")
            patterns = self._fluent_patterns.get(_key(term), []) + self._fluent_patterns.get(None, [])
            if not any(_matches(pattern, term) for pattern in patterns) or not self._can_hold(term):
                raise InvalidStateError(f"fluent {str(term)!r} is never true in game {self.name!r}")
        try:
            return State(self, self.reasoner.from_fluents(terms))
        except GameDefinitionError as problem:  # an engine that knows still fewer fluents that can hold
            raise InvalidStateError(str(problem)) from None

    def _can_hold(self, fluent: Term) -> bool:
        return self._possible_fluents is None or fluent in self._possible_fluents

    @cached_property
    def _possible_fluents(self) -> frozenset[Term] | None:
        """Every fluent that can ever hold: the ``true`` atoms of the relaxed instantiation (negations
        left out), the same whatever the engine; None (any fluent) when the game is too large to
        instantiate within the budget of ``engine="auto"``."""
        from gdl.engines import AUTO_MAX_ATOMS, AUTO_MAX_SECONDS
        from gdl.ground.grounding import Grounding, term_of
        from gdl.ground.instantiate import instantiate

        grounding = getattr(self.reasoner, "grounding", None)  # the compiled engine's own
        if not isinstance(grounding, Grounding):
            try:
                grounding = instantiate(self.checked, AUTO_MAX_ATOMS, AUTO_MAX_SECONDS)
            except GameTooLargeError:
                return None
        return frozenset(term_of(value) for value in grounding.fluents)

    @cached_property
    def _fluent_patterns(self) -> dict[tuple[str, int] | None, list[Term]]:
        """The arguments of ``init`` facts and ``next`` rule heads by name and arity (None: a variable)."""
        patterns: dict[tuple[str, int] | None, list[Term]] = {}
        for rule in self.checked.program.rules:
            if rule.head.relation in ("init", "next") and len(rule.head.args) == 1:
                pattern = rule.head.args[0]
                patterns.setdefault(_key(pattern), []).append(pattern)
        return patterns


def _key(term: Term) -> tuple[str, int] | None:
    if isinstance(term, Function):
        return term.name, len(term.args)
    if isinstance(term, Constant):
        return term.name, 0
    return None


def _matches(pattern: Term, term: Term) -> bool:
    """Whether ground ``term`` is an instance of ``pattern`` (a repeated variable is not compared)."""
    if isinstance(pattern, Variable):
        return True
    if isinstance(pattern, Function):
        return (
            isinstance(term, Function) and term.name == pattern.name and len(term.args) == len(pattern.args)
            and all(_matches(p, t) for p, t in zip(pattern.args, term.args, strict=True))
        )
    return pattern == term


def as_term(value: MoveLike) -> Term:
    """A term given as a term or as its KIF text (raises :class:`KifSyntaxError` for bad text)."""
    if isinstance(value, str):
        return parse_term(value)
    return value


class State:
    """An immutable, hashable game state."""

    __slots__ = ("_data", "_game")

    def __init__(self, game: Game, data: Hashable) -> None:
        self._game = game
        self._data = data

    @property
    def game(self) -> Game:
        """The game this state belongs to."""
        return self._game

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and other._game is self._game and other._data == self._data

    def __hash__(self) -> int:
        return hash(self._data)

    def __repr__(self) -> str:
        # Shown in error messages too: a large state is cut short rather than filling the screen.
        fluents = sorted(map(self._game.spell, self.fluents()))
        shown: list[str] = []
        length = 0
        for fluent in fluents:
            length += len(fluent) + 1
            if length > REPR_LIMIT and shown:
                return f"<State {' '.join(shown)} ... (+{len(fluents) - len(shown)} more fluents)>"
            shown.append(fluent)
        return f"<State {' '.join(shown)}>"

    def clone(self) -> State:
        """States are immutable, so a clone is the state itself."""
        return self

    def fluents(self) -> frozenset[Term]:
        """The ground terms true in this state (``(true f)`` holds for each ``f``)."""
        return self._game.reasoner.fluents(self._data)

    def is_terminal(self) -> bool:
        """Whether the match is over here (``terminal`` holds)."""
        return self._game.reasoner.terminal(self._data)

    def legal_moves(self, role: str) -> list[Term]:
        """The legal moves of ``role``, sorted by their KIF text."""
        index = self._game.role_index(role)
        moves = self._game.reasoner.legal(self._data, index)
        if not moves and not self.is_terminal():
            raise GameDefinitionError(
                f"role {self._game.roles[index]!r} has no legal move in non-terminal state {self!r}"
            )
        return list(moves)

    def is_legal(self, role: str, move: MoveLike) -> bool:
        """Whether ``role`` may play ``move`` here; in a terminal state no move is legal."""
        index = self._game.role_index(role)
        move = as_term(move)
        return not self.is_terminal() and move in self._game.reasoner.legal(self._data, index)

    def joint_moves(self) -> list[dict[str, Term]]:
        """Every joint move legal here (role name -> move, nature included), in the order of the roles'
        legal moves; none in a terminal state."""
        if self.is_terminal():
            return []
        roles = self._game.roles
        every = itertools.product(*(self.legal_moves(role) for role in roles))
        return [dict(zip(roles, moves, strict=True)) for moves in every]

    def next(self, joint: JointLike) -> State:
        """The successor after every role plays its move in ``joint``: role name -> move, or one move per
        role in :attr:`Game.roles` order (nature's included)."""
        return State(self._game, self._game.reasoner.next(self._data, self._joint(joint)))

    def percepts(self, joint: JointLike) -> dict[str, frozenset[Term]]:
        """GDL-II: what each role (nature included) sees after ``joint`` is played here, checked as in
        :meth:`next`; an empty set for a role that sees nothing (and for every role of a GDL game)."""
        moves = self._joint(joint)
        game = self._game
        if not game.has_percepts:
            return {role: frozenset() for role in game.roles}
        return dict(zip(game.roles, game.reasoner.sees(self._data, moves), strict=True))

    def checked_joint(self, joint: JointLike) -> list[Term]:
        """The moves of ``joint`` in :attr:`Game.roles` order, each checked to be legal here (as by
        :meth:`next`)."""
        return self._joint(joint)

    def _joint(self, joint: JointLike) -> list[Term]:
        """The moves of ``joint`` in role order, each checked to be legal here."""
        reasoner = self._game.reasoner
        roles = self._game.roles
        if not isinstance(joint, Mapping):
            if isinstance(joint, str) or len(joint) != len(roles):
                raise ValueError(
                    f"a joint move as a sequence has one move per role ({', '.join(roles)}), got {joint!r}"
                )
            joint = dict(zip(roles, joint, strict=True))
        given: dict[int, Term] = {}
        for role, move in joint.items():  # the text of every move read first: a syntax error shows
            index = self._game.role_index(role)
            try:
                given[index] = as_term(move)
            except KifSyntaxError as problem:
                raise KifSyntaxError(f"move of {self._game.spell(roles[index])} is {problem}") from None
        missing = [self._game.spell(r) for i, r in enumerate(self._game.roles) if i not in given]
        if missing:
            raise GameDefinitionError(f"joint move has no move for role(s) {', '.join(missing)} in {self!r}")
        if self.is_terminal():
            raise IllegalMoveError(f"no move is legal in terminal state {self!r}")
        moves = []
        for index, role in enumerate(self._game.roles):
            move = given[index]
            if move not in reasoner.legal(self._data, index):
                spelled = self._game.spell(move)
                raise IllegalMoveError(f"illegal move: {spelled!r} for {self._game.spell(role)} in {self!r}")
            moves.append(move)
        return moves

    def goals(self) -> dict[str, int]:
        """Each player's goal value (nature has none); raises :class:`GameDefinitionError` unless a
        player has exactly one."""
        result = {}
        for role in self._game.players:
            index = self._game.role_index(role)
            values = self._game.reasoner.goals(self._data, index)
            if len(values) != 1:
                shown = ", ".join(sorted(map(str, values))) or "none"
                raise GameDefinitionError(
                    f"role {role!r} has {len(values)} goal values ({shown}) in {self!r}"
                )
            result[role] = _goal_value(values[0], role, self)
        return result


def _goal_value(term: Term, role: str, state: State) -> int:
    if isinstance(term, Constant) and (value := goal_number(term.name)) is not None:
        return value
    raise GameDefinitionError(f"goal value {str(term)!r} of role {role!r} is not in 0..100 in {state!r}")


def _make_game(text: str, file: str, engine: str, reader: str, max_seconds: float | None) -> Game:
    with budget("loading", max_seconds, total=True):
        read_result = read(text, file, reader=reader)
        result = check(read_result.program, read_result.diagnostics)
        if result.checked is None:
            raise InvalidGameError(result.diagnostics)
        from gdl.engines import make_reasoner

        name = Path(file).stem if file != "<string>" else "game"
        return Game(result.checked, make_reasoner(result.checked, engine), name)


def parse(
    text: str,
    engine: str = "auto",
    file: str = "<string>",
    *,
    reader: str = "fast",
    max_seconds: float | None = LOAD_SECONDS,
) -> Game:
    """A game from KIF text; raises :class:`InvalidGameError` when the checker finds errors.

    ``file`` names the source in diagnostics and gives the game its name; ``reader`` is ``"fast"`` or
    ``"lark"`` (Lark's LALR parser on the grammar; the same result, slower). Loading may take up to
    ``max_seconds`` of CPU time (None: no limit), each phase within its own share (see
    :mod:`gdl.budget`); past it, :class:`gdl.errors.BudgetExceededError` is raised.
    """
    if not isinstance(text, str):
        raise TypeError(f"game text must be a str, not {type(text).__name__}")
    return _make_game(text, file, engine, reader, max_seconds)


def load(
    path: str | Path, engine: str = "auto", *, reader: str = "fast", max_seconds: float | None = LOAD_SECONDS
) -> Game:
    """A game from a ``.kif`` file; raises :class:`InvalidGameError` when it has errors (and, as
    :func:`parse`, :class:`gdl.errors.BudgetExceededError` past ``max_seconds`` of CPU time)."""
    return _make_game(read_text_file(path), str(path), engine, reader, max_seconds)
