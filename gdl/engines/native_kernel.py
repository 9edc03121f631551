"""The numba kernels of the native engine, :mod:`gdl.engines.native` (importing this module imports numba).

Compiled once per installation (``cache=True``); ``data`` is the array of a
:class:`gdl.engines.native.Kernel`: the network's code and the kernel's working memory.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np

from gdl.engines.native_layout import (
    COUNTERS,
    DEPTH_LIMIT,
    END,
    FANOUT,
    FANOUT_STARTS,
    FIRST,
    FROM_SCRATCH,
    FROM_STATE,
    GOAL_ENTRIES,
    GOAL_LITS,
    GOAL_SHIFT,
    GOAL_STARTS,
    GOALS,
    GROUP_OF,
    GROUP_STARTS,
    GUARDS,
    LEGAL_INPUTS,
    LEGAL_LITS,
    LEGAL_OUTPUTS,
    LEGAL_STARTS,
    LITS,
    MEMBERS,
    NEXT_LITS,
    NO_LEGAL_MOVE,
    NODE,
    NODES,
    OP,
    POSITIONS,
    QUEUED,
    SAVED,
    SET_SIZES,
    SIZES,
    STACK,
    STATE_IN,
    STATE_OUT,
    SWAP_INPUTS,
    TALLY_GOALS,
    TALLY_MOVES,
    TALLY_TERMINAL,
    TERMINAL,
    WORK,
)
from gdl.engines.schedule import AND_OP, AT_LEAST_OP, BLOCK_OP, OR_OP

# The kernels allocate nothing, so numba's reference counting (NRT) is off: with it, every array view
# taken and dropped costs two atomic operations, a third of a playout's time on small games.
_NO_NRT: dict[str, Any] = {"_nrt": False}
F = TypeVar("F", bound=Callable[..., Any])


def _jit(function: F) -> F:
    """A kernel, compiled once per installation."""
    return cast(F, numba.njit(cache=True, nogil=True, **_NO_NRT)(function))


def _inline(function: F) -> F:
    """A helper, inlined where it is called."""
    return cast(F, numba.njit(inline="always", **_NO_NRT)(function))


#: An index known to be non-negative. numba takes an unsigned index as it is, where it first wraps a
#: signed one around when negative (at every access: a compare, a conditional add, and the array's
#: length kept in a register); in the walk, that was a third of the instructions.
index = np.uintp


@_inline
def section(data: Any, k: int) -> Any:
    """Section ``k`` of a kernel's array (inlined: a call per constant ``k`` would compile apart)."""
    return data[data[k] : data[k + 1]]


@_inline
def holds(counters: Any, lit: int) -> int:
    """The value of a literal (``2 * node + negated``): a node holds when its counter is positive."""
    return (1 if counters[index(lit >> 1)] > 0 else 0) ^ (lit & 1)


@_jit
def evaluate_block(data: Any, entry: int) -> None:
    """Evaluate the cycle block of schedule entry ``entry``: its members from false until nothing changes.

    A member's counter is its value (0 or 1). An and-gate (op 0) is decided by its first false literal,
    an or-gate (op 1) by its first true one: a literal decides when its value equals the op.
    """
    op = section(data, OP)
    gate = section(data, NODE)
    first = section(data, FIRST)
    end = section(data, END)
    lits = section(data, LITS)
    counters = section(data, COUNTERS)
    last = entry + 1 + gate[entry]
    for j in range(entry + 1, last):
        counters[gate[j]] = 0
    changed = True
    while changed:
        changed = False
        for j in range(entry + 1, last):
            value = 1 - op[j]
            for k in range(first[j], end[j]):
                if holds(counters, lits[k]) == op[j]:
                    value = op[j]
                    break
            if counters[gate[j]] != value:
                counters[gate[j]] = value
                changed = True


@_inline
def toggle(element: int, sets: Any) -> None:
    """Put a set element in its set, or take it out (swapping the last member into its place)."""
    members, positions, sizes, group_of, group_starts = sets
    group = index(group_of[index(element)])
    at = positions[index(element)]
    if at >= 0:
        sizes[group] -= 1
        moved = members[index(group_starts[group] + sizes[group])]
        members[index(at)] = moved
        positions[index(moved)] = at
        positions[index(element)] = -1
    else:
        at = group_starts[group] + sizes[group]
        members[index(at)] = element
        positions[index(element)] = at
        sizes[group] += 1


@_inline
def set_arrays(data: Any) -> Any:
    """The arrays of the sets, as :func:`toggle` takes them."""
    return (
        section(data, MEMBERS),
        section(data, POSITIONS),
        section(data, SET_SIZES),
        section(data, GROUP_OF),
        section(data, GROUP_STARTS),
    )


@_inline
def copy(target: Any, source: Any) -> None:
    """Copy an array into another of the same length (without the temporary copy of ``target[:] =``,
    which guards against overlap)."""
    for i in range(source.shape[0]):
        target[i] = source[i]


@_inline
def schedule_arrays(data: Any) -> Any:
    """The arrays :func:`evaluate_entries` reads and writes."""
    return (
        section(data, OP),
        section(data, NODE),
        section(data, FIRST),
        section(data, END),
        section(data, LITS),
        section(data, COUNTERS),
    )


@_jit
def evaluate(data: Any) -> None:
    """Evaluate the network afresh in the state handed in: counters gate by gate, then the sets."""
    bases = section(data, SIZES)[1]
    counters = section(data, COUNTERS)
    state = section(data, STATE_IN).view(np.uint8)
    counters[:] = 0
    for b in range(bases):
        counters[b] = (state[b >> 3] >> (b & 7)) & 1
    evaluate_entries(data, schedule_arrays(data), 0)
    sets = set_arrays(data)
    sets[1][:] = -1
    sets[2][:] = 0
    legal_lits = section(data, LEGAL_LITS)
    for k in range(legal_lits.shape[0]):
        if holds(counters, legal_lits[k]):
            toggle(k, sets)
    next_lits = section(data, NEXT_LITS)
    for b in range(bases):
        if holds(counters, next_lits[b]) != counters[b]:
            toggle(legal_lits.shape[0] + b, sets)


@_inline
def evaluate_entries(data: Any, schedule: Any, start: int) -> None:
    """Evaluate the schedule's entries from ``start`` on (the counters they read are up to date)."""
    op, gate, first, end, lits, counters = schedule
    i = start
    while i < op.shape[0]:
        if op[i] == BLOCK_OP:
            evaluate_block(data, i)
            i += gate[i] + 1
            continue
        true = 0
        for k in range(index(first[i]), index(end[i])):
            true += holds(counters, lits[k])
        # A gate holds when at least ``need`` of its literals do: all of an and, one of an or.
        need = end[i] - first[i] if op[i] == AND_OP else 1 if op[i] == OR_OP else op[i] - AT_LEAST_OP
        counters[index(gate[i])] = true - need + 1
        i += 1


@_inline
def network_arrays(data: Any) -> Any:
    """The arrays :func:`settle` reads and writes (and the kernel's array, for the cycle blocks)."""
    return (
        data,
        section(data, SIZES),
        section(data, NODE),
        section(data, COUNTERS),
        section(data, QUEUED),
        section(data, STACK),
        section(data, FANOUT_STARTS),
        section(data, FANOUT),
    )


@_inline
def settle(top: int, network: Any, sets: Any) -> None:
    """Propagate the changed nodes on the stack (``top`` of them) until the network is consistent again.

    A node is on the stack at most once, with ``queued`` holding one plus the value its readers have
    counted; one that has changed back by the time it is taken off costs nothing. A cycle block that a
    change reaches goes on the stack too (as the number of nodes plus its schedule entry), to be
    evaluated again as a whole once for all the changes that reach it meanwhile.
    """
    data, sizes, gate, counters, queued, stack, fanout_starts, fanout = network
    nodes = sizes[NODES]
    work = 0
    # The changes handed in (inputs and base propositions, never read by each other) are all counted
    # before any gate they reach is taken off the stack: a gate that one of them moves across zero and
    # another moves back (a move taken back as the next is set) then costs nothing.
    handed = top
    taken = 0
    while True:
        if taken < handed:
            source = stack[index(taken)]
            taken += 1
        elif top > handed:
            top -= 1
            source = stack[index(top)]
        else:
            break
        if source >= nodes:
            entry = source - nodes
            queued[index(source)] = 0
            # The members go on the stack with the values their readers have counted.
            for j in range(entry + 1, entry + 1 + gate[entry]):
                member = gate[j]
                if queued[member] == 0:
                    queued[member] = counters[member] + 1
                    stack[top] = member
                    top += 1
            evaluate_block(data, entry)
            continue
        counted = queued[index(source)] - 1
        queued[index(source)] = 0
        value = 1 if counters[index(source)] > 0 else 0
        if value == counted:
            continue
        begin, end = fanout_starts[index(source)], fanout_starts[index(source + 1)]
        work += end - begin + 1
        for e in range(index(begin), index(end)):
            reader = fanout[e]
            if reader >= 0:
                target = index(reader >> 1)
                count = counters[target]
                if value ^ (reader & 1):
                    counters[target] = count + 1
                    if count == 0 and queued[target] == 0:
                        queued[target] = 1
                        stack[index(top)] = reader >> 1
                        top += 1
                else:
                    counters[target] = count - 1
                    if count == 1 and queued[target] == 0:
                        queued[target] = 2
                        stack[index(top)] = reader >> 1
                        top += 1
            elif ~reader & 1:
                toggle(~reader >> 1, sets)
            else:
                block = nodes + (~reader >> 1)
                if queued[index(block)] == 0:
                    queued[index(block)] = 1
                    stack[index(top)] = block
                    top += 1
    sizes[WORK] += work


@_jit
def move_to_state(data: Any) -> None:
    """Bring the network to the state handed in: propagate the base propositions that differ, or
    evaluate afresh when more than a quarter of them do."""
    bases = section(data, SIZES)[1]
    counters = section(data, COUNTERS)
    queued = section(data, QUEUED)
    stack = section(data, STACK)
    state = section(data, STATE_IN).view(np.uint8)
    top = 0
    for b in range(bases):
        if counters[b] != (state[b >> 3] >> (b & 7)) & 1:
            stack[top] = b
            top += 1
    if 4 * top > bases:
        evaluate(data)
        return
    for k in range(top):
        b = stack[k]
        queued[b] = counters[b] + 1
        counters[b] = 1 - counters[b]
    settle(top, network_arrays(data), set_arrays(data))


@_inline
def live_network(data: Any) -> Any:
    """The network in its state: it runs from the counters to the saved copy, which has its layout."""
    return data[data[COUNTERS] : data[SAVED]]


@_inline
def start_network(data: Any, start: int) -> None:
    """Bring the network to the state a playout starts from (``start``: see
    :data:`gdl.engines.native.FROM_SAVED` and the others), leaving the saved copy in that state."""
    live = live_network(data)
    saved = section(data, SAVED)
    if start == FROM_SCRATCH:
        evaluate(data)
        copy(saved, live)
    else:
        copy(live, saved)
        if start == FROM_STATE:
            move_to_state(data)
            copy(saved, live)


@_jit
def playout(data: Any, seed: int, max_depth: int, start: int) -> tuple[int, int, int, int]:
    """:func:`traced_playout` without a trace (an argument less for the caller to hand over)."""
    return traced_playout(data, seed, max_depth, start, data[:0])


@_jit
def traced_playout(
    data: Any, seed: int, max_depth: int, start: int, trace: Any
) -> tuple[int, int, int, int]:
    """A random walk (see :mod:`gdl.engines.native`); the outcome, the depth, the goals' key, and the
    last state's first 63 base propositions (bit ``i`` for base proposition ``i``: the whole state of a
    game with at most 63, handed out without a copy through memory).

    ``start`` says where from (:data:`gdl.engines.native.FROM_SAVED` and the others). The last state is
    left in the section STATE_OUT, and ``goals[r]`` gets the index of role ``r``'s goal output that
    holds at a terminal state, -1 when not exactly one holds (or the walk did not end at a terminal
    state); the key has ``goals[r] + 1`` at bit ``r * shift`` (-1 when they do not fit in 62 bits).
    With a non-empty ``trace``, its row ``t`` gets the base values and legal outputs of the ``t``-th
    state and the index of each role's chosen legal output.
    """
    # No tallies: an empty int64 array without an allocation.
    outcome, depth = walks(data, seed, max_depth, start, 1, trace, data[:0].view(np.int64))
    return outcome, depth, goals_key(data), pack_state(data)


@_jit
def depth_charges(data: Any, seed: int, max_depth: int, start: int, count: int, tallies: Any) -> None:
    """``count`` random walks from one state, the ``i``-th exactly :func:`playout`'s with the seed
    ``seed + i`` (modulo 2**63), added up in ``tallies`` (int64; the fields of
    :data:`gdl.engines.native.TALLY_GOALS`). The last walk's end is left as :func:`playout` leaves it
    (the state in STATE_OUT, the goals in GOALS)."""
    walks(data, seed, max_depth, start, count, data[:0], tallies)
    pack_state(data)


@_jit
def walks(
    data: Any, seed: int, max_depth: int, start: int, count: int, trace: Any, tallies: Any
) -> tuple[int, int]:
    """``count`` walks of :func:`traced_playout` from where ``start`` says, the ``i``-th seeded with
    ``seed + i`` (modulo 2**63), each leaving its goals in the section GOALS and added up in
    ``tallies`` (unless empty); the last walk's outcome and depth. The arrays are taken out of the
    kernel's array once for all the walks."""
    sizes = section(data, SIZES)
    bases = sizes[1]
    roles = sizes[2]
    outputs = sizes[LEGAL_OUTPUTS]
    goal_entries = sizes[GOAL_ENTRIES]
    lits = section(data, LITS)
    legal_lits = section(data, LEGAL_LITS)
    legal_inputs = section(data, LEGAL_INPUTS)
    group_starts = section(data, GROUP_STARTS)
    group_of = section(data, GROUP_OF)
    guards = section(data, GUARDS)
    legal_starts = section(data, LEGAL_STARTS)
    goal_lits = section(data, GOAL_LITS)
    goal_starts = section(data, GOAL_STARTS)
    counters = section(data, COUNTERS)
    members = section(data, MEMBERS)
    set_sizes = section(data, SET_SIZES)
    queued = section(data, QUEUED)
    stack = section(data, STACK)
    live = live_network(data)
    saved = section(data, SAVED)
    network = network_arrays(data)
    sets = set_arrays(data)
    schedule = schedule_arrays(data)
    # The goals' section holds each role's choice while playing.
    chosen = section(data, GOALS)
    width = bases + outputs + roles
    recording = trace.shape[0] > 0
    tallying = tallies.shape[0] > 0
    swap = sizes[SWAP_INPUTS]
    terminal = lits[0]
    outcome = depth = 0
    for i in range(count):
        if i == 0:
            start_network(data, start)
        else:
            copy(live, saved)
        # splitmix64 of the seed (numba wraps int64 additions) starts a xorshift64* generator.
        state = np.uint64((seed + i) & 0x7FFFFFFFFFFFFFFF) + np.uint64(0x9E3779B97F4A7C15)
        state = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        state = (state ^ (state >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        state = (state ^ (state >> np.uint64(31))) | np.uint64(1)
        depth = 0
        outcome = TERMINAL
        while True:
            if recording:
                row = depth * width
                for b in range(bases):
                    trace[row + b] = counters[b]
                for k in range(outputs):
                    guard = guards[group_of[k]]
                    trace[row + bases + k] = holds(counters, legal_lits[k]) & holds(counters, guard)
            if holds(counters, terminal):
                break
            if depth >= max_depth:
                outcome = DEPTH_LIMIT
                break
            # With ``swap``, the inputs of the last step are still set: they are taken back as the new
            # ones are set, in one propagation (legal, goal and terminal do not read the inputs); else
            # they are taken back as the base propositions flip.
            top = 0
            for role in range(roles):
                # A role's legal moves: its plain set, and its guarded set while the guard holds.
                plain = set_sizes[2 * role]
                choices = plain
                if holds(counters, guards[2 * role + 1]):
                    choices += set_sizes[2 * role + 1]
                if choices == 0:
                    outcome = NO_LEGAL_MOVE
                    break
                state ^= state >> np.uint64(12)
                state ^= state << np.uint64(25)
                state ^= state >> np.uint64(27)
                draw = (state * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
                pick = np.int64((draw * np.uint64(choices)) >> np.uint64(32))
                if swap and depth > 0:
                    move = legal_inputs[index(chosen[role])]
                    counters[index(move)] = 0
                    queued[index(move)] = 2
                    stack[top] = move
                    top += 1
                if pick < plain:
                    chosen[role] = members[index(group_starts[2 * role] + pick)]
                else:
                    chosen[role] = members[index(group_starts[2 * role + 1] + pick - plain)]
            if outcome == NO_LEGAL_MOVE:
                settle(top, network, sets)
                break
            for role in range(roles):
                move = legal_inputs[index(chosen[role])]
                counters[index(move)] = 1
                # A move played again is still on the stack (counted as set), and so changes nothing.
                if queued[index(move)] == 0:
                    queued[index(move)] = 1
                    stack[index(top)] = move
                    top += 1
                if recording:
                    trace[depth * width + bases + outputs + role] = chosen[role] - legal_starts[role]
            settle(top, network, sets)
            # The base propositions whose next differs are flipped.
            changes = group_starts[2 * roles]
            top = set_sizes[2 * roles]
            for k in range(top):
                flipped = members[index(changes + k)] - outputs
                queued[index(flipped)] = counters[index(flipped)] + 1
                counters[index(flipped)] = 1 - counters[index(flipped)]
                stack[k] = flipped
            if not swap:
                for role in range(roles):
                    move = legal_inputs[index(chosen[role])]
                    counters[index(move)] = 0
                    queued[index(move)] = 2
                    stack[index(top)] = move
                    top += 1
            settle(top, network, sets)
            depth += 1
        read_goals(data, schedule, goal_entries, goal_lits, goal_starts, chosen, outcome)
        if tallying:
            tallies[TALLY_TERMINAL + outcome] += 1
            tallies[TALLY_MOVES] += depth
            for role in range(roles):
                if chosen[role] >= 0:
                    tallies[index(TALLY_GOALS + goal_starts[role] + chosen[role])] += 1
    return outcome, depth


@_inline
def read_goals(
    data: Any, schedule: Any, goal_entries: int, goal_lits: Any, goal_starts: Any, goals: Any, outcome: int
) -> None:
    """Each role's goal output that holds at the end of a walk, into ``goals`` (the section GOALS; see
    :func:`traced_playout`)."""
    counters = schedule[5]
    if outcome == TERMINAL:
        # The gates only the goals read are left out of the propagation: evaluated once, here.
        evaluate_entries(data, schedule, goal_entries)
    for role in range(goal_starts.shape[0] - 1):
        found = -1
        if outcome == TERMINAL:
            for k in range(index(goal_starts[role]), index(goal_starts[role + 1])):
                if holds(counters, goal_lits[k]):
                    found = k - goal_starts[role] if found == -1 else -2
        goals[role] = max(found, -1)


@_inline
def goals_key(data: Any) -> int:
    """The key of the goals in the section GOALS (see :func:`traced_playout`)."""
    sizes = section(data, SIZES)
    goals = section(data, GOALS)
    shift = sizes[GOAL_SHIFT]
    key = 0
    for role in range(sizes[2]):
        key |= (goals[role] + 1) << (shift * role)
    return key if shift > 0 else -1


@_inline
def pack_state(data: Any) -> int:
    """The network's state into the section STATE_OUT (bit ``i`` of the words for base proposition
    ``i``); its first 63 base propositions as an integer."""
    bases = section(data, SIZES)[1]
    counters = section(data, COUNTERS)
    packed = section(data, STATE_OUT).view(np.uint8)
    packed[:] = 0
    first = 0
    for b in range(bases):
        packed[b >> 3] |= counters[b] << (b & 7)
        if b < 63:
            first |= int(counters[b]) << b
    return first
