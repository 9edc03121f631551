"""What every environment shares: the numbering of a game's moves, base propositions and percepts, and
one episode of the game with nature's moves drawn and the rewards computed from the goals.

**Numbering.** The moves a player can ever make and the base propositions (fluents) that can ever hold
come from the instantiated game (the relaxed ``does`` and ``true`` atoms of :mod:`gdl.ground.instantiate`),
each sorted by KIF text; so are the percepts a player can ever see in a GDL-II game. Action ``i`` of a
player is its ``i``-th move. A game that does not instantiate within the budgets of ``engine="auto"`` is
numbered by the relaxed analysis of :mod:`gdl.ground.domains` instead: a superset of what can occur,
checked by the action mask each step like any other. Only a game whose relaxed domains pass that
module's bounds is refused, with an :class:`UngroundableGameError`.

**Observations** follow the information model of :mod:`gdl.views`. A GDL game (no ``sees`` rules) is
observed whole: its players are told every joint move, nature's included, and so know the state; the
observation is a 0/1 vector over the base propositions. A GDL-II game is observed by each player through
its own view, in four parts: a 0/1 vector over its percepts after the last step; another over the
percepts of the earlier steps since it last acted (steps it did not act in, e.g. the opponent's turn and
nature's deal before it; empty when it acted in the last step); a one-hot vector over its moves (the
last move it chose; all zeros before its first); the number of steps played. The exact view, step by
step, is :class:`gdl.views.View` (``Episode.views``).

**Rewards** come only at the end: each player's goal value divided by 100, so in [0, 1]. With
``zero_sum=True`` the mean goal of the players is subtracted first, so the rewards sum to zero (a win
against a loss in a two-player game is +0.5 against -0.5).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from gdl.deprecation import moved_names
from gdl.engines import AUTO_MAX_ATOMS, AUTO_MAX_SECONDS
from gdl.errors import (
    GameDefinitionError,
    GameTooLargeError,
    IllegalMoveError,
    UngroundableGameError,
    UnknownRoleError,
)
from gdl.game import Game, State, load
from gdl.ground.domains import Domains, domains
from gdl.ground.grounding import Grounding, term_of, value_text
from gdl.ground.instantiate import instantiate
from gdl.render import render
from gdl.syntax.model import Term
from gdl.views import View, plays_with_views, told


def as_game(game: Game | str | Path, engine: str = "auto") -> Game:
    """``game`` itself, or the game loaded from a ``.kif`` path."""
    if isinstance(game, Game):
        return game
    if isinstance(game, str | Path):
        return load(game, engine)
    raise TypeError(f"game must be a gdl.Game or a path, not {type(game).__name__}")


class _Index:
    """The positions of terms in a tuple, looked up by identity first: engines hand out the same term
    objects again and again, and hashing a term walks it whole. Each entry keeps its term alive, so
    that an id is never mistaken for another object's."""

    def __init__(self, terms: Iterable[Term]) -> None:
        self.terms = tuple(terms)
        self._by_value = {term: i for i, term in enumerate(self.terms)}
        self._by_id: dict[int, tuple[Term, int]] = {}

    def __len__(self) -> int:
        return len(self.terms)

    def __getitem__(self, term: Term) -> int:
        entry = self._by_id.get(id(term))
        if entry is not None and entry[0] is term:
            return entry[1]
        position = self._by_value[term]
        if len(self._by_id) > 4 * len(self.terms) + 64:  # terms made afresh each time (Datalog engine)
            self._by_id.clear()
        self._by_id[id(term)] = (term, position)
        return position


class Encoding:
    """The numbering of a game's moves (per role), base propositions and percepts (per player)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.players: tuple[str, ...] = game.players
        #: Whether players observe only their own views (the game has ``sees`` rules).
        self.imperfect = plays_with_views(game)
        found = _numbering(game)
        #: Every move each role (nature included) can ever make, sorted by KIF text.
        self.moves: dict[str, tuple[Term, ...]] = found.moves
        self._move_index = {role: _Index(found) for role, found in self.moves.items()}
        #: Every base proposition that can ever hold, sorted by KIF text.
        self.fluents: tuple[Term, ...] = found.fluents
        self._fluent_index = _Index(self.fluents)
        #: Every percept each role can ever receive, sorted by KIF text.
        self.percepts: dict[str, tuple[Term, ...]] = found.percepts
        self._percept_index = {role: _Index(found) for role, found in self.percepts.items()}

    def __repr__(self) -> str:
        sizes = ", ".join(f"{p}: {len(self.moves[p])}" for p in self.players)
        return f"<Encoding {self.game.name!r} fluents={len(self.fluents)} moves={{{sizes}}}>"

    def observation_size(self, player: str) -> int:
        if self.imperfect:
            return 2 * len(self.percepts[player]) + len(self.moves[player]) + 1
        return len(self.fluents)

    def state_vector(self, state: State) -> np.ndarray:
        """The 0/1 vector (int8) of the base propositions that hold in ``state``."""
        vector = np.zeros(len(self.fluents), dtype=np.int8)
        index = self._fluent_index
        vector[[index[f] for f in state.fluents()]] = 1
        return vector

    def view_vector(
        self, player: str, last: Iterable[Term], earlier: Iterable[Term], move: Term | None, steps: int
    ) -> np.ndarray:
        """A GDL-II player's observation (int32): its percepts after the last step, those of the
        earlier steps since it acted, its last move (one-hot), the steps (see the module docstring)."""
        count = len(self.percepts[player])
        vector = np.zeros(self.observation_size(player), dtype=np.int32)
        index = self._percept_index[player]
        vector[[index[p] for p in last]] = 1
        vector[[count + index[p] for p in earlier]] = 1
        if move is not None:
            vector[2 * count + self._move_index[player][move]] = 1
        vector[-1] = steps
        return vector

    def action_mask(self, player: str, legal: Iterable[Term]) -> np.ndarray:
        """The 0/1 vector (int8) of the legal actions among every move of ``player``."""
        mask = np.zeros(len(self.moves[player]), dtype=np.int8)
        index = self._move_index[player]
        try:
            mask[[index[m] for m in legal]] = 1
        except KeyError as missing:
            raise GameDefinitionError(f"move {missing} of {player!r} is not among its moves") from None
        return mask

    def action(self, player: str, move: Term) -> int:
        return self._move_index[player][move]

    def move(self, player: str, action: object, legal: Iterable[Term]) -> Term:
        """The move that ``action`` numbers, checked to be one of ``legal``."""
        moves = self.moves[player]
        if not isinstance(action, int | np.integer) or isinstance(action, bool):
            raise IllegalMoveError(f"action {action!r} of {player} is not an integer")
        if not 0 <= action < len(moves):
            raise IllegalMoveError(f"action {action} of {player} is not in 0..{len(moves) - 1}")
        move = moves[action]
        legal = list(legal)
        if move not in legal:
            shown = ", ".join(f"{self.action(player, m)} {m}" for m in legal)
            raise IllegalMoveError(f"illegal action {action} ({move}) of {player}: legal are {shown}")
        return move


def _numbering(game: Game) -> Domains:
    """Each role's moves, the fluents and each role's percepts: from the instantiated game (the
    engine's own, or instantiated here within the budgets of ``engine="auto"``), else from the relaxed
    domains of :mod:`gdl.ground.domains`; roles as the game spells them."""
    grounding = getattr(game.reasoner, "grounding", None)
    if not isinstance(grounding, Grounding):
        try:
            grounding = instantiate(game.checked, AUTO_MAX_ATOMS, AUTO_MAX_SECONDS)
        except GameTooLargeError as problem:
            return _relaxed_numbering(game, problem)
    moves: dict[str, list[Term]] = {role: [] for role in game.roles}
    for role, move in grounding.moves:
        moves[game.roles[game.role_index(value_text(role))]].append(term_of(move))
    seen: dict[str, set[Term]] = {role: set() for role in game.roles}
    heads = [rule.head for rule in grounding.rules] + list(grounding.facts)
    for relation, args in heads:
        if relation != "sees" or len(args) != 2:
            continue
        try:
            role = game.roles[game.role_index(value_text(args[0]))]
        except UnknownRoleError:  # percepts of something that is not a role reach nobody
            continue
        seen[role].add(term_of(args[1]))
    return Domains(
        moves={role: tuple(found) for role, found in moves.items()},
        fluents=tuple(term_of(f) for f in grounding.fluents),
        percepts={role: tuple(sorted(found, key=str)) for role, found in seen.items()},
    )


def _relaxed_numbering(game: Game, problem: GameTooLargeError) -> Domains:
    try:
        return domains(game.checked.program, game.roles)
    except GameTooLargeError as relaxing:
        raise UngroundableGameError(
            f"the moves and base propositions of game {game.name!r} cannot be numbered: it does not "
            f"instantiate ({problem}), and its relaxed domains are too large ({relaxing})"
        ) from None


def check_options(render_mode: str | None, max_steps: int | None) -> None:
    """Refuse a render mode or a step limit the environments do not know."""
    if render_mode not in (None, "human", "ansi"):
        raise ValueError(f"unknown render mode {render_mode!r} (choose from: human, ansi)")
    if max_steps is not None and max_steps < 1:
        raise ValueError(f"max_steps must be at least 1, got {max_steps}")


def show(episode: Episode, render_mode: str | None) -> str | None:
    """The state drawn as ``gdl play`` draws it: printed ("human") or returned ("ansi")."""
    if render_mode is None:
        return None
    text = f"step {episode.steps}\n{render(episode.state)}"
    if render_mode == "ansi":
        return text
    print(text)
    return None


def rewards(goals: Mapping[str, int], zero_sum: bool) -> dict[str, float]:
    """The rewards at the end from the goal values (see the module docstring)."""
    shift = sum(goals.values()) / len(goals) if zero_sum else 0.0
    return {player: (goal - shift) / 100 for player, goal in goals.items()}


class Episode:
    """One match: the state, nature's moves drawn from ``rng`` (uniformly, as GDL-II says), and in a
    GDL-II game what each player saw: its view, and its percepts since it last acted."""

    def __init__(self, encoding: Encoding, rng: np.random.Generator) -> None:
        self.encoding = encoding
        self.rng = rng
        self.state = encoding.game.initial_state()
        self.steps = 0
        self._legal: dict[str, list[Term]] = {}
        #: Per player: its percepts after the last step, those of the earlier steps since it last
        #: acted, and the last move it chose.
        self.last_seen: dict[str, frozenset[Term]] = dict.fromkeys(encoding.players, frozenset())
        self.earlier_seen: dict[str, frozenset[Term]] = dict.fromkeys(encoding.players, frozenset())
        self.chosen: dict[str, Term | None] = dict.fromkeys(encoding.players)
        #: Per player, its view (GDL-II only).
        self.views: dict[str, View] = (
            {p: View.initial(self.state, p) for p in encoding.players} if encoding.imperfect else {}
        )

    def legal(self, player: str) -> list[Term]:
        """The legal moves of ``player`` now (none in a terminal state)."""
        found = self._legal.get(player)
        if found is None:
            found = self._legal[player] = [] if self.state.is_terminal() else self.state.legal_moves(player)
        return found

    def choosers(self) -> list[str]:
        """The players with more than one legal move, in role order."""
        return [p for p in self.encoding.players if len(self.legal(p)) > 1]

    def play(self, chosen: Mapping[str, Term]) -> None:
        """One step: the players in ``chosen`` play those moves, the others their only legal move, and
        nature a move drawn uniformly."""
        joint: dict[str, Term] = {}
        for player in self.encoding.players:
            if player in chosen:
                joint[player] = chosen[player]
                continue
            options = self.legal(player)
            if len(options) != 1:
                raise IllegalMoveError(f"{player} has {len(options)} legal moves and chose none")
            joint[player] = options[0]
        for player in self.encoding.players:
            if player in chosen:
                self.chosen[player] = chosen[player]
                self.earlier_seen[player] = frozenset()
            else:
                self.earlier_seen[player] |= self.last_seen[player]
        chance = self.encoding.game.chance_role
        if chance is not None:
            options = self.state.legal_moves(chance)
            joint[chance] = options[int(self.rng.integers(len(options)))]
        percepts = told(self.state, joint) if self.encoding.imperfect else {}
        self.state = self.state.next(joint)
        self._legal = {}
        self.steps += 1
        for player, view in self.views.items():
            self.last_seen[player] = percepts[player]
            self.views[player] = view.after(joint[player], percepts[player], self.legal(player))

    def observation(self, player: str) -> np.ndarray:
        if self.encoding.imperfect:
            return self.encoding.view_vector(
                player, self.last_seen[player], self.earlier_seen[player], self.chosen[player], self.steps
            )
        return self.encoding.state_vector(self.state)


moved_names(__name__, "gdl.errors", "UngroundableGameError")
