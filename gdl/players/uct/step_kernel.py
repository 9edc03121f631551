"""The steps of the uct player's playouts on the native kernel's network, in numba: the search's random
numbers, each role's legal moves, a joint move played (and taken back), and the goals read."""

from __future__ import annotations

from typing import Any

import numpy as np

# The kernels allocate nothing, so they are compiled as the native kernel's are (no reference counting).
from gdl.engines.native_kernel import (
    _inline,
    holds,
    live_network,
    network_arrays,
    read_goals,
    schedule_arrays,
    section,
    set_arrays,
    settle,
)
from gdl.engines.native_layout import (
    GOAL_ENTRIES,
    GOAL_LITS,
    GOAL_STARTS,
    GROUP_OF,
    GROUP_STARTS,
    GUARDS,
    LEGAL_INPUTS,
    LEGAL_OUTPUTS,
    LITS,
    MEMBERS,
    POSITIONS,
    QUEUED,
    SET_SIZES,
    SIZES,
    STACK,
    TERMINAL,
)
from gdl.players.uct.layout import (
    RANDOM,
)


@_inline
def next_random(meta: Any) -> np.uint64:
    """xorshift64* on the generator's state in ``meta[RANDOM]`` (kept as an int64)."""
    state = np.uint64(meta[RANDOM])
    state ^= state >> np.uint64(12)
    state ^= state << np.uint64(25)
    state ^= state >> np.uint64(27)
    meta[RANDOM] = np.int64(state)
    return (state * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)


@_inline
def below(meta: Any, count: int) -> Any:
    """A random integer in ``range(count)``."""
    return np.int64((next_random(meta) * np.uint64(count)) >> np.uint64(32))


@_inline
def legal_count(counters: Any, set_sizes: Any, guards: Any, role: int) -> int:
    """How many legal moves ``role`` has in the network's state: its plain set, and its guarded set
    while the guard holds."""
    count = set_sizes[2 * role]
    if holds(counters, guards[2 * role + 1]):
        count += set_sizes[2 * role + 1]
    return int(count)


@_inline
def legal_move(members: Any, group_starts: Any, set_sizes: Any, role: int, i: int) -> int:
    """The legal output of ``role``'s ``i``-th legal move in the sets (in no particular order)."""
    plain = set_sizes[2 * role]
    if i < plain:
        return int(members[group_starts[2 * role] + i])
    return int(members[group_starts[2 * role + 1] + i - plain])


@_inline
def swap_inputs(data: Any, old: Any, new: Any) -> None:
    """Take back the inputs of the joint move ``old`` (-1 for a role: none) as those of ``new`` are set,
    and propagate (legal, goal and terminal do not read the inputs, so taking them back in the next
    step's propagation is cheaper than in this one's, where the flips pass through gates the inputs
    hold open: breakthrough's playouts 2.6 times)."""
    sizes = section(data, SIZES)
    roles = sizes[2]
    legal_inputs = section(data, LEGAL_INPUTS)
    queued = section(data, QUEUED)
    stack = section(data, STACK)
    counters = live_network(data)
    top = 0
    for role in range(roles):
        if old[role] >= 0:
            move = legal_inputs[old[role]]
            counters[move] = 0
            queued[move] = 2
            stack[top] = move
            top += 1
    for role in range(roles):
        if new[role] >= 0:
            move = legal_inputs[new[role]]
            counters[move] = 1
            # A move played again is still on the stack (counted as set), and so changes nothing.
            if queued[move] == 0:
                queued[move] = 1
                stack[top] = move
                top += 1
    settle(top, network_arrays(data), set_arrays(data))


@_inline
def flip(data: Any, flipped: Any) -> int:
    """Flip the base propositions whose ``next`` differs and propagate; they go into ``flipped`` (when it
    has room: an empty one records nothing), and their number is returned."""
    sizes = section(data, SIZES)
    outputs = sizes[LEGAL_OUTPUTS]
    group_starts = section(data, GROUP_STARTS)
    members = section(data, MEMBERS)
    set_sizes = section(data, SET_SIZES)
    queued = section(data, QUEUED)
    stack = section(data, STACK)
    counters = live_network(data)
    changes = group_starts[2 * sizes[2]]
    top = set_sizes[2 * sizes[2]]
    recording = flipped.shape[0] >= top
    for k in range(top):
        base = members[changes + k] - outputs
        queued[base] = counters[base] + 1
        counters[base] = 1 - counters[base]
        stack[k] = base
        if recording:
            flipped[k] = base
    settle(top, network_arrays(data), set_arrays(data))
    return int(top)


@_inline
def unflip(data: Any, flipped: Any, count: int) -> None:
    """Flip the first ``count`` base propositions of ``flipped`` back, and propagate."""
    queued = section(data, QUEUED)
    stack = section(data, STACK)
    counters = live_network(data)
    for k in range(count):
        base = flipped[k]
        queued[base] = counters[base] + 1
        counters[base] = 1 - counters[base]
        stack[k] = base
    settle(count, network_arrays(data), set_arrays(data))


@_inline
def step(data: Any, chosen: Any, previous: Any) -> None:
    """Play the joint move ``chosen`` (a legal output per role) in the network: take back the inputs of
    the last step (``previous``, -1 for none) as the new ones are set, and propagate; then flip the
    base propositions whose ``next`` differs. The new inputs stay set, and become ``previous``."""
    swap_inputs(data, previous, chosen)
    for role in range(previous.shape[0]):
        previous[role] = chosen[role]
    flip(data, previous[:0])


@_inline
def read_rewards(data: Any, goal_values: Any, goals: Any, rewards: Any) -> None:
    """Each role's goal in the network's state, in [0, 1], into ``rewards`` (0 where a role has not
    exactly one goal); ``goals`` is scratch space of a role each."""
    sizes = section(data, SIZES)
    goal_starts = section(data, GOAL_STARTS)
    schedule = schedule_arrays(data)
    read_goals(data, schedule, sizes[GOAL_ENTRIES], section(data, GOAL_LITS), goal_starts, goals, TERMINAL)
    for role in range(sizes[2]):
        found = goals[role]
        rewards[role] = 0.0 if found < 0 else goal_values[goal_starts[role] + found] / 100.0


@_inline
def legal_now(data: Any, output: int) -> bool:
    """Whether legal output ``output`` is legal in the network's state (in its set, and its set's guard
    holds)."""
    counters = live_network(data)
    if section(data, POSITIONS)[output] < 0:
        return False
    group = section(data, GROUP_OF)[output]
    return group % 2 == 0 or holds(counters, section(data, GUARDS)[group]) == 1


@_inline
def wins(data: Any, goal_values: Any, goals: Any, rewards: Any, role: int) -> bool:
    """Whether the network's state is terminal with ``role``'s best goal (each role's reward then read
    into ``rewards``)."""
    if not holds(live_network(data), section(data, LITS)[0]):
        return False
    read_rewards(data, goal_values, goals, rewards)
    goal_starts = section(data, GOAL_STARTS)
    best = 0.0
    for k in range(goal_starts[role], goal_starts[role + 1]):
        best = max(best, goal_values[k] / 100.0)
    return bool(rewards[role] >= best)
