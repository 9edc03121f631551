"""Decisive and anti-decisive moves in the uct player's playouts, in numba: a move that ends the game
with the mover's best goal, looked for where the watched literals of :mod:`gdl.players.uct.decisive` say
one may be, and the moves after which the next role to move has one."""

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
    LEGAL_STARTS,
    LITS,
    MEMBERS,
    NEXT_LITS,
    SET_SIZES,
    SIZES,
)
from gdl.players.uct.decisive import WATCH_AND, WATCH_BASE, WATCH_NOR
from gdl.players.uct.step_kernel import (
    flip,
    legal_count,
    legal_move,
    legal_now,
    swap_inputs,
    unflip,
    wins,
)


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

