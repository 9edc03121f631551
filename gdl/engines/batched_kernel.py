"""The numba kernels of :mod:`gdl.engines.batched` (importing this module imports numba).

Compiled once per installation (``cache=True``). The rows of a batch are one flat ``uint64`` array:
block ``b``'s row of node ``n`` is the ``words`` words from ``(b * nodes + n) * words``, one bit per lane.
A literal is ``2 * node + negated``. The schedule is the network's gates in evaluation order, as entries
``(op, node, first literal, end literal)`` over a shared array of literals; a cycle block is an entry
(op 2) whose member count is its node, followed by its members.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]
from numba import types
from numba.extending import intrinsic

from gdl.engines.schedule import AND_OP, BLOCK_OP

#: What the playout kernel does with a lane whose playout ended: start it again from the initial state
#: (counting the playout in the statistics), or stop it (recording its goal values).
RESTART, STOP = 0, 1

_jit = numba.njit(cache=True, nogil=True)
_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


def _count_bits(typingctx: Any, word: Any) -> Any:
    """The number of set bits of a ``uint64`` (one instruction where the machine has it)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.int64(types.uint64), codegen


def _lowest_bit(typingctx: Any, word: Any) -> Any:
    """The index of the lowest set bit of a non-zero ``uint64``."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.int64(types.uint64), codegen


_popcount: Any = intrinsic(_count_bits)
_lowest: Any = intrinsic(_lowest_bit)


@numba.njit(inline="always")
def _gate(dst: Any, at: int, rows: Any, base: int, words: int, op: int, lits: Any, lo: int, hi: int) -> None:
    """``dst[at:at + words]`` = the and (op 0) or or (op 1) of the literals ``lits[lo:hi]``."""
    if lo == hi:
        fill = _ALL if op == AND_OP else np.uint64(0)
        for k in range(words):
            dst[at + k] = fill
        return
    lit = lits[lo]
    source = base + (lit >> 1) * words
    negate = _ALL if lit & 1 else np.uint64(0)
    for k in range(words):
        dst[at + k] = rows[source + k] ^ negate
    for j in range(lo + 1, hi):
        lit = lits[j]
        source = base + (lit >> 1) * words
        negate = _ALL if lit & 1 else np.uint64(0)
        if op == AND_OP:
            for k in range(words):
                dst[at + k] &= rows[source + k] ^ negate
        else:
            for k in range(words):
                dst[at + k] |= rows[source + k] ^ negate


@_jit
def evaluate(
    rows: Any, base: int, words: int, schedule: Any, lits: Any, lo: int, hi: int, scratch: Any
) -> None:
    """Evaluate schedule entries ``lo:hi`` over one block's rows (from ``base``).

    ``schedule`` has the rows op, node, first literal and end literal. A cycle block's members are reset
    to false and swept in order until no row changes (the least fixpoint).
    """
    op = schedule[0]
    node = schedule[1]
    first = schedule[2]
    end = schedule[3]
    i = lo
    while i < hi:
        if op[i] == BLOCK_OP:
            members = node[i]
            for j in range(i + 1, i + 1 + members):
                at = base + node[j] * words
                for k in range(words):
                    rows[at + k] = 0
            changed = True
            while changed:
                changed = False
                for j in range(i + 1, i + 1 + members):
                    _gate(scratch, 0, rows, base, words, op[j], lits, first[j], end[j])
                    at = base + node[j] * words
                    for k in range(words):
                        if rows[at + k] != scratch[k]:
                            changed = True
                            rows[at + k] = scratch[k]
            i += members + 1
        else:
            _gate(rows, base + node[i] * words, rows, base, words, op[i], lits, first[i], end[i])
            i += 1


@_jit
def evaluate_blocks(
    rows: Any, blocks: int, nodes: int, words: int, schedule: Any, lits: Any, lo: int, hi: int
) -> None:
    """:func:`evaluate` over every block."""
    scratch = np.empty(words, dtype=np.uint64)
    for block in range(blocks):
        evaluate(rows, block * nodes * words, words, schedule, lits, lo, hi, scratch)


@numba.njit(inline="always")
def _word(rows: Any, base: int, words: int, lit: int, k: int) -> Any:
    """Word ``k`` of a literal's row in one block."""
    value = rows[base + (lit >> 1) * words + k]
    return ~value if lit & 1 else value


@_jit
def play(
    rows: Any, blocks: int, nodes: int, words: int, schedule: Any, lits: Any, phases: Any, outputs: Any,
    starts: Any, goal_values: Any, restart: Any, inputs: Any, depth: Any, live: Any, values: Any,
    mode: int, steps: int, max_depth: int, seed: int, stats: Any,
) -> int:
    """Advance every lane of every block by up to ``steps`` random joint moves; the lanes still live.

    Each step evaluates the schedule entries ``phases[0]:phases[1]`` (terminal, legal and what of the
    successor depends on the state alone), reads which lanes ended (a terminal state, or ``max_depth``
    moves made), evaluates ``phases[1]:phases[2]`` (the goals) if any did, and records them: with
    ``mode`` RESTART, ``stats`` gets the playouts, their moves and each role's summed goal values, and the
    lane starts again (the ``restart`` rows, literal and value, get the initial state's values); with
    STOP, ``values[lane, role]`` gets each role's goal value (the highest that holds) and the lane leaves
    ``live``. Then each role of each live lane picks a legal move uniformly (xorshift64*, seeded by
    ``seed``), the inputs are set and ``phases[2]:phases[3]`` evaluated (the rest of the successor), and
    the base rows take the successor's values. A lane where a role has no legal move ends there: counted
    but not scored with RESTART (it starts again from the initial state), scored where it stopped with
    STOP.

    ``outputs`` holds the literals of terminal, the legal outputs, the goal outputs and ``next`` of each
    base; ``starts`` the offsets in it of each role's legal outputs, of each role's goal outputs, and of
    ``next`` (role ``r``'s legal outputs are ``starts[r]:starts[r + 1]``, its goal outputs
    ``starts[roles + r]:starts[roles + r + 1]``). The first ``restart`` literals are the base rows'.
    ``inputs[k]`` is the input node of legal output ``k``; ``inputs`` then holds the first input node and
    the first gate node (inputs are the nodes between).
    """
    roles = (starts.shape[0] - 1) // 2
    next_at = starts[2 * roles]
    bases = outputs.shape[0] - next_at
    legal_outputs = starts[roles] - starts[0]
    first_input = inputs[legal_outputs]
    first_gate = inputs[legal_outputs + 1]
    terminal = outputs[0]
    scratch = np.empty(max(words, bases * words), dtype=np.uint64)
    ended = np.empty(words, dtype=np.uint64)
    stuck = np.empty(words, dtype=np.uint64)
    counts = np.empty(64, dtype=np.int64)
    widest = 1
    for role in range(roles):
        widest = max(widest, starts[role + 1] - starts[role])
    options = np.empty((64, widest), dtype=np.int32)
    # splitmix64 of the seed starts a xorshift64* generator.
    state = np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)
    state = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    state = (state ^ (state >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    state = (state ^ (state >> np.uint64(31))) | _ONE
    remaining = 0
    for block in range(blocks):
        base = block * nodes * words
        lane0 = block * words * 64
        for _ in range(steps):
            if mode == STOP:
                alive = False
                for k in range(words):
                    if live[block * words + k]:
                        alive = True
                if not alive:
                    break
            for n in range(first_input, first_gate):
                at = base + n * words
                for k in range(words):
                    rows[at + k] = 0
            evaluate(rows, base, words, schedule, lits, phases[0], phases[1], scratch)
            anything = False
            deepest = depth[lane0 : lane0 + 64 * words].max()
            for k in range(words):
                over = np.uint64(0)
                if deepest >= max_depth:
                    for i in range(64):
                        if depth[lane0 + k * 64 + i] >= max_depth:
                            over |= _ONE << np.uint64(i)
                ended[k] = (_word(rows, base, words, terminal, k) | over) & live[block * words + k]
                if ended[k]:
                    anything = True
            if anything:
                evaluate(rows, base, words, schedule, lits, phases[1], phases[2], scratch)
                _record(
                    rows, base, words, ended, lane0, outputs, starts, goal_values, depth, values, mode, stats
                )
                for k in range(words):
                    done = ended[k]
                    if not done:
                        continue
                    if mode == STOP:
                        live[block * words + k] &= ~done
                        continue
                    for j in range(restart.shape[0]):
                        at = base + (restart[j] >> 1) * words + k
                        if restart[j] & 1:
                            rows[at] |= done
                        else:
                            rows[at] &= ~done
                    while done:
                        i = _lowest(done)
                        done &= done - _ONE
                        depth[lane0 + k * 64 + i] = 0
            anything = False
            for k in range(words):
                active = live[block * words + k]
                lost = np.uint64(0)
                for role in range(roles):
                    for i in range(64):
                        counts[i] = 0
                    # Each lane's legal moves, listed in one pass over the set bits of the legal rows.
                    for j in range(starts[role], starts[role + 1]):
                        bits = _word(rows, base, words, outputs[j], k) & active
                        while bits:
                            i = _lowest(bits)
                            bits &= bits - _ONE
                            options[i, counts[i]] = j - starts[0]
                            counts[i] += 1
                    bits = active
                    while bits:
                        i = _lowest(bits)
                        bits &= bits - _ONE
                        if counts[i] == 0:
                            lost |= _ONE << np.uint64(i)
                            continue
                        option = options[i, 0]
                        if counts[i] > 1:
                            state ^= state >> np.uint64(12)
                            state ^= state << np.uint64(25)
                            state ^= state >> np.uint64(27)
                            draw = (state * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
                            option = options[i, np.int64((draw * np.uint64(counts[i])) >> np.uint64(32))]
                        # A lane that turns out stuck gets inputs too; its successor is not used.
                        rows[base + inputs[option] * words + k] |= _ONE << np.uint64(i)
                stuck[k] = lost
                if lost:
                    anything = True
            if anything:
                if mode == STOP:
                    evaluate(rows, base, words, schedule, lits, phases[1], phases[2], scratch)
                    _record(
                        rows, base, words, stuck, lane0, outputs, starts, goal_values, depth, values, mode,
                        stats,
                    )
                    for k in range(words):
                        live[block * words + k] &= ~stuck[k]
                else:
                    for k in range(words):
                        done = stuck[k]
                        stats[0] += _popcount(done)
                        while done:
                            i = _lowest(done)
                            done &= done - _ONE
                            stats[1] += depth[lane0 + k * 64 + i]
            evaluate(rows, base, words, schedule, lits, phases[2], phases[3], scratch)
            for b in range(bases):
                lit = outputs[next_at + b]
                for k in range(words):
                    scratch[b * words + k] = _word(rows, base, words, lit, k)
            for b in range(bases):
                at = base + b * words
                for k in range(words):
                    rows[at + k] = scratch[b * words + k]
            for i in range(lane0, lane0 + 64 * words):
                depth[i] += 1
            if anything and mode == RESTART:
                # Stuck lanes start again from the initial state (its base rows are the first restart rows).
                for b in range(bases):
                    lit = restart[b]
                    for k in range(words):
                        if lit & 1:
                            rows[base + b * words + k] |= stuck[k]
                        else:
                            rows[base + b * words + k] &= ~stuck[k]
                for k in range(words):
                    done = stuck[k]
                    while done:
                        i = _lowest(done)
                        done &= done - _ONE
                        depth[lane0 + k * 64 + i] = 0
        if mode == STOP:
            for k in range(words):
                remaining += _popcount(live[block * words + k])
    return remaining


@numba.njit(inline="always")
def _record(
    rows: Any, base: int, words: int, ended: Any, lane0: int, outputs: Any, starts: Any, goal_values: Any,
    depth: Any, values: Any, mode: int, stats: Any,
) -> None:
    """Record the playouts of the ``ended`` lanes of a block (see :func:`play`)."""
    roles = (starts.shape[0] - 1) // 2
    goals_at = starts[roles]
    for k in range(words):
        done = ended[k]
        if not done:
            continue
        if mode == RESTART:
            stats[0] += _popcount(done)
            for role in range(roles):
                for j in range(starts[roles + role], starts[roles + role + 1]):
                    held = _word(rows, base, words, outputs[j], k) & done
                    stats[2 + role] += _popcount(held) * goal_values[j - goals_at]
            while done:
                i = _lowest(done)
                done &= done - _ONE
                stats[1] += depth[lane0 + k * 64 + i]
        else:
            while done:
                i = _lowest(done)
                done &= done - _ONE
                bit = _ONE << np.uint64(i)
                for role in range(roles):
                    best = 0
                    for j in range(starts[roles + role], starts[roles + role + 1]):
                        if _word(rows, base, words, outputs[j], k) & bit:
                            best = max(best, goal_values[j - goals_at])
                    values[lane0 + k * 64 + i, role] = best
