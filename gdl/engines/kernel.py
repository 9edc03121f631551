"""The numba kernels of :mod:`gdl.engines.native` (importing this module imports numba).

Compiled once per installation (``cache=True``); the arguments are the arrays of a
:class:`gdl.engines.native.Kernel`.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from gdl.engines.native import (
    AND_OP,
    BLOCK_OP,
    DEPTH_LIMIT,
    END,
    FIRST,
    GOAL_LITS,
    GOAL_STARTS,
    LEGAL_INPUTS,
    LEGAL_LITS,
    LEGAL_STARTS,
    LITS,
    NEXT_LITS,
    NO_LEGAL_MOVE,
    NODE,
    OP,
    SCHEDULES,
    TERMINAL,
)

_jit = numba.njit(cache=True, nogil=True)

assert AND_OP == 0


@_jit
def run(values: Any, code: Any, layout: Any, lo: int, hi: int) -> None:
    """Evaluate schedule entries ``lo:hi`` into ``values``.

    An and-gate (op 0) is decided by its first false literal, an or-gate (op 1) by its first true one:
    a literal decides when its value equals the op.
    """
    op = code[layout[OP] : layout[OP + 1]]
    node = code[layout[NODE] : layout[NODE + 1]]
    first = code[layout[FIRST] : layout[FIRST + 1]]
    end = code[layout[END] : layout[END + 1]]
    lits = code[layout[LITS] : layout[LITS + 1]]
    i = lo
    while i < hi:
        if op[i] == BLOCK_OP:
            members = node[i]
            for j in range(i + 1, i + 1 + members):
                values[node[j]] = 0
            changed = True
            while changed:
                changed = False
                for j in range(i + 1, i + 1 + members):
                    value = 1 - op[j]
                    for k in range(first[j], end[j]):
                        if values[lits[k] >> 1] ^ (lits[k] & 1) == op[j]:
                            value = op[j]
                            break
                    if values[node[j]] != value:
                        values[node[j]] = value
                        changed = True
            i += members + 1
        else:
            value = 1 - op[i]
            for k in range(first[i], end[i]):
                if values[lits[k] >> 1] ^ (lits[k] & 1) == op[i]:
                    value = op[i]
                    break
            values[node[i]] = value
            i += 1


@_jit
def depth_charge(
    code: Any, layout: Any, nodes: int, packed: Any, seed: int, max_depth: int, trace: Any, goals: Any
) -> tuple[int, int]:
    """A random walk from the packed state (overwritten with the last state); the outcome and depth.

    ``goals[r]`` gets the index of role ``r``'s goal output that holds at a terminal state, -1 when not
    exactly one holds (or the walk did not end at a terminal state). With a non-empty ``trace``, row
    ``t`` gets the base values and legal outputs of the ``t``-th state and each role's chosen output.
    """
    lits = code[layout[LITS] : layout[LITS + 1]]
    legal_lits = code[layout[LEGAL_LITS] : layout[LEGAL_LITS + 1]]
    legal_inputs = code[layout[LEGAL_INPUTS] : layout[LEGAL_INPUTS + 1]]
    legal_starts = code[layout[LEGAL_STARTS] : layout[LEGAL_STARTS + 1]]
    goal_lits = code[layout[GOAL_LITS] : layout[GOAL_LITS + 1]]
    goal_starts = code[layout[GOAL_STARTS] : layout[GOAL_STARTS + 1]]
    next_lits = code[layout[NEXT_LITS] : layout[NEXT_LITS + 1]]
    bounds = code[layout[SCHEDULES] : layout[SCHEDULES + 1]]
    bases = next_lits.shape[0]
    outputs = legal_lits.shape[0]
    roles = legal_starts.shape[0] - 1
    recording = trace.shape[0] > 0
    values = np.zeros(nodes, dtype=np.uint8)
    for b in range(bases):
        values[b] = (packed[b >> 3] >> (b & 7)) & 1
    # splitmix64 of the seed starts a xorshift64* generator.
    state = np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)
    state = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    state = (state ^ (state >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    state = (state ^ (state >> np.uint64(31))) | np.uint64(1)
    chosen = np.empty(roles, dtype=np.int64)
    options = np.empty(outputs, dtype=np.int64)
    after = np.empty(bases, dtype=np.uint8)
    depth = 0
    outcome = TERMINAL
    while True:
        run(values, code, layout, bounds[0], bounds[1])
        if recording:
            for b in range(bases):
                trace[depth, b] = values[b]
            for k in range(outputs):
                trace[depth, bases + k] = values[legal_lits[k] >> 1] ^ (legal_lits[k] & 1)
        if values[lits[0] >> 1] ^ (lits[0] & 1):
            break
        if depth >= max_depth:
            outcome = DEPTH_LIMIT
            break
        for role in range(roles):
            count = 0
            for k in range(legal_starts[role], legal_starts[role + 1]):
                if values[legal_lits[k] >> 1] ^ (legal_lits[k] & 1):
                    options[count] = k
                    count += 1
            if count == 0:
                outcome = NO_LEGAL_MOVE
                break
            state ^= state >> np.uint64(12)
            state ^= state << np.uint64(25)
            state ^= state >> np.uint64(27)
            draw = (state * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(11)
            chosen[role] = options[int(draw % np.uint64(count))]
        if outcome == NO_LEGAL_MOVE:
            break
        for role in range(roles):
            values[legal_inputs[chosen[role]]] = 1
            if recording:
                trace[depth, bases + outputs + role] = chosen[role] - legal_starts[role]
        run(values, code, layout, bounds[1], bounds[2])
        for b in range(bases):
            after[b] = values[next_lits[b] >> 1] ^ (next_lits[b] & 1)
        values[:bases] = after
        for role in range(roles):
            values[legal_inputs[chosen[role]]] = 0
        depth += 1
    for role in range(roles):
        goals[role] = -1
    if outcome == TERMINAL:
        run(values, code, layout, bounds[2], bounds[3])
        for role in range(roles):
            found = -1
            for k in range(goal_starts[role], goal_starts[role + 1]):
                if values[goal_lits[k] >> 1] ^ (goal_lits[k] & 1):
                    found = k - goal_starts[role] if found == -1 else -2
            goals[role] = max(found, -1)
    packed[:] = 0
    for b in range(bases):
        packed[b >> 3] |= values[b] << (b & 7)
    return outcome, depth
