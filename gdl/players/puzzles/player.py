"""The puzzle player: solves a one-role game in the start clock and plays the plan.

In a one-role game the player spends its start clock on :func:`gdl.players.puzzles.solve_puzzle` and
then plays the plan move by move. When the state is not the one the plan expects (the game was started
elsewhere, or the referee played another move for it) or the plan is not proven best, it searches again
from the state it is in, in part of the play clock, and keeps whichever plan is better. A game without
a network is dived into (:mod:`.dive`) across the clocks: with no plan yet, the player plays the first
move of the dive's line, from which the goal may still be reached, and the dive goes on below it. With
no plan at all, and in every game of more than one role, it plays as the Monte Carlo player
(:mod:`gdl.players.mcts`) does, within the same clocks.
"""

from __future__ import annotations

import time

from gdl.game import Game, State
from gdl.players.base import Player, at_least
from gdl.players.mcts import MctsPlayer
from gdl.players.puzzles import PuzzlePlan, solve_puzzle
from gdl.players.puzzles.dive import Diver
from gdl.syntax.model import Term

#: The share of the start clock (less the margin) the search may take: it reads the clock between chunks
#: of work, and under load a chunk may take much longer than it would on a core of its own.
START_SHARE = 0.85
#: The share of a play clock (less the margin) that a new search may take when a plan is wanted; the
#: rest is left to the fallback player should the search find nothing.
REPLAN_SHARE = 0.6
#: The share when a dive is under way (its line gives a move, so the fallback is rarely needed).
DIVE_PLAY_SHARE = 0.85


class PuzzlePlayer(Player):
    """Plays the best plan it can find in a one-role game; the Monte Carlo player otherwise.

    Options: ``margin`` (float, seconds) is kept free before every deadline, start clock included;
    ``seed`` (int) seeds the fallback player.
    """

    name = "puzzle"

    def __init__(self, margin: float = 0.5, seed: int | None = None) -> None:
        at_least("puzzle", "margin", margin, 0)
        self.margin = margin
        self.fallback = MctsPlayer(seed=seed, margin=margin)
        self._plan: PuzzlePlan | None = None
        #: The fluents of the states the plan passes through, from the one it was made in (one more than
        #: its moves): compared by fluents, since the states a match hands over may be of another copy
        #: of the game.
        self._line: list[frozenset[Term]] = []
        self._searchable = False
        self._diver: Diver | None = None

    def start(self, game: Game, role: str, start_clock: float, play_clock: float) -> None:
        deadline = time.monotonic() + START_SHARE * start_clock - self.margin
        super().start(game, role, start_clock, play_clock)
        self._plan = None
        self._line = []
        self._diver = None
        self._info = {}
        self.fallback.start(game, role, start_clock, play_clock)
        # Whether the game can be searched (one role, a network): not worth asking again at every move.
        self._searchable = len(game.roles) == 1
        if self._searchable:
            found = self._solve(game.initial_state(), deadline)
            self._info = _figures(found)
            self._searchable = found.method != "none" or found.diver is not None

    @property
    def plan(self) -> PuzzlePlan | None:
        """The plan the player follows (None when it has none)."""
        return self._plan

    @property
    def diving(self) -> bool:
        """Whether a dive is under way (a game without a network, no plan yet): the player goes on
        with it at each move."""
        return self._plan is None and self._diver is not None and not self._diver.over

    def play(self, state: State, deadline: float) -> Term:
        if not self._searchable:
            return self.fallback.play(state, deadline)
        plan = self._plan
        step = self._step(state)
        if plan is None or step is None or not plan.proven:
            share = REPLAN_SHARE if self._diver is None else DIVE_PLAY_SHARE
            stop_at = time.monotonic() + share * max(0.0, deadline - self.margin - time.monotonic())
            self._info = {**self._info, "replanned": _figures(self._solve(state, stop_at))}
            step = self._step(state)
        if self._plan is not None and step is not None:
            return self._plan.moves[step]
        diver = self._diver
        if diver is not None and diver.follow(state) and diver.line:
            return diver.line[0]
        return self.fallback.play(state, deadline)

    def stop(self, state: State) -> None:
        self._plan = None
        self._line = []
        self._diver = None
        self.fallback.stop(state)

    def _step(self, state: State) -> int | None:
        """The plan's move number in ``state``, if the plan passes through it before its end."""
        fluents = state.fluents()
        for number, passed in enumerate(self._line[:-1]):
            if passed == fluents:
                return number
        return None

    def _solve(self, state: State, deadline: float) -> PuzzlePlan:
        """Search from ``state`` until ``deadline``; keep the new plan if it beats what is left of the
        old one (a higher goal; or the same goal, proven, or by a shorter line)."""
        found = solve_puzzle(self.game, state, deadline, diver=self._diver)
        self._diver = found.diver
        if found.goal is None:
            return found
        old = self._plan
        step = self._step(state)
        if old is not None and step is not None and old.goal is not None:
            left = len(old.moves) - step
            if (old.goal, old.proven, -left) >= (found.goal, found.proven, -len(found.moves)):
                return found
        self._plan = found
        line = [state]
        for move in found.moves:
            line.append(line[-1].next({self.role: move}))
        self._line = [passed.fluents() for passed in line]
        return found


def _figures(plan: PuzzlePlan) -> dict[str, object]:
    """What :meth:`PuzzlePlayer.info` reports about a search."""
    return {
        "plan_goal": plan.goal, "plan_moves": len(plan.moves), "proven": plan.proven,
        "shortest": plan.shortest, "states": plan.states, "seconds": round(plan.seconds, 2),
        "method": plan.method,
    }
