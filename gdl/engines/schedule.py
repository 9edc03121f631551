"""The flat schedule of gates that both native kernels (:mod:`gdl.engines.native`, the single-state one,
and :mod:`gdl.engines.batched`) evaluate.

Not-gates disappear into the literals that read them (``2 * node + negated``; the constants become the
extra node ``net.size``, false, or its negation). Every other gate is an entry ``(op, gate, first
literal, end literal)`` over one shared list of literals, in the network's evaluation order; a cycle
block is an entry of op :data:`BLOCK_OP` whose ``gate`` counts the member entries that follow it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from gdl.ground.propnet import FALSE, TRUE, Gate, PropNet

#: Schedule entries: an and-gate, an or-gate, a cycle block (its members follow it).
AND_OP, OR_OP, BLOCK_OP = 0, 1, 2
#: The single-state kernel's threshold gates (:mod:`gdl.engines.thresholds`): an entry of op
#: ``AT_LEAST_OP + k`` holds when at least ``k`` of its literals do (never in a cycle block).
AT_LEAST_OP = 3


def folded_literal(net: PropNet, node: int) -> int:
    """The literal of ``node``, its not-gates folded in: ``2 * node + negated``."""
    first_gate = net.first_gate
    negated = 0
    while node >= first_gate and net.kinds[node - first_gate] is Gate.NOT:
        node = net.args[node - first_gate][0]
        negated ^= 1
    if node in (FALSE, TRUE):
        negated ^= node == TRUE
        node = net.size
    return 2 * node + negated


@dataclass
class Schedule:
    """Entries being written: ``ops[e]``, ``gates[e]`` and the literals ``lits[firsts[e]:ends[e]]``."""

    net: PropNet
    ops: list[int] = field(default_factory=list)
    gates: list[int] = field(default_factory=list)
    firsts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    lits: list[int] = field(default_factory=list)

    def add_gates(self, nodes: Iterable[int], node_block: list[int] | None = None) -> None:
        """Entries for the network's gates ``nodes`` (in evaluation order, whole cycle blocks);
        ``node_block``, when given, gets the entry of each member's cycle block."""
        net = self.net
        # Literals are 2 * node except for not-gates and the constants: those are looked up (a call of
        # folded_literal per gate input made this a second on kalaha's 1.5 million).
        first_gate = net.first_gate
        folded = {node: folded_literal(net, node) for node in (FALSE, TRUE)}
        for gate, kind in enumerate(net.kinds):
            if kind is Gate.NOT:
                folded[first_gate + gate] = folded_literal(net, first_gate + gate)
        block_entry = -1
        for node in nodes:
            block = net.block_of.get(node)
            if block is not None and node == block[0]:
                block_entry = len(self.ops)
                self.ops.append(BLOCK_OP)
                self.gates.append(0)
                self.firsts.append(0)
                self.ends.append(0)
            kind = net.kinds[node - net.first_gate]
            if kind is Gate.NOT:
                continue
            if block is not None:
                self.gates[block_entry] += 1
                if node_block is not None:
                    node_block[node] = block_entry
            args = net.args[node - net.first_gate]
            lits = [folded[a] if a in folded else 2 * a for a in args]
            self.add(AND_OP if kind is Gate.AND else OR_OP, node, lits)

    def columns(self) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
        """``ops``, ``gates``, ``firsts``, ``ends`` and ``lits``."""
        return self.ops, self.gates, self.firsts, self.ends, self.lits

    def add(self, op: int, gate: int, lits: Iterable[int]) -> None:
        """One entry."""
        self.ops.append(op)
        self.gates.append(gate)
        self.firsts.append(len(self.lits))
        self.lits.extend(lits)
        self.ends.append(len(self.lits))
