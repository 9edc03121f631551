"""The batched engine: one pass over the propositional network advances many random playouts at once.

Every node of the network holds a row of 64-bit words, one bit per playout (a *lane*), so that a gate is
a vectorised bitwise operation over the whole batch. The gates are grouped into levels (a gate's level is
one more than its inputs'); each level costs a few numpy operations whatever the batch size: a gather
of the input rows and a ``bitwise_and``/``bitwise_or`` ``reduceat`` over them. A cycle block is iterated
until its rows stop changing. Each role's move is chosen uniformly among its legal moves, per lane,
from the unpacked legal rows. A lane that reaches a terminal state records its goals and starts again
from the initial state, so the batch stays full.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from gdl.check import CheckedProgram
from gdl.engines.base import goal_number
from gdl.ground import FALSE, TRUE, Gate, PropNet, build, instantiate, value_text

Words = npt.NDArray[np.uint64]

#: A playout stops here even if the game has not ended (as in ``gdl bench``).
MAX_DEPTH = 10_000


@dataclass
class _Step:
    """One level's gates of one kind: ``rows[out] = reduce(rows[args[offsets[i]:offsets[i+1]]])``."""

    kind: Gate
    out: npt.NDArray[np.intp]
    args: npt.NDArray[np.intp]
    offsets: npt.NDArray[np.intp]


@dataclass
class _Block:
    """A cycle block: its steps are repeated until its rows stop changing."""

    rows: npt.NDArray[np.intp]
    steps: list[_Step]


def _steps(net: PropNet, gates: list[int], row_of: dict[int, int]) -> list[_Step]:
    """The gates grouped by kind, as vectorised steps (the gates must not depend on each other)."""
    steps = []
    for kind in Gate:
        chosen = [g for g in gates if net.kinds[g - net.first_gate] is kind]
        if not chosen:
            continue
        args: list[int] = []
        offsets: list[int] = []
        for gate in chosen:
            inputs = net.args[gate - net.first_gate] or ((TRUE,) if kind is Gate.AND else (FALSE,))
            offsets.append(len(args))
            args.extend(row_of.get(n, n) for n in inputs)
        steps.append(
            _Step(
                kind,
                np.array(chosen, dtype=np.intp),
                np.array(args, dtype=np.intp),
                np.array(offsets, dtype=np.intp),
            )
        )
    return steps


def _schedule(net: PropNet, outputs: list[int], row_of: dict[int, int]) -> list[_Step | _Block]:
    """The steps that evaluate the gates ``outputs`` need, level by level."""
    block_of = net.block_of
    level: dict[int, int] = {}
    units: dict[int, list[int | tuple[int, int]]] = {}
    for node in net.cone(outputs):
        block = block_of.get(node)
        if block is not None and node != block[0]:
            continue
        members = list(range(*block)) if block is not None else [node]
        inside = set(members)
        depth = 1 + max(
            (level.get(a, 0) for m in members for a in net.args[m - net.first_gate] if a not in inside),
            default=0,
        )
        for member in members:
            level[member] = depth
        units.setdefault(depth, []).append(block if block is not None else node)
    schedule: list[_Step | _Block] = []
    for depth in sorted(units):
        plain = [u for u in units[depth] if isinstance(u, int)]
        schedule.extend(_steps(net, plain, row_of))
        for unit in units[depth]:
            if isinstance(unit, tuple):
                members = list(range(*unit))
                schedule.append(_Block(np.array(members, dtype=np.intp), _steps(net, members, row_of)))
    return schedule


def _set_bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


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
    """Random playouts of a game, ``batch`` at a time (rounded up to a multiple of 64)."""

    def __init__(self, net: PropNet, batch: int = 1024, seed: int = 0) -> None:
        self.net = net
        self.words = max(1, -(-batch // 64))
        self.batch = 64 * self.words
        self.rng = np.random.default_rng(seed)
        size = net.size
        self.false_row, self.true_row = size, size + 1
        row_of = {FALSE: self.false_row, TRUE: self.true_row}
        self.rows: Words = np.zeros((size + 2, self.words), dtype=np.uint64)
        self.rows[self.true_row] = ~np.uint64(0)
        self.init: Words = np.zeros((len(net.fluents), 1), dtype=np.uint64)
        for i in net.init:
            self.init[i] = ~np.uint64(0)
        legal_nodes = [n for entries in net.legal for _, n in entries]
        self._analyse = _schedule(net, [net.terminal, *legal_nodes], row_of)
        goal_nodes = [n for entries in net.goals for _, n in entries]
        self._goals = _schedule(net, goal_nodes, row_of)
        self._successor = _schedule(net, list(net.next), row_of)
        self.terminal_row = row_of.get(net.terminal, net.terminal)
        self.next_rows = np.array([row_of.get(n, n) for n in net.next], dtype=np.intp)
        self.legal_rows = [
            np.array([row_of.get(n, n) for _, n in entries], dtype=np.intp) for entries in net.legal
        ]
        # Each role's legal rows in blocks of about their square root, padded with the false row.
        self.legal_blocks = []
        for rows in self.legal_rows:
            size = max(1, int(np.ceil(np.sqrt(len(rows)))))
            padding = np.full(-len(rows) % size, self.false_row, dtype=np.intp)
            self.legal_blocks.append((np.concatenate([rows, padding]), size))
        self.goal_rows = [
            np.array([row_of.get(n, n) for _, n in entries], dtype=np.intp) for entries in net.goals
        ]
        self.goal_values = [
            # Goal values that are no number from 0 to 100 (the checker warns of them) count as 0; str.isdigit
            # also accepts digits such as "²" that int() refuses.
            np.array([(goal_number(v) or 0) if isinstance(v, str) else 0 for v, _ in entries] or [0])
            for entries in net.goals
        ]
        input_of = {(role, value_text(move)): net.first_input + j for j, (role, move) in enumerate(net.moves)}
        # Every legal output has its input: the relaxed does atoms are the relaxed legal atoms.
        self.move_inputs = [
            np.array([input_of[(role, value_text(m))] for m, _ in entries], dtype=np.intp)
            for role, entries in enumerate(net.legal)
        ]
        self.lanes = np.arange(self.batch, dtype=np.intp)
        self.lane_word = self.lanes // 64
        self.lane_bit = np.left_shift(np.uint64(1), (np.arange(self.batch) % 64).astype(np.uint64))
        self.depth = np.zeros(self.batch, dtype=np.int64)
        # Every row (of one lane) after analysing the initial state, to restart finished lanes from.
        self.rows[: len(net.fluents)] = self.init
        self._run(self._analyse)
        self.start: Words = self.rows[:, :1].copy()

    def _run(self, schedule: list[_Step | _Block]) -> None:
        rows = self.rows
        for step in schedule:
            if isinstance(step, _Block):
                rows[step.rows] = 0
                while True:
                    before = rows[step.rows].copy()
                    for inner in step.steps:
                        self._apply(inner)
                    if np.array_equal(before, rows[step.rows]):
                        break
            else:
                self._apply(step)

    def _apply(self, step: _Step) -> None:
        rows = self.rows
        if step.kind is Gate.NOT:
            rows[step.out] = ~rows[step.args]
        elif step.kind is Gate.AND:
            rows[step.out] = np.bitwise_and.reduceat(rows[step.args], step.offsets, axis=0)
        else:
            rows[step.out] = np.bitwise_or.reduceat(rows[step.args], step.offsets, axis=0)

    def _unpacked(self, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.uint8]:
        """The lanes of some rows as a (rows, lanes) array of 0/1."""
        words = self.rows[rows]
        return np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")

    def _bits(self, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.uint8]:
        """The lanes of some rows as a (lanes, rows) array of 0/1."""
        return np.ascontiguousarray(self._unpacked(rows).T)

    def _play_random_moves(self) -> npt.NDArray[np.bool_]:
        """Set every lane's inputs to a uniformly random joint move and evaluate the successor rows.

        Returns the lanes where some role had no legal move.
        """
        stuck = np.zeros(self.batch, dtype=bool)
        self.rows[self.net.first_input : self.net.first_gate] = 0
        for role in range(len(self.net.roles)):
            choice, no_move = self._choose(role)
            stuck |= no_move
            np.bitwise_or.at(self.rows, (self.move_inputs[role][choice], self.lane_word), self.lane_bit)
        self._run(self._successor)
        return stuck

    def _choose(self, role: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
        """A uniformly random legal move index per lane, and which lanes have none.

        The legal rows are cut into blocks: a running count over the blocks finds the block of each lane's
        chosen move, and a running count inside that block the move itself.
        """
        rows, size = self.legal_blocks[role]
        if not len(rows):
            return np.zeros(self.batch, dtype=np.intp), np.ones(self.batch, dtype=bool)
        bits = self._unpacked(rows).reshape(len(rows) // size, size, self.batch)
        blocks = bits.sum(axis=1, dtype=np.int16)
        running = np.cumsum(blocks, axis=0)
        counts = running[-1]
        target = (self.rng.random(self.batch) * counts).astype(np.int16)
        block = np.minimum((running <= target).sum(axis=0), len(blocks) - 1)
        lanes = self.lanes
        target -= running[block, lanes] - blocks[block, lanes]
        inside = np.cumsum(bits[block, :, lanes], axis=1, dtype=np.int16)
        offset = (inside <= target[:, None]).sum(axis=1)
        # Lanes without a legal move get some index in range (their move is not used).
        choice = np.minimum(block * size + offset, len(self.legal_rows[role]) - 1)
        return choice, counts == 0

    def load(self, states: Sequence[int]) -> None:
        """Put lane ``k`` in the state ``states[k]`` of the compiled engine (an int over the same bits)."""
        if len(states) > self.batch:
            raise ValueError(f"{len(states)} states do not fit a batch of {self.batch}")
        fluents = len(self.net.fluents)
        width = max(1, -(-fluents // 8))
        raw = b"".join(s.to_bytes(width, "little") for s in states)
        raw += bytes(width * (self.batch - len(states)))
        octets = np.frombuffer(raw, dtype=np.uint8).reshape(self.batch, width)
        bits = np.unpackbits(octets, axis=1, bitorder="little")
        packed = np.packbits(np.ascontiguousarray(bits[:, :fluents].T), axis=1, bitorder="little")
        self.rows[:fluents] = packed.view(np.uint64)
        self.depth[:] = 0

    def step(
        self, states: Sequence[int], choices: Sequence[Sequence[int]]
    ) -> list[tuple[bool, list[int], list[int], int]]:
        """For each state: terminal, each role's legal and goal outputs as masks, and the successor after
        each role ``r`` plays its legal move of index ``choices[k][r]`` (in the sorted legal moves of the
        state). The masks index the sorted outputs of :class:`PropNet`, as the compiled engine's do."""
        self.load(states)
        self._run(self._analyse)
        self._run(self._goals)
        count = len(states)
        terminal = self._bits(np.array([self.terminal_row]))[:count, 0]
        masks = []
        for rows in (*self.legal_rows, *self.goal_rows):
            bits = self._bits(rows)[:count] if len(rows) else np.zeros((count, 0), dtype=np.uint8)
            masks.append([int(sum(1 << int(i) for i in np.flatnonzero(lane))) for lane in bits])
        self.rows[self.net.first_input : self.net.first_gate] = 0
        lanes = np.arange(count)
        for role in range(len(self.net.roles)):
            outputs = [_set_bits(masks[role][k])[c[role]] for k, c in enumerate(choices)]
            moves = self.move_inputs[role][outputs]
            np.bitwise_or.at(self.rows, (moves, self.lane_word[lanes]), self.lane_bit[lanes])
        self._run(self._successor)
        following = self._bits(self.next_rows)[:count]
        roles = len(self.net.roles)
        return [
            (
                bool(terminal[k]),
                [masks[r][k] for r in range(roles)],
                [masks[roles + r][k] for r in range(roles)],
                int(sum(1 << int(i) for i in np.flatnonzero(following[k]))),
            )
            for k in range(count)
        ]

    def rollouts(self, states: Sequence[int]) -> npt.NDArray[np.int64]:
        """Play each state (of the compiled engine) to the end at random, all at once (for a tree search).

        The goal value of each role at the end, shape (len(states), roles); a playout cut at
        :data:`MAX_DEPTH` or by a role without legal moves is scored where it stopped.
        """
        self.load(states)
        roles = len(self.net.roles)
        values = np.zeros((self.batch, roles), dtype=np.int64)
        running = np.zeros(self.batch, dtype=bool)
        running[: len(states)] = True
        fluents = len(self.net.fluents)
        stuck = np.zeros(self.batch, dtype=bool)
        while running.any():
            self._run(self._analyse)
            terminal = self._unpacked(np.array([self.terminal_row]))[0].astype(bool)
            ended = running & (terminal | stuck | (self.depth >= MAX_DEPTH))
            if ended.any():
                self._run(self._goals)
                for role, rows in enumerate(self.goal_rows):
                    if len(rows):
                        scores = self._unpacked(rows) * self.goal_values[role][: len(rows), None]
                        values[ended, role] = scores.max(axis=0)[ended]
                running &= ~ended
            stuck = self._play_random_moves()
            # A lane stuck without a move keeps its state, to be scored where it stopped.
            following = self.rows[self.next_rows]
            keep = self._lane_mask(stuck)
            self.rows[:fluents] = (following & ~keep) | (self.rows[:fluents] & keep)
            self.depth += 1
        return values[: len(states)]

    def _lane_mask(self, lanes: npt.NDArray[np.bool_]) -> Words:
        mask = np.zeros(self.words, dtype=np.uint64)
        np.bitwise_or.at(mask, self.lane_word[lanes], self.lane_bit[lanes])
        return mask

    def _restart(self, lanes: npt.NDArray[np.bool_], analysed: bool) -> None:
        """Put ``lanes`` back to the initial state; with ``analysed``, its analysis rows too."""
        mask = self._lane_mask(lanes)
        rows = self.rows if analysed else self.rows[: len(self.net.fluents)]
        start = self.start if analysed else self.init
        rows &= ~mask
        rows |= start & mask
        self.depth[lanes] = 0

    def _finish(self, done: npt.NDArray[np.bool_], stats: BatchStats) -> None:
        """Count the playouts of the ``done`` lanes (their goals are evaluated in the rows)."""
        for role, rows in enumerate(self.goal_rows):
            if len(rows):
                bits = self._bits(rows)[done]
                stats.goal_sums[role] += int((bits * self.goal_values[role][: len(rows)]).sum())
        stats.playouts += int(done.sum())
        stats.moves += int(self.depth[done].sum())

    def run(self, seconds: float, playouts: int | None = None) -> BatchStats:
        """Run playouts from the initial state for ``seconds``, or until ``playouts`` have completed.

        Only playouts completed during the run count; every lane starts afresh.
        """
        deadline = time.perf_counter() + seconds
        limit = playouts if playouts is not None else 1 << 62
        return self._play(lambda stats: time.perf_counter() < deadline and stats.playouts < limit)

    def _play(self, going_on: Callable[[BatchStats], bool]) -> BatchStats:
        roles = len(self.net.roles)
        stats = BatchStats(goal_sums=[0] * roles)
        everything = np.ones(self.batch, dtype=bool)
        self._restart(everything, analysed=False)
        self._run(self._analyse)
        started = time.perf_counter()
        fluents = len(self.net.fluents)
        # At least one playout completes, so that a rate can be given.
        while going_on(stats) or not stats.playouts:
            terminal = self._bits(np.array([self.terminal_row]))[:, 0].astype(bool)
            done = terminal | (self.depth >= MAX_DEPTH)
            if done.any():
                self._run(self._goals)
                self._finish(done, stats)
                self._restart(done, analysed=True)
            stuck = self._play_random_moves()
            self.rows[:fluents] = self.rows[self.next_rows]
            self.depth += 1
            if stuck.any():
                # A role without a legal move ends the playout (as in gdl bench); goals are not counted.
                stats.playouts += int(stuck.sum())
                stats.moves += int(self.depth[stuck].sum()) - int(stuck.sum())
                self._restart(stuck, analysed=False)
            self._run(self._analyse)
        stats.seconds = time.perf_counter() - started
        return stats


def measure(
    checked: CheckedProgram, batch: int, seed: int, warm_up: float, seconds: float
) -> tuple[int, int, float, float]:
    """Batched random playouts for ``gdl bench``: (playouts, states visited, wall seconds, CPU seconds).

    Only the measured part counts, not instantiation or the warm-up.
    """
    engine = BatchedEngine(build(instantiate(checked)), batch, seed)
    engine.run(warm_up)
    wall, cpu = time.perf_counter(), time.process_time()
    stats = engine.run(seconds)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return stats.playouts, stats.moves + stats.playouts, wall, cpu
