"""A GDL-II game of one player, or of two with constant-sum goals, as an extensive-form game.

Every history of the game is explored, depth first, within a budget of nodes and seconds. At each
step the roles move in declaration order, one node each:

- nature (``random``) is a chance node, uniform over its legal moves (exact fractions);
- a player is a decision node whose information set is its view (own moves, percepts after each
  step, legal moves now: :meth:`gdl.views.View.information_state`). Its view does not hold what the
  roles before it chose in the same step, so simultaneous moves become decisions in role order where
  the later role has not seen the earlier one's choice.

A role with a single legal move makes no node (its move is forced). Action labels are the moves' KIF
text. What a player is told after each step is :func:`gdl.views.told`: its percepts in a game with
``sees`` rules; in a GDL game (none) the whole joint move, nature's included, as the GGP protocol tells
it.

Payoffs: with two players, their goals sum to the same constant C at every terminal (else the game is
refused), and a player's payoff is its goal minus C/2, so the game is zero-sum. A lone player's payoff
is its goal. A value v in payoff units is
v + C/2 in goal units (:attr:`GdlExtensiveGame.goal_offset` is C/2).

>>> import gdl
>>> game = extensive_from_gdl(gdl.load("games/kuhn.kif"))
>>> game.players, game.goal_offset, game.sizes["terminal"]
(('player1', 'player2'), Fraction(50, 1), 30)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from gdl.budget import LOAD_SECONDS, budget
from gdl.deprecation import moved_names
from gdl.errors import (
    BudgetExceededError,
    ExtensiveTooLargeError,
    GameTooLargeError,
    GdlSourceError,
    ImperfectRecallError,
    InvalidGameError,
    NotExtensiveError,
    OutOfTimeError,
)
from gdl.extensive.generate import ArraysUnsupportedError, GameTree, generate_tree
from gdl.extensive.generate_kernel import CHANCE, TERMINAL
from gdl.extensive.model import Chance, Decision, ExtensiveGame, Node, Terminal, format_history
from gdl.game import CHANCE_ROLE, Game, State, parse
from gdl.syntax.model import Term
from gdl.syntax.reader import read
from gdl.views import View, told

#: Nodes a game may have before the exploration gives up.
DEFAULT_MAX_NODES = 1_000_000
#: Seconds the exploration may take before it gives up.
DEFAULT_SECONDS = 120.0
#: How many steps (joint moves) a play may have.
MAX_STEPS = 1_000


def read_gdl2(text: str, name: str = "<string>", *, seconds: float | None = None) -> GdlExtensiveGame:
    """The extensive form of the GDL-II game in ``text`` (``name`` is its file, for messages); any
    problem is a :class:`GdlSourceError` whose message starts with ``name``. With ``seconds``, loading
    and exploring take at most that long together, else :class:`OutOfTimeError`."""
    started = time.monotonic()
    game = load_gdl2(text, name, seconds=seconds)
    left = DEFAULT_SECONDS if seconds is None else seconds - (time.monotonic() - started)
    return named_extensive(game, name, seconds=left)


def named_extensive(game: Game, name: str, *, seconds: float, objects: bool = False) -> GdlExtensiveGame:
    """:func:`extensive_from_gdl` on the game of the file ``name``, any problem a
    :class:`GdlSourceError` whose message starts with ``name``."""
    try:
        return extensive_from_gdl(game, seconds=seconds, objects=objects)
    except GdlSourceError as problem:
        raise type(problem)(f"{name}: {problem}") from None
    except GameTooLargeError as problem:
        raise ExtensiveTooLargeError(f"{name}: {problem}") from None
    except ValueError as problem:  # no legal move, no goal value, ...
        raise GdlSourceError(f"{name}: {problem}") from None


def load_gdl2(text: str, name: str = "<string>", *, seconds: float | None = None) -> Game:
    """The GDL-II game in ``text``, loaded within ``seconds`` (:class:`OutOfTimeError` past them);
    a :class:`GdlSourceError` (starting with ``name``) for rules with errors, and
    :class:`NotExtensiveError` for a game without nature or percepts."""
    limited = seconds is not None and seconds < LOAD_SECONDS
    try:
        with budget("loading", seconds if limited else None, total=True, wall=True):
            game = parse(text, file=name, max_seconds=seconds if limited else LOAD_SECONDS)
    except BudgetExceededError as problem:
        if limited and problem.total:
            raise OutOfTimeError(f"{name}: the time ran out while the rules were loaded") from None
        raise GdlSourceError(f"{name}: {problem}") from None
    except InvalidGameError as problem:
        lines = [diagnostic.format() for diagnostic in problem.diagnostics]
        lines.append(f"{name}: the game has errors (see `gdl check {name}`)")
        raise GdlSourceError("\n".join(lines)) from None
    except ValueError as problem:  # a syntax error, a game too large to instantiate
        raise GdlSourceError(f"{name}: {problem}") from None
    if game.chance_role is None and not game.has_percepts:
        raise NotExtensiveError(
            f"{name}: a GDL game without the role random or sees rules (gdl solve solves it as a game "
            "of perfect information)"
        )
    return game


def is_gdl2_text(text: str) -> bool:
    """Whether GDL text declares the role ``random`` or has ``sees`` rules (read, not checked)."""
    rules = read(text).program.rules
    return any(
        rule.head.relation == "sees"
        or (rule.head.relation == "role" and [str(a) for a in rule.head.args] == [CHANCE_ROLE])
        for rule in rules
    )


@dataclass(frozen=True)
class GdlExtensiveGame(ExtensiveGame):
    """An extensive-form game made from a GDL game: payoffs are goals minus :attr:`goal_offset`."""

    #: Half the constant sum of the goals: add it to a payoff to get goal units.
    goal_offset: Fraction = field(default=Fraction(0), kw_only=True)


def extensive_from_gdl(
    game: Game, *, max_nodes: int = DEFAULT_MAX_NODES, seconds: float = DEFAULT_SECONDS, objects: bool = False
) -> GdlExtensiveGame:
    """The extensive form of ``game`` (see the module docstring): generated on the compiled network
    (:func:`gdl.extensive.generate.generate_tree`), or with ``objects`` (and where the network cannot
    make it) by walking :class:`~gdl.game.State` objects, one Python object per node.

    Raises :class:`NotExtensiveError` for a game without one or two players or with two whose goals are
    not constant-sum, :class:`~gdl.errors.GameTooLargeError` past ``max_nodes`` and
    :class:`OutOfTimeError` past ``seconds``."""
    if len(game.players) not in (1, 2):
        raise NotExtensiveError(
            f"game {game.name!r} has {len(game.players)} player{'' if len(game.players) == 1 else 's'} "
            f"({', '.join(game.players) or 'none'}); "
            "the extensive form is solved for one or two"
        )
    started = time.monotonic()
    if not objects:
        try:
            return game_of_tree(generate_tree(game, max_nodes=max_nodes, seconds=seconds))
        except ArraysUnsupportedError:  # the walk over objects makes it, or says what is wrong
            seconds -= time.monotonic() - started
    explorer = _Explorer(game, max_nodes, seconds)
    limit = sys.getrecursionlimit()
    # each step recurses through every role: the depth is bounded by MAX_STEPS
    sys.setrecursionlimit(max(limit, (len(game.roles) + 3) * MAX_STEPS + 1000))
    try:
        initial = game.initial_state()
        views = {player: View.initial(initial, player) for player in game.players}
        root = explorer.step(initial, views, (), 0)
    finally:
        sys.setrecursionlimit(limit)
    assert explorer.constant is not None
    offset = explorer.constant[0] / 2 if len(game.players) == 2 else Fraction(0)
    try:
        return GdlExtensiveGame(game.players, root, title=game.name, goal_offset=offset)
    except ImperfectRecallError as problem:
        raise NotExtensiveError(
            f"{problem}; the player's view (its moves, percepts and legal moves now) forgets something "
            "it knew: its legal moves at an earlier step told it what its percepts never did"
        ) from None


def game_of_tree(tree: GameTree) -> GdlExtensiveGame:
    """The game of a tree of arrays, a Python object per node (children are numbered after their
    parent, so the nodes are made from the last to the first)."""
    made: list[Node | None] = [None] * tree.nodes
    kind, first, count = tree.kind, tree.first.tolist(), tree.count.tolist()
    infoset = tree.infoset.tolist()
    offset = tree.goal_offset
    payoffs = [
        {player: Fraction(goal) - offset for player, goal in zip(tree.players, row, strict=True)}
        for row in tree.goals.tolist()
    ]
    keys: dict[int, str] = {}
    for node in range(tree.nodes - 1, -1, -1):
        if kind[node] == TERMINAL:
            made[node] = Terminal(payoffs[first[node]])
            continue
        start = first[node]
        children = made[start : start + count[node]]
        made[start : start + count[node]] = [None] * count[node]  # each child has one parent
        actions = tree.node_actions(node)
        if kind[node] == CHANCE:
            made[node] = Chance.uniform(actions, children)  # type: ignore[arg-type]
        else:
            number = infoset[node]
            key = keys.get(number)
            if key is None:
                key = keys[number] = tree.infoset_key(number)
            player = tree.players[int(tree.set_player[number])]
            made[node] = Decision(player, key, actions, children)  # type: ignore[arg-type]
    root = made[0]
    assert root is not None
    return GdlExtensiveGame(tree.players, root, title=tree.game.name, goal_offset=tree.goal_offset)


@dataclass
class _Explorer:
    game: Game
    max_nodes: int
    seconds: float
    nodes: int = 0
    started: float = field(default_factory=time.monotonic)
    #: The goal sum of the first terminal and the history that reached it.
    constant: tuple[Fraction, tuple[str, ...]] | None = None
    _legal: dict[State, dict[str, list[Term]]] = field(default_factory=dict)

    def _count(self, history: tuple[str, ...]) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise GameTooLargeError(
                f"game {self.game.name!r} has more than {self.max_nodes} nodes in extensive form"
            )
        if time.monotonic() - self.started > self.seconds:
            raise OutOfTimeError(
                f"game {self.game.name!r}: {self.nodes} nodes explored in {max(self.seconds, 0):.3g} s, "
                "and the extensive form is not complete"
            )

    def legal(self, state: State) -> dict[str, list[Term]]:
        found = self._legal.get(state)
        if found is None:
            found = {role: state.legal_moves(role) for role in self.game.roles}
            if len(self._legal) < 100_000:
                self._legal[state] = found
        return found

    def step(self, state: State, views: Mapping[str, View], history: tuple[str, ...], steps: int) -> Node:
        """The subtree of one state, ``steps`` joint moves into the game: the roles' moves in role
        order, then the next state."""
        self._count(history)
        if state.is_terminal():
            return self._terminal(state, history)
        if steps >= MAX_STEPS:
            raise GameTooLargeError(f"game {self.game.name!r} has plays longer than {MAX_STEPS} steps")
        return self._choose(state, views, history, steps, self.legal(state), {})

    def _choose(
        self,
        state: State,
        views: Mapping[str, View],
        history: tuple[str, ...],
        steps: int,
        legal: dict[str, list[Term]],
        chosen: dict[str, Term],
    ) -> Node:
        """The node of the first role in ``game.roles`` that has not chosen yet in this step."""
        role = next((r for r in self.game.roles if r not in chosen), None)
        if role is None:
            return self._advance(state, views, history, steps, chosen)
        options = legal[role]
        if len(options) == 1:
            return self._choose(state, views, history, steps, legal, {**chosen, role: options[0]})
        self._count(history)
        labels = [str(move) for move in options]
        children = [
            self._choose(state, views, (*history, label), steps, legal, {**chosen, role: move})
            for move, label in zip(options, labels, strict=True)
        ]
        if role == self.game.chance_role:
            return Chance.uniform(labels, children)
        return Decision(role, views[role].information_state(), labels, children)

    def _advance(
        self,
        state: State,
        views: Mapping[str, View],
        history: tuple[str, ...],
        steps: int,
        chosen: dict[str, Term],
    ) -> Node:
        percepts = told(state, chosen)
        following = state.next(chosen)
        over = following.is_terminal()
        legal = {} if over else self.legal(following)
        after = {
            player: view.after(chosen[player], percepts[player], legal.get(player, ()))
            for player, view in views.items()
        }
        return self.step(following, after, history, steps + 1)

    def _terminal(self, state: State, history: tuple[str, ...]) -> Terminal:
        goals = state.goals()
        total = Fraction(sum(goals.values()))
        if len(goals) == 1:  # one player: its goal is its payoff, nothing to keep constant
            self.constant = self.constant or (total, history)
            return Terminal(goals)
        if self.constant is None:
            self.constant = (total, history)
        elif self.constant[0] != total:
            raise NotExtensiveError(
                f"game {self.game.name!r} is not constant-sum: the goals sum to {self.constant[0]} after "
                f"{format_history(self.constant[1])} but to {total} after {format_history(history)}"
            )
        return Terminal({player: goal - total / 2 for player, goal in goals.items()})


moved_names(__name__, "gdl.errors", "GdlSourceError", "NotExtensiveError", "OutOfTimeError")
