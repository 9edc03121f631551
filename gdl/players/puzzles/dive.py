"""Depth-first search over a puzzle's own states, cut by :class:`.possible.Possibility`.

For a one-role game without a network (its rules cannot be grounded: sudoku's), the search dives from
the state it is given towards the highest goal that :meth:`~.possible.Possibility.may_hold` allows
there, and expands only successors from which that goal may still be reached: a sound cut, so it never
drops a line to that goal. It tries, at each state, only the moves of one precondition (see
:meth:`~.possible.Possibility.precondition`: the moves that fill one cell), the group of fewest legal
moves, first in the rules' order among equals. Where every cell must be filled, in any order, as in a
grid to complete, a cell none of whose marks can lead to the goal is a dead end; elsewhere this focus
may miss every line, so a search that runs out of states is not a proof.

The search is resumable (:meth:`Diver.run` until a deadline, again and again), and follows the game:
when the game moves to the first state of the search's current line, :meth:`Diver.follow` makes that
state its root and keeps the search below it. A player that must move before the search is done can
play the first move of that line (:attr:`Diver.line`), a move from which the goal may still be reached.
No state is expanded twice (a set of the hashes of the states' fluents). With no goal value to aim at
(none written as a number, or none that may be reached), there is no cut, and the dive does not search.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from gdl.errors import DeadlinePassedError
from gdl.game import Game, State
from gdl.players.puzzles.clauses import Value, fluent_value
from gdl.players.puzzles.possible import Possibility
from gdl.syntax.model import Term

#: States the search may keep as seen before it stops (each by the hash of its fluents: 64 bits, so that
#: a long dive stays small; two states alike in hash would have one of them skipped, a heuristic's loss).
MAX_SEEN = 2_000_000


def goal_values(possibility: Possibility, role: str) -> list[int]:
    """The goal values the rules give ``role``, highest first (those written as numbers)."""
    values = set()
    for clause in possibility.clauses.get("goal", []):
        owner, value = clause.head
        if (owner == role or not isinstance(owner, str)) and isinstance(value, str) and value.isdigit():
            values.add(int(value))
    return sorted(values, reverse=True)


class Diver:
    """A resumable dive from ``root`` (a non-terminal state of a one-role ``game``); see the module doc."""

    def __init__(self, game: Game, root: State, possibility: Possibility | None = None) -> None:
        self.game = game
        self.role = game.roles[0]
        self.possibility = possibility or Possibility(game.checked.program.rules)
        #: The highest goal that may be reached from the root (None: no value may, or none is a number),
        #: once the first run has found it out.
        self.target: int | None = None
        self._aimed = False
        self._values = goal_values(self.possibility, self.role)
        #: A successor whose test the deadline interrupted, tested first at the next run.
        self._pending: tuple[Term, State] | None = None
        #: The line to a terminal state of the target goal, once found.
        self.found: tuple[Term, ...] | None = None
        #: The best terminal state reached: its line from the root and its goal (None: none yet).
        self.best: tuple[tuple[Term, ...], int | None] = ((), None)
        self.expanded = 1
        self._seen: set[int] = {hash(root.fluents())}
        self._states = [root]
        self._moves: list[Term] = []
        self._frames: list[Iterator[Term]] = [iter(self._tried(root))]

    @property
    def root(self) -> State:
        return self._states[0]

    @property
    def line(self) -> tuple[Term, ...]:
        """The moves from the root to the state the search is at."""
        return tuple(self._moves)

    @property
    def over(self) -> bool:
        """Whether the search found its target, has no state left to expand, or has nothing to aim at
        (no goal value written as a number, or none that may be reached)."""
        return self.found is not None or not self._frames or (self._aimed and self.target is None)

    def follow(self, state: State) -> bool:
        """Make ``state`` the root if it is the first state of the current line (or the root); False
        when it is neither, and the search cannot go on from it."""
        fluents = state.fluents()
        if fluents == self.root.fluents():
            return True
        if len(self._states) < 2 or self._states[1].fluents() != fluents:
            return False
        del self._states[0], self._frames[0], self._moves[0]
        if self.found is not None:
            self.found = self.found[1:]
        self.best = ((), None)
        return True

    def run(self, deadline: float) -> None:
        """Search until the target is found, the search is over, or ``deadline`` (:func:`time.monotonic`)."""
        try:
            while not self._aimed and self._values:
                if self._may_reach(self.root, self._values[0], deadline):
                    self.target = self._values[0]
                    break
                del self._values[0]
            self._aimed = True
            if self.target is not None:
                self._dive(deadline)
        except DeadlinePassedError:
            return

    def _dive(self, deadline: float) -> None:
        role, target = self.role, self.target
        assert target is not None
        while self._frames and self.found is None:
            if time.monotonic() >= deadline or len(self._seen) >= MAX_SEEN:
                return
            if self._pending is None:
                move = next(self._frames[-1], None)
                if move is None:
                    self._frames.pop()
                    if self._moves:  # the root stays, its moves all tried
                        self._moves.pop()
                        self._states.pop()
                    continue
                child = self._states[-1].next({role: move})
                fluents = child.fluents()
                if hash(fluents) in self._seen:
                    continue
                self._seen.add(hash(fluents))
                if child.is_terminal():
                    goal = int(str(child.goals()[role]))
                    if self.best[1] is None or goal > self.best[1]:
                        self.best = ((*self._moves, move), goal)
                    if goal >= target:
                        self.found = self.best[0]
                    continue
                self._pending = (move, child)
            move, child = self._pending
            if not self._may_reach(child, target, deadline):
                self._pending = None
                continue
            self._pending = None
            self.expanded += 1
            self._moves.append(move)
            self._states.append(child)
            self._frames.append(iter(self._tried(child)))

    def _may_reach(self, state: State, value: int, deadline: float) -> bool:
        fluents = [fluent_value(f) for f in state.fluents()]
        return self.possibility.may_hold(fluents, "goal", (self.role, str(value)), deadline)

    def _tried(self, state: State) -> list[Term]:
        """The moves tried in ``state``: those of its smallest group (see the module doc)."""
        groups: dict[tuple[object, ...], list[Term]] = {}
        role: Value = self.role
        for move in state.legal_moves(self.role):
            groups.setdefault(self.possibility.precondition(role, fluent_value(move)), []).append(move)
        return min(groups.values(), key=len) if groups else []
