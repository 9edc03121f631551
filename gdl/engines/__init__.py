"""Reasoners: engines that compute legal moves, successor states, termination and goals.

``engine="auto"`` (the default) chooses between the compiled engine (a propositional network, fast per
state, dear to build) and the Datalog evaluator (nothing to build, slower per state). It builds the
compiled engine under one budget of CPU time, :data:`AUTO_MAX_SECONDS`, that covers every phase of it
(instantiation, the network, the code and tables of the compiled functions), and gives up on it as soon
as a phase runs over, or as soon as a phase finished shows that the next would not fit: the network
costs about :data:`NETWORK_SECONDS_PER_LITERAL` per literal of the ground rules, the compiled functions
about :data:`CODE_SECONDS_PER_INPUT` per gate input of the network. The Datalog evaluator then plays the
game, so that the first legal moves of any game come within the budget plus the Datalog engine's own
loading.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from gdl.budget import budget
from gdl.check import CheckedProgram
from gdl.engines.base import Reasoner
from gdl.errors import BudgetExceededError, GameTooLargeError

if TYPE_CHECKING:
    from gdl.engines.compiled import CompiledReasoner

#: The engines :func:`make_reasoner` knows, the default first.
ENGINES = ("auto", "compiled", "datalog")

#: Budgets of ``engine="auto"`` for building the compiled engine before falling back to the Datalog
#: evaluator: ground atoms or rules of instantiation, and CPU seconds of every phase together.
AUTO_MAX_ATOMS = 200_000
AUTO_MAX_SECONDS = 5.0

#: What a network costs to build, per literal of the ground rules, and the compiled functions, per gate
#: input of the network (CPU seconds: about the largest corpus games, measured on a loaded machine).
NETWORK_SECONDS_PER_LITERAL = 5e-6
CODE_SECONDS_PER_INPUT = 2e-6

log = logging.getLogger(__name__)


def make_reasoner(checked: CheckedProgram, engine: str = "auto") -> Reasoner[Any]:
    """The reasoner named by ``engine``: "datalog", "compiled", or "auto" for the best available.

    "auto" is the compiled engine when every phase of building it fits in :data:`AUTO_MAX_SECONDS` of CPU
    time (and instantiation in :data:`AUTO_MAX_ATOMS`), else the Datalog evaluator.
    """
    if engine == "compiled":
        from gdl.engines.compiled import CompiledReasoner

        return CompiledReasoner(checked)
    if engine == "auto":
        compiled = _compiled_within_budget(checked)
        if compiled is not None:
            return compiled
    if engine in ("auto", "datalog"):
        from gdl.engines.datalog import DatalogReasoner

        return DatalogReasoner(checked)
    raise ValueError(f"unknown engine: {engine!r} (choose from: {', '.join(ENGINES)})")


def another_reasoner(reasoner: Reasoner[Any], checked: CheckedProgram) -> Reasoner[Any]:
    """A reasoner of the same engine for the game ``checked`` that shares nothing with ``reasoner`` but
    what never changes (the compiled engine's grounding and network): its caches, tables and scratch
    space are its own, so it cannot tell which states ``reasoner`` has seen."""
    from gdl.engines.compiled import CompiledReasoner
    from gdl.engines.datalog import DatalogReasoner

    if isinstance(reasoner, CompiledReasoner):
        return CompiledReasoner(checked, network=(reasoner.grounding, reasoner.net))
    if isinstance(reasoner, DatalogReasoner):
        return DatalogReasoner(checked, demand=reasoner.demand_driven)
    raise TypeError(f"no other reasoner like a {type(reasoner).__name__} can be made")


class _WouldNotFit(GameTooLargeError):
    """A phase of building the compiled engine would not fit in what is left of auto's budget."""


def _compiled_within_budget(checked: CheckedProgram) -> Reasoner[Any] | None:
    """The compiled engine, or None (logged with the reason) when it does not fit auto's budget."""
    started = time.process_time()
    try:
        return build_compiled(checked)
    except BudgetExceededError as problem:
        if problem.total:  # no time is left for the Datalog engine either
            raise
        reason = str(problem)
    except GameTooLargeError as problem:
        reason = str(problem)
    log.info(
        "%s: the Datalog evaluator plays it, the compiled engine gave up after %.2f CPU-s: %s",
        checked.program.source, time.process_time() - started, reason,
    )
    return None


def build_compiled(
    checked: CheckedProgram, seconds: float | None = None, max_atoms: int | None = None
) -> CompiledReasoner:
    """The compiled engine of ``checked``, every phase of it built within one budget of ``seconds`` CPU
    seconds (by default :data:`AUTO_MAX_SECONDS`) and instantiation within ``max_atoms`` ground atoms
    or rules of a relation (by default :data:`AUTO_MAX_ATOMS`).

    Raises :class:`gdl.errors.GameTooLargeError` (or its :class:`gdl.budget.BudgetExceededError`) as soon
    as a phase runs over, or a phase finished shows that the next would not fit.
    """
    from gdl.engines.compiled import CompiledReasoner
    from gdl.ground.instantiate import instantiate
    from gdl.ground.propnet import build

    seconds = AUTO_MAX_SECONDS if seconds is None else seconds
    max_atoms = AUTO_MAX_ATOMS if max_atoms is None else max_atoms
    started = time.process_time()

    def affordable(phase: str, estimate: float) -> None:
        left = seconds - (time.process_time() - started)
        if estimate > left:
            raise _WouldNotFit(f"{phase} would take about {estimate:.1f} s, {max(left, 0):.1f} s are left")

    try:
        with budget("building the compiled engine", seconds):
            grounding = instantiate(checked, max_atoms, seconds)
            literals = sum(slot is not None for rule in grounding.rules for slot in rule.body)
            affordable("the network", NETWORK_SECONDS_PER_LITERAL * literals)
            net = build(grounding)
            built = time.process_time()
            affordable("the compiled functions", CODE_SECONDS_PER_INPUT * sum(map(len, net.args)))
            compiled = CompiledReasoner(checked, network=(grounding, net))
            compiled.phases.update(
                instantiate=grounding.seconds, network=built - started - grounding.seconds
            )
            return compiled
    except RecursionError:
        # Relaxed grounding ignores the state, so a counter that only the state bounds builds ever
        # deeper terms; the Datalog engine follows the state and plays it.
        raise GameTooLargeError("instantiation builds ever deeper terms") from None
