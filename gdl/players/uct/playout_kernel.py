"""The playouts of the uct player's search in numba: moves drawn at random (or by MAST, or decisive and
anti-decisive ones, :mod:`gdl.players.uct.decisive`, or captures by the material heuristic) and played on
the native kernel's network from a state to the end, or to a cut-off scored by the material heuristic
(:mod:`gdl.players.uct.heuristic`);
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
    section,
)
from gdl.engines.native_layout import (
    GROUP_STARTS,
    GUARDS,
    LEGAL_STARTS,
    LITS,
    MEMBERS,
    NEXT_LITS,
    SET_SIZES,
    SIZES,
)
from gdl.players.uct.decisive_kernel import decisive_move, play_saver, sole_mover, threat
from gdl.players.uct.layout import (
    ANTI,
    CAPTURE,
    CHANCE,
    CUTOFF,
    DECISIVE,
    GREED,
    SAVERS,
    TRIES,
)
from gdl.players.uct.step_kernel import (
    below,
    flip,
    legal_count,
    legal_move,
    legal_now,
    next_random,
    read_rewards,
    step,
    swap_inputs,
    unflip,
)


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


@_jit
def play_capture(data: Any, decisive: Any, heuristic: Any, moves: Any, mover: int) -> bool:
    """Play ``mover``'s best capture (the others' one legal move in ``moves[0]``, the inputs of
    ``moves[1]`` set): a legal move of it that may make false the target worth most to it (an
    opponent's piece, true now, :func:`gdl.players.uct.heuristic.targets`: the watch's setters of that
    flip). False, the network untouched, where there is none or the move does not take the piece after
    all. (A target's worth counts the piece alone, not the capturing piece's own move: a capture is
    played whatever it is worth, as Lorentz and Horey's breakthrough playouts take every capture.)"""
    starts, setters = decisive[4], decisive[5]
    flipped = decisive[8]
    target_starts, targets = heuristic[7], heuristic[8]
    chosen, previous = moves
    counters = live_network(data)
    legal_starts = section(data, LEGAL_STARTS)
    low, high = legal_starts[mover], legal_starts[mover + 1]
    # The targets come worth most first: the first one on the board that a legal move may take.
    for k in range(target_starts[mover], target_starts[mover + 1]):
        base = targets[k]
        if counters[base] == 0:
            continue
        for s in range(starts[2 * base], starts[2 * base + 1]):
            output = setters[s]
            if output < low or output >= high or not legal_now(data, output):
                continue
            chosen[mover] = output
            swap_inputs(data, previous, chosen)
            if holds(counters, section(data, NEXT_LITS)[base]) == 0:
                flip(data, flipped)
                return True
            swap_inputs(data, chosen, previous)
    return False


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
    With ``options[CAPTURE]`` and a ``heuristic``, where one role alone has a choice (after the decisive
    check, before the redraws), with that probability it plays its best capture (:func:`play_capture`).
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
    # Captures where the heuristic has targets and the watch has setters.
    capturing = np.uint64(options[CAPTURE] * 4294967296.0) if heuristic[8].shape[0] > 0 else np.uint64(0)
    capturing = capturing if decisive[5].shape[0] > 0 else np.uint64(0)
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
        if (
            choosing
            and capturing > 0
            and next_random(meta) < capturing
            and play_capture(data, decisive, heuristic, moves, mover)
        ):
            for role in range(roles):
                previous[role] = chosen[role]
                played[depth * roles + role] = chosen[role]
            depth += 1
            continue
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
