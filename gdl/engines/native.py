"""Random playouts (depth charges) of a propositional network in native code compiled by numba.

The network is flattened into one ``int32`` array (:class:`Kernel`): the network's code and the
kernel's working memory, so that a playout is one call with one array. Not-gates disappear into the
literals that read them (``2 * node + negated``); every other gate is a schedule entry ``(op, node,
first literal, end literal)`` over a shared array of literals, in the network's evaluation order. A
cycle block is an entry (op 2) followed by its members, which are reset to false and swept in order
until nothing changes (the least fixpoint).

Every node has a counter, and its value is ``counter > 0``: a base proposition or an input holds 1 or
0; an or-gate counts its true literals, an and-gate its true literals less their number plus one. A
change of a node propagates through its fanout (the gates that read it) as ggp-base and Sancho do: each
reader's counter moves by one, and only a reader whose counter crosses zero changes in turn. A cycle
block (where counters would be unsound: a positive cycle could keep itself true) that a change reaches
is evaluated again as a whole. The fanout also keeps, as the network changes, each role's set of legal
moves and the set of base propositions whose ``next`` differs from their value; so a step costs the
gates a move reaches, with no scan of the outputs. A role's legal outputs that share a conjunct (whose
turn it is) are kept apart, as the rest of their conjunction, in a set that counts only while the
conjunct holds: the turn passing then changes no set (in breakthrough it toggled 310 legal outputs).
Gates over several roles' moves become threshold gates (:mod:`gdl.engines.thresholds`), which the turn
passing does not flip either; the gates only the goals read are left out of the propagation, and
evaluated once at the end of a playout.

The kernel, :func:`gdl.engines.native_kernel.playout`, plays: stop at a terminal state; choose each role's
move uniformly in its sets (xorshift64*, seeded by the caller); set the inputs and propagate; flip the
base propositions whose ``next`` differs and propagate; at the end, read the goals. The inputs of a step
are taken back either with the flips or with the next step's inputs (legal, goal and terminal never
read them), whichever propagates less over a few playouts when the network is flattened.

A playout starts from a saved copy of the network evaluated in the state the last playout started
from (a copy of memory); from another state, it propagates the base propositions that differ (or
evaluates the network afresh when most differ) and saves that. The kernels are compiled once per
installation (numba's ``cache=True``); numba is imported on the first playout, so that commands which
never play out do not pay for it. A kernel is not reentrant (its working memory is its own): a match
serialises the calls to a reasoner (:mod:`gdl.match`).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from gdl.engines.native_layout import (
    FROM_SAVED,
    FROM_SCRATCH,
    FROM_STATE,
    GOAL_LITS,
    GOAL_SHIFT,
    GOALS,
    SECTIONS,
    SIZES,
    STATE_IN,
    STATE_OUT,
    SWAP_INPUTS,
    TALLY_GOALS,
    WORK,
)
from gdl.engines.schedule import AND_OP, BLOCK_OP, OR_OP, Schedule, folded_literal
from gdl.engines.thresholds import threshold_gates
from gdl.ground.propnet import Gate, PropNet
from gdl.ground.simplify import for_kernels

Ints = npt.NDArray[np.int32]


class Walk(NamedTuple):
    """How a depth charge ended: the last state (bit ``i`` for base proposition ``i``), the joint moves
    made, the outcome, and each role's goal output that holds (-1 unless exactly one holds)."""

    state: int
    depth: int
    outcome: int
    goals: tuple[int, ...]


class Kernel:
    """A network flattened for the kernel, with the kernel's working memory (see the module doc)."""

    def __init__(self, data: Ints) -> None:
        self.data = data
        sizes = self.section(SIZES)
        self.nodes, self.bases, self.roles, self.legal_outputs = (int(x) for x in sizes[:4])
        self.goal_shift = int(sizes[GOAL_SHIFT])
        self.goal_outputs = len(self.section(GOAL_LITS))
        self._state_bytes = 4 * len(self.section(STATE_IN))
        #: Whether the kernel hands the whole state out as an integer (at most 63 base propositions).
        self._small = self.bases <= 63
        self._state_in = self.section(STATE_IN).data.cast("B")
        self._state_out = self.section(STATE_OUT).data.cast("B")
        #: The state the saved network is in (None until the first playout evaluates one).
        self._saved: int | None = None
        self._play: Any = None
        #: Goal keys of the kernel (see :meth:`goals_of`) and the goal indexes they stand for.
        self._goals_of: dict[int, tuple[int, ...]] = {}

    def calibrate(self, initial: int, playouts: int = 8, depth: int = 50) -> None:
        """Choose how the kernel takes the inputs of a step back: as the base propositions flip, or as
        the next step's inputs are set (fewer changes where the same gates read the moves of successive
        steps, more where the flips then pass through gates the inputs hold open): the one that
        propagates less over some short playouts from ``initial`` (a few hundred steps at most, so that
        a large network is not slow to load), which the saved network is left in."""
        sizes = self.section(SIZES)
        work = []
        for swap in (0, 1):
            sizes[SWAP_INPUTS] = swap
            sizes[WORK] = 0
            for seed in range(playouts):
                self.run(initial, seed, depth)
            work.append(int(sizes[WORK]))
        sizes[SWAP_INPUTS] = int(work[1] < work[0])

    def section(self, k: int) -> Ints:
        return self.data[self.data[k] : self.data[k + 1]]

    def _start(self, state: int) -> int:
        """How a walk from ``state`` starts (handing the state in when the saved network is not in it)."""
        if state == self._saved:
            return FROM_SAVED
        self._state_in[:] = state.to_bytes(self._state_bytes, "little")
        start = FROM_SCRATCH if self._saved is None else FROM_STATE
        self._saved = state
        return start

    def run(
        self, state: int, seed: int, max_depth: int, trace: Ints | None = None
    ) -> tuple[int, int, int, int]:
        """A random walk from ``state`` until a terminal state, a role without a legal move or
        ``max_depth`` joint moves; ``seed`` (0 <= seed < 2**63) seeds the kernel's generator. The last
        state, the depth, the outcome, and a key of the goals (:meth:`goals_of`); ``trace`` as in
        :meth:`trace`."""
        start = self._start(state)
        if trace is None:
            play = self._play
            if play is None:
                play = self._play = _kernels().playout
            outcome, depth, key, first = play(self.data, seed, max_depth, start)
        else:
            outcome, depth, key, first = _kernels().traced_playout(self.data, seed, max_depth, start, trace)
        return first if self._small else int.from_bytes(self._state_out, "little"), depth, outcome, key

    def charges(self, state: int, seed: int, count: int, max_depth: int) -> tuple[int, npt.NDArray[np.int64]]:
        """``count`` walks from ``state`` in one native call, the ``i``-th the walk :meth:`run` makes with
        the seed ``seed + i`` (modulo 2**63); the last walk's end state and the tallies of all (see
        :data:`TALLY_GOALS`)."""
        tallies = np.zeros(TALLY_GOALS + self.goal_outputs, dtype=np.int64)
        _kernels().depth_charges(self.data, seed, max_depth, self._start(state), count, tallies)
        return int.from_bytes(self._state_out, "little"), tallies

    def goals_of(self, key: int) -> tuple[int, ...]:
        """Each role's goal output that holds (-1 unless exactly one holds), from the key of a walk."""
        found = self._goals_of.get(key)
        if found is None:
            found = tuple(int(g) for g in self.section(GOALS))
            if key >= 0:
                self._goals_of[key] = found
        return found

    def playout(self, state: int, seed: int, max_depth: int) -> Walk:
        """:meth:`run`, as a :class:`Walk`."""
        last, depth, outcome, key = self.run(state, seed, max_depth)
        return Walk(last, depth, outcome, self.goals_of(key))

    def trace(self, state: int, seed: int, max_depth: int) -> tuple[Walk, Ints]:
        """A playout and its trace: row ``t`` holds the base values of the ``t``-th state, the values of
        all legal outputs in it, and the index of the legal output each role chose (-1 past the end)."""
        width = self.bases + self.legal_outputs + self.roles
        rows = np.full((max_depth + 1) * width, -1, dtype=np.int32)
        last, depth, outcome, key = self.run(state, seed, max_depth, rows)
        return Walk(last, depth, outcome, self.goals_of(key)), rows.reshape(max_depth + 1, width)


def flatten(net: PropNet) -> Kernel:
    """The kernel of a network (:func:`gdl.ground.simplify.for_kernels` of it: the same states, moves
    and outputs)."""
    net = for_kernels(net)
    first_gate = net.first_gate
    false_node = net.size
    # Gates over several roles' moves become threshold gates (numbered from false_node + 1 on).
    rewritten, thresholds = threshold_gates(net, false_node + 1)
    nodes = net.size + 1 + thresholds

    def literal(node: int) -> int:
        return folded_literal(net, node)

    def body(lit: int) -> list[int]:
        """The literals of a positive and-gate outside cycle blocks; the literal alone otherwise."""
        node = lit >> 1
        if lit & 1 or node < first_gate or node == false_node or node in net.block_of:
            return [lit]
        if net.kinds[node - first_gate] is not Gate.AND:
            return [lit]
        return [literal(arg) for arg in net.args[node - first_gate]]

    def bodies(lit: int) -> list[list[int]]:
        """The literal as a disjunction of conjunctions, one level deep."""
        node = lit >> 1
        if lit & 1 or node < first_gate or node == false_node or node in net.block_of:
            return [[lit]]
        if net.kinds[node - first_gate] is Gate.OR:
            return [body(literal(arg)) for arg in net.args[node - first_gate]]
        return [body(lit)]

    # Gates made for the kernel (numbered from ``nodes`` on): (op, literals).
    made: dict[tuple[int, tuple[int, ...]], int] = {}
    true_literal = 2 * false_node + 1

    def make(op: int, operands: list[int]) -> int:
        if len(operands) == 1:
            return operands[0]
        key = (op, tuple(sorted(set(operands))))
        if key not in made:
            made[key] = nodes + len(made)
        return 2 * made[key]

    # A role's legal outputs that share a conjunct (whose turn it is) are kept apart from its other legal
    # outputs: as the rest of their conjunction, in a set that counts only while the shared literal
    # holds. So the turn passing changes no set, where it would change every move of both roles.
    element_lits: list[int] = []
    guards: list[int] = []
    group_of: list[int] = []
    for role, entries in enumerate(net.legal):
        split = [bodies(literal(node)) for _, node in entries]
        shared: Counter[int] = Counter()
        for parts in split:
            shared.update(set.intersection(*(set(part) for part in parts)) - {true_literal})
        guard, count = shared.most_common(1)[0] if shared else (true_literal, 0)
        if count < 2:
            guard = true_literal
        guards += [true_literal, guard]
        for (_, node), parts in zip(entries, split, strict=True):
            if guard != true_literal and all(guard in part for part in parts):
                rests = [[lit for lit in part if lit != guard] for part in parts]
                conjunctions = [make(AND_OP, rest) if rest else true_literal for rest in rests]
                if true_literal in conjunctions:
                    element_lits.append(true_literal)
                else:
                    element_lits.append(make(OR_OP, conjunctions))
                group_of.append(2 * role + 1)
            else:
                element_lits.append(literal(node))
                group_of.append(2 * role)
    nodes += len(made)

    # The terminal literal leads the literals so that the kernel finds it at a known place.
    schedule = Schedule(net, lits=[literal(net.terminal)])
    #: The schedule entry of each node's cycle block (or -1).
    node_block = [-1] * nodes
    needed = [*net.next, net.terminal]
    needed += [lit >> 1 for lit in [*element_lits, *guards]]
    needed += [lit >> 1 for _, operands in made for lit in operands]
    played = _cone(net, rewritten, [n for n in needed if n < false_node])
    goal_nodes = [node for entries in net.goals for _, node in entries if 0 <= node < false_node]
    # The gates only the goals read come last, and out of the propagation: the kernel evaluates them
    # once, at the end of a playout (in hanoi they count the towers, a fifth of a step's propagation).
    goals_only = sorted(set(_cone(net, rewritten, goal_nodes)) - set(played))
    # The threshold gates made read only inputs: they come first.
    for node in range(false_node + 1, false_node + 1 + thresholds):
        schedule.add(*_entry(rewritten[node], node))
    _add_gates(schedule, net, rewritten, played, node_block)
    # The gates made for the kernel read only the network's nodes, and the ands come before the ors.
    for (op, operands), node in sorted(made.items(), key=lambda item: item[1]):
        schedule.add(op, node, operands)
    goal_entries = len(schedule.ops)
    _add_gates(schedule, net, rewritten, goals_only, node_block)
    ops, gates, firsts, ends, lits = schedule.columns()
    legal_lits = element_lits
    legal_outputs = len(legal_lits)
    next_lits = [literal(node) for node in net.next]
    # Fanout: the gates that read each node, as literals 2 * gate + negated; then, as ~(2 * entry), the
    # cycle blocks whose members read it (a change inside a block is not propagated within it: the block
    # is evaluated as a whole), and as ~(2 * element + 1), the set elements it toggles: legal output k
    # (element k, in its role's set when it holds) and base proposition b (element legal_outputs + b, in
    # the last set when its next value differs from its value).
    readers: list[list[int]] = [[] for _ in range(nodes)]
    specials: list[list[int]] = [[] for _ in range(nodes)]
    for entry, op in enumerate(ops[:goal_entries]):
        if op == BLOCK_OP:
            continue
        gate = gates[entry]
        for lit in lits[firsts[entry] : ends[entry]]:
            source = lit >> 1
            if source == false_node:
                continue
            if node_block[gate] < 0:
                readers[source].append(lit & 1 | 2 * gate)
            elif node_block[source] != node_block[gate] and ~(2 * node_block[gate]) not in specials[source]:
                specials[source].append(~(2 * node_block[gate]))
    for k, lit in enumerate(legal_lits):
        if lit >> 1 != false_node:
            specials[lit >> 1].append(~(2 * k + 1))
    for b, lit in enumerate(next_lits):
        # A base proposition whose next is itself (or its negation) never changes its set.
        if lit >> 1 != b:
            specials[b].append(~(2 * (legal_outputs + b) + 1))
            if lit >> 1 != false_node:
                specials[lit >> 1].append(~(2 * (legal_outputs + b) + 1))
    fanout = [[*r, *s] for r, s in zip(readers, specials, strict=True)]
    roles = len(net.roles)
    bases = len(net.fluents)
    group_of += [2 * roles] * bases
    group_sizes = Counter(group_of)
    group_starts = _starts(group_sizes[group] for group in range(2 * roles + 1))
    most_goals = max((len(e) for e in net.goals), default=0)
    # Each role's goal (its index plus one) in goal_shift bits of one int64 key, when they fit.
    goal_shift = (most_goals + 1).bit_length()
    if goal_shift * roles > 62:
        goal_shift = 0
    input_of = {move: net.first_input + j for j, move in enumerate(net.moves)}
    words = (bases + 31) // 32
    elements = legal_outputs + bases
    network_state = [nodes, elements, elements, 2 * roles + 1]
    sections: list[Sequence[int] | int] = [
        [nodes, bases, roles, legal_outputs, goal_shift, 0, 0, goal_entries],
        ops, gates, firsts, ends, lits,
        legal_lits,
        [input_of[(role, move)] for role, entries in enumerate(net.legal) for move, _ in entries],
        group_starts, group_of, guards, _starts(len(e) for e in net.legal),
        [literal(node) for entries in net.goals for _, node in entries], _starts(len(e) for e in net.goals),
        next_lits, _starts(len(f) for f in fanout), [x for f in fanout for x in f],
        words, words, roles,
        *network_state, sum(network_state),
        nodes + len(ops), nodes + len(ops),
    ]
    assert len(sections) == SECTIONS
    lengths = [s if isinstance(s, int) else len(s) for s in sections]
    offsets = np.cumsum([SECTIONS + 1, *lengths])
    if offsets[-1] >= 2**31:
        raise ValueError(f"network too large for the native kernel ({offsets[-1]} words)")
    data = np.zeros(int(offsets[-1]), dtype=np.int32)
    data[: SECTIONS + 1] = offsets
    for k, section in enumerate(sections):
        if not isinstance(section, int):
            data[offsets[k] : offsets[k + 1]] = section
    kernel = Kernel(data)
    kernel.calibrate(sum(1 << i for i in net.init))
    return kernel


def _entry(gate: tuple[int, list[int]], node: int) -> tuple[int, int, list[int]]:
    """A schedule entry ``(op, node, literals)`` of a rewritten gate."""
    return gate[0], node, gate[1]


def _add_gates(
    schedule: Schedule,
    net: PropNet,
    rewritten: dict[int, tuple[int, list[int]]],
    gates: list[int],
    node_block: list[int],
) -> None:
    """Entries for the network's ``gates`` (in evaluation order), the rewritten ones as rewritten: the
    others in runs between them (a rewritten gate is never in a cycle block, so no run splits one)."""
    run: list[int] = []
    for node in gates:
        if node in rewritten:
            schedule.add_gates(run, node_block)
            run = []
            schedule.add(*_entry(rewritten[node], node))
        else:
            run.append(node)
    schedule.add_gates(run, node_block)


def _cone(net: PropNet, rewritten: dict[int, tuple[int, list[int]]], outputs: list[int]) -> list[int]:
    """The network's gates that ``outputs`` need, the rewritten ones read as rewritten, in evaluation
    order (whole cycle blocks)."""
    needed: set[int] = set()
    stack = [n for n in outputs if n >= net.first_gate]
    while stack:
        node = stack.pop()
        if node in needed:
            continue
        if node in rewritten:
            reads = [lit >> 1 for lit in rewritten[node][1]]
        else:
            reads = list(net.args[node - net.first_gate])
            if node in net.block_of:
                reads.extend(range(*net.block_of[node]))
        needed.add(node)
        stack.extend(n for n in reads if net.first_gate <= n < net.size or n > net.size)
    return sorted(n for n in needed if n < net.size)


def _starts(lengths: Iterable[int]) -> list[int]:
    """Offsets of consecutive runs of the given lengths, and the end of the last."""
    starts = [0]
    for length in lengths:
        starts.append(starts[-1] + length)
    return starts


# The state's words are handed over as bytes, in the machine's order.
assert sys.byteorder == "little", "the native kernel assumes a little-endian machine"


def _kernels() -> Any:
    """The module of the compiled kernels (importing numba and loading or compiling them on first use)."""
    from gdl.engines import native_kernel

    return native_kernel
