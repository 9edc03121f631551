"""The solution concepts of :mod:`gdl.solve`, one state at a time, in exact arithmetic: what an inner
state is worth from what its successors are worth, and which moves the players choose there.

Both the search over states (:mod:`gdl.solve`) and the native valuing (:mod:`gdl.retrograde_values`,
for the states its integer kernel leaves to Python and for the principal variation) apply these rules, so
that they give the same values, ties and strategies. A state's outcomes map each joint move of the
players (indexes over :attr:`gdl.game.Game.players`, in the order of ``itertools.product``) to its
values in expectation over nature's moves made with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np

Value = tuple[Fraction | int, ...]
Joint = tuple[int, ...]


def expected(successors: Sequence[Value]) -> Value:
    """The mean of the successors' values: nature picks each of its moves with equal chance."""
    if len(successors) == 1:
        return successors[0]
    count = len(successors)
    width = len(successors[0])
    return tuple(sum((Fraction(v[i]) for v in successors), Fraction(0)) / count for i in range(width))


def mover(choices: Sequence[int]) -> int:
    """The player who chooses in a turn-taking state (from each player's number of legal moves); the
    first player when nobody has a choice."""
    return next((r for r, count in enumerate(choices) if count > 1), 0)


def best_for_mover(outcomes: Mapping[Joint, Value], longest: Mapping[Joint, int], role: int) -> Joint:
    """Backward induction: the joint move best for ``role`` (who moves), then the one with the shorter
    longest line after it, then the first."""
    return max(outcomes, key=lambda joint: (outcomes[joint][role], -longest[joint]))


def security(outcomes: Mapping[Joint, Value], role_count: int) -> tuple[Value, Joint]:
    """Each player's max-min value with the others answering its move, and the move that secures it
    (the first of the best)."""
    secured: list[Fraction | int] = []
    moves: list[int] = []
    for r in range(role_count):
        worst_after: dict[int, Fraction | int] = {}
        for joint, outcome in outcomes.items():
            worst_after[joint[r]] = min(worst_after.get(joint[r], 101), outcome[r])
        best = max(worst_after, key=lambda i: (worst_after[i], -i))
        secured.append(worst_after[best])
        moves.append(best)
    return tuple(secured), tuple(moves)


def payoff(outcomes: Mapping[Joint, Value], rows: int, columns: int) -> list[list[Fraction | int]]:
    """The matrix game of the first player's values (rows its moves, columns the second player's)."""
    return [[outcomes[(i, j)][0] for j in range(columns)] for i in range(rows)]


def most_probable(strategy: Sequence[Fraction]) -> int:
    """A mixed strategy's most probable move (the first of them)."""
    return max(range(len(strategy)), key=lambda i: (strategy[i], -i))


#: Matrix games of more entries than this are solved in floating point by HiGHS first, the solution then
#: made exact and checked (:func:`_certified`); smaller ones, and any the check refuses, by the simplex
#: method over fractions (:func:`_simplex`), whose pivots grow with the matrix.
CERTIFY_ABOVE = 16


def solve_matrix_game(
    payoff: Sequence[Sequence[Fraction | int]],
) -> tuple[Fraction, list[Fraction], list[Fraction]]:
    """The value and optimal mixed strategies (row's, column's) of a zero-sum matrix game, exactly.

    The row player gets ``payoff[i][j]`` and maximises, the column player minimises it. A large game is
    solved in floating point, then the strategies are made exact and each one's guarantee is computed
    in fractions: when they meet, they prove the value (:func:`_certified`). Otherwise, and for a small
    game, the column player's linear program is solved by the simplex method over fractions
    (:func:`_simplex`).

    >>> solve_matrix_game([[100, 0], [0, 50]])[:2]   # value 100*50/150; row plays 1/3, 2/3
    (Fraction(100, 3), [Fraction(1, 3), Fraction(2, 3)])
    """
    m, n = len(payoff), len(payoff[0])
    if m == 1 or n == 1:  # one side has no choice: plain min or max
        flat = [Fraction(x) for row in payoff for x in row]
        best = (min if m == 1 else max)(range(len(flat)), key=lambda k: flat[k])
        return flat[best], _unit(m, 0 if m == 1 else best), _unit(n, best if m == 1 else 0)
    if m * n > CERTIFY_ABOVE:
        certified = _certified([[Fraction(x) for x in row] for row in payoff])
        if certified is not None:
            return certified
    return _simplex(payoff)


def _simplex(payoff: Sequence[Sequence[Fraction | int]]) -> tuple[Fraction, list[Fraction], list[Fraction]]:
    """:func:`solve_matrix_game` by the simplex method with Bland's rule (no cycling) over fractions: after
    shifting every entry to at least 1, the column player's linear program -- maximise ``sum(w)`` subject
    to ``payoff @ w <= 1``, ``w >= 0``; the value is ``1 / sum(w)`` unshifted and the row strategy comes
    from the duals."""
    m, n = len(payoff), len(payoff[0])
    shift = 1 - min(min(row) for row in payoff)
    tableau = [
        [Fraction(x) + shift for x in row] + [Fraction(int(i == k)) for k in range(m)] + [Fraction(1)]
        for i, row in enumerate(payoff)
    ]
    objective = [Fraction(-1)] * n + [Fraction(0)] * (m + 1)
    basis = list(range(n, n + m))
    while (entering := next((j for j in range(n + m) if objective[j] < 0), None)) is not None:
        leaving = min(
            (i for i in range(m) if tableau[i][entering] > 0),
            key=lambda i: (tableau[i][-1] / tableau[i][entering], basis[i]),
        )
        pivot = tableau[leaving][entering]
        tableau[leaving] = [x / pivot for x in tableau[leaving]]
        for row in [*tableau[:leaving], *tableau[leaving + 1 :], objective]:
            factor = row[entering]
            if factor:
                row[:] = [x - factor * y for x, y in zip(row, tableau[leaving], strict=True)]
        basis[leaving] = entering
    shifted_value = 1 / objective[-1]
    column = [Fraction(0)] * n
    for i, variable in enumerate(basis):
        if variable < n:
            column[variable] = tableau[i][-1] * shifted_value
    row_strategy = [objective[n + i] * shifted_value for i in range(m)]
    return shifted_value - shift, row_strategy, column

def _certified(payoff: list[list[Fraction]]) -> tuple[Fraction, list[Fraction], list[Fraction]] | None:
    """The game solved by HiGHS in floating point, each player's strategy made exact (:func:`_exact`),
    and the value they prove: the least the row strategy guarantees against any column equals the most
    the column strategy concedes against any row (so both are optimal, by linear programming duality).
    None when HiGHS fails or the guarantees do not meet."""
    rows = _float_maximin(np.array(payoff, dtype=float))
    columns = _float_maximin(-np.array(payoff, dtype=float).T)
    if rows is None or columns is None:
        return None
    transposed = [[-payoff[i][j] for i in range(len(payoff))] for j in range(len(payoff[0]))]
    row, column = _exact(payoff, rows), _exact(transposed, columns)
    if row is None or column is None:
        return None
    guaranteed = min(_dot(row, [line[j] for line in payoff]) for j in range(len(column)))
    conceded = max(_dot(column, line) for line in payoff)
    return (guaranteed, row, column) if guaranteed == conceded else None


def _dot(weights: Sequence[Fraction], values: Sequence[Fraction]) -> Fraction:
    return sum((w * v for w, v in zip(weights, values, strict=True) if w), Fraction(0))


def _float_maximin(payoff: np.ndarray) -> np.ndarray | None:
    """The row player's maximin strategy in floating point (HiGHS), or None if it fails."""
    from scipy.optimize import linprog

    m, n = payoff.shape
    # Variables x_0..x_m-1 and v: maximise v with v <= x @ payoff[:, j] for every column, sum(x) = 1.
    result = linprog(
        np.r_[np.zeros(m), -1.0],
        A_ub=np.c_[-payoff.T, np.ones(n)], b_ub=np.zeros(n),
        A_eq=np.r_[np.ones(m), 0.0][None, :], b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)], method="highs",
    )
    return np.asarray(result.x[:m]) if result.status == 0 else None


def _exact(payoff: list[list[Fraction]], strategy: np.ndarray) -> list[Fraction] | None:
    """The exact strategy a floating-point maximin ``strategy`` stands for: on its support, the
    probabilities that make every column it holds to its value (the tight ones) pay the same, solved in
    fractions when that fixes them; else each probability as the nearest fraction of a small
    denominator. None when neither is a strategy."""
    m, n = len(payoff), len(payoff[0])
    support = [i for i in range(m) if strategy[i] > SUPPORT_EPSILON]
    pays = [float(sum(strategy[i] * float(payoff[i][j]) for i in support)) for j in range(n)]
    tight = [j for j in range(n) if pays[j] <= min(pays) + TIGHT_EPSILON]
    # Unknowns: the support's probabilities and the value v; each tight column pays v, and they sum to 1.
    equations = [[payoff[i][j] for i in support] + [Fraction(-1), Fraction(0)] for j in tight]
    equations.append([Fraction(1)] * len(support) + [Fraction(0), Fraction(1)])
    solution = _unique_solution(equations, len(support) + 1)
    if solution is not None and min(solution[:-1]) >= 0:
        exact = [Fraction(0)] * m
        for i, p in zip(support, solution, strict=False):
            exact[i] = p
        return exact
    rounded = [
        Fraction(float(p)).limit_denominator(ROUNDING_DENOMINATOR) if p > SUPPORT_EPSILON else Fraction(0)
        for p in strategy
    ]
    total = sum(rounded)
    return [p / total for p in rounded] if total > 0 else None


def _unique_solution(equations: list[list[Fraction]], unknowns: int) -> list[Fraction] | None:
    """The one solution of a linear system in fractions (each row its coefficients, then its right-hand
    side), by Gauss-Jordan elimination; None when it has none or many."""
    rows = [row[:] for row in equations]
    pivot_row = 0
    for column in range(unknowns):
        found = next((r for r in range(pivot_row, len(rows)) if rows[r][column] != 0), None)
        if found is None:
            return None  # a free unknown: many solutions
        rows[pivot_row], rows[found] = rows[found], rows[pivot_row]
        pivot = rows[pivot_row][column]
        rows[pivot_row] = [x / pivot for x in rows[pivot_row]]
        for r in range(len(rows)):
            factor = rows[r][column]
            if r != pivot_row and factor:
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[pivot_row], strict=True)]
        pivot_row += 1
    if any(row[-1] != 0 for row in rows[pivot_row:]):
        return None  # inconsistent
    return [rows[k][-1] for k in range(unknowns)]


#: A floating-point probability above this is in a strategy's support.
SUPPORT_EPSILON = 1e-9
#: A column paying within this of the least is held to the value (tight).
TIGHT_EPSILON = 1e-7
#: The largest denominator of a probability rounded to a fraction.
ROUNDING_DENOMINATOR = 10**6


def _unit(size: int, index: int) -> list[Fraction]:
    return [Fraction(int(i == index)) for i in range(size)]
