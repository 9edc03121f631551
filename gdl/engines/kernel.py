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
    FANOUT,
    FANOUT_STARTS,
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
    NODE_ARGS,
    NODE_BLOCK,
    NODE_OP,
    OP,
    TERMINAL,
)

_jit = numba.njit(cache=True, nogil=True)


@numba.njit(inline="always")
def section(code: Any, layout: Any, k: int) -> Any:
    """Section ``k`` of a flattened network (inlined: a call per constant ``k`` would compile apart)."""
    return code[layout[k] : layout[k + 1]]


@_jit
def run(values: Any, code: Any, layout: Any, lo: int, hi: int) -> None:
    """Evaluate schedule entries ``lo:hi`` into ``values``.

    An and-gate (op 0) is decided by its first false literal, an or-gate (op 1) by its first true one:
    a literal decides when its value equals the op.
    """
    op = section(code, layout, OP)
    node = section(code, layout, NODE)
    first = section(code, layout, FIRST)
    end = section(code, layout, END)
    lits = section(code, layout, LITS)
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
def settle(
    values: Any, seen: Any, counts: Any, queued: Any, stack: Any, top: int, code: Any, layout: Any
) -> None:
    """Propagate the changed nodes on the stack (``top`` of them) until the network is consistent again.

    ``seen`` holds the value of each node that the gates reading it have counted: a gate outside cycle
    blocks keeps the count of its true literals, and changes when the count crosses its threshold. A node
    is on the stack at most once (``queued``); one that has changed back by the time it is taken off
    costs nothing. A cycle block that a change reaches goes on the stack too (as ``nodes`` plus its
    schedule entry), to be evaluated again as a whole once for all the changes that reach it meanwhile.
    """
    node = section(code, layout, NODE)
    node_op = section(code, layout, NODE_OP)
    node_args = section(code, layout, NODE_ARGS)
    node_block = section(code, layout, NODE_BLOCK)
    fanout_starts = section(code, layout, FANOUT_STARTS)
    fanout = section(code, layout, FANOUT)
    nodes = values.shape[0]
    while top > 0:
        top -= 1
        source = stack[top]
        queued[source] = 0
        if source >= nodes:
            block = source - nodes
            run(values, code, layout, block, block + node[block] + 1)
            for j in range(block + 1, block + 1 + node[block]):
                member = node[j]
                if values[member] != seen[member] and not queued[member]:
                    queued[member] = 1
                    stack[top] = member
                    top += 1
            continue
        value = values[source]
        if value == seen[source]:
            continue
        seen[source] = value
        for e in range(fanout_starts[source], fanout_starts[source + 1]):
            gate = fanout[e] >> 1
            block = node_block[gate]
            if block >= 0:
                if not queued[nodes + block]:
                    queued[nodes + block] = 1
                    stack[top] = nodes + block
                    top += 1
                continue
            if value ^ (fanout[e] & 1):
                counts[gate] += 1
            else:
                counts[gate] -= 1
            if node_op[gate] == AND_OP:
                now = 1 if counts[gate] == node_args[gate] else 0
            else:
                now = 1 if counts[gate] > 0 else 0
            if now != values[gate]:
                values[gate] = now
                if not queued[gate]:
                    queued[gate] = 1
                    stack[top] = gate
                    top += 1


@_jit
def depth_charge(
    code: Any, layout: Any, nodes: int, packed: Any, seed: int, max_depth: int, trace: Any, goals: Any
) -> tuple[int, int]:
    """A random walk from the packed state (overwritten with the last state); the outcome and depth.

    The first state is evaluated gate by gate; every later one by propagating the changes of the inputs
    and base propositions (:func:`settle`). ``goals[r]`` gets the index of role ``r``'s goal output that
    holds at a terminal state, -1 when not exactly one holds (or the walk did not end at a terminal
    state). With a non-empty ``trace``, row ``t`` gets the base values and legal outputs of the ``t``-th
    state and the index of each role's chosen legal output.
    """
    op = section(code, layout, OP)
    node = section(code, layout, NODE)
    first = section(code, layout, FIRST)
    end = section(code, layout, END)
    lits = section(code, layout, LITS)
    legal_lits = section(code, layout, LEGAL_LITS)
    legal_inputs = section(code, layout, LEGAL_INPUTS)
    legal_starts = section(code, layout, LEGAL_STARTS)
    goal_lits = section(code, layout, GOAL_LITS)
    goal_starts = section(code, layout, GOAL_STARTS)
    next_lits = section(code, layout, NEXT_LITS)
    bases = next_lits.shape[0]
    outputs = legal_lits.shape[0]
    roles = legal_starts.shape[0] - 1
    recording = trace.shape[0] > 0
    values = np.zeros(nodes, dtype=np.uint8)
    for b in range(bases):
        values[b] = (packed[b >> 3] >> (b & 7)) & 1
    run(values, code, layout, 0, op.shape[0])
    counts = np.zeros(nodes, dtype=np.int32)
    i = 0
    while i < op.shape[0]:
        if op[i] == BLOCK_OP:
            i += node[i] + 1
            continue
        for k in range(first[i], end[i]):
            counts[node[i]] += values[lits[k] >> 1] ^ (lits[k] & 1)
        i += 1
    seen = values.copy()
    # A node or a cycle block (``nodes`` plus its entry) is on the stack at most once.
    queued = np.zeros(nodes + op.shape[0], dtype=np.uint8)
    stack = np.empty(nodes + op.shape[0], dtype=np.int32)
    # splitmix64 of the seed starts a xorshift64* generator.
    state = np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)
    state = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    state = (state ^ (state >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    state = (state ^ (state >> np.uint64(31))) | np.uint64(1)
    chosen = np.empty(roles, dtype=np.int64)
    options = np.empty(outputs, dtype=np.int64)
    after = np.empty(bases, dtype=np.int32)
    depth = 0
    outcome = TERMINAL
    while True:
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
            move = legal_inputs[chosen[role]]
            values[move] = 1
            queued[move] = 1
            stack[role] = move
            if recording:
                trace[depth, bases + outputs + role] = chosen[role] - legal_starts[role]
        settle(values, seen, counts, queued, stack, roles, code, layout)
        top = 0
        for b in range(bases):
            now = values[next_lits[b] >> 1] ^ (next_lits[b] & 1)
            if now != values[b]:
                after[top] = b
                top += 1
        # The inputs are taken back, and the changed base propositions flipped, in one propagation.
        for k in range(top):
            values[after[k]] ^= 1
            queued[after[k]] = 1
            stack[k] = after[k]
        for role in range(roles):
            move = legal_inputs[chosen[role]]
            values[move] = 0
            queued[move] = 1
            stack[top] = move
            top += 1
        settle(values, seen, counts, queued, stack, top, code, layout)
        depth += 1
    for role in range(roles):
        goals[role] = -1
        if outcome == TERMINAL:
            found = -1
            for k in range(goal_starts[role], goal_starts[role + 1]):
                if values[goal_lits[k] >> 1] ^ (goal_lits[k] & 1):
                    found = k - goal_starts[role] if found == -1 else -2
            goals[role] = max(found, -1)
    packed[:] = 0
    for b in range(bases):
        packed[b >> 3] |= values[b] << (b & 7)
    return outcome, depth
