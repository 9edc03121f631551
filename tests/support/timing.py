"""Wall-clock bounds that a loaded machine cannot break.

The default tests assert behaviour, not speed; where a wall-clock bound is the behaviour (a server
answers within its play clock, a player stops at its deadline), the bound allows for how loaded the
machine is right now, measured, not guessed: :func:`stretch`.
"""

from __future__ import annotations

import math
import time

#: A deadline or clock no test reaches: for players whose own budget (iterations, depth, a game solved)
#: ends their search, so that a slow machine changes how long they take, never what they answer.
NEVER = 3600.0


def stretch(sample: float = 0.05) -> float:
    """How many times longer than its CPU time wall-clock work takes now: a CPU-bound loop of
    ``sample`` seconds of this thread's CPU time, timed on the wall clock (1 on an idle core; 4 or more
    with a load of 8 on two cores). At least 1."""
    wall, cpu = time.perf_counter(), time.thread_time()
    spins = 0
    while time.thread_time() - cpu < sample:
        spins += 1
    return max(1.0, (time.perf_counter() - wall) / (time.thread_time() - cpu))


def slack(seconds: float) -> float:
    """``seconds`` of wall time, for work that takes that long on an idle machine, stretched by the
    load measured now (:func:`stretch`), with as much again for the load changing while it runs."""
    return 2 * seconds * stretch()


def clock(seconds: int) -> float:
    """A play or start clock that is ``seconds`` on an idle machine, stretched by the load measured now
    (:func:`stretch`), in whole seconds (the protocol's clocks are whole)."""
    return float(math.ceil(seconds * stretch()))
