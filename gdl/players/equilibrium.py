"""The equilibrium player: small games of hidden information solved during the start clock, then played
by the strategy found.

At :meth:`EquilibriumPlayer.start` the player builds the game's extensive form
(:func:`gdl.extensive.from_gdl.extensive_from_gdl`) and solves it
(:func:`gdl.extensive.solving.solve_extensive`: the sequence-form LP for small games, Discounted CFR
beyond), both within the start clock. In a two-player constant-sum game the strategy found is a Nash
equilibrium, so the player's expected goal is at least the game's value against any opponent (up to
the strategy's exploitability, which the solution states); alone against nature it is the best policy.
Each move is then drawn from the strategy at the player's information state, which is the key the
extensive form gives its information sets (:meth:`gdl.views.View.information_state`).

A solution is kept for the next matches of the same rules in the process (the last
:data:`KEPT_SOLUTIONS` games), as a player server plays a game again and again.

When the game has no extensive form the solvers take (more than two players, general-sum goals), or
building or solving it does not fit in the start clock, the player says why in :meth:`info` and plays as
the hyperplay player (:class:`gdl.players.hyperplay.HyperPlayer`) instead.
"""

from __future__ import annotations

import random
import time
from collections import OrderedDict
from dataclasses import dataclass

from gdl.errors import GdlError
from gdl.extensive.from_gdl import extensive_from_gdl
from gdl.extensive.solving import METHODS, solve_extensive
from gdl.game import Game, State
from gdl.players.base import Player, at_least
from gdl.players.hyperplay import HyperPlayer
from gdl.syntax.model import Program, Term
from gdl.views import View

#: The share of the start clock (less the margin) that building the extensive form may take; solving
#: it gets the rest.
BUILD_SHARE = 0.5
#: How many games' solutions a process keeps.
KEPT_SOLUTIONS = 4



@dataclass(frozen=True)
class _Solved:
    """What the player keeps of a solution: each role's strategy, its value in goal units, and how good
    the strategies are."""

    strategies: dict[str, dict[str, dict[str, float]]]
    values: dict[str, float]
    solved: bool
    method: str
    exploitability: float


#: Solutions by rules, method and node limit, the most recently used last.
_kept: OrderedDict[tuple[Program, str, int], _Solved] = OrderedDict()


class EquilibriumPlayer(Player):
    """Plays an equilibrium strategy of the game's extensive form, solved at the start (see the module
    docstring); ``method`` is one of :data:`gdl.extensive.solving.METHODS`."""

    name = "equilibrium"

    def __init__(
        self, method: str = "auto", max_nodes: int = 200_000, seed: int | None = None, margin: float = 0.5
    ) -> None:
        if method not in METHODS:
            raise ValueError(f"equilibrium method must be one of {', '.join(METHODS)}, got {method!r}")
        at_least("equilibrium", "max_nodes", max_nodes, 1)
        at_least("equilibrium", "margin", margin, 0)
        self.method = method
        self.max_nodes = max_nodes
        self.seed = seed
        self.margin = margin
        self._rng = random.Random(seed)
        self._strategy: dict[str, dict[str, float]] | None = None
        self._fallback = HyperPlayer(seed=seed)

    def start(self, game: Game, role: str, start_clock: float, play_clock: float) -> None:
        super().start(game, role, start_clock, play_clock)
        self._rng = random.Random(self.seed)
        began = time.monotonic()
        self._strategy = None
        self._info = {}
        left = max(0.0, start_clock - self.margin)
        key = (game.checked.program, self.method, self.max_nodes)
        found = _kept.get(key)
        if found is None:
            try:
                tree = extensive_from_gdl(game, max_nodes=self.max_nodes, seconds=left * BUILD_SHARE)
                solution = solve_extensive(
                    tree, self.method, seconds=max(0.0, left - (time.monotonic() - began))
                )
            except (GdlError, ValueError) as problem:
                self._info = {"solved": False, "reason": str(problem)}
            else:
                offset = float(tree.goal_offset)
                found = _kept[key] = _Solved(
                    solution.strategies, {p: v + offset for p, v in solution.value.items()},
                    solution.solved, solution.method, solution.exploitability,
                )
                while len(_kept) > KEPT_SOLUTIONS:
                    _kept.popitem(last=False)
        else:
            _kept.move_to_end(key)
        if found is not None:
            self._strategy = found.strategies.get(role, {})
            self._info = {
                "solved": found.solved, "method": found.method, "exploitability": found.exploitability,
                "value": found.values.get(role), "information_sets": len(self._strategy),
            }
        remaining = start_clock - (time.monotonic() - began)
        self._fallback.start(game, role, max(0.0, remaining), play_clock)

    def play_view(self, view: View, deadline: float) -> Term:
        """The move drawn from the strategy at ``view``'s information state (hyperplay's when unsolved)."""
        strategy = None if self._strategy is None else self._strategy.get(view.information_state())
        if strategy is None:
            return self._fallback.play_view(view, deadline)
        by_label = {str(move): move for move in view.legal}
        labels = [label for label in strategy if label in by_label]
        weights = [max(0.0, strategy[label]) for label in labels]
        if not labels or sum(weights) <= 0:
            return self._fallback.play_view(view, deadline)
        return by_label[self._rng.choices(labels, weights)[0]]

    def play(self, state: State, deadline: float) -> Term:
        """A game played with states (no hidden information) is played as hyperplay plays it."""
        return self._fallback.play(state, deadline)

    def stop_view(self, view: View) -> None:
        self._fallback.stop_view(view)

    def stop(self, state: State) -> None:
        self._fallback.stop(state)
