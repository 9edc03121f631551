"""Proven bounds from best responses computed in floating point, with a rigorous bound of their rounding
error: for trees too large for exact arithmetic.

The strategy bounded is the behaviour strategy ``beta = b / S`` read from a realization plan: ``b`` the
floating-point ratios of the plan's sequences to their parents (uniform where the parent is never
reached), ``S`` each information set's exact sum of them. A best response to ``beta`` is computed in
float64 as :func:`gdl.extensive.best_response.respond` does (the plan of ``b``, the payoff table times
it, a backward induction over the responder's information sets). Every value it adds is a product of
chance's probability (``1 / denominator``), behaviour probabilities and a payoff (exact in float64:
goals minus half their integer sum), and each operation rounds with relative error at most
``u = 2**-53`` (round to nearest; the magnitudes stay far from underflow for payoffs of GDL goals and
the trees that fit in memory: a term below ``2**-900`` would not be bounded, and is refused). So the
float value of a pure strategy ``x`` is ``sum_z t_z * f_z`` over its terminals, ``t_z`` the exact term
under ``beta`` and ``f_z = prod S_j * (1 + theta_z)``, with ``|theta_z| <= gamma_N = N u / (1 - N u)``
for ``N`` the most roundings any term goes through (bounded by the table's entries, the sequences and
the depth: :func:`_roundings`), and ``|S_j - 1| <= D`` at each of the at most ``d`` information sets on
the opponent's path. Since ``sum_z |t_z| <= M`` (the largest absolute payoff: ``x`` is pure and the
exact probabilities sum to 1), the float value of every pure strategy is within ``e = M * rho`` of its
exact value, ``rho = max((1 + D)^d (1 + gamma_N) - 1, 1 - (1 - D)^d (1 - gamma_N))``. The float
backward induction takes maxima (exact) and sums (monotone in each argument), so its result ``V``
is at least the float value of an exact best response and is the float value of the pure strategy it
picks: ``|V - BR| <= e``, and ``V + e`` bounds the best response from above.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from gdl.errors import RoundingBoundError
from gdl.extensive.best_response import respond
from gdl.extensive.sequence import FloatArray, PlayerSequences, SequenceForm

#: The unit roundoff of float64.
UNIT = 2.0**-53
#: The smallest magnitude of a nonzero probability product the analysis covers (far above float64's
#: smallest normal number, 2**-1022, so that no product underflows).
SMALLEST = 2.0**-900


@dataclass(frozen=True)
class ProvenResponse:
    """A best response's value to ``beta`` lies in ``[value - error, value + error]``, proven."""

    value: float
    error: float

    @property
    def upper(self) -> Fraction:
        return Fraction(self.value) + Fraction(self.error)

    @property
    def lower(self) -> Fraction:
        return Fraction(self.value) - Fraction(self.error)


def behaviour_of(side: PlayerSequences, plan: FloatArray) -> tuple[FloatArray, float]:
    """The behaviour probabilities ``b`` per sequence (entry 0: 1) read from a realization plan, each
    information set's made to sum to 1 in floating point, and ``D``: a bound of how far each set's exact
    sum is from 1."""
    behaviour = np.ones(len(side.sequences))
    if not len(side.infosets):
        return behaviour, 0.0
    count = side.count.astype(np.int64)
    owner = np.repeat(np.arange(len(side.infosets)), count)
    ranks = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    sequence = np.repeat(side.first, count) + ranks
    parent = np.clip(plan[side.parent[owner]], 0.0, None)
    weights = np.clip(plan[sequence], 0.0, None)
    reached = parent > 0
    ratio = np.where(reached, weights / np.where(reached, parent, 1.0), 1.0)
    totals = np.bincount(owner, weights=ratio, minlength=len(side.infosets))
    empty = totals[owner] <= 0
    ratio = np.where(empty, 1.0 / count[owner], ratio / np.where(empty, 1.0, totals[owner]))
    behaviour[sequence] = ratio
    sums = np.bincount(owner, weights=ratio, minlength=len(side.infosets))
    # The float sums are within gamma_k of the exact sums (k the most actions).
    widest = int(count.max())
    deviation = float(np.abs(sums - 1.0).max()) + _gamma(widest) * float(sums.max())
    return behaviour, deviation * (1 + 4 * UNIT)


def proven_response(
    form: SequenceForm, mover: int, opponent_plan: FloatArray, terminals: int, most_payoff: float
) -> ProvenResponse:
    """The best response of player ``mover`` to the behaviour strategy read from the other's plan (see
    the module docstring), with its proven error; ``terminals`` and ``most_payoff``: the tree's count
    of terminals and largest absolute payoff."""
    other = form.sides[1 - mover]
    behaviour, deviation = behaviour_of(other, opponent_plan)
    plan = other.plan_of(behaviour)
    positive = plan[plan > 0]
    if len(positive) and float(positive.min()) < SMALLEST:
        raise RoundingBoundError("a sequence is reached with probability below 2**-900")
    matrix = form.matrices[0] if mover == 0 else form.matrices[1].T.tocsr()
    value, _ = respond(form.sides[mover], matrix @ plan)
    roundings = _roundings(form, terminals)
    gamma = _gamma(roundings)
    depth = max(len(other.levels), 1)
    rho = max((1 + deviation) ** depth * (1 + gamma) - 1, 1 - (1 - deviation) ** depth * (1 - gamma))
    # The bound itself is computed in floats: a relative margin covers its own few roundings.
    return ProvenResponse(value, most_payoff * rho * (1 + 64 * UNIT) * (1 + 2 * depth * UNIT))


def _roundings(form: SequenceForm, terminals: int) -> int:
    """A bound of the roundings any term goes through: the chance probability and its product with the
    payoff (2), the sums of the table's duplicate entries (at most the terminals), the products of the
    plan (at most the opponent's sequences), the table's product and row sum (at most its entries), and
    the sums of the backward induction (at most the responder's sequences, twice)."""
    sequences = sum(len(side.sequences) for side in form.sides)
    return 4 + terminals + 2 * sequences + int(form.matrices[0].nnz) + 2 * sequences


def _gamma(n: int) -> float:
    if n * UNIT >= 0.5:
        raise RoundingBoundError(f"too many roundings ({n}) for the bound")
    return n * UNIT / (1 - n * UNIT) * (1 + 4 * UNIT)


__all__ = ["ProvenResponse", "behaviour_of", "proven_response"]
