"""The numba kernel of :mod:`gdl.players.puzzles.depth` (importing this module imports numba).

A depth-first search of a one-role game over its network's sweeps (:mod:`gdl.engines.sweep`): states are
rows of bytes (bit ``i`` of the little-endian number is base proposition ``i``), the states expanded are
kept in a hash table of rows (a transposition table: a state's future does not depend on the line that
reached it, so no state is expanded twice). Everything the search needs to go on lives in the arrays it
is given, so that it runs in chunks of nodes between which the caller looks at the clock.

The state sweep's outputs are ``terminal``, the role's legal outputs, then its goal outputs; the next
sweep's outputs are the base propositions' ``next``, so its output bits are the successor's row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np

from gdl.engines.sweep_kernel import sweep
from gdl.engines.sweep_layout import BASES, FALSE_SLOT, SIZES, VALUE_SLOTS
from gdl.retrograde_kernel import find_slot, home_shift, row_hash, table_entry

F = TypeVar("F", bound=Callable[..., Any])
_jit = cast(Callable[[F], F], numba.njit(cache=True, nogil=True))

#: What :func:`search` stopped at (its return value).
FOUND, EXHAUSTED, CHUNK, TABLE_FULL, NO_LEGAL_MOVE, NO_GOAL = range(6)
#: Fields of the counters array shared with :func:`search`: the depth of the deepest frame (-1 before
#: the root is expanded), the states expanded, the best goal of a terminal state reached (-1: none yet)
#: and the length of its line, and whether a frame was cut at the stack's depth (the search is then not
#: exhaustive).
DEPTH, EXPANDED, BEST_GOAL, BEST_LENGTH, CUT = range(5)
COUNTERS = 5


@_jit
def _insert(keys: Any, table: Any, held: Any, row: Any) -> int:  # pragma: no cover (numba)
    """Add ``row`` to the table (that of :mod:`gdl.retrograde_kernel`): 1 if it was new, 0 if it was
    there, -1 if the table is full."""
    hashed = row_hash(row)
    slot = find_slot(keys, table, home_shift(table), row, hashed)
    if table[slot]:
        return 0
    if held[0] >= len(keys):
        return -1
    keys[held[0], :] = row
    table[slot] = table_entry(hashed, held[0])
    held[0] += 1
    return 1


@_jit
def _bit(bits: Any, k: int) -> bool:  # pragma: no cover (numba)
    return bool((bits[k >> 3] >> (k & 7)) & 1)


@_jit
def _analyse(
    state_tables: Any, row: Any, no_inputs: Any, work: Any, legals: int, goal_value: Any, moves: Any
) -> tuple[bool, int, int]:  # pragma: no cover (numba)
    """Sweep ``row``: whether it is terminal, its goal (-1 none, -2 several), and how many legal outputs
    hold (their numbers written to ``moves``)."""
    sweep(state_tables, row, no_inputs, work)
    bits = work[state_tables[state_tables[SIZES] + VALUE_SLOTS] :]
    goal = -1
    for k in range(len(goal_value)):
        if _bit(bits, 1 + legals + k):
            goal = int(goal_value[k]) if goal == -1 else -2
    count = 0
    for k in range(legals):
        if _bit(bits, 1 + k):
            moves[count] = k
            count += 1
    return _bit(bits, 0), goal, count


@_jit
def _successor(  # pragma: no cover (numba)
    next_tables: Any, row: Any, move_input: int, inputs: Any, work: Any, out: Any
) -> None:
    inputs[:] = 0
    if move_input >= 0:
        inputs[move_input >> 3] = np.uint8(1 << (move_input & 7))
    sweep(next_tables, row, inputs, work)
    slots = next_tables[next_tables[SIZES] + VALUE_SLOTS]
    out[:] = work[slots : slots + len(out)]


@_jit
def _focus(  # pragma: no cover (numba)
    row: Any, kids: Any, kid_move: Any, count: int, signature: Any, groups: Any, frame: int
) -> int:
    """Keep only the successors of the smallest group (the order kept), and none when a move left fewer
    groups than the move before it less one; the successors kept.

    A group is the successors that turn off the same base propositions: the moves that fill one cell of a
    grid, say. Where every cell must be filled, in any order, trying the cell of fewest choices is the
    most-constrained-variable rule, and a move that leaves a cell without a choice (its group gone
    though it was not played) is a dead end. Neither holds in every game: so this is a heuristic, tried
    before the exhaustive search, not instead of it."""
    for i in range(count):
        value = np.uint64(14695981039346656037)
        for b in range(len(row)):
            value = (value ^ np.uint64(row[b] & ~kids[i, b])) * np.uint64(1099511628211)
        signature[i] = value
    chosen = -1
    smallest = count + 1
    distinct = 0
    for i in range(count):
        first = True
        size = 0
        for j in range(count):
            if signature[j] == signature[i]:
                if j < i:
                    first = False
                    break
                size += 1
        if first:
            distinct += 1
            if size < smallest:
                smallest = size
                chosen = i
    groups[frame] = distinct
    if frame > 0 and distinct < groups[frame - 1] - 1:
        return 0
    kept = 0
    for i in range(count):
        if signature[i] == signature[chosen]:
            if kept != i:
                kids[kept, :] = kids[i]
                kid_move[kept] = kid_move[i]
            kept += 1
    return kept


@_jit
def search(  # pragma: no cover (numba)
    state_tables: Any, next_tables: Any, legal_input: Any, goal_value: Any, target: int,
    rows: Any, kids: Any, kid_move: Any, kid_count: Any, position: Any, line: Any, best_line: Any,
    keys: Any, table: Any, held: Any, counters: Any, culprit: Any, chunk: int, focus: bool,
    groups: Any,
) -> int:
    """Search depth first from ``rows[0]`` (not terminal) for a terminal state whose goal is at least
    ``target``, expanding at most ``chunk`` states in this call; returns what it stopped at.

    Frame ``d`` holds state ``rows[d]`` and its successors ``kids[d, :kid_count[d]]`` (reached by the
    legal outputs ``kid_move[d]``), of which those before ``position[d]`` were tried; ``line[d]`` is the
    legal output played from frame ``d``. Successors are tried best first by the goal the rules give them
    (a puzzle that scores a partial solution, as queens' count of attacks does), then most constrained
    first (the fewest legal moves: Warnsdorff's rule for a knight's tour), ties in the rules' order;
    terminal successors are scored as they are made, the best line to one kept in ``best_line`` (its goal
    and length in ``counters``). A state that breaks GDL (no legal move, no single
    goal) is copied to ``culprit``. With ``focus``, only some successors are tried (see :func:`_focus`;
    ``groups[d]`` counts frame ``d``'s groups): the search is then no longer exhaustive."""
    legals = len(legal_input)
    depth_limit = rows.shape[0] - 1
    state_sizes = state_tables[SIZES]
    next_sizes = next_tables[SIZES]
    input_count = next_tables[next_sizes + FALSE_SLOT] - next_tables[next_sizes + BASES]
    inputs = np.zeros(max(1, (input_count + 7) // 8), dtype=np.uint8)
    no_inputs = np.zeros(len(inputs), dtype=np.uint8)
    state_work = np.zeros(
        state_tables[state_sizes + VALUE_SLOTS] + (1 + legals + len(goal_value) + 7) // 8, dtype=np.uint8
    )
    next_work = np.zeros(next_tables[next_sizes + VALUE_SLOTS] + rows.shape[1], dtype=np.uint8)
    moves = np.zeros(max(1, legals), dtype=np.int64)
    scratch = np.zeros(max(1, legals), dtype=np.int64)
    sort_key = np.zeros(max(1, legals), dtype=np.int64)
    fresh = np.zeros(rows.shape[1], dtype=np.uint8)
    signature = np.zeros(max(1, legals), dtype=np.uint64)
    expanded = 0
    while True:
        depth = counters[DEPTH]
        if depth < 0:
            frame = 0
            if _insert(keys, table, held, rows[0]) < 0:
                return TABLE_FULL
        else:
            if position[depth] == kid_count[depth]:
                counters[DEPTH] = depth - 1
                if depth == 0:
                    return EXHAUSTED
                continue
            if expanded >= chunk:
                return CHUNK
            k = position[depth]
            if depth == depth_limit:
                position[depth] += 1
                counters[CUT] = 1
                continue
            added = _insert(keys, table, held, kids[depth, k])
            if added < 0:
                return TABLE_FULL
            position[depth] += 1
            if added == 0:
                continue
            line[depth] = kid_move[depth, k]
            rows[depth + 1, :] = kids[depth, k]
            frame = depth + 1
        counters[DEPTH] = frame
        expanded += 1
        counters[EXPANDED] += 1
        _, _, count = _analyse(state_tables, rows[frame], no_inputs, state_work, legals, goal_value, moves)
        if count == 0:
            culprit[:] = rows[frame]
            return NO_LEGAL_MOVE
        kept = 0
        for i in range(count):
            k = moves[i]
            _successor(next_tables, rows[frame], legal_input[k], inputs, next_work, fresh)
            terminal, goal, following = _analyse(
                state_tables, fresh, no_inputs, state_work, legals, goal_value, scratch
            )
            if terminal:
                if goal < 0:
                    culprit[:] = fresh
                    return NO_GOAL
                if goal > counters[BEST_GOAL]:
                    counters[BEST_GOAL] = goal
                    counters[BEST_LENGTH] = frame + 1
                    best_line[:frame] = line[:frame]
                    best_line[frame] = k
                    if goal >= target:
                        return FOUND
                continue
            # Insertion sort (stable) on the goal the rules give the successor (higher first, none last),
            # then on its number of legal moves.
            key = (101 - max(goal, -1)) * (legals + 1) + following
            j = kept
            while j > 0 and sort_key[j - 1] > key:
                sort_key[j] = sort_key[j - 1]
                kid_move[frame, j] = kid_move[frame, j - 1]
                kids[frame, j, :] = kids[frame, j - 1]
                j -= 1
            sort_key[j] = key
            kid_move[frame, j] = k
            kids[frame, j, :] = fresh
            kept += 1
        if focus:
            kept = _focus(rows[frame], kids[frame], kid_move[frame], kept, signature, groups, frame)
        kid_count[frame] = kept
        position[frame] = 0
