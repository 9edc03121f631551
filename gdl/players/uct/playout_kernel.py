"""The playouts of the uct player's search in numba: moves drawn at random (or by MAST, or decisive and
anti-decisive ones, :mod:`gdl.players.uct.decisive`) and played on the native kernel's network from a
state to the end, or to a cut-off scored by the material heuristic (:mod:`gdl.players.uct.heuristic`);
:mod:`gdl.players.uct.kernel` runs them from the leaves of its tree.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# The kernels allocate nothing, so they are compiled as the native kernel's are (no reference counting).
from gdl.engines.native_kernel import (
    _inline,
    _jit,
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
    LEGAL_STARTS,
    LITS,
    MEMBERS,
    NEXT_LITS,
    POSITIONS,
    QUEUED,
    SET_SIZES,
    SIZES,
    STACK,
    TERMINAL,
)
from gdl.players.uct.decisive import WATCH_AND, WATCH_BASE, WATCH_NOR
from gdl.players.uct.layout import (
    ANTI,
    CHANCE,
    CUTOFF,
    DECISIVE,
    GREED,
    RANDOM,
    SAVERS,
    TRIES,
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


@_inline
def try_move(
    data: Any,
    goal_values: Any,
    scratch: Any,
    flipped: Any,
    moves: Any,
    role: int,
    base: int,
    value: int,
    keep: bool,
) -> bool:
    """Whether the joint move ``moves[0]`` (the inputs of ``moves[1]`` set) makes ``base``'s next
    ``value`` and wins the game for ``role`` (each role's reward then read into the scratch space).
    A winning move is kept played when ``keep`` is set (the network in the terminal state, ``moves[1]``
    the move); otherwise the network is left as it was."""
    chosen, previous = moves
    goals, rewards = scratch[3], scratch[4]
    swap_inputs(data, previous, chosen)
    won = False
    if holds(live_network(data), section(data, NEXT_LITS)[base]) == value:
        count = flip(data, flipped)
        won = wins(data, goal_values, goals, rewards, role)
        if won and keep:
            for r in range(previous.shape[0]):
                previous[r] = chosen[r]
            return True
        unflip(data, flipped, count)
    swap_inputs(data, chosen, previous)
    return won


@_jit
def decisive_move(
    data: Any,
    goal_values: Any,
    scratch: Any,
    decisive: Any,
    flipped: Any,
    moves: Any,
    role: int,
    tries: int,
    keep: bool,
) -> bool:
    """Whether ``role`` (the only role with a choice: the others' one legal move is in ``moves[0]``) has
    a move that ends the game with its best goal, looked for where the watched literals say one may be
    (see :mod:`gdl.players.uct.decisive`), trying at most ``tries`` candidates; :func:`try_move` with
    ``keep`` plays it."""
    kinds, nodes, firsts, ends, starts, setters = decisive[:6]
    chosen = moves[0]
    counters = live_network(data)
    lits = section(data, LITS)
    bases = section(data, SIZES)[1]
    legal_starts = section(data, LEGAL_STARTS)
    low, high = legal_starts[role], legal_starts[role + 1]
    for w in range(kinds.shape[0]):
        kind = kinds[w]
        if kind == WATCH_BASE:
            lit = nodes[w]
            if holds(counters, lit) == 1:
                continue
            base = lit >> 1
            value = 1 - (lit & 1)
        else:
            count = counters[nodes[w]]
            if (kind == WATCH_AND and count != 0) or (kind == WATCH_NOR and count != 1):
                continue
            # The one literal left to change, if a base proposition.
            base = -1
            value = 0
            for k in range(firsts[w], ends[w]):
                lit = lits[k]
                if holds(counters, lit) == (1 if kind == WATCH_NOR else 0):
                    if lit >> 1 < bases:
                        base = lit >> 1
                        value = 1 - (lit & 1) if kind == WATCH_AND else lit & 1
                    break
            if base < 0:
                continue
        key = 2 * base + value
        for s in range(starts[key], starts[key + 1]):
            output = setters[s]
            if output < low or output >= high or not legal_now(data, output):
                continue
            chosen[role] = output
            if try_move(data, goal_values, scratch, flipped, moves, role, base, value, keep):
                return True
            tries -= 1
            if tries == 0:
                return False
    return False


@_jit
def threat(
    data: Any, goal_values: Any, scratch: Any, decisive: Any, chosen: Any, mover: int, chance: int, tries: int
) -> int:
    """After ``mover``'s move ``chosen`` (played in the network), the next role to move if it alone
    chooses and has a decisive move (that move then in ``decisive``'s next joint move); -1 otherwise."""
    flipped_next, chosen_next = decisive[9:11]
    answer = sole_mover(data, chosen_next)
    if answer < 0 or answer in (mover, chance):
        return -1
    answers = (chosen_next, chosen)
    if decisive_move(data, goal_values, scratch, decisive, flipped_next, answers, answer, tries, False):
        return answer
    return -1


@_jit
def play_saver(
    data: Any,
    goal_values: Any,
    scratch: Any,
    decisive: Any,
    moves: Any,
    mover: int,
    answer: int,
    chance: int,
    count: int,
    redraws: int,
    tries: int,
) -> bool:
    """After ``mover``'s move ``moves[0]`` (played, its ``count`` flips in ``decisive``'s room) let the
    next role's move ``answer`` win, play instead a saver: a legal move of ``mover`` that flips a base
    proposition the answer's legality reads (its support, :mod:`gdl.players.uct.decisive`) and after
    which the next role has no decisive move, trying at most ``redraws`` of them; where none is found,
    the move drawn is played again (the state is lost for ``mover`` as far as one move sees). False, the
    network untouched, where the answer has no support or the move drawn flipped a base of it (the
    redraws then go on as before)."""
    starts, setters, support_starts, supports = decisive[4:8]
    flipped = decisive[8]
    chosen, previous = moves
    first, end = support_starts[answer], support_starts[answer + 1]
    if first == end:
        return False
    for k in range(first, end):
        for f in range(count):
            if flipped[f] == supports[k]:
                return False
    counters = live_network(data)
    terminal = section(data, LITS)[0]
    legal_starts = section(data, LEGAL_STARTS)
    low, high = legal_starts[mover], legal_starts[mover + 1]
    drawn = chosen[mover]
    unflip(data, flipped, count)
    swap_inputs(data, chosen, previous)
    tried = 0
    for k in range(first, end):
        key = 2 * supports[k] + 1 - counters[supports[k]]
        for s in range(starts[key], starts[key + 1]):
            output = setters[s]
            if output < low or output >= high or output == drawn or not legal_now(data, output):
                continue
            chosen[mover] = output
            swap_inputs(data, previous, chosen)
            moved = flip(data, flipped)
            if holds(counters, terminal):
                return True
            if threat(data, goal_values, scratch, decisive, chosen, mover, chance, tries) < 0:
                return True
            unflip(data, flipped, moved)
            swap_inputs(data, chosen, previous)
            tried += 1
            if tried >= redraws:
                break
        if tried >= redraws:
            break
    chosen[mover] = drawn
    swap_inputs(data, previous, chosen)
    flip(data, flipped)
    return True


@_inline
def sole_mover(data: Any, chosen: Any) -> int:
    """The one role with more than one legal move (the others' one move into ``chosen``); -1 when none
    has, -2 when several have, -3 when one has none."""
    counters = live_network(data)
    group_starts = section(data, GROUP_STARTS)
    members = section(data, MEMBERS)
    set_sizes = section(data, SET_SIZES)
    guards = section(data, GUARDS)
    mover = -1
    for role in range(section(data, SIZES)[2]):
        count = legal_count(counters, set_sizes, guards, role)
        if count == 0:
            return -3
        if count > 1:
            mover = role if mover == -1 else -2
        else:
            chosen[role] = legal_move(members, group_starts, set_sizes, role, 0)
    return mover


@_inline
def mast_mean(mast: Any, output: int) -> float:
    """The mean reward of the role whose move ``output`` is over the iterations that played it, with one
    win and one loss as a prior (MAST)."""
    sums, counts, _ = mast
    return float((sums[output] + 1.0) / (counts[output] + 2.0))


@_inline
def draw_move(data: Any, meta: Any, mast: Any, role: int, threshold: Any) -> int:
    """A random legal move of ``role``: uniform, or with probability ``threshold / 2**32`` the better by
    MAST of two drawn."""
    counters = live_network(data)
    group_starts = section(data, GROUP_STARTS)
    members = section(data, MEMBERS)
    set_sizes = section(data, SET_SIZES)
    guards = section(data, GUARDS)
    count = legal_count(counters, set_sizes, guards, role)
    move = legal_move(members, group_starts, set_sizes, role, below(meta, count))
    if count > 1 and next_random(meta) < threshold:
        other = legal_move(members, group_starts, set_sizes, role, below(meta, count))
        if mast_mean(mast, other) > mast_mean(mast, move):
            move = other
    return move


@_inline
def estimate(counters: Any, heuristic: Any, rewards: Any) -> None:
    """Each role's reward as the heuristic predicts it from the feature counts, in [0, 1]."""
    for role in range(rewards.shape[0]):
        rewards[role] = min(1.0, max(0.0, predict(counters, heuristic, role)))


@_inline
def predict(counters: Any, heuristic: Any, role: int) -> float:
    """``role``'s reward as the heuristic's line predicts it from the feature counts (not clipped)."""
    starts, bases, weights, intercepts = heuristic[:4]
    value = intercepts[role]
    for f in range(starts.shape[0] - 1):
        count = 0
        for k in range(starts[f], starts[f + 1]):
            count += counters[bases[k]]
        value += weights[role, f] * count
    return float(value)


@_inline
def leaf_estimate(counters: Any, heuristic: Any, role: int) -> float:
    """``role``'s value of the network's state as implicit minimax starts it at a leaf: the logistic of
    the heuristic's prediction less its mean over the states fitted on, in spreads."""
    distance = (predict(counters, heuristic, role) - heuristic[6][role]) / heuristic[4][role]
    return float(1.0 / (1.0 + np.exp(-distance)))


@_inline
def playout(
    data: Any,
    goal_values: Any,
    meta: Any,
    scratch: Any,
    mast: Any,
    decisive: Any,
    heuristic: Any,
    options: Any,
    limit: int,
) -> int:
    """A random walk in the network from its state to a terminal state, a role without a legal move or
    ``limit`` joint moves; each role's reward at its end into the scratch space's rewards; the moves
    made, recorded in the MAST record (``mast[2]``, a row of a move per role each).

    Each role draws a move uniformly; with probability ``greed`` (``options[GREED]``) it draws a second
    one and plays whichever has the higher MAST mean (a tournament of two: the move averages bias the
    playouts at the cost of one more draw, where scanning every legal move would cost the whole set).
    Where one role alone has a choice (and is not nature), with ``options[DECISIVE]`` a move of it that
    ends the game with its best goal is played first, if the watched literals show one (at most
    ``options[TRIES]`` candidates tried a step); with ``options[ANTI]``, a move after which the next
    role to move has such a move is drawn again, up to that many times (and fewer than the legal
    moves); with ``options[SAVERS]`` as well, it is first replaced by a saver (:func:`play_saver`).
    With ``options[CUTOFF]`` and a ``heuristic`` (:mod:`gdl.players.uct.heuristic`), a playout stops
    after that many moves and each role's reward is the heuristic's.
    """
    _, chosen, previous, _, rewards = scratch
    flipped, chosen_next = decisive[8], decisive[10]
    played = mast[2]
    roles = section(data, SIZES)[2]
    terminal = section(data, LITS)[0]
    group_starts = section(data, GROUP_STARTS)
    members = section(data, MEMBERS)
    set_sizes = section(data, SET_SIZES)
    guards = section(data, GUARDS)
    counters = live_network(data)
    threshold = np.uint64(options[GREED] * 4294967296.0)
    chance = int(options[CHANCE])
    watching = decisive[0].shape[0] > 0
    looking = options[DECISIVE] > 0 and watching
    redraws = int(options[ANTI]) if watching else 0
    tries = int(options[TRIES])
    # Savers where the watch has the supports of the legal moves.
    saving = options[SAVERS] > 0 and decisive[6].shape[0] > 1
    cutoff = int(options[CUTOFF]) if heuristic[0].shape[0] > 1 else 0
    depth = 0
    while depth < limit and not holds(counters, terminal):
        if depth == cutoff and cutoff > 0:
            estimate(counters, heuristic, rewards)
            return depth
        mover = sole_mover(data, chosen)
        if mover == -3:
            break
        choosing = mover >= 0 and mover != chance
        moves = (chosen, previous)
        if looking and choosing and decisive_move(
            data, goal_values, scratch, decisive, flipped, moves, mover, tries, True
        ):
            for role in range(roles):
                played[depth * roles + role] = chosen[role]
            return depth + 1
        if choosing and redraws > 0:
            # Draw until the next role to move has no decisive move, or the redraws run out: the first
            # at random, the others the legal moves that follow it in the set (taking a move back may
            # reorder the set, so this is nearly a draw without replacement), at most once round it.
            legal = legal_count(counters, set_sizes, guards, mover)
            last = min(redraws, legal - 1)
            first = below(meta, legal)
            for attempt in range(last + 1):
                if attempt == 0:
                    chosen[mover] = draw_move(data, meta, mast, mover, threshold)
                else:
                    at = (first + attempt) % legal
                    chosen[mover] = legal_move(members, group_starts, set_sizes, mover, at)
                swap_inputs(data, previous, chosen)
                count = flip(data, flipped)
                if attempt == last or holds(counters, terminal):
                    break
                answer = threat(data, goal_values, scratch, decisive, chosen, mover, chance, tries)
                if answer < 0:
                    break
                if (
                    saving
                    and attempt == 0
                    and play_saver(
                        data, goal_values, scratch, decisive, moves, mover, chosen_next[answer], chance,
                        count, last, tries,
                    )
                ):
                    break
                unflip(data, flipped, count)
                swap_inputs(data, chosen, previous)
            for role in range(roles):
                previous[role] = chosen[role]
                played[depth * roles + role] = chosen[role]
            depth += 1
            continue
        for role in range(roles):
            if mover == -2 or role == mover:
                chosen[role] = draw_move(data, meta, mast, role, threshold)
            played[depth * roles + role] = chosen[role]
        step(data, chosen, previous)
        depth += 1
    read_rewards(data, goal_values, scratch[3], rewards)
    return depth


@_inline
def mast_update(mast: Any, moves: int, roles: int, rewards: Any) -> None:
    """Add each role's reward to the MAST statistics of the first ``moves`` joint moves recorded."""
    sums, counts, played = mast
    for k in range(moves * roles):
        output = played[k]
        sums[output] += rewards[k % roles]
        counts[output] += 1.0
