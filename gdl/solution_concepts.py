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


def solve_matrix_game(
    payoff: Sequence[Sequence[Fraction | int]],
) -> tuple[Fraction, list[Fraction], list[Fraction]]:
    """The value and optimal mixed strategies (row's, column's) of a zero-sum matrix game, exactly.

    The row player gets ``payoff[i][j]`` and maximises, the column player minimises it. After shifting
    every entry to at least 1, the column player's linear program -- maximise ``sum(w)`` subject to
    ``payoff @ w <= 1``, ``w >= 0`` -- is solved by the simplex method with Bland's rule (no cycling)
    over fractions; the value is ``1 / sum(w)`` unshifted and the row strategy comes from the duals.

    >>> solve_matrix_game([[100, 0], [0, 50]])[:2]   # value 100*50/150; row plays 1/3, 2/3
    (Fraction(100, 3), [Fraction(1, 3), Fraction(2, 3)])
    """
    m, n = len(payoff), len(payoff[0])
    if m == 1 or n == 1:  # one side has no choice: plain min or max
        flat = [Fraction(x) for row in payoff for x in row]
        best = (min if m == 1 else max)(range(len(flat)), key=lambda k: flat[k])
        return flat[best], _unit(m, 0 if m == 1 else best), _unit(n, best if m == 1 else 0)
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


def _unit(size: int, index: int) -> list[Fraction]:
    return [Fraction(int(i == index)) for i in range(size)]
