"""Latches: base propositions that, once true, stay true (or once false, stay false), proved from the
network alone, so in every state and for every move (not only in reachable states).

A base proposition ``b`` *stays true* when ``next(b)`` is true in every state where ``b`` is: evaluate
the network in three values with ``b`` true and every other base proposition and input unknown; if
``next(b)`` comes out true, no state and no moves can make it false (three-valued evaluation is sound
for every assignment it abstracts). Likewise *stays false*. Tic-tac-toe's marks stay true (``next(cell
m n x)`` reads ``true(cell m n x)`` in a disjunction); a cell's ``b`` (blank) stays false.

Only the nodes ``b`` makes definite are evaluated (the rest stay unknown), in the network's order, and a
cycle block's members stay unknown (sound, if coarse); each base proposition's propagation is bounded
(:data:`MAX_VISITS`), past which it is not called a latch.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from gdl.budget import checkpoint
from gdl.ground.propnet import FALSE, TRUE, Gate, PropNet

#: Nodes evaluated at most per base proposition and value.
MAX_VISITS = 20_000


@dataclass(frozen=True)
class Latches:
    """The base propositions (by number) that once true stay true, and once false stay false."""

    stays_true: frozenset[int]
    stays_false: frozenset[int]


def find_latches(net: PropNet) -> Latches:
    """The latches of ``net`` (see the module doc)."""
    readers: list[list[int]] = [[] for _ in range(net.size)]
    for gate, args in enumerate(net.args):
        node = net.first_gate + gate
        if node in net.block_of:
            continue
        for arg in args:
            if arg >= 0:
                readers[arg].append(node)
    found: tuple[set[int], set[int]] = (set(), set())
    for b, next_node in enumerate(net.next):
        if not b & 255:
            checkpoint()
        for value in (True, False):
            if next_node < 0:
                holds = (next_node == TRUE) == value
            else:
                holds = _implied(net, readers, b, value, next_node)
            if holds:
                found[0 if value else 1].add(b)
    return Latches(frozenset(found[0]), frozenset(found[1]))


def _implied(net: PropNet, readers: list[list[int]], base: int, value: bool, target: int) -> bool:
    """Whether ``target`` has ``value`` in every state where ``base`` has it (three-valued)."""
    if target == base:
        return True
    known: dict[int, bool] = {base: value}
    pending = [base]
    queued = {base}
    visits = 0
    first_gate = net.first_gate
    while pending:
        node = heapq.heappop(pending)
        if node >= first_gate:
            visits += 1
            if visits > MAX_VISITS:
                return False
            result = _gate(net, node, known)
            if result is None:
                continue
            known[node] = result
            if node == target:
                return result == value
        for reader in readers[node]:
            if reader not in queued:
                queued.add(reader)
                heapq.heappush(pending, reader)
    return False


def _gate(net: PropNet, node: int, known: dict[int, bool]) -> bool | None:
    """A gate's value from the known values of its inputs, or None when unknown."""
    kind, args = net.kinds[node - net.first_gate], net.args[node - net.first_gate]
    read = [(a == TRUE) if a in (FALSE, TRUE) else known.get(a) for a in args]
    if kind is Gate.NOT:
        return None if read[0] is None else not read[0]
    decisive = kind is Gate.OR  # an or is decided by a true input, an and by a false one
    if decisive in read:
        return decisive
    return None if None in read else not decisive
