"""The numba kernel of :mod:`gdl.engines.sweep` (importing this module imports numba).

Compiled once per installation (``cache=True``); ``tables`` is the array of a
:class:`gdl.engines.sweep.Sweep`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np

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
def _gate(work: Any, op: int, lits: Any, first: int, end: int, full: Any) -> Any:
    """An and-gate (op 0) or or-gate (op 1) over values of ``full``'s type, each of its bits a lane (one
    lane, ``full`` = 1, for a single state): an and-gate is settled once no lane is left true, an or-gate
    once every lane is true."""
    none = full ^ full  # zero of full's type: numba would widen a plain 0 mixed with an unsigned word
    value = full if op == 0 else none
    for k in range(first, end):
        lit = lits[k]
        literal = work[lit >> 1] ^ (full if lit & 1 else none)
        if op == 0:
            value &= literal
            if value == none:
                break
        else:
            value |= literal
            if value == full:
                break
    return value


@_inline
def walk_schedule(tables: Any, work: Any, full: Any) -> None:
    """Evaluate the gates of the schedule in ``tables`` into ``work``, whose base propositions and inputs
    are set and whose false slot is cleared: a value per slot, each bit of ``full`` a lane (a single state
    in bytes, ``full`` = 1; 64 states at once in words of lanes)."""
    op = _section(tables, OP)
    node = _section(tables, NODE)
    first = _section(tables, FIRST)
    end = _section(tables, END)
    lits = _section(tables, LITS)
    e = 0
    while e < len(op):
        if op[e] != BLOCK_OP:
            work[node[e]] = _gate(work, op[e], lits, first[e], end[e], full)
            e += 1
            continue
        # A cycle block: its members from false until nothing changes (the least fixpoint).
        last = e + 1 + node[e]
        for j in range(e + 1, last):
            work[node[j]] = full ^ full
        changed = True
        while changed:
            changed = False
            for j in range(e + 1, last):
                value = _gate(work, op[j], lits, first[j], end[j], full)
                if work[node[j]] != value:
                    work[node[j]] = value
                    changed = True
        e = last


#: The words of lanes of a wide walk (:func:`walk_schedule_wide`): a width known when compiling lets LLVM
#: unroll the loops over a row's words, twice as fast as a width known only at run time, and a gate's
#: bookkeeping is paid once for four words of lanes.
WIDE = 4


@_inline
def _gate_wide(work: Any, dest: int, op: int, lits: Any, first: int, end: int) -> None:
    """An and-gate (op 0) or or-gate (op 1) into row ``dest`` of ``work`` over rows of :data:`WIDE`
    words of lanes."""
    every = np.uint64(0xFFFFFFFFFFFFFFFF)
    none = np.uint64(0)
    for k in range(WIDE):
        work[dest, k] = every if op == 0 else none
    for i in range(first, end):
        lit = lits[i]
        negated = every if lit & 1 else none
        source = lit >> 1
        if op == 0:
            for k in range(WIDE):
                work[dest, k] &= work[source, k] ^ negated
        else:
            for k in range(WIDE):
                work[dest, k] |= work[source, k] ^ negated


@_inline
def walk_schedule_wide(tables: Any, work: Any) -> None:
    """:func:`walk_schedule` over rows of :data:`WIDE` words of lanes (``work[slot, k]``), whose last
    row is scratch."""
    op = _section(tables, OP)
    node = _section(tables, NODE)
    first = _section(tables, FIRST)
    end = _section(tables, END)
    lits = _section(tables, LITS)
    scratch = work.shape[0] - 1
    e = 0
    while e < len(op):
        if op[e] != BLOCK_OP:
            _gate_wide(work, node[e], op[e], lits, first[e], end[e])
            e += 1
            continue
        last = e + 1 + node[e]
        for j in range(e + 1, last):
            work[node[j], :] = 0
        changed = True
        while changed:
            changed = False
            for j in range(e + 1, last):
                _gate_wide(work, scratch, op[j], lits, first[j], end[j])
                for k in range(WIDE):
                    if work[node[j], k] != work[scratch, k]:
                        work[node[j], k] = work[scratch, k]
                        changed = True
        e = last


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
    walk_schedule(tables, work, np.uint8(1))
    outputs = _section(tables, OUTPUT_LITS)
    for b in range(slots, len(work)):
        work[b] = 0
    for k in range(len(outputs)):
        lit = outputs[k]
        if work[lit >> 1] ^ (lit & 1):
            work[slots + (k >> 3)] |= 1 << (k & 7)
