"""A shortest line to the best goal, from the breadth-first exploration of :mod:`gdl.retrograde`.

The exploration numbers states in the order it finds them, breadth first, so a state's number never
precedes that of a state nearer the root: the first terminal state (by number) with a goal is one of
the nearest with it, and the first edge into a state comes from its parent on a shortest line. This
needs no backward induction, so it holds in games whose states repeat (where
:func:`gdl.retrograde.values` gives up), and in an exploration stopped early for the states expanded.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from gdl.game import Game, State
from gdl.retrograde import EDGES, EXPANDED, STATES, explore

#: The bound of states of the first exploration, and the factor between one bound and the next.
FIRST_STATES = 4_000
GROWTH = 8
#: The share of the time left that a bound of states aims at, at the pace of the last exploration (the
#: pace slows as the table grows and more successors are states already found).
PACE_SHARE = 0.6


@dataclass(frozen=True)
class BreadthResult:
    """The best line the exploration found: the legal move numbers (into each state's sorted legal
    moves) from the root, the goal reached (None: no terminal state was expanded), the states found,
    and whether every reachable state was expanded (then the goal is the best reachable)."""

    line: tuple[int, ...]
    goal: int | None
    states: int
    complete: bool
    reason: str


def breadth_first(game: Game, root: State, stop_at: float, memory: int) -> BreadthResult:
    """Explore from ``root`` (not terminal) until every reachable state is expanded, ``stop_at``
    (:func:`time.monotonic`) or ``memory`` bytes; the shortest line to the best goal among the terminal
    states expanded.

    The exploration reads the clock only between chunks of many states, which in a game of wide
    branching may take seconds; so it is bounded in states too: first :data:`FIRST_STATES`, then, while
    the clock allows, :data:`GROWTH` times as many as the last, from the root again (all the runs but
    the last cost a fraction ``1 / (GROWTH - 1)`` of it), the last bounded by the pace of the one before.
    """
    limit = FIRST_STATES
    while True:
        begun = time.monotonic()
        found, reason = explore(game, root, stop_at, limit, memory, None)
        now = time.monotonic()
        if not reason or int(found.counters[STATES]) < limit:
            break  # finished, out of memory or out of time
        allowed = int(PACE_SHARE * limit / max(now - begun, 1e-3) * (stop_at - now))
        if allowed <= limit:
            break
        limit = min(GROWTH * limit, allowed)
        del found
    expanded = int(found.counters[EXPANDED])
    states = int(found.counters[STATES])
    terminal = np.flatnonzero(found.terminal[:expanded])
    if len(terminal) == 0:
        return BreadthResult((), None, states, not reason, reason)
    goals = found.goals[terminal, 0]
    best = int(goals.max())
    target = int(terminal[int(np.argmax(goals == best))])
    children = found.children[: int(found.counters[EDGES])]
    child_start = found.child_start[: expanded + 1]
    line: list[int] = []
    number = target
    while number != 0:
        edge = int(np.argmax(children == number))  # the first edge into it: its parent's
        parent = int(np.searchsorted(child_start, edge, side="right")) - 1
        line.append(edge - int(child_start[parent]))
        number = parent
    return BreadthResult(tuple(reversed(line)), best, states, not reason, reason)
