"""Compiling the native playout kernels outside any clock.

numba compiles the native engine's :mod:`gdl.engines.native_kernel`, the batched engine's
:mod:`gdl.engines.batched_kernel` and the sweep of large networks (:mod:`gdl.engines.sweep_kernel`) on
their first use (seconds each) and caches the result per installation; even from the cache, loading
them takes a moment in each new process. A player that first plays out inside a clock would miss it.
So the kernels are compiled at installation (``make`` calls :func:`warm_up`), the match runner calls
:func:`warm_up` before a match's first clock starts, and the player server warms up before it listens
(its worker processes are forked from a warm process).
"""

from __future__ import annotations

import random
import time
from functools import cache

#: The smallest game with a playout: one role, one move, then the end.
WARM_UP_GAME = (
    "(role r) (init (s 0)) (<= (legal r go) (true (s 0))) (<= (next (s 1)) (does r go))"
    " (<= terminal (true (s 1))) (<= (goal r 100) (true (s 1))) (<= (goal r 0) (true (s 0)))"
)


@cache
def warm_up() -> float:
    """Compile (or load from the cache) the native kernels and run them once in this process; the
    seconds it took (the first call only: later calls return at once)."""
    from gdl.check import check_text
    from gdl.engines.batched import BatchedEngine
    from gdl.engines.compiled import CompiledReasoner

    started = time.perf_counter()
    checked = check_text(WARM_UP_GAME).checked
    assert checked is not None
    reasoner = CompiledReasoner(checked)
    reasoner.depth_charge(reasoner.initial(), random.Random(0), 4)
    reasoner.depth_charges(reasoner.initial(), 2, random.Random(0), 4)
    swept = CompiledReasoner(checked, code_limit=-1)  # every function a sweep
    swept.next(swept.initial(), swept.legal(swept.initial(), 0))
    batched = BatchedEngine(reasoner.net, batch=64)
    batched.run(0.0, playouts=1)
    batched.rollouts([reasoner.initial()])
    return time.perf_counter() - started
