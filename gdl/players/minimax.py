"""The minimax player: alpha-beta search with a transposition table and iterative deepening.

The search is *paranoid*: the player maximises its own goal value while every other role, together,
is assumed to minimise it. In a state where several roles move at once the player commits to its move
first and the others answer knowing it (the pessimistic reading of simultaneous moves). For two-player
turn-taking zero-sum games this is exactly minimax, so the player is perfect once the search reaches
every terminal state; for more roles, general-sum goals or simultaneous moves the value it maximises
is the goal it can *guarantee* (its security level), a sound lower bound on what it will get.

Iterative deepening searches to depth 1, 2, 3, ... plies (joint moves) until the play clock (less a
safety ``margin``) runs out, an optional maximum ``depth`` is reached, or an iteration reaches no
cut-off, which means the search was exhaustive and its value exact. The move of the last completed
iteration is played. Of two moves with the same outcome, the one that wins sooner (or loses later)
is preferred: values are discounted towards 50 by a tiny factor per ply.

**Heuristic at cut-off depths** (documented as such: it is a guess, not a value). A state at the depth
limit that is not terminal is scored ``25 + goal / 2``, where ``goal`` is the player's goal value in
that state when the rules define exactly one (many games define goals in every state, e.g. a count of
pieces) and 50 otherwise. Squeezing guesses into [25, 75] keeps proven outcomes apart from them: a
proven win (100) always beats a guess, a guess always beats a proven loss (0), so the player never
walks into a loss it has seen in favour of a position it merely does not know.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

from gdl.errors import GameDefinitionError
from gdl.game import Game, State
from gdl.players.base import Player, at_least
from gdl.syntax.model import Term

#: The search depth stored for a value that no cut-off influenced: it holds at any depth.
_EXACT_DEPTH = 1 << 30
#: Transposition tables are cleared beyond this many entries to bound memory.
_TABLE_LIMIT = 2_000_000
_UNKNOWN_GOAL = 50.0
#: Each ply shrinks a value towards 50 by this factor, so that of two equal outcomes the nearer win and
#: the farther loss score higher (the depth tie-break). Over 10,000 plies values move by less than 0.05,
#: far less than the gap between two goal values (1) or two guesses (0.5), so no outcome swaps rank.
_DISCOUNT = 1 - 1e-7


class _OutOfTime(Exception):
    """The deadline passed in the middle of an iteration."""


@dataclass(slots=True)
class _Entry:
    depth: int
    value: float
    bound: int  # 0 exact, 1 lower bound (fail high), -1 upper bound (fail low)
    best: Term | None


class MinimaxPlayer(Player):
    """Paranoid alpha-beta with a transposition table and iterative deepening under the play clock.

    Options: ``depth`` (int) caps the iterative deepening; ``margin`` (float, seconds) is kept free
    before the deadline.
    """

    name = "minimax"

    def __init__(self, depth: int | None = None, margin: float = 0.1) -> None:
        at_least("minimax", "depth", depth, 1)
        at_least("minimax", "margin", margin, 0)
        self.max_depth = depth
        self.margin = margin
        self._table: dict[State, _Entry] = {}

    def start(self, game: Game, role: str, start_clock: float, play_clock: float) -> None:
        super().start(game, role, start_clock, play_clock)
        self._table = {}
        self._others = [r for r in game.roles if r != role]

    def play(self, state: State, deadline: float) -> Term:
        moves = state.legal_moves(self.role)
        if len(self._table) > _TABLE_LIMIT:
            self._table.clear()
        self._stop_at = deadline - self.margin
        self._nodes = 0
        best, value, depth, exact = moves[0], None, 0, False
        limit = self.max_depth or _EXACT_DEPTH - 1
        while depth < limit and not exact:
            self._cutoffs = 0
            try:
                found = self._search(state, depth + 1, -1.0, 101.0)
            except _OutOfTime:
                break
            depth += 1
            value, exact = found, self._cutoffs == 0
            entry = self._table.get(state)
            if entry is not None and entry.best is not None:
                best = entry.best
        shown = None if value is None else round(value, 2)
        self._info = {"depth": depth, "value": shown, "exact": exact, "nodes": self._nodes}
        return best

    def _search(self, state: State, depth: int, alpha: float, beta: float) -> float:
        """The paranoid value of ``state`` searched ``depth`` plies deep, within the alpha-beta window."""
        self._nodes += 1
        if time.monotonic() > self._stop_at:
            raise _OutOfTime
        if state.is_terminal():
            return float(state.goals()[self.role])
        entry = self._table.get(state)
        if (
            entry is not None and entry.depth >= depth
            and (entry.bound == 0 or (entry.value >= beta if entry.bound > 0 else entry.value <= alpha))
        ):
            if entry.depth < _EXACT_DEPTH:
                self._cutoffs += 1  # a value from a shallower search, guesses included
            return entry.value
        if depth == 0:
            self._cutoffs += 1
            return self.heuristic(state)
        cutoffs_before = self._cutoffs
        moves = state.legal_moves(self.role)
        if entry is not None and entry.best in moves:
            moves.remove(entry.best)
            moves.insert(0, entry.best)
        replies = list(itertools.product(*(state.legal_moves(r) for r in self._others)))
        best_value, best_move, low = -1.0, moves[0], alpha
        for move in moves:
            worst, high = 101.0, beta
            for reply in replies:
                joint = dict(zip(self._others, reply, strict=True))
                joint[self.role] = move
                value = self._search(state.next(joint), depth - 1, _undiscount(low), _undiscount(high))
                worst = min(worst, _discount(value))
                if worst <= low:
                    break
                high = min(high, worst)
            if worst > best_value:
                best_value, best_move = worst, move
            low = max(low, best_value)
            if best_value >= beta:
                break
        bound = 1 if best_value >= beta else -1 if best_value <= alpha else 0
        stored = _EXACT_DEPTH if self._cutoffs == cutoffs_before else depth
        self._table[state] = _Entry(stored, best_value, bound, best_move)
        return best_value

    def heuristic(self, state: State) -> float:
        """The guess at a cut-off: 25 + half this role's goal value in ``state`` (50 when undefined)."""
        try:
            goal = float(state.goals()[self.role])
        except GameDefinitionError:
            goal = _UNKNOWN_GOAL
        return 25.0 + goal / 2


def _discount(value: float) -> float:
    """A child's value as seen one ply above it (see :data:`_DISCOUNT`)."""
    return 50.0 + (value - 50.0) * _DISCOUNT


def _undiscount(value: float) -> float:
    """The inverse of :func:`_discount`: an alpha-beta bound passed down one ply."""
    return 50.0 + (value - 50.0) / _DISCOUNT
