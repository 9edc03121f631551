"""The numba kernels of :mod:`gdl.retrograde` (importing this module imports numba).

Compiled once per installation (``cache=True``, :mod:`gdl.engines.warm`). States are rows of bytes (bit
``i`` of the little-endian number is base proposition ``i``) in a hash table of row numbers; the graph
is in compressed rows: state ``s``'s successors are ``children[child_start[s]:child_start[s + 1]]``, one
per joint move in the order of ``itertools.product`` over each role's legal moves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np

from gdl.engines.sweep_kernel import sweep, walk_schedule
from gdl.engines.sweep_layout import (
    BASES,
    FALSE_SLOT,
    OUTPUT_LITS,
    SIZES,
    VALUE_SLOTS,
)

F = TypeVar("F", bound=Callable[..., Any])
_jit = cast(Callable[[F], F], numba.njit(cache=True, nogil=True))

#: What :func:`expand` stopped at (its return value).
DONE, CHUNK, GROW_STATES, GROW_EDGES, NO_LEGAL_MOVE, NO_GOAL, LIMIT = range(7)
#: Fields of the counters array shared with :func:`expand`.
STATES, EXPANDED, EDGES, CULPRIT = range(4)


@_jit
def _hash(row: Any) -> np.uint64:  # pragma: no cover (numba)
    value = np.uint64(14695981039346656037)
    for byte in row:
        value = (value ^ np.uint64(byte)) * np.uint64(1099511628211)
    return value


@_jit
def _find(keys: Any, table: Any, row: Any) -> int:  # pragma: no cover (numba)
    """The slot of ``row`` in ``table``: the slot holding its number plus one, or the empty slot where
    it goes."""
    mask = np.uint64(len(table) - 1)
    slot = _hash(row) & mask
    while True:
        held = table[slot]
        if held == 0:
            return int(slot)
        other = keys[held - 1]
        same = True
        for k in range(len(row)):
            if other[k] != row[k]:
                same = False
                break
        if same:
            return int(slot)
        slot = (slot + np.uint64(1)) & mask


@_jit
def rehash(keys: Any, table: Any, count: int) -> None:  # pragma: no cover (numba)
    """Fill an empty ``table`` with the first ``count`` rows of ``keys``."""
    for s in range(count):
        table[_find(keys, table, keys[s])] = s + 1


#: Successors evaluated at once, a bit of a 64-bit word each.
LANES = 64
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
#: The position of a word's single set bit: the top six bits of its product with a de Bruijn sequence
#: name it.
_DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DE_BRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _position in range(64):
    _DE_BRUIJN_INDEX[((1 << _position) * 0x03F79D71B4CB0A89 % 2**64) >> 58] = _position


@_jit
def _lane_sweep(tables: Any, work: Any) -> None:  # pragma: no cover (numba)
    """The schedule of ``tables`` over words of lanes: ``work`` holds the base propositions' and the
    inputs' words on entry, every slot's word on return (as :func:`gdl.engines.sweep_kernel.sweep`)."""
    work[tables[tables[SIZES] + FALSE_SLOT]] = 0
    walk_schedule(tables, work, _ALL)


@_jit
def _flush(  # pragma: no cover (numba)
    next_tables: Any, work: Any, lanes: int, lane_state: Any, lane_inputs: Any, lane_edge: Any,
    keys: Any, table: Any, counters: Any, children: Any, rows: Any, limit: int,
) -> bool:
    """The successors of the ``lanes`` pending joint moves, added to the table and written to their
    edges; False when ``limit`` states would be passed."""
    bases = next_tables[next_tables[SIZES] + BASES]
    inputs_end = next_tables[next_tables[SIZES] + FALSE_SLOT]
    state_bytes = keys.shape[1]
    work[:inputs_end] = 0
    run = 0
    while run < lanes:  # the lanes of one state are consecutive: its bits are set for all of them at once
        stop = run + 1
        while stop < lanes and lane_state[stop] == lane_state[run]:
            stop += 1
        mask = np.uint64(0)
        for lane in range(run, stop):
            mask |= np.uint64(1) << np.uint64(lane)
        row = keys[lane_state[run]]
        for b in range(state_bytes):
            byte = row[b]
            if byte:
                for t in range(8):
                    if (byte >> t) & 1 and b * 8 + t < bases:
                        work[b * 8 + t] |= mask
        run = stop
    for lane in range(lanes):
        bit = np.uint64(1) << np.uint64(lane)
        for k in range(lane_inputs.shape[1]):
            index = lane_inputs[lane, k]
            if index >= 0:
                work[bases + index] |= bit
    _lane_sweep(next_tables, work)
    outputs = next_tables[next_tables[OUTPUT_LITS] : next_tables[OUTPUT_LITS + 1]]
    rows[:lanes, :] = 0
    for k in range(len(outputs)):
        lit = outputs[k]
        word = work[lit >> 1] ^ (_ALL if lit & 1 else np.uint64(0))
        while word:
            low = word & (~word + np.uint64(1))
            lane = _DE_BRUIJN_INDEX[(low * _DE_BRUIJN) >> np.uint64(58)]
            if lane < lanes:
                rows[lane, k >> 3] |= np.uint8(1 << (k & 7))
            word ^= low
    for lane in range(lanes):
        following = rows[lane]
        slot = _find(keys, table, following)
        if table[slot] == 0:
            if counters[STATES] >= limit:
                return False
            keys[counters[STATES], :] = following
            counters[STATES] += 1
            table[slot] = counters[STATES]
        children[lane_edge[lane]] = table[slot] - 1
    return True


@_jit
def expand(  # pragma: no cover (numba)
    state_tables: Any, next_tables: Any, legal_first: Any, legal_input: Any, goal_first: Any,
    goal_value: Any, input_bytes: int, keys: Any, table: Any, counters: Any, child_start: Any,
    children: Any, terminal: Any, goals: Any, legal_counts: Any, chunk: int, limit: int,
) -> int:
    """Expand up to ``chunk`` states in the order they were added (breadth first): their terminal flag
    and goals, or their successors, added to the table, at most ``limit`` states in all; returns what it
    stopped at (see the module constants; ``counters[CULPRIT]`` names the state a rule problem was found
    in); ``legal_counts[s, r]`` is how many legal moves role ``r`` has in inner state ``s``. Successors
    are evaluated :data:`LANES` at a time, a joint move a lane."""
    roles = len(legal_first) - 1
    state_slots = state_tables[state_tables[SIZES] + VALUE_SLOTS]
    state_work = np.zeros(state_slots + (1 + len(legal_input) + len(goal_value) + 7) // 8, dtype=np.uint8)
    no_inputs = np.zeros(max(input_bytes, 1), dtype=np.uint8)
    lane_work = np.zeros(next_tables[next_tables[SIZES] + VALUE_SLOTS], dtype=np.uint64)
    lane_state = np.zeros(LANES, dtype=np.int64)
    lane_inputs = np.full((LANES, max(roles, 1)), -1, dtype=np.int64)
    lane_edge = np.zeros(LANES, dtype=np.int64)
    rows = np.zeros((LANES, keys.shape[1]), dtype=np.uint8)
    counts = np.zeros(roles, dtype=np.int64)
    legal = np.zeros((roles, len(legal_input) + 1), dtype=np.int64)
    pending = 0
    done = 0
    status = DONE
    while counters[EXPANDED] < counters[STATES] or pending:
        if counters[EXPANDED] == counters[STATES] or done == chunk:
            # Nothing left to analyse before the pending successors are known (or the chunk is done).
            if pending:
                if not _flush(next_tables, lane_work, pending, lane_state, lane_inputs, lane_edge, keys,
                              table, counters, children, rows, limit):
                    return LIMIT
                pending = 0
            if done == chunk:
                return CHUNK
            continue
        s = counters[EXPANDED]
        sweep(state_tables, keys[s], no_inputs, state_work)
        bits = state_work[state_slots:]
        if bits[0] & 1:
            terminal[s] = True
            for r in range(roles):
                found = -1
                for k in range(goal_first[r], goal_first[r + 1]):
                    bit = 1 + len(legal_input) + k
                    if (bits[bit >> 3] >> (bit & 7)) & 1:
                        if found != -1:
                            found = -2
                            break
                        found = k
                if found < 0:
                    counters[CULPRIT] = s
                    status = NO_GOAL
                    break
                goals[s, r] = goal_value[found]
            if status != DONE:
                break
            child_start[s + 1] = counters[EDGES]
            counters[EXPANDED] = s + 1
            done += 1
            continue
        joints = 1
        for r in range(roles):
            n = 0
            for k in range(legal_first[r], legal_first[r + 1]):
                bit = 1 + k
                if (bits[bit >> 3] >> (bit & 7)) & 1:
                    legal[r, n] = k
                    n += 1
            if n == 0:
                status = NO_LEGAL_MOVE
                break
            counts[r] = n
            legal_counts[s, r] = n
            joints *= n
        if status != DONE:
            counters[CULPRIT] = s
            break
        wanted = counters[STATES] + pending + joints
        if wanted > keys.shape[0] or 2 * wanted > len(table):
            status = GROW_STATES
            break
        if counters[EDGES] + joints > len(children):
            status = GROW_EDGES
            break
        for j in range(joints):
            rest = j
            for r in range(roles - 1, -1, -1):
                lane_inputs[pending, r] = legal_input[legal[r, rest % counts[r]]]
                rest //= counts[r]
            lane_state[pending] = s
            lane_edge[pending] = counters[EDGES] + j
            pending += 1
            if pending == LANES:
                if not _flush(next_tables, lane_work, pending, lane_state, lane_inputs, lane_edge, keys,
                              table, counters, children, rows, limit):
                    return LIMIT
                pending = 0
        counters[EDGES] += joints
        child_start[s + 1] = counters[EDGES]
        counters[EXPANDED] = s + 1
        done += 1
    if pending and not _flush(next_tables, lane_work, pending, lane_state, lane_inputs, lane_edge, keys,
                              table, counters, children, rows, limit):
        return LIMIT
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
    parents = np.empty(parents_start[count], dtype=np.int64)
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
