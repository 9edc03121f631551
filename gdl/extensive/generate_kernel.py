"""The numba kernel of :mod:`gdl.extensive.generate` (importing this module imports numba).

Compiled once per installation (``cache=True``). The kernel walks the histories of a GDL-II game depth
first, as :mod:`gdl.extensive.from_gdl` does, evaluating the compiled network with
:func:`gdl.engines.sweep_kernel.sweep`: once per state for the terminal test, the legal moves and the
goals, once per joint move for the successor and the percepts. Every array it reads or writes belongs
to the caller, and so does its stack: when an array is full it returns, the caller grows it, and the
next call resumes where the last one stopped.

Rows of int64 words are interned in open-addressing hash tables (a slot holds a row's number plus one):
the percepts a player is told after a step, a role's legal moves, a player's views (its previous view,
its move and its percepts) and the information sets (a view and the legal moves now).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np

from gdl.engines.sweep_kernel import sweep
from gdl.engines.sweep_layout import OUTPUT_LITS, SIZES, VALUE_SLOTS

F = TypeVar("F", bound=Callable[..., Any])
_jit = cast(Callable[[F], F], numba.njit(cache=True, nogil=True))

#: What :func:`generate` stopped at (its return value).
DONE, CHUNK, GROW, NO_LEGAL_MOVE, NO_GOAL, TOO_LONG, RECALL, OVERFLOW = range(8)
#: Fields of the counters array: nodes, terminals, information sets, views, percept rows, legal rows,
#: the top of the stack of open nodes (-1 when the walk is over), whether the walk has started, the
#: node count of the last state (for the progress of a call), the history steps of the deepest play.
NODES, TERMINALS, INFOSETS, VIEWS, PERCEPTS, LEGALS, TOP, STARTED, WALKED, DEEPEST = range(10)
#: Kinds of nodes.
TERMINAL, CHANCE, DECISION = range(3)
#: The own sequence of a player who has not chosen yet.
EMPTY = -1


@_jit
def _hash(row: Any) -> np.uint64:  # pragma: no cover (numba)
    value = np.uint64(14695981039346656037)
    for word in row:
        value = (value ^ np.uint64(word)) * np.uint64(1099511628211)
        value ^= value >> np.uint64(29)
    return value


@_jit
def probe(keys: Any, table: Any, row: Any) -> Any:  # pragma: no cover (numba)
    """The slot of ``row`` in ``table``: the one that holds its number (plus one), or the empty one where
    it goes."""
    mask = np.uint64(len(table) - 1)
    slot = _hash(row) & mask
    while True:
        held = table[slot]
        if held == 0:
            return slot
        other = keys[held - 1]
        same = True
        for k in range(len(row)):
            if other[k] != row[k]:
                same = False
                break
        if same:
            return slot
        slot = (slot + np.uint64(1)) & mask


@_jit
def intern(keys: Any, table: Any, counters: Any, field: int, row: Any) -> int:  # pragma: no cover (numba)
    """The number of ``row`` among the rows of ``keys`` (``counters[field]`` of them), added when new;
    the caller keeps room for it (a free row, and the table at most half full)."""
    slot = probe(keys, table, row)
    if table[slot] != 0:
        return int(table[slot] - 1)
    number = counters[field]
    keys[number, :] = row
    counters[field] = number + 1
    table[slot] = number + 1
    return int(number)


@_jit
def rehash(keys: Any, table: Any, count: int) -> None:  # pragma: no cover (numba)
    """Fill an empty ``table`` with the first ``count`` rows of ``keys``."""
    mask = np.uint64(len(table) - 1)
    for number in range(count):
        slot = _hash(keys[number]) & mask
        while table[slot] != 0:
            slot = (slot + np.uint64(1)) & mask
        table[slot] = number + 1


@_jit
def sweep_work(tables: Any) -> Any:  # pragma: no cover (numba)
    """The working memory of a sweep of ``tables``: its slots, then its outputs' bits."""
    outputs = tables[OUTPUT_LITS + 1] - tables[OUTPUT_LITS]
    return np.zeros(tables[tables[SIZES] + VALUE_SLOTS] + (outputs + 7) // 8, dtype=np.uint8)


@_jit
def holds(bits: Any, k: int) -> bool:  # pragma: no cover (numba)
    return bool((bits[k >> 3] >> (k & 7)) & 1)


@_jit
def joint_inputs(  # pragma: no cover (numba)
    frame_legal: Any, frame_count: Any, legal_input: Any, f: int, j: int, moves: Any, inputs: Any
) -> None:
    """Joint move ``j`` of frame ``f`` (in the order of ``itertools.product`` over the roles' legal
    moves): each role's input in ``moves``, and their bits in ``inputs``."""
    inputs[:] = 0
    rest = j
    for r in range(len(moves) - 1, -1, -1):
        k = legal_input[frame_legal[f, r, rest % frame_count[f, r]]]
        rest //= frame_count[f, r]
        moves[r] = k
        inputs[k >> 3] |= np.uint8(1 << (k & 7))


@_jit
def told_row(  # pragma: no cover (numba)
    out: Any, state_bytes: int, sees_first: Any, role: int, told_joint: bool, moves: Any, row: Any
) -> None:
    """What the role is told after a joint move, as a row: the joint move's inputs (``told_joint``: a
    game without percepts) or the bits of its percepts, which follow the successor's in ``out``."""
    if told_joint:
        row[:] = -1
        row[: len(moves)] = moves
        return
    row[:] = 0
    for k in range(sees_first[role], sees_first[role + 1]):
        if holds(out, state_bytes * 8 + k):
            bit = k - sees_first[role]
            row[bit >> 6] |= np.int64(1) << np.int64(bit & 63)


@_jit
def analyse_state(  # pragma: no cover (numba)
    st_tables: Any, f: int, frame_state: Any, state_work: Any, no_inputs: Any, legal_first: Any,
    frame_legal: Any, frame_count: Any,
) -> int:
    """Evaluate frame ``f``'s state: -1 when terminal (the goal bits are left in ``state_work``), else
    fill each role's legal outputs and count; -2 when a role has no legal move."""
    sweep(st_tables, frame_state[f], no_inputs, state_work)
    slots = st_tables[st_tables[SIZES] + VALUE_SLOTS]
    bits = state_work[slots:]
    if holds(bits, 0):
        return -1
    for r in range(len(legal_first) - 1):
        n = 0
        for k in range(legal_first[r], legal_first[r + 1]):
            if holds(bits, 1 + k):
                frame_legal[f, r, n] = k
                n += 1
        if n == 0:
            return -2
        frame_count[f, r] = n
    return 0


@_jit
def generate(  # pragma: no cover (numba)
    st_tables: Any, nx_tables: Any, legal_first: Any, legal_input: Any, goal_first: Any, goal_value: Any,
    sees_first: Any, player_role: Any, role_player: Any, chance_role: int, told_joint: bool, input_bytes: int,
    max_steps: int, actions_radix: int, chunk: int,
    counters: Any, kind: Any, first: Any, count: Any, infoset: Any, node_legal: Any,
    goals: Any, term_own: Any, term_den: Any,
    set_player: Any, set_count: Any, set_parent: Any, set_keys: Any, set_table: Any,
    view_keys: Any, view_table: Any, percept_keys: Any, percept_table: Any, legal_keys: Any, legal_table: Any,
    frame_state: Any, frame_legal: Any, frame_count: Any, frame_choice: Any, frame_view: Any,
    open_node: Any, open_frame: Any, open_role: Any, open_next: Any, open_own: Any, open_den: Any,
) -> int:
    """Walk the histories from the state in ``frame_state[0]`` (or resume the walk) for about ``chunk``
    nodes; returns what it stopped at (see the module constants). Node 0 is the root; a node's
    children are ``first[n] .. first[n] + count[n] - 1`` (a terminal's ``first`` is its row of
    ``goals``), and ``node_legal[n]`` numbers the legal moves its role chooses from."""
    roles = len(legal_first) - 1
    players = len(player_role)
    state_bytes = frame_state.shape[1]
    st_slots = st_tables[st_tables[SIZES] + VALUE_SLOTS]
    nx_slots = nx_tables[nx_tables[SIZES] + VALUE_SLOTS]
    state_work = sweep_work(st_tables)
    nx_work = sweep_work(nx_tables)
    no_inputs = np.zeros(max(input_bytes, 1), dtype=np.uint8)
    inputs = np.zeros(max(input_bytes, 1), dtype=np.uint8)
    percept_row = np.zeros(percept_keys.shape[1], dtype=np.int64)
    legal_row = np.zeros(legal_keys.shape[1], dtype=np.int64)
    triple = np.zeros(3, dtype=np.int64)
    pair = np.zeros(2, dtype=np.int64)
    own = np.zeros(players, dtype=np.int64)
    moves = np.zeros(roles, dtype=np.int64)
    walked = 0
    target = 0
    f = 0
    r = 0
    den = 1
    if counters[STARTED] == 0:
        counters[STARTED] = 1
        counters[NODES] = 1
        for p in range(players):
            triple[0] = -1 - p
            triple[1] = -1
            triple[2] = -1
            frame_view[0, p] = intern(view_keys, view_table, counters, VIEWS, triple)
            own[p] = EMPTY
        target = 0
        f = 0
        r = 0
        den = 1
        descend = True
        fresh = True  # frame f has not been analysed
    else:
        descend = False
        fresh = False
    while True:
        if not descend:
            top = counters[TOP]
            if top < 0:
                return DONE
            if walked >= chunk:
                return CHUNK
            # Room for what one descent may add: one node's children, a terminal, an information set,
            # and a view, a percept row and a legal row per role for every step down to the longest play.
            steps_left = max_steps + 2
            if (
                counters[NODES] + actions_radix > len(kind)
                or counters[TERMINALS] + 1 > len(term_den)
                or counters[INFOSETS] + 1 > len(set_player)
                or 2 * (counters[INFOSETS] + 1) > len(set_table)
                or counters[VIEWS] + steps_left * players > len(view_keys)
                or 2 * (counters[VIEWS] + steps_left * players) > len(view_table)
                or counters[PERCEPTS] + steps_left * players > len(percept_keys)
                or 2 * (counters[PERCEPTS] + steps_left * players) > len(percept_table)
                or counters[LEGALS] + steps_left * roles > len(legal_keys)
                or 2 * (counters[LEGALS] + steps_left * roles) > len(legal_table)
            ):
                return GROW
            a = open_next[top]
            node = open_node[top]
            if a == count[node]:
                counters[TOP] = top - 1
                continue
            open_next[top] = a + 1
            f = open_frame[top]
            r = open_role[top]
            frame_choice[f, r] = a
            own[:] = open_own[top]
            den = open_den[top]
            if kind[node] == DECISION:
                own[role_player[r]] = infoset[node] * actions_radix + a
            else:
                k = count[node]
                if den > (2**62) // k:
                    return OVERFLOW
                den *= k
            target = first[node] + a
            r += 1
            descend = True
            fresh = False
        # Descend from (frame f, role r) into node ``target``.
        walked += 1
        if fresh:
            status = analyse_state(
                st_tables, f, frame_state, state_work, no_inputs, legal_first, frame_legal, frame_count
            )
            if status == -2:
                return NO_LEGAL_MOVE
            if status == -1:
                _terminal(target, state_work, st_slots, legal_input, goal_first, goal_value, player_role,
                          counters, kind, first, count, infoset, goals, term_own, term_den, own, den)
                if counters[TERMINALS] < 0:
                    return NO_GOAL
                descend = False
                continue
            if f >= max_steps:
                return TOO_LONG
            fresh = False
        while r < roles and frame_count[f, r] == 1:
            frame_choice[f, r] = 0
            r += 1
        if r < roles:
            k = frame_count[f, r]
            base = counters[NODES]
            counters[NODES] = base + k
            first[target] = base
            count[target] = k
            top = counters[TOP] + 1
            counters[TOP] = top
            open_node[top] = target
            open_frame[top] = f
            open_role[top] = r
            open_next[top] = 0
            open_own[top, :] = own
            open_den[top] = den
            legal_row[:] = 0
            for n in range(k):
                bit = frame_legal[f, r, n] - legal_first[r]
                legal_row[bit >> 6] |= np.int64(1) << np.int64(bit & 63)
            node_legal[target] = intern(legal_keys, legal_table, counters, LEGALS, legal_row)
            if r == chance_role:
                kind[target] = CHANCE
                infoset[target] = -1
            else:
                kind[target] = DECISION
                p = role_player[r]
                pair[0] = frame_view[f, p]
                pair[1] = node_legal[target]
                known = counters[INFOSETS]
                number = intern(set_keys, set_table, counters, INFOSETS, pair)
                if number == known:
                    set_player[number] = p
                    set_count[number] = k
                    set_parent[number] = own[p]
                elif set_parent[number] != own[p]:
                    infoset[target] = number
                    return RECALL
                infoset[target] = number
            descend = False
            continue
        # Every role has chosen: the successor, the percepts and the views.
        inputs[:] = 0
        for q in range(roles):
            j = legal_input[frame_legal[f, q, frame_choice[f, q]]]
            moves[q] = j
            inputs[j >> 3] |= np.uint8(1 << (j & 7))
        sweep(nx_tables, frame_state[f], inputs, nx_work)
        out = nx_work[nx_slots:]
        frame_state[f + 1, :] = out[:state_bytes]
        for p in range(players):
            q = player_role[p]
            told_row(out, state_bytes, sees_first, q, told_joint, moves, percept_row)
            triple[0] = frame_view[f, p]
            triple[1] = moves[q]
            triple[2] = intern(percept_keys, percept_table, counters, PERCEPTS, percept_row)
            frame_view[f + 1, p] = intern(view_keys, view_table, counters, VIEWS, triple)
        f += 1
        if f > counters[DEEPEST]:
            counters[DEEPEST] = f
        r = 0
        fresh = True


@_jit
def _terminal(  # pragma: no cover (numba)
    target: int, state_work: Any, st_slots: int, legal_input: Any, goal_first: Any, goal_value: Any,
    player_role: Any, counters: Any, kind: Any, first: Any, count: Any, infoset: Any, goals: Any,
    term_own: Any, term_den: Any, own: Any, den: int,
) -> None:
    """Make ``target`` a terminal with each player's goal (``counters[TERMINALS]`` set to -1 when a
    player has no goal value, several, or one that is no number from 0 to 100)."""
    bits = state_work[st_slots:]
    t = counters[TERMINALS]
    for p in range(len(player_role)):
        q = player_role[p]
        found = -1
        for k in range(goal_first[q], goal_first[q + 1]):
            if holds(bits, 1 + len(legal_input) + k):
                if found != -1 or goal_value[k] < 0:
                    counters[TERMINALS] = -1
                    return
                found = k
        if found < 0:
            counters[TERMINALS] = -1
            return
        goals[t, p] = goal_value[found]
    kind[target] = TERMINAL
    first[target] = t
    count[target] = 0
    infoset[target] = -1
    term_own[t, :] = own
    term_den[t] = den
    counters[TERMINALS] = t + 1

