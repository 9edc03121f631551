"""The numba kernels of :mod:`gdl.retrograde` (importing this module imports numba).

Compiled once per installation (``cache=True``, :mod:`gdl.engines.warm`). States are rows of 64-bit words
(bit ``i % 64`` of word ``i // 64`` is base proposition ``i``) in a hash table of row numbers; the graph
is in compressed rows: state ``s``'s successors are ``children[child_start[s]:child_start[s + 1]]``, one
per joint move in the order of ``itertools.product`` over each role's legal moves.

Both questions are asked :data:`LANES` (256) at a time, a lane each in rows of four 64-bit words (a row
per proposition or gate): the terminal test, legal moves and goals of 256 states, and the successors of
256 joint moves. States go into the lanes and answers come out of them by transposing 64 x 64 blocks of
bits (a row of words per state or joint move against a word of lanes per proposition).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np

from gdl.engines.batched_kernel import _lowest
from gdl.engines.sweep_kernel import WIDE, walk_schedule_wide
from gdl.engines.sweep_layout import (
    BASES,
    FALSE_SLOT,
    OUTPUT_LITS,
    SIZES,
    VALUE_SLOTS,
)

F = TypeVar("F", bound=Callable[..., Any])
_jit = cast(Callable[[F], F], numba.njit(cache=True, nogil=True))
_inline = cast(Callable[[F], F], numba.njit(inline="always"))

#: What :func:`expand` stopped at (its return value).
DONE, CHUNK, GROW_STATES, GROW_EDGES, NO_LEGAL_MOVE, NO_GOAL, LIMIT = range(7)
#: Fields of the counters array shared with :func:`expand`.
STATES, EXPANDED, EDGES, CULPRIT = range(4)

#: A slot of the hash table holds its state's number plus one in the low bits and the top bits of the
#: state's hash above them, so that most rows that differ are told apart without reading them.
NUMBER_BITS = 36
_NUMBER_BITS = np.uint64(NUMBER_BITS)
_NUMBER = np.uint64((1 << NUMBER_BITS) - 1)

#: States analysed, or joint moves evaluated, at once: a lane each in a row of words.
LANES = 64 * WIDE
#: The lanes of at most this many states get their propositions set one state at a time (fewer steps
#: than transposing when the lanes share states); more by transposing.
BROADCAST_RUNS = 64
#: A word of a row with at most this many outputs gets their lanes' bits one by one (fewer steps than
#: transposing a block that is mostly empty).
SPARSE_OUTPUTS = 16
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_NONE = np.uint64(0)
_ONE = np.uint64(1)


@_inline
def row_hash(row: Any) -> Any:  # pragma: no cover (numba)
    """A 64-bit hash of a row of words (each word folded in, then the finaliser of MurmurHash3)."""
    value = np.uint64(0x9E3779B97F4A7C15)
    for word in row:
        value = (value ^ word) * np.uint64(0xBF58476D1CE4E5B9)
        value ^= value >> np.uint64(31)
    value ^= value >> np.uint64(33)
    value *= np.uint64(0xFF51AFD7ED558CCD)
    value ^= value >> np.uint64(33)
    return value


@_inline
def home_shift(table: Any) -> Any:  # pragma: no cover (numba)
    """The shift that leaves the top bits of a hash that number a slot of ``table`` (a power of two):
    its home slot. (The top bits, so that the tags kept in the table renumber the slots of a table of
    twice the size: :func:`regrow`.)"""
    shift = 64
    while (1 << (64 - shift)) < len(table):
        shift -= 1
    return np.uint64(shift)


@_inline
def find_slot(keys: Any, table: Any, shift: Any, row: Any, hashed: Any) -> int:  # pragma: no cover (numba)
    """The slot of ``row`` (whose hash is ``hashed``) in ``table``: the slot holding it, or the empty
    slot where it goes."""
    mask = np.uint64(len(table) - 1)
    slot = hashed >> shift
    tag = hashed >> _NUMBER_BITS
    while True:
        held = table[slot]
        if held == 0:
            return int(slot)
        if held >> _NUMBER_BITS == tag:
            other = keys[(held & _NUMBER) - _ONE]
            same = True
            for k in range(len(row)):
                if other[k] != row[k]:
                    same = False
                    break
            if same:
                return int(slot)
        slot = (slot + _ONE) & mask


@_inline
def table_entry(hashed: Any, number: int) -> Any:  # pragma: no cover (numba)
    """The table's entry for state ``number`` of hash ``hashed``."""
    return ((hashed >> _NUMBER_BITS) << _NUMBER_BITS) | np.uint64(number + 1)


@_inline
def _put(table: Any, home: Any, entry: Any) -> None:  # pragma: no cover (numba)
    """Put ``entry`` (of a row not in ``table``) in the first free slot from ``home``."""
    mask = np.uint64(len(table) - 1)
    while table[home] != 0:
        home = (home + _ONE) & mask
    table[home] = entry


@_jit
def rehash(keys: Any, table: Any, count: int) -> None:  # pragma: no cover (numba)
    """Fill an empty ``table`` with the first ``count`` rows of ``keys`` (all different)."""
    shift = home_shift(table)
    for s in range(count):
        hashed = row_hash(keys[s])
        _put(table, hashed >> shift, table_entry(hashed, s))


#: The largest table :func:`regrow` fills: its slots are numbered by the tags' bits.
REGROW_BITS = 64 - NUMBER_BITS


@_jit
def regrow(old: Any, table: Any) -> None:  # pragma: no cover (numba)
    """Fill an empty ``table`` of at most ``2 ** REGROW_BITS`` slots with the entries of ``old``, their
    home slots found from their tags (without reading the rows)."""
    shift = home_shift(table) - _NUMBER_BITS
    for entry in old:
        if entry != 0:
            _put(table, (entry >> _NUMBER_BITS) >> shift, entry)


@_inline
def _transpose(block: Any) -> None:  # pragma: no cover (numba)
    """Transpose the 64 x 64 bits of ``block`` in place: bit ``j`` of word ``i`` becomes bit ``i`` of
    word ``j`` (by swapping ever smaller sub-blocks across the diagonal)."""
    j = 32
    mask = np.uint64(0x00000000FFFFFFFF)
    while j != 0:
        shift = np.uint64(j)
        k = 0
        while k < 64:
            swapped = ((block[k] >> shift) ^ block[k + j]) & mask
            block[k] ^= swapped << shift
            block[k + j] ^= swapped
            k = (k + j + 1) & ~j
        j >>= 1
        mask ^= mask << np.uint64(j)


@_inline
def _lanes_in(  # pragma: no cover (numba)
    tables: Any, work: Any, keys: Any, lane_state: Any, lanes: int, block: Any
) -> None:
    """Set the base propositions of ``work`` to those of the states ``lane_state[:lanes]``, one a lane
    (lane ``l`` is bit ``l % 64`` of word ``l // 64`` of a row), and clear its inputs and false."""
    bases = tables[tables[SIZES] + BASES]
    work[bases : tables[tables[SIZES] + FALSE_SLOT] + 1, :] = _NONE
    runs = 1
    for lane in range(1, lanes):
        runs += lane_state[lane] != lane_state[lane - 1]
    if runs > BROADCAST_RUNS:
        for q in range(WIDE):
            for w in range(keys.shape[1]):
                for i in range(64):
                    lane = 64 * q + i
                    block[i] = keys[lane_state[lane], w] if lane < lanes else _NONE
                _transpose(block)
                for b in range(min(64, bases - 64 * w)):
                    work[64 * w + b, q] = block[b]
        return
    # Few states (the lanes of a state are consecutive): each one's true propositions set in its lanes.
    work[:bases, :] = _NONE
    run = 0
    while run < lanes:
        stop = run + 1
        while stop < lanes and lane_state[stop] == lane_state[run]:
            stop += 1
        row = keys[lane_state[run]]
        for q in range(run >> 6, ((stop - 1) >> 6) + 1):
            low_lane = max(run, 64 * q) - 64 * q
            count = min(stop, 64 * q + 64) - 64 * q - low_lane
            mask = (_ALL >> np.uint64(64 - count)) << np.uint64(low_lane)
            for w in range(len(row)):
                word = row[w]
                while word:
                    work[64 * w + _lowest(word), q] |= mask
                    word &= word - _ONE
        run = stop


@_inline
def _lanes_out(  # pragma: no cover (numba)
    tables: Any, work: Any, lanes: int, rows: Any, block: Any
) -> None:
    """Each of the first ``lanes`` lanes' outputs of the schedule just walked over ``work``, as a row of
    ``rows`` (bit ``k % 64`` of word ``k // 64`` for output ``k``)."""
    outputs = tables[tables[OUTPUT_LITS] : tables[OUTPUT_LITS + 1]]
    for q in range((lanes + 63) >> 6):
        for w in range(rows.shape[1]):
            if len(outputs) - 64 * w <= SPARSE_OUTPUTS:
                # A few outputs in this word: each one's lanes set in their rows.
                rows[64 * q : 64 * q + 64, w] = _NONE
                for k in range(len(outputs) - 64 * w):
                    lit = outputs[64 * w + k]
                    word = work[lit >> 1, q] ^ (_ALL if lit & 1 else _NONE)
                    while word:
                        rows[64 * q + _lowest(word), w] |= _ONE << np.uint64(k)
                        word &= word - _ONE
                continue
            for k in range(64):
                o = 64 * w + k
                if o < len(outputs):
                    lit = outputs[o]
                    block[k] = work[lit >> 1, q] ^ (_ALL if lit & 1 else _NONE)
                else:
                    block[k] = _NONE
            _transpose(block)
            rows[64 * q : 64 * q + 64, w] = block


@_inline
def _bits(row: Any, first: int, end: int, found: Any) -> int:  # pragma: no cover (numba)
    """The positions of the set bits ``first`` to ``end - 1`` of ``row``, in ``found``; how many."""
    n = 0
    for w in range(first >> 6, (end + 63) >> 6):
        word = row[w]
        if 64 * w < first:
            word &= _ALL << np.uint64(first - 64 * w)
        if 64 * w + 64 > end:
            word &= _ALL >> np.uint64(64 * w + 64 - end)
        while word:
            found[n] = 64 * w + _lowest(word)
            n += 1
            word &= word - _ONE
    return n


@_jit
def _flush(  # pragma: no cover (numba)
    next_tables: Any, work: Any, lanes: int, lane_state: Any, lane_inputs: Any, lane_edge: Any,
    keys: Any, table: Any, counters: Any, children: Any, rows: Any, hashes: Any, block: Any, limit: int,
    store_edges: bool,
) -> bool:
    """The successors of the ``lanes`` pending joint moves, added to the table and written to their
    edges (unless only counting); False when ``limit`` states would be passed."""
    bases = next_tables[next_tables[SIZES] + BASES]
    shift = home_shift(table)
    _lanes_in(next_tables, work, keys, lane_state, lanes, block)
    for lane in range(lanes):
        bit = _ONE << np.uint64(lane & 63)
        for k in range(lane_inputs.shape[1]):
            index = lane_inputs[lane, k]
            if index >= 0:
                work[bases + index, lane >> 6] |= bit
    walk_schedule_wide(next_tables, work)
    _lanes_out(next_tables, work, lanes, rows, block)
    # The successors' home slots, then the rows they hold, read in passes that do not wait for one
    # another (their cache misses overlap) before the lookups that do.
    touched = _NONE
    for lane in range(lanes):
        hashes[lane] = row_hash(rows[lane])
        touched ^= table[hashes[lane] >> shift]
    for lane in range(lanes):
        held = table[hashes[lane] >> shift]
        if held != 0:
            touched ^= keys[(held & _NUMBER) - _ONE, 0]
    hashes[LANES] = touched  # kept, so that the reads are not optimised away
    for lane in range(lanes):
        following = rows[lane]
        hashed = hashes[lane]
        slot = find_slot(keys, table, shift, following, hashed)
        if table[slot] == 0:
            if counters[STATES] >= limit:
                return False
            keys[counters[STATES], :] = following
            table[slot] = table_entry(hashed, counters[STATES])
            counters[STATES] += 1
        if store_edges:
            children[lane_edge[lane]] = np.int32((table[slot] & _NUMBER) - _ONE)
    return True


@_jit
def expand(  # pragma: no cover (numba)
    state_tables: Any, next_tables: Any, legal_first: Any, legal_input: Any, goal_first: Any,
    goal_value: Any, keys: Any, table: Any, counters: Any, child_start: Any, children: Any,
    terminal: Any, goals: Any, legal_counts: Any, chunk: int, limit: int, store_edges: bool,
) -> int:
    """Expand up to ``chunk`` states in the order they were added (breadth first): their terminal flag
    and goals, or their successors, added to the table, at most ``limit`` states in all; returns what it
    stopped at (see the module constants; ``counters[CULPRIT]`` names the state a rule problem was found
    in); ``legal_counts[s, r]`` is how many legal moves role ``r`` has in inner state ``s``. States are
    analysed, and successors evaluated, :data:`LANES` at a time. Unless ``store_edges``, the successors
    are only counted (in ``counters[EDGES]``), not written to ``children``."""
    roles = len(legal_first) - 1
    legals = len(legal_input)
    block = np.zeros(64, dtype=np.uint64)
    state_work = np.zeros((state_tables[state_tables[SIZES] + VALUE_SLOTS] + 1, WIDE), dtype=np.uint64)
    answers = np.zeros((LANES, (1 + legals + len(goal_value) + 63) >> 6), dtype=np.uint64)
    batch = np.zeros(LANES, dtype=np.int64)
    lane_work = np.zeros((next_tables[next_tables[SIZES] + VALUE_SLOTS] + 1, WIDE), dtype=np.uint64)
    lane_state = np.zeros(LANES, dtype=np.int64)
    lane_inputs = np.full((LANES, max(roles, 1)), -1, dtype=np.int64)
    lane_edge = np.zeros(LANES, dtype=np.int64)
    rows = np.zeros((LANES, keys.shape[1]), dtype=np.uint64)
    hashes = np.zeros(LANES + 1, dtype=np.uint64)
    found = np.zeros(legals + len(goal_value) + 1, dtype=np.int64)
    counts = np.zeros(roles, dtype=np.int64)
    digit = np.zeros(roles, dtype=np.int64)
    legal = np.zeros((roles, legals + 1), dtype=np.int64)
    pending = 0
    done = 0
    status = DONE
    while status == DONE and done < chunk and counters[EXPANDED] < counters[STATES]:
        # The terminal test, legal moves and goals of the next states, a lane each.
        first = counters[EXPANDED]
        analysed = min(LANES, counters[STATES] - first, chunk - done)
        for lane in range(LANES):
            batch[lane] = first + lane
        _lanes_in(state_tables, state_work, keys, batch, analysed, block)
        walk_schedule_wide(state_tables, state_work)
        _lanes_out(state_tables, state_work, analysed, answers, block)
        for lane in range(analysed):
            s = first + lane
            bits = answers[lane]
            if bits[0] & _ONE:
                terminal[s] = True
                for r in range(roles):
                    if _bits(bits, 1 + legals + goal_first[r], 1 + legals + goal_first[r + 1], found) != 1:
                        status = NO_GOAL
                        break
                    goals[s, r] = goal_value[found[0] - 1 - legals]
                if status != DONE:
                    counters[CULPRIT] = s
                    break
                child_start[s + 1] = counters[EDGES]
                counters[EXPANDED] = s + 1
                done += 1
                continue
            joints = 1
            for r in range(roles):
                n = _bits(bits, 1 + legal_first[r], 1 + legal_first[r + 1], found)
                if n == 0:
                    status = NO_LEGAL_MOVE
                    break
                for i in range(n):
                    legal[r, i] = found[i] - 1
                counts[r] = n
                legal_counts[s, r] = n
                joints *= n
            if status != DONE:
                counters[CULPRIT] = s
                break
            # Room for every successor, but never past the limit (at which _flush stops): a state of more
            # joint moves than the limit allows is expanded up to the limit, not refused for its room.
            wanted = min(counters[STATES] + pending + joints, limit)
            if wanted > keys.shape[0] or 2 * wanted > len(table):
                status = GROW_STATES
                break
            if store_edges and counters[EDGES] + joints > len(children):
                status = GROW_EDGES
                break
            digit[:] = 0  # the joint move's index into each role's legal moves, the last role's fastest
            for j in range(joints):
                for r in range(roles):
                    lane_inputs[pending, r] = legal_input[legal[r, digit[r]]]
                r = roles - 1
                digit[r] += 1
                while r > 0 and digit[r] == counts[r]:
                    digit[r] = 0
                    r -= 1
                    digit[r] += 1
                lane_state[pending] = s
                lane_edge[pending] = counters[EDGES] + j
                pending += 1
                if pending == LANES:
                    if not _flush(next_tables, lane_work, pending, lane_state, lane_inputs, lane_edge, keys,
                                  table, counters, children, rows, hashes, block, limit, store_edges):
                        return LIMIT
                    pending = 0
            counters[EDGES] += joints
            child_start[s + 1] = counters[EDGES]
            counters[EXPANDED] = s + 1
            done += 1
        if pending and counters[EXPANDED] == counters[STATES]:
            # Nothing left to analyse before the pending successors are known.
            if not _flush(next_tables, lane_work, pending, lane_state, lane_inputs, lane_edge, keys,
                          table, counters, children, rows, hashes, block, limit, store_edges):
                return LIMIT
            pending = 0
    if pending and not _flush(next_tables, lane_work, pending, lane_state, lane_inputs, lane_edge, keys,
                              table, counters, children, rows, hashes, block, limit, store_edges):
        return LIMIT
    if status == DONE and counters[EXPANDED] < counters[STATES]:
        return CHUNK
    return status


@_jit
def reversed_graph(count: int, child_start: Any, children: Any) -> tuple[Any, Any]:  # pragma: no cover
    """The graph of the first ``count`` states reversed, in compressed rows: state ``s``'s predecessors
    are ``parents[parents_start[s]:parents_start[s + 1]]`` (once per joint move leading to it)."""
    parents_start = np.zeros(count + 1, dtype=np.int64)
    for s in range(count):
        for e in range(child_start[s], child_start[s + 1]):
            parents_start[children[e] + 1] += 1
    for s in range(count):
        parents_start[s + 1] += parents_start[s]
    parents = np.empty(parents_start[count], dtype=np.int32)
    filled = parents_start[:count].copy()
    for s in range(count):
        for e in range(child_start[s], child_start[s + 1]):
            child = children[e]
            parents[filled[child]] = s
            filled[child] += 1
    return parents_start, parents


@_jit
def first_ready(count: int, child_start: Any, remaining: Any, queue: Any) -> int:  # pragma: no cover
    """Set ``remaining`` to each state's number of successors and queue the states without any (the
    terminal ones); returns how many were queued."""
    tail = 0
    for s in range(count):
        remaining[s] = child_start[s + 1] - child_start[s]
        if remaining[s] == 0:
            queue[tail] = s
            tail += 1
    return tail


@_jit
def release(  # pragma: no cover (numba)
    s: int, parents_start: Any, parents: Any, remaining: Any, queue: Any, tail: int,
) -> int:
    """State ``s`` valued: each predecessor has one successor fewer to wait for, and is queued when it
    has none left; returns the queue's new end."""
    for p in range(parents_start[s], parents_start[s + 1]):
        parent = parents[p]
        remaining[parent] -= 1
        if remaining[parent] == 0:
            queue[tail] = parent
            tail += 1
    return tail


@_jit
def backward(  # pragma: no cover (numba)
    count: int, child_start: Any, children: Any, terminal: Any, goals: Any, mover: Any,
    values: Any, length: Any, choice: Any,
) -> int:
    """Backward induction from the terminal states (Kahn's order over the graph reversed): the role to
    move takes the successor best for itself, then the shorter line, then the first joint move; returns
    how many states were valued (fewer than ``count`` when a state repeats)."""
    remaining = np.zeros(count, dtype=np.int64)
    queue = np.empty(count, dtype=np.int64)
    parents_start, parents = reversed_graph(count, child_start, children)
    head = 0
    tail = first_ready(count, child_start, remaining, queue)
    while head < tail:
        s = queue[head]
        head += 1
        if terminal[s]:
            values[s, :] = goals[s, :]
            length[s] = 0
        else:
            r = mover[s]
            best = -1
            for e in range(child_start[s], child_start[s + 1]):
                child = children[e]
                if best == -1:
                    best = e
                    continue
                held = children[best]
                if values[child, r] > values[held, r] or (
                    values[child, r] == values[held, r] and length[child] < length[held]
                ):
                    best = e
            values[s, :] = values[children[best], :]
            length[s] = length[children[best]] + 1
            choice[s] = best - child_start[s]
        tail = release(s, parents_start, parents, remaining, queue, tail)
    return tail
