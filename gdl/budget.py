"""Budgets of CPU time for loading a game: one total for :func:`gdl.load`, and one for each phase.

Rules may be built to explode (forty ``or`` multiplied out, a rule of two hundred literals, a relation
negating itself under thousands of heads), so every phase of loading runs under a budget and checks it
at :func:`checkpoint` in its loops: checking (the refined stratification), multiplying out ``or``,
planning joins, evaluating the relations computed once per game, instantiating. Budgets nest: a
checkpoint fails when any enclosing budget is spent. CPU time (:func:`time.process_time`) is counted,
so that a busy machine does not make a game fail; a budget of ``wall`` time (:func:`time.monotonic`)
is what a user's time limit gives (the CLI's ``--time-limit``).

>>> with budget("planning joins", 0.0):
...     checkpoint()
Traceback (most recent call last):
...
gdl.errors.BudgetExceededError: planning joins took more than its budget of 0 s of CPU time
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from gdl.deprecation import moved_names
from gdl.errors import BudgetExceededError

#: The budget of :func:`gdl.load` as a whole, in CPU seconds (the largest corpus game loads in 2).
LOAD_SECONDS = 120.0

#: Each phase's share of it, in CPU seconds.
PHASE_SECONDS = {
    "checking": 60.0,
    "multiplying out or": 30.0,
    "planning joins": 30.0,
    "evaluating static relations": 60.0,
}


@dataclass(frozen=True, slots=True)
class _Budget:
    phase: str
    seconds: float
    deadline: float
    total: bool
    wall: bool = False

    def spent(self, cpu: float) -> bool:
        """Whether the budget is spent, ``cpu`` being the CPU time now."""
        return (time.monotonic() if self.wall else cpu) > self.deadline


_budgets: ContextVar[tuple[_Budget, ...]] = ContextVar("gdl_budgets", default=())


@contextmanager
def budget(
    phase: str, seconds: float | None = None, *, total: bool = False, wall: bool = False
) -> Iterator[None]:
    """Run the ``with`` block under a budget of ``seconds`` (default: the phase's own, or none) of CPU
    time, or with ``wall`` of time on the clock."""
    if seconds is None:
        seconds = PHASE_SECONDS.get(phase)
    if seconds is None:
        yield
        return
    now = time.monotonic() if wall else time.process_time()
    entry = _Budget(phase, seconds, now + seconds, total, wall)
    token = _budgets.set((*_budgets.get(), entry))
    try:
        yield
    finally:
        _budgets.reset(token)


def deadline() -> float | None:
    """The earliest deadline of the CPU-time budgets in force (a :func:`time.process_time` instant), if
    any (those of wall time are checked at :func:`checkpoint`)."""
    budgets = [entry.deadline for entry in _budgets.get() if not entry.wall]
    return min(budgets) if budgets else None


def checkpoint() -> None:
    """Raise :class:`BudgetExceededError` when a budget in force is spent."""
    budgets = _budgets.get()
    if not budgets:
        return
    now = time.process_time()
    for entry in budgets:
        if entry.spent(now):
            raise exceeded(entry)


def exceeded(entry: _Budget | None = None) -> BudgetExceededError:
    """The error for the first spent budget (or ``entry``)."""
    if entry is None:
        now = time.process_time()
        entry = next((e for e in _budgets.get() if e.spent(now)), None)
        if entry is None:
            return BudgetExceededError("loading took more than its budget of CPU time", True)
    kind = "" if entry.wall else " of CPU time"
    message = f"{entry.phase} took more than its budget of {entry.seconds:g} s{kind}"
    return BudgetExceededError(message, entry.total)


moved_names(__name__, "gdl.errors", "BudgetExceededError")
