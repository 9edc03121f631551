"""The sequence-form linear program: the exact value and optimal strategies of a two-player
constant-sum extensive game with perfect recall (Koller, Megiddo and von Stengel 1996).

With ``A`` player 1's payoff table, ``E x = e`` and ``F y = f`` the two players' realization-plan
constraints (see :mod:`gdl.extensive.sequence`), player 1's optimal plan solves::

    maximise  f^T q   over x >= 0 and q free
    such that A^T x - F^T q >= 0   (one row per sequence of player 2)
              E x = e

``q`` prices player 2's information sets; ``f^T q = q[0]`` is the value. The multipliers of the first
block of rows are an optimal plan ``y`` of player 2 (the dual LP is player 2's problem), so one solve
gives both plans. In a constant-sum game with sum ``c``, player 2's value is ``c`` minus player 1's.

The LP runs on HiGHS through ``scipy.optimize.linprog(method="highs")``, not highspy: the same solver,
but scipy's build is silent (highspy prints HiGHS's banner on standard output when its first solver is
created, which would corrupt ``gdl solve --json``), takes scipy's sparse matrices, and reports the
multipliers with a documented sign. Tolerances are tightened to 1e-10 so that the strategies read back
are exact to about 1e-10 (their exploitability is checked below 1e-9 in the tests).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from gdl.deprecation import moved_names
from gdl.errors import LPError, LPTimeoutError
from gdl.extensive.best_response import Exploitability, plans_exploitability
from gdl.extensive.model import ExtensiveGame
from gdl.extensive.sequence import FloatArray, PlayerSequences, SequenceForm

__all__ = ["LPSolution", "SequenceForm", "SequenceProgram", "sequence_program", "solve_lp"]

_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


@dataclass(frozen=True)
class LPSolution:
    """The value and optimal strategies of a two-player constant-sum game."""

    form: SequenceForm
    #: Each player's expected payoff under optimal play.
    value: dict[str, float]
    #: Optimal realization plans of player 1 and player 2 (indexed by their sequences).
    plans: tuple[FloatArray, FloatArray]
    #: Optimal behaviour strategies: player -> information set -> action -> probability.
    strategies: dict[str, dict[str, dict[str, float]]]
    exploitability: Exploitability
    seconds: float


@dataclass(frozen=True, eq=False)
class SequenceProgram:
    """The linear program of ``max_x min_y x^T M y`` (see the module docstring), as arrays: minimise
    ``cost`` over ``x >= 0`` (the first ``sequences`` columns) and ``q`` free, such that
    ``upper <= 0`` (one row per sequence of the opponent) and ``equal = rhs``. The file writer of
    :mod:`gdl.extensive.lp_file` writes this same program."""

    sequences: int
    cost: FloatArray
    upper: sparse.csr_matrix
    equal: sparse.csr_matrix
    rhs: FloatArray


def sequence_program(
    matrix: sparse.csr_matrix, chooser: PlayerSequences, opponent: PlayerSequences
) -> SequenceProgram:
    """The LP in which ``chooser`` (the rows of ``matrix``) maximises its guaranteed payoff."""
    n, m = len(chooser.sequences), opponent.constraints.shape[0]
    cost = np.concatenate([np.zeros(n), -opponent.rhs])
    upper = sparse.hstack([-matrix.T, opponent.constraints.T], format="csr")
    padding = sparse.csr_matrix((chooser.constraints.shape[0], m))
    equal = sparse.hstack([chooser.constraints, padding], format="csr")
    return SequenceProgram(n, cost, upper, equal, chooser.rhs)


def _max_min(
    matrix: sparse.csr_matrix, chooser: PlayerSequences, opponent: PlayerSequences, seconds: float | None
) -> tuple[FloatArray, float, FloatArray]:
    """``max_x min_y x^T M y`` over both realization plans: ``x``, the value, and ``y``."""
    program = sequence_program(matrix, chooser, opponent)
    n, m = program.sequences, len(program.cost) - program.sequences
    bounds = [(0, None)] * n + [(None, None)] * m
    result = linprog(
        program.cost,
        A_ub=program.upper,
        b_ub=np.zeros(program.upper.shape[0]),
        A_eq=program.equal,
        b_eq=program.rhs,
        bounds=bounds,
        method="highs",
        options=_OPTIONS if seconds is None else {**_OPTIONS, "time_limit": max(seconds, 1e-3)},
    )
    if result.status == 1 and seconds is not None:
        raise LPTimeoutError(f"the sequence-form LP was not solved within {seconds:g} s")
    if result.status != 0:
        raise LPError(f"the sequence-form LP failed: {result.message}")
    x = np.clip(result.x[:n], 0.0, None)
    y = np.clip(-result.ineqlin.marginals, 0.0, None)
    return x, float(-result.fun), y


def solve_lp(game: ExtensiveGame | SequenceForm, *, seconds: float | None = None) -> LPSolution:
    """Solve a two-player constant-sum game exactly with the sequence-form LP (HiGHS gives up with
    :class:`LPTimeoutError` after ``seconds``)."""
    start = time.perf_counter()
    form = game if isinstance(game, SequenceForm) else SequenceForm.from_game(game)
    matrix = form.zero_sum_matrix()
    total = float(form.constant_sum or 0)
    x, value, y = _max_min(matrix, form.sides[0], form.sides[1], seconds)
    first, second = form.players
    strategies = {side.player: side.behaviour(plan) for side, plan in zip(form.sides, (x, y), strict=True)}
    # Realization plans rebuilt from the behaviour strategies satisfy the constraints exactly.
    x, y = (side.plan_of(_per_sequence(side, strategies[side.player])) for side in form.sides)
    return LPSolution(
        form,
        {first: value, second: total - value},
        (x, y),
        strategies,
        plans_exploitability(form, x, y),
        time.perf_counter() - start,
    )


def _per_sequence(side: PlayerSequences, strategy: dict[str, dict[str, float]]) -> FloatArray:
    behaviour = np.zeros(len(side.sequences))
    for index, sequence in enumerate(side.sequences[1:], 1):
        behaviour[index] = strategy[sequence[0]][sequence[1]]
    return behaviour


moved_names(__name__, "gdl.errors", "LPError", "LPTimeoutError")
