"""Where a decisive move may be, read off the native kernel's network once: the playouts of the uct player
look only there for a move that ends the game (:func:`gdl.players.uct.decisive_kernel.decisive_move`).

Trying every legal move of every playout step would cost a step each. Instead, the literals whose truth
alone makes ``terminal`` hold are found (through or-gates, and and-gates negated), and watched:

- a base literal: it needs its base proposition to flip;
- an and-gate (or a negated or-gate) of several literals: once all but one of them hold (its counter
  says so: 0 for an and-gate, 1 true input for an or-gate), the one left, if a base literal, needs to
  flip.

For each base proposition and the value it would flip to, the legal outputs whose input can make its
``next`` take that value are its *setters*: those with a path to the ``next`` literal that asks the
input to hold, followed backwards through the gates, and not through a conjunction that needs the
base proposition's present value changed (a frame axiom keeps a base true only while it is). A
playout step then looks up the setters of the bases its watched literals need flipped, and tries only
those legal for the role to move. The analysis is an over-approximation (the kernel plays a candidate
and checks the state it reaches), never a proof.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gdl.engines.native import Kernel
from gdl.engines.native_layout import (
    BASES,
    END,
    FIRST,
    LEGAL_INPUTS,
    LEGAL_LITS,
    LITS,
    NEXT_LITS,
    NODE,
    NODES,
    OP,
    SIZES,
)
from gdl.engines.schedule import AND_OP, AT_LEAST_OP, BLOCK_OP, OR_OP

Ints = npt.NDArray[np.int32]

#: Kinds of watched literal: a base literal (``node`` is the literal); an and-gate that holds once one
#: more of its literals does; an or-gate (read negated) that holds once one fewer of its literals does.
WATCH_BASE, WATCH_AND, WATCH_NOR = 0, 1, 2
#: The most watched literals and setters: a network beyond these is not watched (the check would cost
#: more than a step).
MOST_WATCHED = 1024
MOST_SETTERS = 1 << 16
#: The most base propositions a legal move's legality may read, and gates its search may pass, for the
#: move to have a support (savers are looked for only where it has).
MOST_SUPPORT, MOST_SUPPORT_GATES = 32, 256


@dataclass(frozen=True)
class Watch:
    """The watched literals (kind, node or literal, and the range of a gate's literals in the kernel's
    LITS section), and the setters of each base proposition's flip: ``setters[starts[2 * b + v]:
    starts[2 * b + v + 1]]`` are the legal outputs that may make base ``b``'s next ``v``. The base
    propositions each legal output's legality reads, its support, are ``supports[support_starts[o]:
    support_starts[o + 1]]`` (none for an output whose legality reads too much, and for every output
    when ``support_starts`` has one entry); the setters of their flips are kept too: a move that
    stops an opponent's decisive move must flip one of them (a saver, tried by the playouts first)."""

    kinds: Ints
    nodes: Ints
    firsts: Ints
    ends: Ints
    starts: Ints
    setters: Ints
    support_starts: Ints
    supports: Ints

    @property
    def empty(self) -> bool:
        return len(self.kinds) == 0

    def as_tuple(self) -> tuple[Ints, Ints, Ints, Ints, Ints, Ints, Ints, Ints]:
        return (
            self.kinds, self.nodes, self.firsts, self.ends, self.starts, self.setters, self.support_starts,
            self.supports,
        )


def no_watch(bases: int) -> Watch:
    """Nothing watched."""
    empty = np.zeros(0, dtype=np.int32)
    starts = np.zeros(2 * bases + 1, dtype=np.int32)
    return Watch(empty, empty, empty, empty, starts, empty, np.zeros(1, dtype=np.int32), empty)


class _Network:
    """The kernel's schedule as gates: each node's entry, op and literals."""

    def __init__(self, kernel: Kernel) -> None:
        sizes = kernel.section(SIZES)
        self.nodes = int(sizes[NODES])
        self.bases = int(sizes[BASES])
        self.ops = [int(x) for x in kernel.section(OP)]
        gates = kernel.section(NODE)
        self.firsts = [int(x) for x in kernel.section(FIRST)]
        self.ends = [int(x) for x in kernel.section(END)]
        self.lits = [int(x) for x in kernel.section(LITS)]
        #: Each gate's entry; members of a cycle block are marked apart (their counters are values).
        self.entry: dict[int, int] = {}
        self.in_block: set[int] = set()
        e = 0
        while e < len(self.ops):
            if self.ops[e] == BLOCK_OP:
                for member in range(e + 1, e + 1 + int(gates[e])):
                    self.entry[int(gates[member])] = member
                    self.in_block.add(int(gates[member]))
                e += int(gates[e]) + 1
                continue
            self.entry[int(gates[e])] = e
            e += 1
        inputs = kernel.section(LEGAL_INPUTS)
        self.outputs_of: dict[int, list[int]] = {}
        for k, node in enumerate(inputs):
            self.outputs_of.setdefault(int(node), []).append(k)
        self.next_lits = [int(x) for x in kernel.section(NEXT_LITS)]
        self.legal_lits = [int(x) for x in kernel.section(LEGAL_LITS)]

    def operands(self, node: int) -> list[int]:
        e = self.entry[node]
        return self.lits[self.firsts[e] : self.ends[e]]

    def watched(self, terminal: int) -> list[tuple[int, int, int, int]]:
        """The watched literals below ``terminal`` (kind, node or literal, first, end)."""
        found: list[tuple[int, int, int, int]] = []
        seen: set[int] = set()
        stack = [terminal]
        while stack:
            lit = stack.pop()
            if lit in seen:
                continue
            seen.add(lit)
            node, negated = lit >> 1, lit & 1
            if node < self.bases:
                found.append((WATCH_BASE, lit, 0, 0))
                continue
            if node not in self.entry or node in self.in_block:
                continue
            op = self.ops[self.entry[node]]
            operands = self.operands(node)
            if (op == OR_OP and not negated) or (op == AND_OP and negated):
                stack.extend(x ^ negated for x in operands)
            elif len(operands) == 1 and op in (AND_OP, OR_OP):
                stack.append(operands[0] ^ negated)
            elif op == AND_OP:
                e = self.entry[node]
                found.append((WATCH_AND, node, self.firsts[e], self.ends[e]))
            elif op == OR_OP:
                e = self.entry[node]
                found.append((WATCH_NOR, node, self.firsts[e], self.ends[e]))
        return found

    def flips(self, watched: list[tuple[int, int, int, int]]) -> set[tuple[int, int]]:
        """The (base, value) flips the watched literals may ask for."""
        wanted: set[tuple[int, int]] = set()
        for kind, node, first, end in watched:
            if kind == WATCH_BASE:
                wanted.add((node >> 1, 1 - (node & 1)))
                continue
            for lit in self.lits[first:end]:
                if lit >> 1 < self.bases:
                    holds_when = 1 - (lit & 1)
                    # An and-gate wants its literal made true; a negated or-gate, made false.
                    wanted.add((lit >> 1, holds_when if kind == WATCH_AND else 1 - holds_when))
        return wanted

    def support(self, lit: int) -> list[int] | None:
        """The base propositions the literal ``lit`` reads through the gates (None past
        :data:`MOST_SUPPORT` of them or :data:`MOST_SUPPORT_GATES` gates, or through a cycle block)."""
        found: set[int] = set()
        seen: set[int] = set()
        stack = [lit >> 1]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if node < self.bases:
                found.add(node)
                if len(found) > MOST_SUPPORT:
                    return None
                continue
            if node in self.in_block or len(seen) > MOST_SUPPORT_GATES:
                return None
            if node in self.entry:
                stack.extend(x >> 1 for x in self.operands(node))
        return sorted(found)

    def setters(self, base: int, value: int) -> list[int]:
        """The legal outputs whose input may make ``next`` of ``base`` take ``value`` while ``base``
        has the other value (see the module doc)."""
        found: set[int] = set()
        seen: set[tuple[int, int]] = set()
        lit = self.next_lits[base]
        stack = [(lit >> 1, value ^ (lit & 1))]
        while stack:
            node, wanted = stack.pop()
            if (node, wanted) in seen:
                continue
            seen.add((node, wanted))
            if node in self.outputs_of:
                if wanted:
                    found.update(self.outputs_of[node])
                continue
            if node < self.bases or node not in self.entry:
                continue
            op = self.ops[self.entry[node]]
            operands = self.operands(node)
            # All of an and-gate's literals must hold for it to (all of an or-gate's fail for it not to):
            # one that asks for the base's present value to change blocks the path.
            if (op == AND_OP and wanted) or (op == OR_OP and not wanted):
                needs = [(x >> 1, wanted ^ (x & 1)) for x in operands]
                if any(n == base and v == value for n, v in needs):
                    continue
                stack.extend(needs)
            elif op in (AND_OP, OR_OP) or op >= AT_LEAST_OP:
                stack.extend((x >> 1, wanted ^ (x & 1)) for x in operands)
        return sorted(found)


def watch(kernel: Kernel, also: Iterable[tuple[int, int]] = ()) -> Watch:
    """What the playouts of ``kernel``'s network watch for decisive moves (nothing, when the network has
    too much to watch), and the supports of the legal outputs, where they fit; the setters of the
    (base, value) flips ``also`` names are kept too (a playout's captures look them up), watched literals
    or not."""
    network = _Network(kernel)
    watched = network.watched(network.lits[0])
    if len(watched) > MOST_WATCHED:
        watched = []
    lists: dict[int, list[int]] = {}
    for base, value in network.flips(watched):
        setters = network.setters(base, value)
        if setters:
            lists[2 * base + value] = setters
    # A watched literal no move can bring about is not watched.
    watched = [w for w in watched if any(2 * b + v in lists for b, v in network.flips([w]))]
    if not watched or sum(map(len, lists.values())) > MOST_SETTERS:
        watched, lists = [], {}
    for base, value in also:
        if 2 * base + value not in lists and (setters := network.setters(base, value)):
            lists[2 * base + value] = setters
    if not lists or sum(map(len, lists.values())) > MOST_SETTERS:
        return no_watch(network.bases)
    supports = [network.support(lit) for lit in network.legal_lits]
    flips = {2 * b + v for support in supports for b in support or () for v in (0, 1)} - set(lists)
    saver_lists = {key: network.setters(key >> 1, key & 1) for key in flips}
    if sum(map(len, lists.values())) + sum(map(len, saver_lists.values())) <= MOST_SETTERS:
        lists.update(saver_lists)
        support_starts = np.cumsum([0] + [len(support or ()) for support in supports]).astype(np.int32)
        support_array = np.array([b for support in supports for b in support or ()], dtype=np.int32)
    else:
        support_starts, support_array = np.zeros(1, dtype=np.int32), np.zeros(0, dtype=np.int32)
    counts = np.zeros(2 * network.bases + 1, dtype=np.int64)
    for key, setters in lists.items():
        counts[key + 1] = len(setters)
    starts = np.cumsum(counts)
    setters_array = np.zeros(int(starts[-1]), dtype=np.int32)
    for key, setters in lists.items():
        setters_array[starts[key] : starts[key] + len(setters)] = setters
    kinds, nodes, firsts, ends = (
        np.array(column, dtype=np.int32) for column in zip(*watched, strict=True)
    ) if watched else (np.zeros(0, dtype=np.int32) for _ in range(4))
    return Watch(
        kinds, nodes, firsts, ends, starts.astype(np.int32), setters_array, support_starts, support_array
    )
