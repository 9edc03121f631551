"""Outputs of a propositional network evaluated from tables, by one native sweep over its gates.

The compiled engine (:mod:`gdl.engines.compiled`) writes Python code for a question about a state, which
is fast to run on a small network but costs as much to write and ``compile()`` as instantiating the game
on a large one (about 10 microseconds per gate input: kalaha's successor reads 1.5 million). For a large
network it asks a :class:`Sweep` instead: the gates the outputs need, in the network's evaluation order,
as the flat schedule the playout kernels use (:mod:`gdl.engines.schedule`: not-gates folded into the
literals that read them, cycle blocks evaluated from false until nothing changes), which a numba kernel
(:mod:`gdl.engines.sweep_kernel`) evaluates gate by gate, an and-gate decided by its first false literal
and an or-gate by its first true one. Building the tables is a pass over the gates, with no code to write
or compile; the kernel is compiled once per installation (:mod:`gdl.engines.warm`) and loaded when a
sweep is built.

The nodes are renumbered into slots so that the values of a sweep fit the gates it evaluates: base
propositions and inputs keep their numbers, the constant false comes next, then the gates of the cone.
A sweep keeps no state between calls (its working memory is allocated per call), so it is reentrant.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from gdl.budget import checkpoint
from gdl.engines.schedule import BLOCK_OP, Schedule, folded_literal
from gdl.engines.sweep_layout import SECTIONS
from gdl.errors import GameTooLargeError
from gdl.ground.propnet import PropNet


@cache
def loaded_kernel() -> Any:
    """The kernel, run once on empty tables, so that numba is imported and the kernel loaded from its
    cache (half a CPU-second in a new process) when a sweep is built, as part of loading a game, rather
    than in its first question, which may be inside a clock."""
    from gdl.engines.sweep_kernel import sweep

    sizes = [0, 0, 1]  # no base proposition, no input, one slot (false)
    offsets = [SECTIONS + 1, *[SECTIONS + 1 + len(sizes)] * SECTIONS]  # every section but SIZES empty
    tables = np.asarray([*offsets, *sizes], dtype=np.int32)
    empty = np.frombuffer(b"", dtype=np.uint8)
    sweep(tables, empty, empty, np.empty(1, dtype=np.uint8))
    return sweep


class Sweep:
    """The outputs of a network, as the bits of an int, from a state and the inputs (see the module doc)."""

    def __init__(self, net: PropNet, outputs: Sequence[int], cone: Sequence[int] | None = None) -> None:
        """``outputs`` are nodes or the constants; ``cone`` is ``net.cone(outputs)`` when known."""
        if cone is None:
            cone = net.cone(outputs)
        schedule = Schedule(net)
        schedule.add_gates(cone)
        checkpoint()
        first_gate = net.first_gate
        slot = np.full(net.size + 1, -1, dtype=np.int64)
        slot[:first_gate] = np.arange(first_gate)
        slot[net.size] = first_gate
        slot[np.asarray(cone, dtype=np.int64)] = np.arange(first_gate + 1, first_gate + 1 + len(cone))
        ops, nodes, firsts, ends, lits = (np.asarray(c, dtype=np.int64) for c in schedule.columns())
        # A block entry's node field counts its members: it is not a node.
        gates = ops != BLOCK_OP
        nodes[gates] = slot[nodes[gates]]

        def slotted(literals: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
            found: npt.NDArray[np.int64] = 2 * slot[literals >> 1] + (literals & 1)
            return found

        output_lits = np.asarray([folded_literal(net, node) for node in outputs], dtype=np.int64)
        self._slots = first_gate + 1 + len(cone)
        sections = [
            np.asarray([len(net.fluents), first_gate, self._slots]), ops, nodes, firsts, ends,
            slotted(lits), slotted(output_lits),
        ]
        offsets = np.cumsum([SECTIONS + 1, *(len(s) for s in sections)])
        if offsets[-1] >= 2**31 or 2 * self._slots >= 2**31:
            raise GameTooLargeError(f"network too large for a sweep ({offsets[-1]} words)")
        #: The tables the kernel reads.
        self.tables = np.concatenate([offsets, *sections]).astype(np.int32)
        self._work = self._slots + (len(outputs) + 7) // 8
        self._state_bytes = (len(net.fluents) + 7) // 8
        self._input_bytes = (len(net.moves) + 7) // 8
        self._kernel = loaded_kernel()

    def __call__(self, state: int, inputs: int = 0) -> int:
        """The int with bit ``k`` set when output ``k`` holds in ``state`` (bit ``i`` for base
        proposition ``i``) with ``inputs`` (bit ``j`` for input ``j``)."""
        work = np.empty(self._work, dtype=np.uint8)
        self._kernel(
            self.tables,
            np.frombuffer(state.to_bytes(self._state_bytes, "little"), dtype=np.uint8),
            np.frombuffer(inputs.to_bytes(self._input_bytes, "little"), dtype=np.uint8),
            work,
        )
        return int.from_bytes(work[self._slots :].tobytes(), "little")
