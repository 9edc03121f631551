"""A network optimised for play: base propositions that never change in reachable states become
constants, the constants are folded through the gates, gates made identical by the folding are merged,
and the gates no output needs any more are dropped.

Which base propositions can change is over-approximated from the initial state, with every gate
evaluated in three values (false, true, either): a base proposition is *possibly true* when it is true
initially or some state possibly reached can make its ``next`` true, and *possibly false* likewise; one
that is only ever one of the two is that constant in every reachable state (a static fact written as a
fluent, a cell no piece can reach). The inputs are always "either", and cycle blocks too (sound, if
coarse). Each node changes at most twice (from a constant to "either"), so the analysis is a worklist
over the fanout, linear in the network (:func:`possible_values`).

The optimised network agrees with the original in every state where the folded base propositions have
their constant values (with any moves), not in every state: base propositions keep their numbers (a
state means the same in both), and ``next`` of a constant base proposition is that constant. Such states
lead only to such states (the analysis covers every state that agrees with the constants, whatever the
other base propositions and the inputs), and the reachable ones are among them; the native kernels run
the optimised network in them, and the original in any other state handed in
(:mod:`gdl.engines.folding`).
"""

from __future__ import annotations

from gdl.ground.propnet import FALSE, TRUE, Gate, PropNet, _Builder, _prune

#: Three values, as the set of the truth values a node may take: bit 0 for false, bit 1 for true.
MAY_FALSE, MAY_TRUE, EITHER = 1, 2, 3


def possible_values(net: PropNet, folding: bool = False) -> list[int]:
    """The values each node may take in the reachable states (:data:`MAY_FALSE`, :data:`MAY_TRUE` or
    :data:`EITHER`), over-approximated (see the module doc).

    Values only grow, a bit at a time, and each gate counts the inputs still missing a bit it needs (an
    and is possibly true once all its inputs are, an or possibly false likewise), so each bit of each
    gate input is handled once: linear in the network, however wide its gates. With ``folding``, stops
    as soon as every base proposition may take both values (the gates' values are then incomplete)."""
    first_gate, size = net.first_gate, net.size
    kinds, block_of = net.kinds, net.block_of
    value = [0] * size
    readers: list[list[int]] = [[] for _ in range(size)]
    missing = [len(args) for args in net.args]
    # ``next`` of base proposition b is read by b.
    next_of: list[list[int]] = [[] for _ in range(size)]
    for b, node in enumerate(net.next):
        if node >= 0:
            next_of[node].append(b)
    pending: list[tuple[int, int]] = []
    first_input = net.first_input
    #: Base propositions that may still be constant.
    constant = [first_input]

    def add(node: int, bits: int) -> None:
        new = bits & ~value[node]
        if new:
            value[node] |= new
            pending.append((node, new))
            if node < first_input and value[node] == EITHER:
                constant[0] -= 1

    def feed(node: int, bits: int) -> None:
        """An input of gate ``node`` may now take ``bits`` too."""
        gate = node - first_gate
        kind = kinds[gate]
        if kind is Gate.NOT:
            add(node, (bits & MAY_FALSE) << 1 | (bits & MAY_TRUE) >> 1)
            return
        # An and is decided by a false input (an or by a true one), and needs all inputs to be the other.
        deciding = MAY_FALSE if kind is Gate.AND else MAY_TRUE
        if bits & deciding:
            add(node, deciding)
        if bits & ~deciding:
            missing[gate] -= 1
            if not missing[gate]:
                add(node, EITHER & ~deciding)

    for b in range(net.first_input):
        add(b, MAY_TRUE if b in net.init else MAY_FALSE)
    for node in range(net.first_input, first_gate):
        add(node, EITHER)
    for b, node in enumerate(net.next):
        if node < 0:
            add(b, _constant_value(node))
    for gate, args in enumerate(net.args):
        node = first_gate + gate
        if node in block_of:
            add(node, EITHER)
            continue
        for arg in args:
            if arg >= 0:
                readers[arg].append(node)
            else:
                feed(node, _constant_value(arg))
        if not args:  # and() is true, or() false
            add(node, MAY_TRUE if kinds[gate] is Gate.AND else MAY_FALSE)
    while pending and not (folding and not constant[0]):
        node, bits = pending.pop()
        for reader in readers[node]:
            feed(reader, bits)
        for b in next_of[node]:
            add(b, bits)
    return value


def _constant_value(node: int) -> int:
    return MAY_TRUE if node == TRUE else MAY_FALSE


def constants(net: PropNet) -> dict[int, bool]:
    """The base propositions :func:`optimise` folds, and their values (none in a network with cycle
    blocks)."""
    if net.cycles:
        return {}
    value = possible_values(net, folding=True)
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
