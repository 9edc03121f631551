"""The numba kernel of :mod:`gdl.engines.sweep` (importing this module imports numba).

Compiled once per installation (``cache=True``); ``tables`` is the array of a
:class:`gdl.engines.sweep.Sweep`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba

from gdl.engines.schedule import BLOCK_OP
from gdl.engines.sweep_layout import (
    BASES,
    END,
    FALSE_SLOT,
    FIRST,
    LITS,
    NODE,
    OP,
    OUTPUT_LITS,
    SIZES,
    VALUE_SLOTS,
)

F = TypeVar("F", bound=Callable[..., Any])
#: Nothing here allocates, so numba's reference counting is off (as in :mod:`gdl.engines.native_kernel`).
_NO_NRT: dict[str, Any] = {"_nrt": False}


def _inline(function: F) -> F:
    return cast(F, numba.njit(inline="always", **_NO_NRT)(function))


@_inline
def _section(tables: Any, k: int) -> Any:
    return tables[tables[k] : tables[k + 1]]


@_inline
def _gate(work: Any, op: int, lits: Any, first: int, end: int) -> int:
    """An and-gate (op 0) is decided by its first false literal, an or-gate (op 1) by its first true one."""
    for k in range(first, end):
        lit = lits[k]
        if (work[lit >> 1] ^ (lit & 1)) == op:
            return op
    return 1 - op


@cast(Callable[[F], F], numba.njit(cache=True, nogil=True, **_NO_NRT))
def sweep(tables: Any, state: Any, inputs: Any, work: Any) -> None:  # pragma: no cover (numba)
    """Evaluate the schedule in ``tables`` from ``state`` and ``inputs`` (bytes, bit ``i`` of the
    little-endian number for base proposition or input ``i``) into ``work``: the values of the slots,
    then the outputs' bits."""
    sizes = _section(tables, SIZES)
    bases = sizes[BASES]
    false_slot = sizes[FALSE_SLOT]
    slots = sizes[VALUE_SLOTS]
    for i in range(bases):
        work[i] = (state[i >> 3] >> (i & 7)) & 1
    for j in range(false_slot - bases):
        work[bases + j] = (inputs[j >> 3] >> (j & 7)) & 1
    work[false_slot] = 0
    op = _section(tables, OP)
    node = _section(tables, NODE)
    first = _section(tables, FIRST)
    end = _section(tables, END)
    lits = _section(tables, LITS)
    e = 0
    while e < len(op):
        if op[e] != BLOCK_OP:
            work[node[e]] = _gate(work, op[e], lits, first[e], end[e])
            e += 1
            continue
        # A cycle block: its members from false until nothing changes (the least fixpoint).
        last = e + 1 + node[e]
        for j in range(e + 1, last):
            work[node[j]] = 0
        changed = True
        while changed:
            changed = False
            for j in range(e + 1, last):
                value = _gate(work, op[j], lits, first[j], end[j])
                if work[node[j]] != value:
                    work[node[j]] = value
                    changed = True
        e = last
    outputs = _section(tables, OUTPUT_LITS)
    for b in range(slots, len(work)):
        work[b] = 0
    for k in range(len(outputs)):
        lit = outputs[k]
        if work[lit >> 1] ^ (lit & 1):
            work[slots + (k >> 3)] |= 1 << (k & 7)
