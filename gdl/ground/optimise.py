"""A network optimised for play: base propositions that never change in reachable states become
constants, the constants are folded through the gates, gates made identical by the folding are merged,
and the gates no output needs any more are dropped.

Which base propositions can change is over-approximated from the initial state, with every gate
evaluated in three values (false, true, either): a base proposition is *possibly true* when it is true
initially or some state possibly reached can make its ``next`` true, and *possibly false* likewise; one
that is only ever one of the two is that constant in every reachable state (a static fact written as a
fluent, a cell no piece can reach). The inputs are always "either", and cycle blocks too (sound, if
coarse). Each node changes at most twice (from a constant to "either"), so the analysis is a worklist
over the fanout, linear in the network.

The optimised network agrees with the original in every state where the folded base propositions have
their constant values (with any moves), not in every state: base propositions keep their numbers (a
state means the same in both), and ``next`` of a constant base proposition is that constant. Such states
lead only to such states (the analysis covers every state that agrees with the constants, whatever the
other base propositions and the inputs), and the reachable ones are among them; the native kernels run
the optimised network in them, and the original in any other state handed in
(:mod:`gdl.engines.folding`).
"""

from __future__ import annotations

from collections.abc import Sequence

from gdl.ground.propnet import FALSE, TRUE, Gate, PropNet, _Builder, _prune

#: Three values, as the set of the truth values a node may take: bit 0 for false, bit 1 for true.
MAY_FALSE, MAY_TRUE, EITHER = 1, 2, 3


def possible_values(net: PropNet) -> list[int]:
    """The values each node may take in the reachable states (:data:`MAY_FALSE`, :data:`MAY_TRUE` or
    :data:`EITHER`), over-approximated (see the module doc)."""
    first_gate, size = net.first_gate, net.size
    value = [MAY_TRUE if b in net.init else MAY_FALSE for b in range(net.first_input)]
    value += [EITHER] * (first_gate - net.first_input)
    value += [0] * len(net.kinds)
    readers: list[list[int]] = [[] for _ in range(size)]
    for gate, args in enumerate(net.args):
        for arg in args:
            if arg >= 0:
                readers[arg].append(first_gate + gate)
    # ``next`` of base proposition b is read by b.
    next_of: list[list[int]] = [[] for _ in range(size)]
    for b, node in enumerate(net.next):
        if node >= 0:
            next_of[node].append(b)
    for node in range(first_gate, size):
        value[node] = EITHER if node in net.block_of else _gate_value(net, node, value)
    for b, node in enumerate(net.next):
        value[b] |= _constant_value(node) if node < 0 else value[node]
    pending = [node for node in range(net.first_input) if value[node] == EITHER]
    while pending:
        node = pending.pop()
        for reader in readers[node]:
            if reader in net.block_of:
                continue
            widened = value[reader] | _gate_value(net, reader, value)
            if widened != value[reader]:
                value[reader] = widened
                pending.append(reader)
        for b in next_of[node]:
            widened = value[b] | value[node]
            if widened != value[b]:
                value[b] = widened
                pending.append(b)
    return value


def _constant_value(node: int) -> int:
    return MAY_TRUE if node == TRUE else MAY_FALSE


def _gate_value(net: PropNet, node: int, value: Sequence[int]) -> int:
    gate = node - net.first_gate
    read = [_constant_value(a) if a < 0 else value[a] for a in net.args[gate]]
    kind = net.kinds[gate]
    if kind is Gate.NOT:
        return ((read[0] & MAY_FALSE) << 1) | ((read[0] & MAY_TRUE) >> 1)
    # Before a node's first evaluation its value is 0 (nothing yet): it makes no gate more definite.
    may_true = all(r & MAY_TRUE for r in read) if kind is Gate.AND else any(r & MAY_TRUE for r in read)
    may_false = any(r & MAY_FALSE for r in read) if kind is Gate.AND else all(r & MAY_FALSE for r in read)
    return (MAY_TRUE if may_true else 0) | (MAY_FALSE if may_false else 0)


def constants(net: PropNet) -> dict[int, bool]:
    """The base propositions :func:`optimise` folds, and their values (none in a network with cycle
    blocks)."""
    if net.cycles:
        return {}
    value = possible_values(net)
    return {b: value[b] == MAY_TRUE for b in range(net.first_input) if value[b] != EITHER}


def optimise(net: PropNet) -> PropNet:
    """The network optimised (see the module doc); a network with cycle blocks is left as it is."""
    folded = constants(net)
    if not folded:
        return net
    role_of_input = {net.first_input + j: role for j, (role, _) in enumerate(net.moves)}
    inputs_of_role = [
        frozenset(n for n, r in role_of_input.items() if r == role) for role in range(len(net.roles))
    ]
    builder = _Builder(net.first_gate, role_of_input, inputs_of_role)
    new: list[int] = [
        b if b not in folded else TRUE if folded[b] else FALSE for b in range(net.first_input)
    ]
    new += range(net.first_input, net.first_gate)
    for kind, args in zip(net.kinds, net.args, strict=True):
        mapped = [a if a < 0 else new[a] for a in args]
        if kind is Gate.NOT:
            new.append(builder.negate(mapped[0]))
        elif kind is Gate.AND:
            new.append(builder.conjoin(mapped))
        else:
            new.append(builder.disjoin(mapped))

    def output(node: int) -> int:
        return node if node < 0 else new[node]

    next_nodes = [output(node) if b not in folded else new[b] for b, node in enumerate(net.next)]
    return _prune(
        net.roles,
        net.fluents,
        net.moves,
        builder,
        [],
        next_nodes,
        [[(m, output(n)) for m, n in entries] for entries in net.legal],
        [[(v, output(n)) for v, n in entries] for entries in net.goals],
        output(net.terminal),
        net.init,
        [[(p, output(n)) for p, n in entries] for entries in net.sees],
    )
