"""Factors: independent sub-games of a network, and the network of one of them played alone.

A game factors where its base propositions and moves fall into groups that never read one another:
two boards of connect four played at once (connectfoursimultaneous.kif), where each role drops on one
board while the other drops on the other. The *shared* base propositions are those whose ``next``
reads no move and only shared ones (whose turn it is on a board, a step counter, a constant): they run
the same whatever is played. Every other base proposition is joined with the base propositions and
moves its ``next`` reads, and every move with the base propositions its ``legal`` reads, leaving the
shared ones out; a group with a base proposition is a factor. The goals and ``terminal`` are left out
too: they may read every factor (the first line on either board ends the game), and a factor's search
reads them with the other factors as they start.

:func:`restrict` makes the network of one factor played alone (as Sancho searches a factor): the other
factors' base propositions keep their initial values, a role's moves outside the factor are replaced
by one of them, legal exactly when the role has no move inside (a pass: it changes nothing the factor
reads), and the game also ends where no role has a move inside. Its states are the game's states with
the other factors at their initial values (:meth:`Factoring.project`), so a factor's search finds its
positions again however the other factors went on.
"""

from __future__ import annotations

from dataclasses import dataclass

from gdl.budget import checkpoint
from gdl.ground.grounding import Value
from gdl.ground.propnet import FALSE, TRUE, Gate, PropNet

#: Gate visits at most over the whole analysis (it gives up on a network past it).
MAX_VISITS = 500_000
#: The most factors a game is split into: more are likelier an artefact of goals that couple them
#: (which the analysis leaves out) than sub-games, and each would get a tree of its own (Sancho: 16).
MAX_FACTORS = 8


@dataclass(frozen=True)
class Factor:
    """One independent sub-game: its base propositions and its inputs (by node number)."""

    bases: frozenset[int]
    inputs: frozenset[int]


@dataclass(frozen=True)
class Factoring:
    """A network's factors (two or more), and the base propositions they share."""

    factors: tuple[Factor, ...]
    shared: frozenset[int]
    #: The initial state as bits (bit ``b`` for base proposition ``b``).
    init: int

    def factor_of(self, input_node: int) -> int | None:
        """The index of the factor whose input ``input_node`` is, or None (a move no factor reads)."""
        for index, factor in enumerate(self.factors):
            if input_node in factor.inputs:
                return index
        return None

    def between_roles(self, net: PropNet) -> bool:
        """Whether two roles or more move in every factor. A factor where one role alone moves is its
        private choice, which only the goals may link to the others' (a guessing game): played alone,
        with theirs as they start, its goals say little."""
        return all(
            len({net.moves[node - net.first_input][0] for node in each.inputs}) >= 2 for each in self.factors
        )

    def project(self, state: int, index: int) -> int:
        """``state`` with the base propositions outside factor ``index`` (and outside the shared ones)
        at their initial values: the state of the factor's own network."""
        keep = self._keep(index)
        return (state & keep) | (self.init & ~keep)

    def _keep(self, index: int) -> int:
        return sum(1 << b for b in self.factors[index].bases | self.shared)


def factor(net: PropNet) -> Factoring | None:
    """The factors of ``net`` (see the module doc), or None where it has fewer than two or more than
    :data:`MAX_FACTORS`, or past the analysis' bound (:data:`MAX_VISITS`)."""
    reads = _Leaves(net)
    bases = range(net.first_input)
    input_of = _input_index(net)
    try:
        next_reads = [reads.of(node) for node in net.next]
        legal_reads = [
            (net.first_input + input_of[(role, move)], reads.of(node))
            for role, entries in enumerate(net.legal)
            for move, node in entries
        ]
    except _TooLarge:
        return None
    inputs = set(range(net.first_input, net.first_gate))
    # The shared base propositions: the greatest set whose members' next reads no move, and only members.
    shared = {b for b in bases if not next_reads[b] & inputs}
    changed = True
    while changed:
        changed = False
        for b in list(shared):
            if any(x < net.first_input and x not in shared for x in next_reads[b]):
                shared.discard(b)
                changed = True
    parent = list(range(net.first_gate))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(x: int, y: int) -> None:
        parent[find(x)] = find(y)

    for b in bases:
        if b not in shared:
            for x in next_reads[b] - shared:
                join(b, x)
    for node, legal_read in legal_reads:
        for x in legal_read - shared:
            join(node, x)
    # The terminal's disjuncts couple what each reads (a line's cells), but for a negation: "no cell left
    # on either board" ends a game of two boards only where each board has ended anyway (Sancho leaves
    # such conditions out too, by their size).
    try:
        disjuncts = [
            reads.of(node) - shared for node in _disjuncts(net, net.terminal) if not _negation(net, node)
        ]
    except _TooLarge:
        return None
    for leaves in disjuncts:
        if leaves:
            first, *others = leaves
            for x in others:
                join(x, first)
    groups: dict[int, tuple[set[int], set[int]]] = {}
    for b in bases:
        if b not in shared:
            groups.setdefault(find(b), (set(), set()))[0].add(b)
    for node in inputs:
        group = groups.get(find(node))
        if group is not None:
            group[1].add(node)
    if not 2 <= len(groups) <= MAX_FACTORS:
        return None
    factors = tuple(
        Factor(frozenset(b), frozenset(i)) for b, i in sorted(groups.values(), key=lambda g: min(g[0]))
    )
    return Factoring(factors, frozenset(shared), sum(1 << b for b in net.init))


def restrict(net: PropNet, factoring: Factoring, index: int) -> PropNet | None:
    """The network of factor ``index`` played alone (see the module doc), or None where a role with
    moves inside the factor has none outside it to pass with."""
    factor = factoring.factors[index]
    kept = factor.bases | factoring.shared
    next_nodes = tuple(
        node if b in kept else (TRUE if b in net.init else FALSE) for b, node in enumerate(net.next)
    )
    kinds, args = list(net.kinds), list(net.args)

    def add(kind: Gate, operands: list[int]) -> int:
        kinds.append(kind)
        args.append(tuple(operands))
        return net.first_gate + len(kinds) - 1

    input_of = _input_index(net)
    legal: list[tuple[tuple[Value, int], ...]] = []
    idle: list[int] = []
    for role, entries in enumerate(net.legal):
        within = [net.first_input + input_of[(role, move)] in factor.inputs for move, _ in entries]
        inside = [node for (_, node), is_in in zip(entries, within, strict=True) if is_in]
        if all(within):
            if inside:
                return None
            continue
        passes = add(Gate.NOT, [add(Gate.OR, inside)]) if inside else TRUE
        idle.append(passes)
        pass_at = within.index(False)
        legal.append(
            tuple(
                (move, passes if at == pass_at else node)
                for at, ((move, node), is_in) in enumerate(zip(entries, within, strict=True))
                if is_in or at == pass_at
            )
        )
    if len(legal) < len(net.legal):
        return None
    stalled = add(Gate.AND, idle)
    terminal = add(Gate.OR, [net.terminal, stalled])
    return PropNet(
        roles=net.roles,
        fluents=net.fluents,
        moves=net.moves,
        kinds=tuple(kinds),
        args=tuple(args),
        cycles=net.cycles,
        next=next_nodes,
        legal=tuple(legal),
        goals=net.goals,
        terminal=terminal,
        init=net.init,
    )


def _disjuncts(net: PropNet, node: int) -> list[int]:
    """The nodes whose disjunction ``node`` is, through its or-gates (outside cycle blocks)."""
    found: list[int] = []
    stack = [node]
    seen = set(stack)
    while stack:
        current = stack.pop()
        gate = current - net.first_gate
        if gate >= 0 and net.kinds[gate] is Gate.OR and current not in net.block_of:
            for arg in net.args[gate]:
                if arg not in seen:
                    seen.add(arg)
                    stack.append(arg)
        else:
            found.append(current)
    return found


def _negation(net: PropNet, node: int) -> bool:
    """Whether ``node`` is a not-gate."""
    return node >= net.first_gate and net.kinds[node - net.first_gate] is Gate.NOT


def _input_index(net: PropNet) -> dict[tuple[int, Value], int]:
    """The index of each (role, move) among the inputs."""
    return {entry: index for index, entry in enumerate(net.moves)}


class _TooLarge(Exception):
    """The analysis passed :data:`MAX_VISITS`."""


class _Leaves:
    """The base propositions and inputs a node reads, through the gates (whole cycle blocks included)."""

    def __init__(self, net: PropNet) -> None:
        self.net = net
        self.visits = 0

    def of(self, node: int) -> frozenset[int]:
        net = self.net
        if node < 0:
            return frozenset()
        found: set[int] = set()
        seen = {node}
        stack = [node]
        while stack:
            current = stack.pop()
            if current < net.first_gate:
                found.add(current)
                continue
            self.visits += 1
            if self.visits > MAX_VISITS:
                raise _TooLarge
            if not self.visits & 0xFFFF:
                checkpoint()
            more = list(net.args[current - net.first_gate])
            block = net.block_of.get(current)
            if block is not None:
                more += range(*block)
            for arg in more:
                if arg >= 0 and arg not in seen:
                    seen.add(arg)
                    stack.append(arg)
        return frozenset(found)
