"""Random playouts (depth charges) of a propositional network in native code compiled by numba.

The network is flattened into one ``int32`` array (:class:`Kernel`). Not-gates disappear into the
literals that read them (``2 * node + negated``); every other gate is a schedule entry ``(op, node,
first literal, end literal)`` over a shared array of literals, in the network's evaluation order. A
cycle block is an entry (op 2) followed by its members, which are reset to false and swept in order
until nothing changes (the least fixpoint). Each node also has its fanout: the gates that read it.

The kernel, :func:`gdl.engines.kernel.depth_charge`, evaluates the first state gate by gate, then plays:
stop at a terminal state; choose each role's move uniformly among its legal outputs (xorshift64*, seeded
by the caller); set the inputs; read the ``next`` outputs; take the inputs back and flip the base
propositions that change. Changes propagate differentially, as in ggp-base and Sancho: every gate keeps
the count of its true literals and only the gates whose count crosses their threshold change in turn; a
cycle block (where counts would be unsound: a positive cycle could keep itself true) that a change
reaches is evaluated again as a whole. A move changes a few base propositions, so a step costs the
gates they reach, not the network. The kernels are compiled once per installation (numba's
``cache=True``); numba is imported on the first playout, so that commands which never play out do not
pay for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from gdl.ground import FALSE, TRUE, Gate, PropNet

Ints = npt.NDArray[np.int32]

#: Schedule entries: an and-gate, an or-gate, a cycle block (its members follow it).
AND_OP, OR_OP, BLOCK_OP = 0, 1, 2
#: Sections of the flattened network, in the order of :attr:`Kernel.layout`.
(
    OP, NODE, FIRST, END, LITS, LEGAL_LITS, LEGAL_INPUTS, LEGAL_STARTS, GOAL_LITS, GOAL_STARTS,
    NEXT_LITS, NODE_OP, NODE_ARGS, NODE_BLOCK, FANOUT_STARTS, FANOUT,
) = range(16)
#: Kernel outcomes.
TERMINAL, NO_LEGAL_MOVE, DEPTH_LIMIT = 0, 1, 2


class Walk(NamedTuple):
    """How a depth charge ended: the last state (bit ``i`` for base proposition ``i``), the joint moves
    made, the outcome, and each role's goal output that holds (-1 unless exactly one holds)."""

    state: int
    depth: int
    outcome: int
    goals: tuple[int, ...]


@dataclass(frozen=True)
class Kernel:
    """A network flattened for the kernel; ``code[layout[k]:layout[k + 1]]`` is section ``k``."""

    code: Ints
    layout: npt.NDArray[np.int64]
    bases: int
    #: Nodes of the network plus the constant false node.
    nodes: int
    roles: int
    legal_outputs: int

    def playout(self, state: int, seed: int, max_depth: int) -> Walk:
        """A random walk from ``state`` until a terminal state, a role without a legal move or
        ``max_depth`` joint moves; ``seed`` (0 <= seed < 2**63) seeds the kernel's generator."""
        return self._walk(state, seed, max_depth, _NO_TRACE)

    def trace(self, state: int, seed: int, max_depth: int) -> tuple[Walk, Ints]:
        """A playout and its trace: row ``t`` holds the base values of the ``t``-th state, the values of
        all legal outputs in it, and the index of the legal output each role chose (-1 past the end)."""
        rows = np.full((max_depth + 1, self.bases + self.legal_outputs + self.roles), -1, dtype=np.int32)
        return self._walk(state, seed, max_depth, rows), rows

    def _walk(self, state: int, seed: int, max_depth: int, trace: Ints) -> Walk:
        size = (self.bases + 7) // 8
        packed = np.frombuffer(state.to_bytes(size, "little"), dtype=np.uint8).copy()
        goals = np.empty(self.roles, dtype=np.int32)
        kernel = _depth_charge()
        outcome, depth = kernel(self.code, self.layout, self.nodes, packed, seed, max_depth, trace, goals)
        last = int.from_bytes(packed.tobytes(), "little")
        return Walk(last, int(depth), int(outcome), tuple(goals.tolist()))


_NO_TRACE = np.empty((0, 0), dtype=np.int32)


def flatten(net: PropNet) -> Kernel:
    """The kernel data of a network."""
    first_gate = net.first_gate
    false_node = net.size

    def literal(node: int) -> int:
        negated = 0
        while node >= first_gate and net.kinds[node - first_gate] is Gate.NOT:
            node = net.args[node - first_gate][0]
            negated ^= 1
        if node in (FALSE, TRUE):
            negated ^= node == TRUE
            node = false_node
        return 2 * node + negated

    ops: list[int] = []
    nodes: list[int] = []
    firsts: list[int] = []
    ends: list[int] = []
    # The terminal literal leads the literals so that the kernel finds it at a known place.
    lits: list[int] = [literal(net.terminal)]
    #: Per node: its gate's op and number of literals, and the schedule entry of its cycle block (or -1).
    node_op = [0] * (net.size + 1)
    node_args = [0] * (net.size + 1)
    node_block = [-1] * (net.size + 1)
    block_entry = -1
    for node in net.cone(net.outputs()):
        block = net.block_of.get(node)
        if block is not None and node == block[0]:
            block_entry = len(ops)
            ops.append(BLOCK_OP)
            nodes.append(0)
            firsts.append(0)
            ends.append(0)
        kind = net.kinds[node - first_gate]
        if kind is Gate.NOT:
            continue
        if block is not None:
            nodes[block_entry] += 1
            node_block[node] = block_entry
        ops.append(AND_OP if kind is Gate.AND else OR_OP)
        nodes.append(node)
        firsts.append(len(lits))
        lits.extend(literal(arg) for arg in net.args[node - first_gate])
        ends.append(len(lits))
        node_op[node] = ops[-1]
        node_args[node] = ends[-1] - firsts[-1]
    # Fanout: the gates that read each node, as literals 2 * gate + negated; a change inside a cycle block
    # is not propagated within it (the block is evaluated as a whole).
    readers: list[list[int]] = [[] for _ in range(net.size + 1)]
    for entry, op in enumerate(ops):
        if op == BLOCK_OP:
            continue
        gate = nodes[entry]
        for lit in lits[firsts[entry] : ends[entry]]:
            source = lit >> 1
            if source != false_node and (node_block[gate] < 0 or node_block[source] != node_block[gate]):
                readers[source].append(2 * gate + (lit & 1))
    legal_nodes = [node for entries in net.legal for _, node in entries]
    goal_nodes = [node for entries in net.goals for _, node in entries]
    input_of = {move: net.first_input + j for j, move in enumerate(net.moves)}
    legal_inputs = [input_of[(role, move)] for role, entries in enumerate(net.legal) for move, _ in entries]
    sections = [
        ops, nodes, firsts, ends, lits,
        [literal(node) for node in legal_nodes], legal_inputs, _starts(len(e) for e in net.legal),
        [literal(node) for node in goal_nodes], _starts(len(e) for e in net.goals),
        [literal(node) for node in net.next], node_op, node_args, node_block,
        _starts(len(r) for r in readers), [lit for r in readers for lit in r],
    ]
    layout = np.zeros(len(sections) + 1, dtype=np.int64)
    layout[1:] = np.cumsum([len(s) for s in sections])
    code = np.fromiter((x for section in sections for x in section), dtype=np.int32, count=int(layout[-1]))
    return Kernel(
        code=code,
        layout=layout,
        bases=len(net.fluents),
        nodes=net.size + 1,
        roles=len(net.roles),
        legal_outputs=len(legal_nodes),
    )


def _starts(lengths: Iterable[int]) -> list[int]:
    """Offsets of consecutive runs of the given lengths, and the end of the last."""
    starts = [0]
    for length in lengths:
        starts.append(starts[-1] + length)
    return starts




def _depth_charge() -> Any:
    """The compiled kernel (importing numba and loading or compiling the kernel on first use)."""
    from gdl.engines.kernel import depth_charge

    return depth_charge
