"""The numba kernels of :mod:`gdl.extensive.count` (importing this module imports numba): the size of
a game's extensive form counted over its states and over its players' views, without walking its
histories. Compiled once per installation (``cache=True``); resumable as
:func:`gdl.extensive.generate_kernel.generate` (every array, the stack included, is the caller's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np

from gdl.engines.sweep_kernel import sweep
from gdl.engines.sweep_layout import SIZES, VALUE_SLOTS
from gdl.extensive.generate_kernel import (
    CHUNK,
    DONE,
    GROW,
    INFOSETS,
    LEGALS,
    NO_LEGAL_MOVE,
    PERCEPTS,
    TOO_LONG,
    VIEWS,
    analyse_state,
    intern,
    joint_inputs,
    sweep_work,
    told_row,
)

F = TypeVar("F", bound=Callable[..., Any])
_jit = cast(Callable[[F], F], numba.njit(cache=True, nogil=True))


#: Fields of the counters array of :func:`count_histories`: states known, the top of the stack (-1
#: before the walk and once it is over), the states counted in this call.
STATES, STACK, COUNTED = range(3)
#: The most a count may reach: past it, counts saturate (the tree has at least this many nodes).
SATURATED = 2**62


@_jit
def _packed(row: Any, words: Any) -> None:  # pragma: no cover (numba)
    """The bytes of a state as little-endian int64 words."""
    words[:] = 0
    for b in range(len(row)):
        words[b >> 3] |= np.int64(row[b]) << np.int64(8 * (b & 7))


@_jit
def count_histories(  # pragma: no cover (numba)
    st_tables: Any, nx_tables: Any, legal_first: Any, legal_input: Any, input_bytes: int, max_steps: int,
    chunk: int, counters: Any, state_keys: Any, state_table: Any, memo_nodes: Any, memo_terminals: Any,
    frame_state: Any, frame_legal: Any, frame_count: Any, frame_joint: Any, frame_id: Any,
    frame_nodes: Any, frame_terminals: Any,
) -> int:
    """Count the nodes and terminals of the extensive form below every state reachable from
    ``frame_state[0]`` without walking its histories: a state's subtree is the same wherever it is
    reached, so each state is counted once, depth first, from its successors' counts (saturating at
    :data:`SATURATED`). Resumable as :func:`generate`; TOO_LONG when a play passes ``max_steps`` steps
    (a state repeats on a play, or the plays are too long)."""
    roles = len(legal_first) - 1
    nx_slots = nx_tables[nx_tables[SIZES] + VALUE_SLOTS]
    state_work = sweep_work(st_tables)
    state_bytes = frame_state.shape[1]
    nx_work = sweep_work(nx_tables)
    no_inputs = np.zeros(max(input_bytes, 1), dtype=np.uint8)
    inputs = np.zeros(max(input_bytes, 1), dtype=np.uint8)
    words = np.zeros(state_keys.shape[1], dtype=np.int64)
    moves = np.zeros(roles, dtype=np.int64)
    counted = 0
    if counters[STACK] < 0 and counters[STATES] == 0:
        _packed(frame_state[0], words)
        frame_id[0] = intern(state_keys, state_table, counters, STATES, words)
        status = analyse_state(
            st_tables, 0, frame_state, state_work, no_inputs, legal_first, frame_legal, frame_count
        )
        if status == -2:
            return NO_LEGAL_MOVE
        memo_nodes[frame_id[0]] = -1  # on the stack
        if status == -1:
            memo_nodes[frame_id[0]] = 1
            memo_terminals[frame_id[0]] = 1
            return DONE
        frame_joint[0] = 0
        frame_nodes[0] = _internal(frame_count, 0, roles)
        frame_terminals[0] = 0
        counters[STACK] = 0
    while counters[STACK] >= 0:
        f = counters[STACK]
        joints = 1
        for r in range(roles):
            joints *= frame_count[f, r]
        j = frame_joint[f]
        if j == joints:  # every successor counted
            s = frame_id[f]
            memo_nodes[s] = frame_nodes[f]
            memo_terminals[s] = frame_terminals[f]
            counters[STACK] = f - 1
            counted += 1
            if f > 0:
                _add(frame_nodes, frame_terminals, f - 1, memo_nodes[s], memo_terminals[s])
                frame_joint[f - 1] += 1
            continue
        if counted >= chunk:
            return CHUNK
        if counters[STATES] + 1 > len(state_keys) or 2 * (counters[STATES] + 1) > len(state_table):
            return GROW
        joint_inputs(frame_legal, frame_count, legal_input, f, j, moves, inputs)
        sweep(nx_tables, frame_state[f], inputs, nx_work)
        following = nx_work[nx_slots : nx_slots + state_bytes]
        _packed(following, words)
        known = counters[STATES]
        s = intern(state_keys, state_table, counters, STATES, words)
        if s < known:
            if memo_nodes[s] < 0:  # on the stack: a play may repeat a state for ever
                return TOO_LONG
            _add(frame_nodes, frame_terminals, f, memo_nodes[s], memo_terminals[s])
            frame_joint[f] = j + 1
            continue
        if f + 1 >= max_steps:
            return TOO_LONG
        frame_state[f + 1, :] = following
        status = analyse_state(
            st_tables, f + 1, frame_state, state_work, no_inputs, legal_first, frame_legal, frame_count
        )
        if status == -2:
            return NO_LEGAL_MOVE
        if status == -1:
            memo_nodes[s] = 1
            memo_terminals[s] = 1
            _add(frame_nodes, frame_terminals, f, 1, 1)
            frame_joint[f] = j + 1
            continue
        memo_nodes[s] = -1
        frame_id[f + 1] = s
        frame_joint[f + 1] = 0
        frame_nodes[f + 1] = _internal(frame_count, f + 1, roles)
        frame_terminals[f + 1] = 0
        counters[STACK] = f + 1
    return DONE


@_jit
def _internal(frame_count: Any, f: int, roles: int) -> int:  # pragma: no cover (numba)
    """The nodes of one step: a node per choice of the roles before, for each role with a choice."""
    nodes = 0
    before = 1
    for r in range(roles):
        k = frame_count[f, r]
        if k > 1:
            nodes = _sum(nodes, before)
            before = SATURATED if before > SATURATED // k else before * k
    return nodes


@_jit
def _sum(a: int, b: int) -> int:  # pragma: no cover (numba)
    """``a + b`` for counts of at most :data:`SATURATED`, saturating there (never overflowing)."""
    return SATURATED if a >= SATURATED - b else a + b


@_jit
def _add(  # pragma: no cover (numba)
    frame_nodes: Any, frame_terminals: Any, f: int, nodes: int, terminals: int
) -> None:
    frame_nodes[f] = _sum(frame_nodes[f], nodes)
    frame_terminals[f] = _sum(frame_terminals[f], terminals)


#: Fields of the counters array of :func:`count_infosets`: besides VIEWS, PERCEPTS, LEGALS and
#: INFOSETS (as in :func:`generate`), the states and the (view, state) pairs known, and the top of the
#: stack.
PAIRS, PAIR_STATES, PAIR_STACK = 10, 11, 12


@_jit
def count_infosets(  # pragma: no cover (numba)
    st_tables: Any, nx_tables: Any, legal_first: Any, legal_input: Any, sees_first: Any, role: int,
    told_joint: bool, input_bytes: int, max_steps: int, chunk: int, counters: Any,
    state_keys: Any, state_table: Any, pair_keys: Any, pair_table: Any, view_keys: Any, view_table: Any,
    percept_keys: Any, percept_table: Any, legal_keys: Any, legal_table: Any, set_keys: Any, set_table: Any,
    frame_state: Any, frame_legal: Any, frame_count: Any, frame_joint: Any, frame_view: Any,
) -> int:
    """Count the information sets of the player of role ``role`` without walking the histories: its
    views are walked with the states each may be in, every (view, state) pair once, depth first; an
    information set is a view and the legal moves of a state where the player has a choice (as in
    :func:`generate`). Resumable as :func:`generate`; GROW asks for room in any table."""
    roles = len(legal_first) - 1
    nx_slots = nx_tables[nx_tables[SIZES] + VALUE_SLOTS]
    state_work = sweep_work(st_tables)
    state_bytes = frame_state.shape[1]
    nx_work = sweep_work(nx_tables)
    no_inputs = np.zeros(max(input_bytes, 1), dtype=np.uint8)
    inputs = np.zeros(max(input_bytes, 1), dtype=np.uint8)
    words = np.zeros(state_keys.shape[1], dtype=np.int64)
    percept_row = np.zeros(percept_keys.shape[1], dtype=np.int64)
    legal_row = np.zeros(legal_keys.shape[1], dtype=np.int64)
    pair = np.zeros(2, dtype=np.int64)
    triple = np.zeros(3, dtype=np.int64)
    moves = np.zeros(roles, dtype=np.int64)
    walked = 0
    if counters[PAIR_STACK] < 0 and counters[VIEWS] == 0:
        triple[0] = -1
        triple[1] = -1
        triple[2] = -1
        frame_view[0] = intern(view_keys, view_table, counters, VIEWS, triple)
        status = analyse_state(
            st_tables, 0, frame_state, state_work, no_inputs, legal_first, frame_legal, frame_count
        )
        if status == -2:
            return NO_LEGAL_MOVE
        if status == -1:
            return DONE
        _choice(frame_view[0], frame_legal, frame_count, 0, role, legal_first, legal_row, pair, counters,
                legal_keys, legal_table, set_keys, set_table)
        frame_joint[0] = 0
        counters[PAIR_STACK] = 0
    while counters[PAIR_STACK] >= 0:
        f = counters[PAIR_STACK]
        joints = 1
        for r in range(roles):
            joints *= frame_count[f, r]
        j = frame_joint[f]
        if j == joints:
            counters[PAIR_STACK] = f - 1
            if f > 0:
                frame_joint[f - 1] += 1
            continue
        if walked >= chunk:
            return CHUNK
        if (
            counters[PAIR_STATES] + 1 > len(state_keys) or 2 * (counters[PAIR_STATES] + 1) > len(state_table)
            or counters[PAIRS] + 1 > len(pair_keys) or 2 * (counters[PAIRS] + 1) > len(pair_table)
            or counters[VIEWS] + 1 > len(view_keys) or 2 * (counters[VIEWS] + 1) > len(view_table)
            or counters[PERCEPTS] + 1 > len(percept_keys) or 2 * (counters[PERCEPTS] + 1) > len(percept_table)
            or counters[LEGALS] + 1 > len(legal_keys) or 2 * (counters[LEGALS] + 1) > len(legal_table)
            or counters[INFOSETS] + 1 > len(set_keys) or 2 * (counters[INFOSETS] + 1) > len(set_table)
        ):
            return GROW
        walked += 1
        joint_inputs(frame_legal, frame_count, legal_input, f, j, moves, inputs)
        sweep(nx_tables, frame_state[f], inputs, nx_work)
        out = nx_work[nx_slots:]
        told_row(out, state_bytes, sees_first, role, told_joint, moves, percept_row)
        triple[0] = frame_view[f]
        triple[1] = moves[role]
        triple[2] = intern(percept_keys, percept_table, counters, PERCEPTS, percept_row)
        view = intern(view_keys, view_table, counters, VIEWS, triple)
        _packed(out[:state_bytes], words)
        pair[0] = view
        pair[1] = intern(state_keys, state_table, counters, PAIR_STATES, words)
        known = counters[PAIRS]
        if intern(pair_keys, pair_table, counters, PAIRS, pair) < known:
            frame_joint[f] = j + 1
            continue
        if f + 1 >= max_steps:
            return TOO_LONG
        frame_state[f + 1, :] = out[:state_bytes]
        status = analyse_state(
            st_tables, f + 1, frame_state, state_work, no_inputs, legal_first, frame_legal, frame_count
        )
        if status == -2:
            return NO_LEGAL_MOVE
        if status == -1:
            frame_joint[f] = j + 1
            continue
        frame_view[f + 1] = view
        _choice(view, frame_legal, frame_count, f + 1, role, legal_first, legal_row, pair, counters,
                legal_keys, legal_table, set_keys, set_table)
        frame_joint[f + 1] = 0
        counters[PAIR_STACK] = f + 1
    return DONE


@_jit
def _choice(  # pragma: no cover (numba)
    view: int, frame_legal: Any, frame_count: Any, f: int, role: int, legal_first: Any, legal_row: Any,
    pair: Any, counters: Any, legal_keys: Any, legal_table: Any, set_keys: Any, set_table: Any,
) -> None:
    """Intern the information set of ``view`` in frame ``f``'s state when the role has a choice."""
    k = frame_count[f, role]
    if k < 2:
        return
    legal_row[:] = 0
    for n in range(k):
        bit = frame_legal[f, role, n] - legal_first[role]
        legal_row[bit >> 6] |= np.int64(1) << np.int64(bit & 63)
    pair[0] = view
    pair[1] = intern(legal_keys, legal_table, counters, LEGALS, legal_row)
    intern(set_keys, set_table, counters, INFOSETS, pair)
