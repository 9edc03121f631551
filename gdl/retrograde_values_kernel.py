"""The numba kernel of :mod:`gdl.retrograde_values` (importing this module imports numba).

Values are exact fractions, a numerator and a denominator (int64, the denominator positive, in lowest
terms) per state and player, bounded so that no sum or cross-product overflows: a denominator never
passes ``limit`` and every value lies within the goals' range. A state whose value would need more, or
whose matrix game has no pure saddle point, or with a successor whose value is held in Python, is left to
Python (:func:`settle` returns it as deferred).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba

from gdl.retrograde_kernel import release

F = TypeVar("F", bound=Callable[..., Any])
_jit = cast(Callable[[F], F], numba.njit(cache=True, nogil=True))

#: The solution concepts (those of :mod:`gdl.retrograde_values`).
BACKWARD_INDUCTION, SECURITY, MIXED_MINIMAX = range(3)
#: Fields of the cursor shared with :func:`settle`: the queue's head and tail.
HEAD, TAIL = range(2)


@_jit
def _gcd(a: int, b: int) -> int:  # pragma: no cover (numba)
    a, b = abs(a), abs(b)
    while b:
        a, b = b, a % b
    return int(a)


@_jit
def _compare(num_a: int, den_a: int, num_b: int, den_b: int) -> int:  # pragma: no cover (numba)
    """-1, 0 or 1 as ``num_a / den_a`` is below, equal to or above ``num_b / den_b``."""
    left = num_a * den_b
    right = num_b * den_a
    return -1 if left < right else 1 if left > right else 0


@_jit
def _outcomes(  # pragma: no cover (numba)
    s: int, child_start: Any, children: Any, legal_counts: Any, chance: int, limit: int, num: Any,
    den: Any, length: Any, big: Any, out_num: Any, out_den: Any, out_length: Any,
) -> int:
    """The players' joint moves' values at inner state ``s`` in expectation over nature's moves (into
    ``out_*``, in the order of ``itertools.product`` over the players), and the longest line after each;
    returns how many joint moves the players have, or -1 when a value is left to Python."""
    start = child_start[s]
    joints = child_start[s + 1] - start
    players = num.shape[1]
    nature = 1
    after = 1  # the joint moves' stride of nature's move: the product of the later roles' counts
    if chance >= 0:
        nature = legal_counts[s, chance]
        for r in range(chance + 1, legal_counts.shape[1]):
            after *= legal_counts[s, r]
    if nature > limit:
        return -1
    outcomes: int = joints // nature
    if nature == 1:  # each joint move of the players has one successor: its values as they are
        for p in range(outcomes):
            child = children[start + p]
            if big[child]:
                return -1
            out_num[p, :] = num[child, :]
            out_den[p, :] = den[child, :]
            out_length[p] = length[child]
        return outcomes
    out_den[:outcomes, :] = 1
    out_num[:outcomes, :] = 0
    out_length[:outcomes] = 0
    for j in range(joints):
        child = children[start + j]
        if big[child]:
            return -1
        p = (j // (after * nature)) * after + j % after
        out_length[p] = max(out_length[p], length[child])
        for r in range(players):
            held = out_den[p, r]
            shared = held // _gcd(held, den[child, r])
            if shared > limit // den[child, r]:
                return -1
            out_den[p, r] = shared * den[child, r]
    for j in range(joints):
        child = children[start + j]
        p = (j // (after * nature)) * after + j % after
        for r in range(players):
            out_num[p, r] += num[child, r] * (out_den[p, r] // den[child, r])
    for p in range(outcomes):
        for r in range(players):
            whole = out_den[p, r] * nature
            common = _gcd(out_num[p, r], whole)
            out_num[p, r] //= common
            out_den[p, r] = whole // common
            if out_den[p, r] > limit:
                return -1
    return outcomes


@_jit
def _value(  # pragma: no cover (numba)
    s: int, child_start: Any, children: Any, legal_counts: Any, players_of: Any, chance: int,
    concept: int, constant: int, limit: int, num: Any, den: Any, length: Any, choice: Any, big: Any,
    out_num: Any, out_den: Any, out_length: Any,
) -> bool:
    """Value inner state ``s`` by ``concept`` (the rules of :mod:`gdl.solution_concepts`); False when it
    is left to Python."""
    outcomes = _outcomes(
        s, child_start, children, legal_counts, chance, limit, num, den, length, big, out_num, out_den,
        out_length,
    )
    if outcomes < 0:
        return False
    players = len(players_of)
    if concept == BACKWARD_INDUCTION:
        role = 0
        for r in range(players):
            if legal_counts[s, players_of[r]] > 1:
                role = r
                break
        best = 0
        for p in range(1, outcomes):
            order = _compare(out_num[p, role], out_den[p, role], out_num[best, role], out_den[best, role])
            if order > 0 or (order == 0 and out_length[p] < out_length[best]):
                best = p
        num[s, :] = out_num[best, :]
        den[s, :] = out_den[best, :]
        length[s] = out_length[best] + 1
        choice[s] = best
        return True
    if concept == SECURITY:
        later = outcomes  # the stride of player r's move among the players' joint moves
        for r in range(players):
            moves = legal_counts[s, players_of[r]]
            later //= moves
            best_num, best_den = 0, 0
            for i in range(moves):
                worst_num, worst_den = 0, 0
                for p in range(outcomes):
                    if (p // later) % moves == i and (
                        worst_den == 0 or _compare(out_num[p, r], out_den[p, r], worst_num, worst_den) < 0
                    ):
                        worst_num, worst_den = out_num[p, r], out_den[p, r]
                if best_den == 0 or _compare(worst_num, worst_den, best_num, best_den) > 0:
                    best_num, best_den = worst_num, worst_den
            num[s, r] = best_num
            den[s, r] = best_den
        return True
    rows = legal_counts[s, players_of[0]]
    columns = legal_counts[s, players_of[1]]
    # max over rows of the row's min, and min over columns of the column's max: equal at a saddle point
    low_num, low_den = 0, 0
    for i in range(rows):
        worst_num, worst_den = out_num[i * columns, 0], out_den[i * columns, 0]
        for j in range(1, columns):
            p = i * columns + j
            if _compare(out_num[p, 0], out_den[p, 0], worst_num, worst_den) < 0:
                worst_num, worst_den = out_num[p, 0], out_den[p, 0]
        if low_den == 0 or _compare(worst_num, worst_den, low_num, low_den) > 0:
            low_num, low_den = worst_num, worst_den
    high_num, high_den = 0, 0
    for j in range(columns):
        most_num, most_den = out_num[j, 0], out_den[j, 0]
        for i in range(1, rows):
            p = i * columns + j
            if _compare(out_num[p, 0], out_den[p, 0], most_num, most_den) > 0:
                most_num, most_den = out_num[p, 0], out_den[p, 0]
        if high_den == 0 or _compare(most_num, most_den, high_num, high_den) < 0:
            high_num, high_den = most_num, most_den
    if _compare(low_num, low_den, high_num, high_den) != 0:
        return False  # no pure saddle point: the matrix game is solved in Python
    num[s, 0] = low_num
    den[s, 0] = low_den
    num[s, 1] = constant * low_den - low_num
    den[s, 1] = low_den
    return True


@_jit
def settle(  # pragma: no cover (numba)
    child_start: Any, children: Any, terminal: Any, goals: Any, legal_counts: Any, players_of: Any,
    chance: int, concept: int, constant: int, limit: int, parents_start: Any, parents: Any,
    remaining: Any, queue: Any, cursor: Any, ready: Any, num: Any, den: Any, length: Any, choice: Any,
    big: Any, deferred: Any, out_num: Any, out_den: Any, out_length: Any,
) -> int:
    """Value the queued states in Kahn's order (``queue[cursor[HEAD]:cursor[TAIL]]``, their parents
    queued as their last successor is valued), first releasing the parents of the states in ``ready``
    (valued in Python); the states left to Python go to ``deferred`` (their parents wait), until it is
    full or the queue empty. Returns how many were deferred."""
    head = cursor[HEAD]
    tail = cursor[TAIL]
    for k in range(len(ready)):
        tail = release(ready[k], parents_start, parents, remaining, queue, tail)
    count = 0
    while head < tail and count < len(deferred):
        s = queue[head]
        head += 1
        if terminal[s]:
            for r in range(len(players_of)):
                num[s, r] = goals[s, players_of[r]]
                den[s, r] = 1
            length[s] = 0
        elif not _value(
            s, child_start, children, legal_counts, players_of, chance, concept, constant, limit, num, den,
            length, choice, big, out_num, out_den, out_length,
        ):
            deferred[count] = s
            count += 1
            continue
        tail = release(s, parents_start, parents, remaining, queue, tail)
    cursor[HEAD] = head
    cursor[TAIL] = tail
    return count
