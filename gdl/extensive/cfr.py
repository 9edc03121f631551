"""CFR+ (Tammelin 2014) and Discounted CFR (Brown and Sandholm 2019): counterfactual regret
minimisation over the information sets of a two-player constant-sum game, with alternating updates.
CFR+ keeps regrets nonnegative (regret matching+) and weights the average linearly; DCFR with
(alpha, beta, gamma) = (1.5, 0, 2), the authors' choice, scales the positive regrets summed so far by
t^1.5 / (t^1.5 + 1) and the negative ones by 1/2 at iteration t, and the average by (t / (t + 1))^2.

Each iteration is a few numpy operations per level of the players' information sets, on the sequence
form (:mod:`gdl.extensive.sequence`): against the opponent's current realization plan ``y``, a
player's sequences earn ``G y``; adding, deepest information set first, what each earns afterwards
under the current strategy gives every action's counterfactual value, and the regrets follow. The
*average* strategy converges to an equilibrium: the average of the realization plans weighted by the
iteration number (a mixture of realization plans is one). Its exploitability
(:mod:`gdl.extensive.best_response`) is measured as the iterations go, every ``report_every``
iterations, and solving stops early once it falls to ``target``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gdl.extensive.best_response import Exploitability, plans_exploitability
from gdl.extensive.model import ExtensiveGame
from gdl.extensive.sequence import FloatArray, IntArray, PlayerSequences, SequenceForm


@dataclass(frozen=True)
class CFRSolution:
    """The average strategy of CFR+ after some iterations, and how close to equilibrium it is."""

    form: SequenceForm
    #: Each player's expected payoff under the average strategies.
    value: dict[str, float]
    plans: tuple[FloatArray, FloatArray]
    strategies: dict[str, dict[str, dict[str, float]]]
    exploitability: Exploitability
    iterations: int
    #: (iteration, exploitability) as measured while solving.
    history: tuple[tuple[int, float], ...]
    seconds: float


#: The variants of :func:`solve_cfr`.
VARIANTS = ("cfr+", "dcfr")
#: Discounted CFR's exponents (alpha, beta, gamma).
DCFR_EXPONENTS = (1.5, 0.0, 2.0)


class _Learner:
    """One player's regrets, current strategy and weighted average plan."""

    def __init__(self, side: PlayerSequences, variant: str = "cfr+") -> None:
        self.side = side
        self.variant = variant
        n = len(side.sequences)
        self.owner: IntArray = np.concatenate(
            [[0], np.repeat(np.arange(len(side.infosets)), side.count)]
        ).astype(np.int64)
        self.regrets = np.zeros(n)
        self.behaviour = self._matched()
        self.plan = side.plan_of(self.behaviour)
        self.average = np.zeros(n)

    def _matched(self) -> FloatArray:
        """Regret matching: each action in proportion to its positive regret (uniform if none)."""
        behaviour = np.zeros(len(self.side.sequences))
        if not len(self.side.infosets):
            return behaviour
        # CFR+ keeps its regrets nonnegative; DCFR's negative ones count as 0.
        positive = self.regrets[1:] if self.variant == "cfr+" else np.maximum(self.regrets[1:], 0.0)
        totals = np.add.reduceat(positive, self.side.first - 1)
        uniform = totals[self.owner[1:]] <= 0
        behaviour[1:] = np.where(
            uniform,
            1.0 / self.side.count[self.owner[1:]],
            positive / np.where(uniform, 1.0, totals[self.owner[1:]]),
        )
        return behaviour

    def update(self, earnings: FloatArray, weight: float) -> None:
        """One step (iteration ``weight``) against an opponent whose plan makes this player's sequences
        earn ``earnings``."""
        if self.variant == "dcfr":
            alpha, beta, gamma = DCFR_EXPONENTS
            done = weight - 1  # the iterations summed so far
            self.average = self.average * (done / weight) ** gamma + self.plan
            if done:
                positive, negative = done**alpha / (done**alpha + 1), done**beta / (done**beta + 1)
                self.regrets *= np.where(self.regrets > 0, positive, negative)
        else:
            self.average += weight * self.plan
        values = earnings.astype(np.float64, copy=True)
        expected = np.zeros(len(self.side.infosets))
        for level in reversed(self.side.levels):
            weighted = values[level.sequences] * self.behaviour[level.sequences]
            mean = np.add.reduceat(weighted, level.offsets)
            expected[level.infosets] = mean
            values += np.bincount(level.parents, weights=mean, minlength=len(values))
        if len(self.side.infosets):
            self.regrets[1:] += values[1:] - expected[self.owner[1:]]
            if self.variant == "cfr+":
                self.regrets[1:] = np.maximum(self.regrets[1:], 0.0)
        self.behaviour = self._matched()
        self.plan = self.side.plan_of(self.behaviour)

    def average_plan(self) -> FloatArray:
        if self.average[0] <= 0:
            return self.plan
        plan: FloatArray = self.average / self.average[0]
        return plan


def solve_cfr(
    game: ExtensiveGame | SequenceForm,
    iterations: int = 1000,
    *,
    target: float | None = None,
    report_every: int = 10,
    progress: Callable[[int, float], None] | None = None,
    seconds: float | None = None,
    variant: str = "cfr+",
    strategies: bool = True,
) -> CFRSolution:
    """Run CFR+ (or another of :data:`VARIANTS`) for ``iterations`` iterations (fewer once the
    exploitability reaches ``target``, or once ``seconds`` have passed); ``progress(iteration,
    exploitability)`` is called at every measurement. Without ``strategies``, the solution's behaviour
    strategies are left empty (the plans hold them: a large game's keys are long texts)."""
    if iterations < 1 or report_every < 1:
        raise ValueError("iterations and report_every must be at least 1")
    if variant not in VARIANTS:
        raise ValueError(f"no CFR variant {variant!r} (there are {', '.join(VARIANTS)})")
    start = time.perf_counter()
    form = game if isinstance(game, SequenceForm) else SequenceForm.from_game(game)
    first_table = form.zero_sum_matrix()
    second_table = form.matrices[1].T.tocsr()
    one, two = _Learner(form.sides[0], variant), _Learner(form.sides[1], variant)
    history: list[tuple[int, float]] = []
    done = 0
    for iteration in range(1, iterations + 1):
        one.update(first_table @ two.plan, iteration)
        two.update(second_table @ one.plan, iteration)
        done = iteration
        out_of_time = seconds is not None and time.perf_counter() - start >= seconds
        if iteration % report_every == 0 or iteration == iterations or out_of_time:
            gap = plans_exploitability(form, one.average_plan(), two.average_plan()).exploitability
            history.append((iteration, gap))
            if progress is not None:
                progress(iteration, gap)
            if (target is not None and gap <= target) or out_of_time:
                break
    x, y = one.average_plan(), two.average_plan()
    measured = plans_exploitability(form, x, y)
    if not history or history[-1][0] != done:
        history.append((done, measured.exploitability))
    behaviour = (
        {side.player: side.behaviour(plan) for side, plan in zip(form.sides, (x, y), strict=True)}
        if strategies else {}
    )
    return CFRSolution(
        form,
        measured.values,
        (x, y),
        behaviour,
        measured,
        done,
        tuple(history),
        time.perf_counter() - start,
    )
