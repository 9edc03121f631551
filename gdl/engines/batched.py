"""The batched engine: one pass over the propositional network advances many random playouts at once.

Every node of the network holds a row of 64-bit words, one bit per playout (a *lane*), so that a gate is
a bitwise operation over whole words. A native kernel (:mod:`gdl.engines.batched_kernel`, compiled by
numba) plays the whole loop: evaluate the gates, find the lanes that ended and read their goals, choose
each role's move uniformly among its legal moves in every lane (by walking the set bits of the legal
rows, never unpacking them), set the inputs, evaluate the successor and copy it into the base rows. A lane
whose playout ended starts again at once from the initial state (whose values the kernel keeps), so the
batch stays full.

Each step evaluates the gates in three phases: those that depend on the state alone (terminal, legal and
the state-only part of ``next``), the goals when some lane ended, and the gates that read the moves. The
lanes are cut into blocks whose rows fit in the processor's second-level cache
(:func:`block_words`), and each block plays its steps in turn, so that a batch of any size runs from the
cache. Without a ``batch``, one such block is the batch.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gdl.check import CheckedProgram
from gdl.engines.base import goal_number
from gdl.engines.schedule import BLOCK_OP, Schedule, folded_literal
from gdl.ground.grounding import value_text
from gdl.ground.instantiate import instantiate
from gdl.ground.propnet import PropNet, build
from gdl.ground.simplify import for_kernels

Words = npt.NDArray[np.uint64]
Ints = npt.NDArray[np.int64]

#: A playout stops here even if the game has not ended (as in ``gdl bench``).
MAX_DEPTH = 10_000
#: What the kernel does with a lane whose playout ended (as in :mod:`gdl.engines.batched_kernel`).
RESTART, STOP = 0, 1
#: The second-level cache assumed where the system does not say (bytes).
DEFAULT_CACHE = 512 * 1024
#: Words per row of a block: at least a cache line (8 words), at most this many.
MAX_BLOCK_WORDS = 64

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@cache
def cache_size(root: Path = Path("/sys/devices/system/cpu/cpu0/cache")) -> int:
    """The size in bytes of the first processor's second-level data cache, as the system reports it."""
    try:
        for index in sorted(root.glob("index*")):
            if (index / "level").read_text().strip() == "2" and (index / "type").read_text().strip() in (
                "Data", "Unified",
            ):
                text = (index / "size").read_text().strip().upper()
                scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
                return int(text.rstrip("KMG")) * scale
    except (OSError, ValueError):
        pass
    return DEFAULT_CACHE


def block_words(nodes: int, cache_bytes: int | None = None) -> int:
    """Words per row in a block of lanes, so that the rows of ``nodes`` nodes fill about half the
    second-level cache (the rest is for the kernel's other arrays): a power of two from 8 (one cache line,
    and a whole vector register of AVX-512) to :data:`MAX_BLOCK_WORDS`."""
    budget = (cache_size() if cache_bytes is None else cache_bytes) // 2
    words = 8
    while words < MAX_BLOCK_WORDS and 2 * words * 8 * nodes <= budget:
        words *= 2
    return words


@dataclass(frozen=True)
class Program:
    """A network flattened for the kernels (see :mod:`gdl.engines.batched_kernel`)."""

    #: Rows op, node, first literal and end literal of each schedule entry.
    schedule: Ints
    lits: Ints
    #: The entries of each phase: state-only gates ``phases[0]:phases[1]``, goals, then the gates that
    #: read the moves ``phases[2]:phases[3]``.
    phases: Ints
    #: Literals of terminal, each role's legal outputs, each role's goal outputs and each base's ``next``.
    outputs: Ints
    starts: Ints
    goal_values: Ints
    #: The input node of each legal output, then the first input and the first gate node.
    inputs: Ints
    #: The nodes read after the first phase (the base nodes first), whose initial values a lane that
    #: starts again takes.
    restart_nodes: Ints
    #: Nodes of the network plus the constant false node.
    nodes: int
    roles: int
    bases: int


def flatten(net: PropNet) -> Program:
    """The kernels' form of a network (:func:`gdl.ground.simplify.for_kernels` of it: the same states,
    moves and outputs)."""
    net = for_kernels(net)
    first_gate, false_node = net.first_gate, net.size

    def literal(node: int) -> int:
        return folded_literal(net, node)

    def reads(node: int) -> tuple[int, ...]:
        return net.args[node - first_gate] if node >= first_gate else ()

    # Which gates read the moves (a cycle block as a whole).
    moving: set[int] = set()
    for node in net.cone(net.outputs()):
        block = net.block_of.get(node)
        if block is not None and node != block[0]:
            continue
        members = range(*block) if block is not None else (node,)
        if any(a in moving or net.first_input <= a < first_gate for m in members for a in reads(m)):
            moving.update(members)
    legal_nodes = [n for entries in net.legal for _, n in entries]
    goal_nodes = [n for entries in net.goals for _, n in entries]
    successor = net.cone(net.next)
    analysis = set(net.cone([net.terminal, *legal_nodes])) | {n for n in successor if n not in moving}
    phases = [
        sorted(analysis),
        [n for n in net.cone(goal_nodes) if n not in analysis],
        [n for n in successor if n in moving],
    ]
    schedule = Schedule(net)
    bounds = [0]
    for phase in phases:
        schedule.add_gates(phase)
        bounds.append(len(schedule.ops))
    ops, gates, firsts, ends, lits = schedule.columns()
    outputs = [literal(net.terminal)]
    starts = []
    for entries in (*net.legal, *net.goals):
        starts.append(len(outputs))
        outputs.extend(literal(n) for _, n in entries)
    starts.append(len(outputs))
    outputs.extend(literal(n) for n in net.next)
    input_of = {(role, value_text(move)): net.first_input + j for j, (role, move) in enumerate(net.moves)}
    # Every legal output has its input: the relaxed does atoms are the relaxed legal atoms.
    inputs = [input_of[(role, value_text(m))] for role, entries in enumerate(net.legal) for m, _ in entries]
    goal_values = [
        # Goal values that are no number from 0 to 100 (the checker warns of them) count as 0.
        (goal_number(v) or 0) if isinstance(v, str) else 0 for entries in net.goals for v, _ in entries
    ]
    computed_late = {gates[e] for e in range(bounds[2], bounds[3]) if ops[e] != BLOCK_OP}
    read_late = {lit >> 1 for lit in outputs[starts[0] : starts[len(net.roles)]]}
    read_late |= {lit >> 1 for e in range(bounds[2], bounds[3]) for lit in lits[firsts[e] : ends[e]]}
    read_late |= {lit >> 1 for lit in outputs[starts[-1] :]}
    bases = len(net.fluents)
    late = sorted(n for n in read_late - computed_late if first_gate <= n < false_node)
    return Program(
        schedule=np.array([ops, gates, firsts, ends], dtype=np.int64).reshape(4, -1),
        lits=np.array(lits, dtype=np.int64),
        phases=np.array(bounds, dtype=np.int64),
        outputs=np.array(outputs, dtype=np.int64),
        starts=np.array(starts, dtype=np.int64),
        goal_values=np.array(goal_values or [0], dtype=np.int64),
        inputs=np.array([*inputs, net.first_input, first_gate], dtype=np.int64),
        restart_nodes=np.array([*range(bases), *late], dtype=np.int64),
        nodes=net.size + 1,
        roles=len(net.roles),
        bases=bases,
    )


def _kernels() -> Any:
    """The compiled kernels (importing numba and loading or compiling them on first use)."""
    from gdl.engines import batched_kernel

    return batched_kernel


@dataclass
class BatchStats:
    """What a run of the batched engine did."""

    playouts: int = 0
    #: Joint moves made in completed playouts.
    moves: int = 0
    #: Sum of each role's goal value over the completed playouts.
    goal_sums: list[int] = field(default_factory=list)
    seconds: float = 0.0


class BatchedEngine:
    """Random playouts of a game, ``batch`` at a time: rounded up to whole blocks of lanes, and without
    ``batch`` one block sized for the cache (:func:`block_words`)."""

    def __init__(self, net: PropNet, batch: int | None = None, seed: int = 0) -> None:
        self.net = net
        self.program = program = flatten(net)
        fit = block_words(program.nodes)
        wanted = fit if batch is None else max(1, -(-batch // 64))
        self.blocks = -(-wanted // fit)
        #: Words per row of a block.
        self.words = -(-wanted // self.blocks)
        self.batch = 64 * self.blocks * self.words
        self.rng = np.random.default_rng(seed)
        self.rows: Words = np.zeros(self.blocks * program.nodes * self.words, dtype=np.uint64)
        self.grid = self.rows.reshape(self.blocks, program.nodes, self.words)
        self.depth: Ints = np.zeros(self.batch, dtype=np.int64)
        self.live: Words = np.full(self.blocks * self.words, _ALL, dtype=np.uint64)
        self.values: Ints = np.zeros((self.batch, program.roles), dtype=np.int64)
        self.init = sum(1 << i for i in net.init)
        # The values of the rows a restarted lane needs, in the initial state (read from lane 0).
        self.load([self.init])
        self._evaluate(0)
        values = self.grid[0, program.restart_nodes, 0] & np.uint64(1)
        self.restart: Ints = 2 * program.restart_nodes + values.astype(np.int64)

    def _evaluate(self, phase: int) -> None:
        """Evaluate a phase of the schedule (0: state-only gates, 1: goals, 2: the gates reading the moves)
        in every lane."""
        p = self.program
        _kernels().evaluate_blocks(
            self.rows, self.blocks, p.nodes, self.words, p.schedule, p.lits,
            int(p.phases[phase]), int(p.phases[phase + 1]),
        )

    def _lanes(self, lits: Ints) -> npt.NDArray[np.uint8]:
        """The values of literals in every lane, as a (lanes, literals) array of 0/1."""
        words = self.grid[:, lits >> 1, :].transpose(1, 0, 2).reshape(len(lits), -1)
        words = np.ascontiguousarray(words ^ np.where(lits & 1, _ALL, np.uint64(0))[:, None])
        return np.unpackbits(words.view(np.uint8), axis=1, bitorder="little").T

    def load(self, states: Sequence[int]) -> None:
        """Put lane ``k`` in the state ``states[k]`` of the compiled engine (an int over the same bits);
        the other lanes in the empty state. Inputs are cleared and depths set to 0."""
        if len(states) > self.batch:
            raise ValueError(f"{len(states)} states do not fit a batch of {self.batch}")
        bases = self.program.bases
        width = max(1, -(-bases // 8))
        raw = b"".join(s.to_bytes(width, "little") for s in states)
        raw += bytes(width * (self.batch - len(states)))
        octets = np.frombuffer(raw, dtype=np.uint8).reshape(self.batch, width)
        bits = np.unpackbits(octets, axis=1, bitorder="little")[:, :bases]
        packed = np.packbits(np.ascontiguousarray(bits.T), axis=1, bitorder="little").view(np.uint64)
        self.grid[:, :bases, :] = packed.reshape(bases, self.blocks, self.words).transpose(1, 0, 2)
        self.grid[:, bases : self.net.first_gate, :] = 0
        self.depth[:] = 0

    def step(
        self, states: Sequence[int], choices: Sequence[Sequence[int]]
    ) -> list[tuple[bool, list[int], list[int], int]]:
        """For each state: terminal, each role's legal and goal outputs as masks, and the successor after
        each role ``r`` plays its legal move of index ``choices[k][r]`` (in the sorted legal moves of the
        state). The masks index the sorted outputs of :class:`PropNet`, as the compiled engine's do."""
        p = self.program
        roles, count = p.roles, len(states)
        self.load(states)
        self._evaluate(0)
        self._evaluate(1)
        terminal = self._lanes(p.outputs[:1])[:count, 0]

        def masks(lo: int, hi: int) -> list[int]:
            bits = self._lanes(p.outputs[lo:hi])[:count]
            return [int(sum(1 << int(i) for i in np.flatnonzero(lane))) for lane in bits]

        legal = [masks(p.starts[r], p.starts[r + 1]) for r in range(roles)]
        goals = [masks(p.starts[roles + r], p.starts[roles + r + 1]) for r in range(roles)]
        lanes = np.arange(count)
        for role in range(roles):
            chosen = [_set_bits(legal[role][k])[c[role]] for k, c in enumerate(choices)]
            nodes = p.inputs[p.starts[role] - p.starts[0] + np.array(chosen, dtype=np.int64)]
            words = lanes // 64
            bits = np.left_shift(np.uint64(1), (lanes % 64).astype(np.uint64))
            np.bitwise_or.at(self.grid, (words // self.words, nodes, words % self.words), bits)
        self._evaluate(2)
        following = masks(p.starts[2 * roles], len(p.outputs))
        return [
            (bool(terminal[k]), [legal[r][k] for r in range(roles)], [goals[r][k] for r in range(roles)],
             following[k])
            for k in range(count)
        ]

    def _play(self, mode: int, steps: int, stats: Ints) -> int:
        p = self.program
        seed = int(self.rng.integers(0, 1 << 63))
        return int(
            _kernels().play(
                self.rows, self.blocks, p.nodes, self.words, p.schedule, p.lits, p.phases, p.outputs,
                p.starts, p.goal_values, self.restart, p.inputs, self.depth, self.live, self.values,
                mode, steps, MAX_DEPTH, seed, stats,
            )
        )

    def rollouts(self, states: Sequence[int]) -> Ints:
        """Play each state (of the compiled engine) to the end at random, all at once (for a tree search).

        The goal value of each role at the end, shape (len(states), roles); a playout cut at
        :data:`MAX_DEPTH` or by a role without legal moves is scored where it stopped.
        """
        self.load(states)
        self.live[:] = 0
        lanes = np.arange(len(states))
        np.bitwise_or.at(self.live, lanes // 64, np.left_shift(np.uint64(1), (lanes % 64).astype(np.uint64)))
        self.values[:] = 0
        stats = np.zeros(2 + self.program.roles, dtype=np.int64)
        # Every lane ends within MAX_DEPTH moves.
        self._play(STOP, MAX_DEPTH + 1, stats)
        return self.values[: len(states)].copy()

    def run(self, seconds: float, playouts: int | None = None) -> BatchStats:
        """Run playouts from the initial state for ``seconds``, or until ``playouts`` have completed.

        Only playouts completed during the run count; every lane starts afresh.
        """
        started = time.perf_counter()
        deadline = started + seconds
        limit = playouts if playouts is not None else 1 << 62
        self.load([self.init] * self.batch)
        self.live[:] = _ALL
        stats = np.zeros(2 + self.program.roles, dtype=np.int64)
        steps = 1
        # At least one playout completes, so that a rate can be given.
        while True:
            called = time.perf_counter()
            self._play(RESTART, steps, stats)
            now = time.perf_counter()
            if stats[0] and (now >= deadline or stats[0] >= limit):
                break
            # Calls of about a hundredth of a second, none far past the deadline.
            if now - called < 0.005:
                steps *= 2
        return BatchStats(
            playouts=int(stats[0]),
            moves=int(stats[1]),
            goal_sums=[int(v) for v in stats[2:]],
            seconds=time.perf_counter() - started,
        )


def _set_bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def measure(
    checked: CheckedProgram, batch: int | None, seed: int, warm_up: float, seconds: float
) -> tuple[int, int, float, float]:
    """Batched random playouts for ``gdl bench``: (playouts, states visited, wall seconds, CPU seconds).

    Only the measured part counts, not instantiation or the warm-up. Without ``batch``, the batch is one
    block of lanes sized for the cache.
    """
    engine = BatchedEngine(build(instantiate(checked)), batch, seed)
    engine.run(warm_up)
    wall, cpu = time.perf_counter(), time.process_time()
    stats = engine.run(seconds)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return stats.playouts, stats.moves + stats.playouts, wall, cpu
