"""Shallow proofs in the uct player's tree, in numba: whether the role to move can force a win within a
few plies, every answer of the others tried (a minimax search of wins and not-wins, as the MCTS-minimax
hybrids of Baier and Winands run in the selection). The tree reads a proof as it reads the MCTS-Solver's:
the node is proven, and its parent's move into it too.

The search plays moves in the network and takes them back, a row of ``probe`` each ply: the base
propositions the ply's move flipped, its joint move, the legal moves of its role to move (read before
any is played: playing a move and taking it back may reorder the legal sets), and the ply's frame (the
next move to try, their number, the role to move, the flips of the move played). It keeps its own
stack of plies, as numba's cache does not keep a function that calls itself. A win is claimed
only from a terminal state reached with the role's best goal, so every proof is sound; states where
several roles choose at once, or nature does, are not searched (no proof there).

With ``threats`` > 0 the probe follows only forcing lines, as a threat-space search does (Allis's threats,
Thomsen's lambda search of order 1): at a ply of another role, each of its answers is played first and
checked for a win of the role at once (through the watched literals); the answers that leave none are the
only ones searched on, and where more than ``threats`` of them are left (none on the last answer's ply)
the role's move is not followed. Every answer is still tried, so a proof stays sound; what is given up is
the quiet moves of the role, which lets a probe reach some nine plies deep where a full one reaches three.
"""

from __future__ import annotations

from typing import Any

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
    LITS,
    MEMBERS,
    SET_SIZES,
)
from gdl.players.uct.decisive_kernel import decisive_move, sole_mover
from gdl.players.uct.step_kernel import flip, legal_count, legal_move, swap_inputs, unflip, wins

#: The most candidates a proof's last ply tries through the watched literals: all of them.
ALL_TRIES = 1 << 30
#: The most moves a probe plays (a last ply's search among the watched candidates counted as its role's
#: legal moves): past them it gives up, so that a game of many moves a ply does not stall the search.
MOST_PROBE_MOVES = 2_000
#: Fields of a ply's frame: the next of its moves to try, their number, its role to move, how many base
#: propositions the move being tried flipped, and how many moves setting the ply up played or tried.
NEXT, COUNT, MOVER, MOVED, CHARGE = range(5)
#: What a ply is found to be: not decided yet (its moves are being tried), not won, won.
OPEN, LOST, WON = -1, 0, 1


@_inline
def begin(
    data: Any, goal_values: Any, scratch: Any, decisive: Any, probe: Any, role: int, chance: int, left: int,
    threats: int, ply: int, current: Any,
) -> int:
    """Set ply ``ply`` up in the network's state (not terminal), with ``left`` plies left and ``current``
    the joint move whose inputs are set: :data:`OPEN` with its moves read, or what it is found to be
    at once (not won where the role to move is not alone in choosing, or where the role cannot move
    again in time; on the last ply of the role, whether a winning move is among the watched ones; on a
    ply of another role, with ``threats``, whether every answer lets the role win at once, or too many
    do not). The frame's count is the number of moves to search, its charge those played or tried."""
    flips, joints, legals, frames = probe
    frames[ply, COUNT] = 0
    frames[ply, CHARGE] = 0
    if left == 0 or ply >= joints.shape[0]:
        return LOST
    chosen = joints[ply]
    mover = sole_mover(data, chosen)
    if mover < 0 or mover == chance:
        return LOST
    ours = mover == role
    if not ours and left < 2:
        return LOST
    counters = live_network(data)
    set_sizes = section(data, SET_SIZES)
    count = legal_count(counters, set_sizes, section(data, GUARDS), mover)
    frames[ply, COUNT] = count
    frames[ply, CHARGE] = count
    watched = decisive[0].shape[0] > 0
    if ours and left == 1 and watched:
        # The last ply: only where the watched literals say a winning move may be (all of them are there).
        moves = (chosen, current)
        if decisive_move(data, goal_values, scratch, decisive, flips[ply], moves, role, ALL_TRIES, False):
            return WON
        return LOST
    members = section(data, MEMBERS)
    group_starts = section(data, GROUP_STARTS)
    for i in range(count):
        legals[ply, i] = legal_move(members, group_starts, set_sizes, mover, i)
    frames[ply, NEXT] = 0
    frames[ply, MOVER] = mover
    if ours or threats == 0 or not watched:
        # Its moves are charged as they are played.
        frames[ply, CHARGE] = 0
        return OPEN
    # The answers that leave the role no win at once are kept, in their order, at the front of the row.
    most = threats if left > 2 else 0
    terminal = section(data, LITS)[0]
    after = joints[ply + 1]
    kept = 0
    for i in range(count):
        chosen[mover] = legals[ply, i]
        swap_inputs(data, current, chosen)
        moved = flip(data, flips[ply])
        if holds(counters, terminal):
            lost = not wins(data, goal_values, scratch[3], scratch[4], role)
            answered = lost
        else:
            lost = False
            answered = sole_mover(data, after) != role or not decisive_move(
                data, goal_values, scratch, decisive, flips[ply + 1], (after, chosen), role, ALL_TRIES, False
            )
        unflip(data, flips[ply], moved)
        swap_inputs(data, chosen, current)
        if lost:
            frames[ply, CHARGE] = i + 1
            return LOST
        if answered:
            if kept == most:
                frames[ply, CHARGE] = i + 1
                return LOST
            legals[ply, kept] = legals[ply, i]
            kept += 1
    frames[ply, COUNT] = kept
    return OPEN if kept > 0 else WON


@_jit
def forced_win(
    data: Any,
    goal_values: Any,
    scratch: Any,
    decisive: Any,
    probe: Any,
    role: int,
    chance: int,
    plies: int,
    threats: int,
    current: Any,
) -> int:
    """The move (legal output) by which ``role`` wins with its best goal within ``plies`` plies from the
    network's state (not terminal), against every move of the others, where one role alone chooses at
    each ply; -1 where there is none. ``current`` holds the joint move whose inputs are set. With
    ``threats`` > 0 only the role's forcing moves are followed (see above). The network is left as it
    was; on a proof, the rewards of a won terminal state are in ``scratch[4]``. Past
    :data:`MOST_PROBE_MOVES` moves the search gives up (-1)."""
    flips, joints, legals, frames = probe
    counters = live_network(data)
    terminal = section(data, LITS)[0]
    ply = 0
    found = begin(data, goal_values, scratch, decisive, probe, role, chance, plies, threats, 0, current)
    # Whether the first ply's moves were listed (else its winning move was found among the watched ones).
    listed = found == OPEN
    left = MOST_PROBE_MOVES
    while True:
        if found != OPEN:
            if ply == 0:
                if found == LOST or left < 0:
                    return -1
                return int(legals[0, frames[0, NEXT] - 1]) if listed else int(joints[0, role])
            # Back to the parent ply: its move taken back, and what the child was found decides it or not.
            ply -= 1
            before = current if ply == 0 else joints[ply - 1]
            unflip(data, flips[ply], frames[ply, MOVED])
            swap_inputs(data, joints[ply], before)
            ours = frames[ply, MOVER] == role
            # A move of the role that wins decides its ply; a move of another that does not, too. Once
            # the moves are spent, every ply is taken back.
            if (found == WON) != ours and left >= 0:
                found = OPEN
            continue
        left -= 1
        if left < 0:
            found = LOST
            continue
        i = frames[ply, NEXT]
        ours = frames[ply, MOVER] == role
        if i == frames[ply, COUNT]:
            found = LOST if ours else WON
            continue
        frames[ply, NEXT] = i + 1
        before = current if ply == 0 else joints[ply - 1]
        chosen = joints[ply]
        chosen[frames[ply, MOVER]] = legals[ply, i]
        swap_inputs(data, before, chosen)
        frames[ply, MOVED] = flip(data, flips[ply])
        if holds(counters, terminal):
            won = wins(data, goal_values, scratch[3], scratch[4], role)
            unflip(data, flips[ply], frames[ply, MOVED])
            swap_inputs(data, chosen, before)
            if won == ours:
                found = WON if ours else LOST
            continue
        ply += 1
        found = begin(
            data, goal_values, scratch, decisive, probe, role, chance, plies - ply, threats, ply, chosen
        )
        left -= frames[ply, CHARGE]
