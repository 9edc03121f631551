"""The network the native kernels run: gates constant in every state removed, identical gates merged.

Sound in *every* state, not only reachable ones (the kernels accept any state handed in): the rules
below hold for every assignment of the base propositions, and, for the inputs, whenever each role plays
at most one move (the kernels set one move per role to read ``next``, and none to read the rest):

- ``and(x, not(x), ...)`` is false and ``or(x, not(x), ...)`` true;
- an ``and`` over two different moves of one role is false;
- absorption: ``and(a, or(a, b), ...)`` is ``and(a, ...)``, and ``or(a, and(a, b), ...)`` is
  ``or(a, ...)``;
- then the builder's own rules (constants folded, one gate per kind and inputs, a disjunction of most of
  one role's moves written as the negation of the rest), and the gates no output reads dropped.

Each round may make gates identical that were not (their inputs merged), so rounds repeat until the
network stops shrinking. Cycle blocks are copied as they are (their members are not merged).

What the builder leaves (it already folds constants and shares identical gates) is little: nothing on
the seven benchmark games; absorption in englishdraughts (144 of 8,108 gate inputs, 14% of the
fanout entries a step visits) and chess_200 (1,336 of 67,962 gates). Gates numbered in breadth-first
order of the fanout, for locality, were measured and left out (docs/performance.md: no gain, even on
atarigo_7x7's 141,542 gates).

The base propositions and inputs keep their numbers, so a state means the same in both networks.
Folding what is constant only in *reachable* states (:mod:`gdl.ground.optimise`) is not done here: the
kernels are handed states from outside (``from_fluents``), where such a proposition may hold either
value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gdl.budget import checkpoint
from gdl.ground.propnet import FALSE, TRUE, Gate, PropNet, _Builder, _prune

#: Rounds at most (each one is linear in the network; englishdraughts settles in two).
MAX_ROUNDS = 8

#: The largest network the kernels' build simplifies (and folds, :mod:`gdl.engines.folding`). The
#: analyses cost a few hundredths of a CPU-second below it (checkers' 6,285 nodes: 0.06 s) but whole
#: seconds above (chess_200's 76,581: 1.7 s; atarigo_7x7's 144,143: 1.8 s), which pushed both past
#: ``engine="auto"``'s budget for the compiled build, for no measured gain on either.
KERNEL_MAX_NODES = 20_000


class _Gates(Protocol):
    """The gates being read: a network's, or those a :class:`_Builder` is making."""

    @property
    def first_gate(self) -> int: ...
    @property
    def kinds(self) -> Sequence[Gate]: ...
    @property
    def args(self) -> Sequence[tuple[int, ...]]: ...
    @property
    def role_of_input(self) -> dict[int, int]: ...


class _Net:
    """A network's gates, as :class:`_Gates`."""

    def __init__(self, net: PropNet) -> None:
        self.first_gate, self.kinds, self.args = net.first_gate, net.kinds, net.args
        self.role_of_input = {net.first_input + j: role for j, (role, _) in enumerate(net.moves)}


def for_kernels(net: PropNet) -> PropNet:
    """The network the kernels run: :func:`simplify` of it, up to :data:`KERNEL_MAX_NODES` nodes."""
    return simplify(net) if net.size <= KERNEL_MAX_NODES else net


def simplify(net: PropNet) -> PropNet:
    """The network with constant and identical gates removed, to a fixpoint (see the module doc)."""
    if not _applies(net):
        return net  # the usual case, found at a fraction of a round's cost
    for _ in range(MAX_ROUNDS):
        smaller = _round(net)
        if len(smaller.kinds) >= len(net.kinds) and sum(map(len, smaller.args)) >= sum(map(len, net.args)):
            return net
        net = smaller
    return net


def _applies(net: PropNet) -> bool:
    """Whether a rule of the module doc applies to a gate of ``net`` (outside cycle blocks)."""
    gates = _Net(net)
    block_of = net.block_of
    for gate, (kind, args) in enumerate(zip(net.kinds, net.args, strict=True)):
        if not gate & 0xFFFF:
            checkpoint()
        if kind is Gate.NOT or net.first_gate + gate in block_of:
            continue
        kept = _and_args(gates, list(args)) if kind is Gate.AND else _or_args(gates, list(args))
        if kept != sorted(set(args)):
            return True
    return False


def _round(net: PropNet) -> PropNet:
    role_of_input = {net.first_input + j: role for j, (role, _) in enumerate(net.moves)}
    inputs_of_role = [
        frozenset(n for n, r in role_of_input.items() if r == role) for role in range(len(net.roles))
    ]
    builder = _Builder(net.first_gate, role_of_input, inputs_of_role)
    first_gate = net.first_gate
    new: list[int] = list(range(first_gate))
    cycles: list[tuple[int, int]] = []
    block_start = {start: end for start, end in net.cycles}
    gate = 0
    while gate < len(net.kinds):
        if not gate & 0xFFFF:
            checkpoint()
        node = first_gate + gate
        end = block_start.get(node)
        if end is not None:
            # A cycle block: members reserved first (they read one another), then their inputs mapped.
            start = first_gate + len(builder.kinds)
            new.extend(builder.placeholder() for _ in range(node, end))
            for member in range(node, end):
                copy = new[member] - first_gate
                builder.kinds[copy] = net.kinds[member - first_gate]
                builder.args[copy] = tuple(_mapped(new, a) for a in net.args[member - first_gate])
            cycles.append((start, first_gate + len(builder.kinds)))
            gate = end - first_gate
            continue
        kind, args = net.kinds[gate], [_mapped(new, a) for a in net.args[gate]]
        if kind is Gate.NOT:
            new.append(builder.negate(args[0]))
        elif kind is Gate.AND:
            new.append(builder.conjoin(_and_args(builder, args)))
        else:
            new.append(builder.disjoin(_or_args(builder, args)))
        gate += 1

    def output(node: int) -> int:
        return _mapped(new, node)

    return _prune(
        net.roles,
        net.fluents,
        net.moves,
        builder,
        cycles,
        [output(n) for n in net.next],
        [[(m, output(n)) for m, n in entries] for entries in net.legal],
        [[(v, output(n)) for v, n in entries] for entries in net.goals],
        output(net.terminal),
        net.init,
        [[(p, output(n)) for p, n in entries] for entries in net.sees],
    )


def _mapped(new: list[int], node: int) -> int:
    return node if node < 0 else new[node]


def _negation(builder: _Gates, node: int) -> int | None:
    """The node ``node`` negates, when it is a not-gate."""
    if node >= builder.first_gate and builder.kinds[node - builder.first_gate] is Gate.NOT:
        return builder.args[node - builder.first_gate][0]
    return None


def _absorbed(builder: _Gates, args: set[int], kind: Gate) -> set[int]:
    """The gates of ``kind`` among ``args`` that read another of ``args`` (absorption)."""
    first_gate = builder.first_gate
    return {
        a
        for a in args
        if a >= first_gate
        and builder.kinds[a - first_gate] is kind
        and any(b in args for b in builder.args[a - first_gate])
    }


def _and_args(builder: _Gates, args: list[int]) -> list[int]:
    found = set(args)
    if any(_negation(builder, a) in found for a in found):
        return [FALSE]
    roles = [builder.role_of_input[a] for a in found if a in builder.role_of_input]
    if len(roles) != len(set(roles)):
        return [FALSE]
    return sorted(found - _absorbed(builder, found, Gate.OR))


def _or_args(builder: _Gates, args: list[int]) -> list[int]:
    found = set(args)
    if any(_negation(builder, a) in found for a in found):
        return [TRUE]
    return sorted(found - _absorbed(builder, found, Gate.AND))
