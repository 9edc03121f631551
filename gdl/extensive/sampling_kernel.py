"""The numba kernels of :mod:`gdl.extensive.sampling` (importing this module imports numba); compiled
once per installation (``cache=True``).

:func:`play` samples whole plays of a GDL-II game on its compiled network, as
:mod:`gdl.extensive.generate_kernel` walks them (the same sweeps, the same interned views and
information sets), but one play at a time and without storing the tree. What it does at a decision
depends on its mode:

- :data:`MCCFR`: an iteration of outcome-sampling Monte Carlo CFR (as :mod:`gdl.extensive.mccfr_kernel`
  does on a stored tree), the updating player alternating;
- :data:`LEARN`: a play of the responder (exploring) against the other player's average strategy, its
  payoff weighted by the inverse of the responder's sampling probability and summed on the responder's
  last sequence: an unbiased estimate of what each of its sequences earns;
- :data:`EVALUATE`: a play of the responder's learnt strategy (:func:`respond`) against the average
  strategy, its payoff written to ``outcomes``.

Views, percept rows, legal rows and information sets are interned in open-addressing tables
(:func:`gdl.extensive.generate_kernel.intern`); an information set owns a run of sequences in the flat
arrays (``regrets``, ``average``, ``earn``). A mode stores only what it learns: :data:`LEARN` interns the
responder's views and information sets alone and :data:`EVALUATE` nothing, looking the rest up (an
information set never stored plays uniformly). When an array may not hold another play, :func:`play`
returns :data:`GROW` and the caller grows it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np

from gdl.engines.sweep_kernel import sweep
from gdl.engines.sweep_layout import SIZES, VALUE_SLOTS
from gdl.extensive.generate_kernel import analyse_state, intern, probe, sweep_work, told_row
from gdl.extensive.mccfr_kernel import OWN, SAMPLING, _pick, _uniform, decide, update_regrets

F = TypeVar("F", bound=Callable[..., Any])
_jit = cast(Callable[[F], F], numba.njit(cache=True, nogil=True))

#: Modes of :func:`play`.
MCCFR, LEARN, EVALUATE = range(3)
#: What :func:`play` stopped at.
DONE, GROW, NO_LEGAL_MOVE, NO_GOAL, TOO_LONG, RECALL, NOT_CONSTANT_SUM = range(7)
#: Fields of the counters array: views, percept rows, legal rows, information sets, sequences, plays
#: finished in the call, the goals' constant sum (-1 until a terminal is seen), the longest play's steps.
VIEWS, PERCEPTS, LEGALS, INFOSETS, SEQUENCES, PLAYED, CONSTANT, LONGEST = range(8)
COUNTERS = 8


@_jit
def lookup(keys: Any, table: Any, row: Any) -> int:  # pragma: no cover (numba)
    """The number of ``row`` among the interned rows, or -1."""
    return int(table[probe(keys, table, row)]) - 1


@_jit
def _find(  # pragma: no cover (numba)
    keys: Any, table: Any, counters: Any, field: int, row: Any, store: bool
) -> int:
    return intern(keys, table, counters, field, row) if store else lookup(keys, table, row)


@_jit
def _room(  # pragma: no cover (numba)
    counters: Any, headroom: int, widest: int, view_keys: Any, view_table: Any, percept_keys: Any,
    percept_table: Any, legal_keys: Any, legal_table: Any, set_player: Any, set_table: Any, regrets: Any,
) -> bool:
    """Whether the arrays hold what one more play may add (``headroom`` rows each, tables half full)."""
    return not (
        counters[VIEWS] + headroom > len(view_keys) or 2 * (counters[VIEWS] + headroom) > len(view_table)
        or counters[PERCEPTS] + headroom > len(percept_keys)
        or 2 * (counters[PERCEPTS] + headroom) > len(percept_table)
        or counters[LEGALS] + headroom > len(legal_keys)
        or 2 * (counters[LEGALS] + headroom) > len(legal_table)
        or counters[INFOSETS] + headroom > len(set_player)
        or 2 * (counters[INFOSETS] + headroom) > len(set_table)
        or counters[SEQUENCES] + headroom * widest > len(regrets)
    )


@_jit
def _average_row(average: Any, s: int, k: int, out: Any) -> None:  # pragma: no cover (numba)
    """The average strategy at an information set (uniform where nothing was summed)."""
    total = 0.0
    for b in range(k):
        total += average[s + b]
    for b in range(k):
        out[b] = average[s + b] / total if total > 0 else 1.0 / k


@_jit
def play(  # pragma: no cover (numba)
    mode: int, plays: int, start: int, responder: int, exploration: float, rng: Any,
    st_tables: Any, nx_tables: Any, legal_first: Any, legal_input: Any, goal_first: Any, goal_value: Any,
    sees_first: Any, player_role: Any, role_player: Any, chance_role: int, told_joint: bool,
    input_bytes: int, max_steps: int, initial: Any, counters: Any,
    view_keys: Any, view_table: Any, percept_keys: Any, percept_table: Any, legal_keys: Any,
    legal_table: Any, set_keys: Any, set_table: Any, set_player: Any, set_count: Any, set_first: Any,
    set_parent: Any, set_visits: Any, regrets: Any, average: Any, earn: Any, earn_root: Any, choice: Any,
    outcomes: Any,
) -> int:
    """Sample ``plays`` plays in ``mode`` (see the module docstring); play ``start + t`` of
    :data:`MCCFR` updates player ``(start + t) % 2``. Returns what it stopped at, with the plays
    finished in ``counters[PLAYED]``."""
    roles = len(legal_first) - 1
    players = len(player_role)
    state_bytes = len(initial)
    most_legal = 1
    for r in range(roles):
        most_legal = max(most_legal, legal_first[r + 1] - legal_first[r])
    depth = (max_steps + 1) * players + 1
    headroom = (max_steps + 2) * max(roles, players)
    st_slots = st_tables[st_tables[SIZES] + VALUE_SLOTS]
    nx_slots = nx_tables[nx_tables[SIZES] + VALUE_SLOTS]
    state_work = sweep_work(st_tables)
    nx_work = sweep_work(nx_tables)
    no_inputs = np.zeros(max(input_bytes, 1), dtype=np.uint8)
    inputs = np.zeros(max(input_bytes, 1), dtype=np.uint8)
    state = np.zeros((1, state_bytes), dtype=np.uint8)
    frame_legal = np.zeros((1, roles, most_legal), dtype=np.int64)
    frame_count = np.zeros((1, roles), dtype=np.int64)
    percept_row = np.zeros(percept_keys.shape[1], dtype=np.int64)
    legal_row = np.zeros(legal_keys.shape[1], dtype=np.int64)
    triple = np.zeros(3, dtype=np.int64)
    pair = np.zeros(2, dtype=np.int64)
    moves = np.zeros(roles, dtype=np.int64)
    chosen = np.zeros(roles, dtype=np.int64)
    view = np.zeros(players, dtype=np.int64)
    own = np.zeros(players, dtype=np.int64)
    sigma = np.zeros((depth, most_legal))
    path_first = np.zeros(depth, dtype=np.int64)
    path_count = np.zeros(depth, dtype=np.int64)
    path_action = np.zeros(depth, dtype=np.int64)
    reach = np.ones(3)
    counters[PLAYED] = 0
    for t in range(plays):
        if mode != EVALUATE and not _room(
            counters, headroom, most_legal, view_keys, view_table, percept_keys, percept_table, legal_keys,
            legal_table, set_player, set_table, regrets,
        ):
            return GROW
        updating = (start + t) % 2 if mode == MCCFR else responder
        state[0, :] = initial
        for p in range(players):
            triple[0] = -1 - p
            triple[1] = -1
            triple[2] = -1
            view[p] = _find(view_keys, view_table, counters, VIEWS, triple, mode != EVALUATE)
            own[p] = -1
        steps = 0
        reach[:] = 1.0  # the updating player's (responder's) sampling probability in reach[OWN]
        f = 0
        while True:
            status = analyse_state(
                st_tables, 0, state, state_work, no_inputs, legal_first, frame_legal, frame_count
            )
            if status == -2:
                return NO_LEGAL_MOVE
            if status == -1:
                break
            if f >= max_steps:
                return TOO_LONG
            for r in range(roles):
                k = frame_count[0, r]
                chosen[r] = 0
                if k == 1:
                    continue
                if r == chance_role:
                    a = int(_uniform(rng) * k)
                    chosen[r] = min(a, k - 1)
                    reach[SAMPLING] /= k
                    continue
                p = role_player[r]
                store = mode == MCCFR or (mode == LEARN and p == responder)
                number = -1
                if view[p] >= 0:
                    legal_row[:] = 0
                    for n in range(k):
                        bit = frame_legal[0, r, n] - legal_first[r]
                        legal_row[bit >> 6] |= np.int64(1) << np.int64(bit & 63)
                    pair[0] = view[p]
                    pair[1] = _find(legal_keys, legal_table, counters, LEGALS, legal_row, store)
                    if pair[1] >= 0:
                        known = counters[INFOSETS]
                        number = _find(set_keys, set_table, counters, INFOSETS, pair, store)
                        if store and number == known:
                            set_player[number] = p
                            set_count[number] = k
                            set_first[number] = counters[SEQUENCES]
                            set_parent[number] = own[p]
                            counters[SEQUENCES] += k
                        elif store and set_parent[number] != own[p]:
                            return RECALL
                row = sigma[min(steps, depth - 1)]
                s = set_first[number] if number >= 0 else -1
                if mode == MCCFR:
                    a = decide(
                        regrets, average, s, k, row, p == updating, exploration, rng, reach, path_first,
                        path_count, path_action, steps,
                    )
                    if p == updating:
                        steps += 1
                elif p == responder:
                    # The learnt choice, else the responder's own average strategy; explored while learning.
                    greedy = choice[number] if number >= 0 else -1
                    if greedy >= 0:
                        for b in range(k):
                            row[b] = 1.0 if b == greedy else 0.0
                    elif s >= 0:
                        _average_row(average, s, k, row)
                    else:
                        for b in range(k):
                            row[b] = 1.0 / k
                    if mode == LEARN:
                        set_visits[number] += 1
                        a = _pick(row, k, exploration, rng)
                        reach[OWN] *= (1.0 - exploration) * row[a] + exploration / k
                    else:
                        a = _pick(row, k, 0.0, rng)
                else:
                    if s >= 0:
                        _average_row(average, s, k, row)
                    else:
                        for b in range(k):
                            row[b] = 1.0 / k
                    a = _pick(row, k, 0.0, rng)
                if number >= 0:
                    own[p] = s + a
                chosen[r] = a
            # The successor, the percepts and the views.
            inputs[:] = 0
            for q in range(roles):
                j = legal_input[frame_legal[0, q, chosen[q]]]
                moves[q] = j
                inputs[j >> 3] |= np.uint8(1 << (j & 7))
            sweep(nx_tables, state[0], inputs, nx_work)
            out = nx_work[nx_slots:]
            state[0, :] = out[:state_bytes]
            for p in range(players):
                if view[p] < 0:
                    continue
                store = mode == MCCFR or (mode == LEARN and p == responder)
                told_row(out, state_bytes, sees_first, player_role[p], told_joint, moves, percept_row)
                triple[0] = view[p]
                triple[1] = moves[player_role[p]]
                triple[2] = _find(percept_keys, percept_table, counters, PERCEPTS, percept_row, store)
                found = _find(view_keys, view_table, counters, VIEWS, triple, store) if triple[2] >= 0 else -1
                view[p] = found
            f += 1
        if f > counters[LONGEST]:
            counters[LONGEST] = f
        # The terminal: both players' goals, which must sum to the same constant on every play.
        bits = state_work[st_slots:]
        total = 0
        mine = 0
        for p in range(players):
            found = -1
            for k in range(goal_first[player_role[p]], goal_first[player_role[p] + 1]):
                if (bits[(1 + len(legal_input) + k) >> 3] >> ((1 + len(legal_input) + k) & 7)) & 1:
                    if found != -1 or goal_value[k] < 0:
                        return NO_GOAL
                    found = k
            if found < 0:
                return NO_GOAL
            total += goal_value[found]
            if p == updating:
                mine = goal_value[found]
        if counters[CONSTANT] < 0:
            counters[CONSTANT] = total
        elif counters[CONSTANT] != total:
            return NOT_CONSTANT_SUM
        value = mine - total / 2.0
        if mode == MCCFR:
            update_regrets(regrets, path_first, path_count, path_action, sigma, steps, value / reach[OWN])
        elif mode == LEARN:
            if own[responder] >= 0:
                earn[own[responder]] += value / reach[OWN]
            else:
                earn_root[0] += value / reach[OWN]
        else:
            outcomes[t] = value
        counters[PLAYED] = t + 1
    return DONE


@_jit
def respond(  # pragma: no cover (numba)
    responder: int, sets: int, set_player: Any, set_count: Any, set_first: Any, set_parent: Any,
    set_visits: Any, least_visits: int, average: Any, earn: Any, earn_root: float, plays: float, values: Any,
    choice: Any,
) -> float:
    """The responder's strategy against the estimated earnings ``earn / plays`` of its sequences, by
    backward induction (an information set is interned after the one its parent sequence belongs to,
    so the reverse of their order visits children first): at an information set the learning visited
    ``least_visits`` times, the action worth most (in ``choice``); elsewhere its average strategy
    (``choice`` -1). Returns the estimated value."""
    row = np.zeros(max(1, int(set_count[:sets].max())) if sets else 1)
    for s in range(len(values)):
        values[s] = earn[s] / plays
    root = earn_root / plays
    for number in range(sets - 1, -1, -1):
        if set_player[number] != responder:
            continue
        s = set_first[number]
        k = set_count[number]
        if set_visits[number] >= least_visits:
            best = 0
            for b in range(1, k):
                if values[s + b] > values[s + best]:
                    best = b
            choice[number] = best
            worth = values[s + best]
        else:
            choice[number] = -1
            _average_row(average, s, k, row)
            worth = 0.0
            for b in range(k):
                worth += row[b] * values[s + b]
        if set_parent[number] >= 0:
            values[set_parent[number]] += worth
        else:
            root += worth
    return root
