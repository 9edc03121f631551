"""Exact values of the explored states of any game without percepts: simultaneous moves, nature, general
sum (:mod:`gdl.retrograde` values turn-taking games without nature in integers).

The concept is :mod:`gdl.solve`'s (backward induction, security values or mixed minimax) and so are the
rules (:mod:`gdl.solution_concepts`): nature's moves are equally likely, so a value is a fraction. A numba
kernel (:mod:`gdl.retrograde_values_kernel`) values the states in Kahn's order over the graph reversed,
each value a fraction of int64s; the few states it cannot value so -- a matrix game without a pure
saddle point, a denominator past the kernel's bound, a successor already valued in Python -- are valued
in Python with :class:`fractions.Fraction` (each distinct matrix game solved once), their parents
released, and the kernel resumes. The principal variation and the mixed strategies at the start apply
the rules again in Python along the line, so they are exactly the search's.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

import numpy as np

from gdl.game import Game
from gdl.retrograde import STATES, Exploration, explore, values
from gdl.solution_concepts import (
    Joint,
    Value,
    best_for_mover,
    expected,
    most_probable,
    mover,
    payoff,
    security,
    solve_matrix_game,
)

#: The solution concepts (those of :mod:`gdl.retrograde_values_kernel`, which imports numba).
BACKWARD_INDUCTION, SECURITY, MIXED_MINIMAX = range(3)
#: No product of a value's numerator and a denominator in the kernel passes this.
LARGEST_PRODUCT = 2**62
#: States the kernel may leave to Python before it returns.
DEFERRED_AT_ONCE = 4096
#: Distinct matrix games remembered with their solution.
MATRIX_GAMES_KEPT = 1 << 16


class ExactValues:
    """Each explored state's values (players in :attr:`gdl.game.Game.players` order) as fractions under
    one concept; see the module docstring."""

    def __init__(self, found: Exploration, concept: int, constant: int) -> None:
        game = found.game
        self.found = found
        self.concept = concept
        self.constant = constant
        self.count = count = int(found.counters[STATES])
        self.players_of = np.asarray([game.roles.index(p) for p in game.players], dtype=np.int64)
        self.chance = -1 if game.chance_role is None else game.roles.index(game.chance_role)
        players = len(self.players_of)
        self.num = np.zeros((count, players), dtype=np.int64)
        self.den = np.ones((count, players), dtype=np.int64)
        self.length = np.zeros(count, dtype=np.int32)
        #: Under backward induction, each inner state's chosen joint move of the players.
        self.choice = np.zeros(count, dtype=np.int32)
        #: The states whose values do not fit the kernel's fractions, and those values.
        self.big = np.zeros(count, dtype=np.bool_)
        self.held: dict[int, Value] = {}
        largest = max(1, int(np.abs(found.goals[:count]).max(initial=0)))
        #: The bound on denominators (values lie within the goals' range).
        self.limit = math.isqrt(LARGEST_PRODUCT // (2 * largest))

    def run(self) -> bool:
        """Value every state; False when a state repeats (some state is then never valued)."""
        from gdl.retrograde_kernel import first_ready, reversed_graph
        from gdl.retrograde_values_kernel import TAIL, settle

        found, count = self.found, self.count
        remaining = np.zeros(count, dtype=np.int64)
        queue = np.empty(count, dtype=np.int64)
        parents_start, parents = reversed_graph(count, found.child_start, found.children)
        cursor = np.asarray([0, first_ready(count, found.child_start, remaining, queue)], dtype=np.int64)
        widest = int(np.diff(found.child_start[: count + 1]).max(initial=1))
        out_num = np.zeros((max(1, widest), len(self.players_of)), dtype=np.int64)
        out_den = np.ones_like(out_num)
        out_length = np.zeros(max(1, widest), dtype=np.int32)
        deferred = np.zeros(DEFERRED_AT_ONCE, dtype=np.int64)
        ready = np.zeros(0, dtype=np.int64)
        while True:
            left = settle(
                found.child_start, found.children, found.terminal, found.goals, found.legal_counts,
                self.players_of, self.chance, self.concept, self.constant, self.limit, parents_start,
                parents, remaining, queue, cursor, ready, self.num, self.den, self.length, self.choice,
                self.big, deferred, out_num, out_den, out_length,
            )
            if left == 0:
                return int(cursor[TAIL]) == count
            ready = deferred[:left].copy()
            for s in ready.tolist():
                self._value_in_python(s)

    def value(self, s: int) -> Value:
        """State ``s``'s values."""
        if self.big[s]:
            return self.held[s]
        pairs = zip(self.num[s].tolist(), self.den[s].tolist(), strict=True)
        return tuple(n if d == 1 else Fraction(n, d) for n, d in pairs)

    def choices(self, s: int) -> list[int]:
        """Each player's number of legal moves at inner state ``s``."""
        return [int(self.found.legal_counts[s, r]) for r in self.players_of]

    def outcomes(self, s: int) -> tuple[dict[Joint, Value], dict[Joint, int]]:
        """The players' joint moves at inner state ``s`` with their values in expectation over nature's
        moves, and the longest line after each (as the search groups them)."""
        found = self.found
        start = int(found.child_start[s])
        counts = found.legal_counts[s].tolist()
        grouped: dict[Joint, list[int]] = {}
        for j, joint in enumerate(itertools.product(*(range(n) for n in counts))):
            grouped.setdefault(self._players_part(joint), []).append(int(found.children[start + j]))
        outcomes = {joint: expected([self.value(c) for c in kids]) for joint, kids in grouped.items()}
        longest = {joint: max(int(self.length[c]) for c in kids) for joint, kids in grouped.items()}
        return outcomes, longest

    def _players_part(self, joint: tuple[int, ...]) -> Joint:
        return joint if self.chance < 0 else joint[: self.chance] + joint[self.chance + 1 :]

    def _value_in_python(self, s: int) -> None:
        outcomes, longest = self.outcomes(s)
        if self.concept == BACKWARD_INDUCTION:
            joint = best_for_mover(outcomes, longest, mover(self.choices(s)))
            valued = outcomes[joint]
            self.length[s] = longest[joint] + 1
            self.choice[s] = list(outcomes).index(joint)
        elif self.concept == SECURITY:
            valued = security(outcomes, len(self.players_of))[0]
        else:
            rows, columns = self.choices(s)
            value = _matrix_game(_key(payoff(outcomes, rows, columns)))[0]
            valued = (value, self.constant - value)
        exact = [Fraction(v) for v in valued]
        if all(v.denominator <= self.limit for v in exact):
            self.num[s] = [v.numerator for v in exact]
            self.den[s] = [v.denominator for v in exact]
        else:
            self.big[s] = True
            self.held[s] = valued

    def chosen(self, s: int) -> int:
        """The number of the joint move the players choose at inner state ``s`` (nature its first move),
        by the concept's rule."""
        choices = self.choices(s)
        if self.concept == BACKWARD_INDUCTION:
            joint = list(itertools.product(*(range(n) for n in choices)))[int(self.choice[s])]
        elif self.concept == SECURITY:
            joint = security(self.outcomes(s)[0], len(choices))[1]
        else:
            _, row, column = self.strategies(s)
            joint = (most_probable(row), most_probable(column))
        moves = list(joint)
        if self.chance >= 0:
            moves.insert(self.chance, 0)
        number = 0
        for move, count in zip(moves, self.found.legal_counts[s].tolist(), strict=True):
            number = number * count + move
        return number

    def strategies(self, s: int) -> tuple[Fraction, list[Fraction], list[Fraction]]:
        """The matrix game's value and both players' optimal mixed strategies at inner state ``s``
        (mixed minimax only)."""
        rows, columns = self.choices(s)
        return _matrix_game(_key(payoff(self.outcomes(s)[0], rows, columns)))


def _key(matrix: Sequence[Sequence[Fraction | int]]) -> tuple[tuple[Fraction, ...], ...]:
    return tuple(tuple(Fraction(x) for x in row) for row in matrix)


@lru_cache(maxsize=MATRIX_GAMES_KEPT)
def _matrix_game(matrix: tuple[tuple[Fraction, ...], ...]) -> tuple[Fraction, list[Fraction], list[Fraction]]:
    return solve_matrix_game(matrix)


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernels, on the smallest games; ``make`` calls this at
    installation, so that no solve pays the compilation inside its time limit."""
    from gdl.check import check_text
    from gdl.engines.compiled import CompiledReasoner
    from gdl.engines.warm import WARM_UP_GAME

    for text in (WARM_UP_GAME, MATCHING_PENNIES):
        checked = check_text(text).checked
        assert checked is not None
        game = Game(checked, CompiledReasoner(checked))
        found, _ = explore(game, game.initial_state(), float("inf"), None, 1 << 20, None)
        found.grow_states(2 * found.capacity)  # the table grown from its tags
        if game.chance_role is None:
            values(found)
        else:
            ExactValues(found, MIXED_MINIMAX, 100).run()


#: A game of simultaneous moves with nature: the smallest that runs every path of the exact kernel.
MATCHING_PENNIES = """
(role a) (role b) (role random) (init (s 0))
(<= (legal a (p ?x)) (true (s 0)) (side ?x)) (<= (legal b (p ?x)) (true (s 0)) (side ?x))
(<= (legal random (p ?x)) (true (s 0)) (side ?x))
(<= (legal ?r noop) (role ?r) (true (s 1)))
(side h) (side t)
(<= (next (s 1)) (true (s 0))) (<= (next (won a)) (does a (p ?x)) (does b (p ?x)))
(<= (next (s 2)) (true (s 1)))
(<= terminal (true (s 2)))
(<= (goal a 100) (true (won a))) (<= (goal a 0) (not (true (won a))))
(<= (goal b 0) (true (won a))) (<= (goal b 100) (not (true (won a))))
"""
