"""A statistical lower bound of the exploitability of sampled Monte Carlo CFR's average strategy, for a
game whose tree is not stored (:mod:`gdl.extensive.sampling`).

Exploitability (OpenSpiel's: the mean over both players of what a best response to the other's
strategy earns, payoffs summing to 0) is at least what any two responders earn on average, since a best
response earns at least as much as any other strategy. So, for each player in turn, the other's
average strategy is fixed and a responder is learnt by sampling: plays in which the responder explores
(mixing the uniform strategy into its own average strategy at first, then into its current choices)
give unbiased estimates of what each of its sequences earns (its payoff over its probability of
sampling the play, summed on its last sequence), and a backward induction over its information sets
picks, at each the learning visited :data:`LEAST_VISITS` times, the action worth most, and keeps its
own average strategy elsewhere (:func:`gdl.extensive.sampling_kernel.respond`). The responders are
then evaluated in plays of their own, independent of the learning: the i-th plays of the two,
``Z = (X_1 + X_2) / 2``, are independent, identically distributed and bounded by the goals' range,
and the empirical Bernstein bound (Maurer and Pontil 2009, theorem 4) gives a lower bound of ``E Z``
that holds with probability at least the confidence, whatever ``Z``'s distribution. It is a
statistical statement, not a proof (with probability 1 - confidence it is wrong), and a lower bound
only: a better responder might exploit the strategy more.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from gdl.extensive.sampling import BATCH, Sampler, next_batch

#: The probability with which the bound holds.
CONFIDENCE = 0.95
#: Rounds of learning a responder: each explores around the choices of the one before.
LEARN_ROUNDS = 4
#: The share of the uniform strategy the responder mixes into its current choice while learning.
LEARN_EXPLORATION = 0.5
#: The visits of the learning an information set needs before the responder trusts its estimates there
#: (elsewhere it plays its own average strategy).
LEAST_VISITS = 50
#: The kind of guarantee, as reported.
KIND = "statistical lower bound"


@dataclass(frozen=True)
class SampledBound:
    """``exploitability >= lower`` with probability ``confidence`` (see the module docstring)."""

    #: The mean of what the two responders earned (an estimate of a lower bound, not of the
    #: exploitability itself).
    estimate: float
    lower: float
    confidence: float
    #: Plays each responder learnt from, and pairs of plays that evaluated them.
    learning_plays: int
    evaluation_plays: int
    #: What each responder earned on average in the evaluation.
    responders: dict[str, float]

    @property
    def statement(self) -> str:
        return (
            f"exploitability at least {self.lower:.4g} with {self.confidence:.0%} confidence (a {KIND}, "
            f"not a proof: best responders learnt in {self.learning_plays:,} plays each earned "
            f"{self.estimate:.4g} on average over {self.evaluation_plays:,} independent pairs of plays)"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": KIND, "lower_bound": self.lower, "confidence": self.confidence,
            "estimate": self.estimate, "learning_plays": self.learning_plays,
            "evaluation_plays": self.evaluation_plays, "responders": self.responders,
        }


def exploitability_lower_bound(
    sampler: Sampler, plays: int, *, seconds: float | None = None, confidence: float = CONFIDENCE,
) -> SampledBound:
    """The bound for the average strategy in ``sampler``'s tables: each responder learnt in at most
    ``plays`` plays, and at most ``plays`` pairs of plays to evaluate them, the learning taking at most
    half of ``seconds`` and the evaluation as many pairs as the learning's pace lets the rest hold."""
    from gdl.extensive import sampling_kernel as kernel

    if plays < 2:
        raise ValueError("plays must be at least 2")
    began = time.monotonic()
    arrays = sampler.arrays
    arrays["earn"][:] = 0.0
    arrays["choice"][:] = -1
    arrays["set_visits"][:] = 0
    sampler.full = False  # the learning may take the memory MCCFR left
    learnt = [0, 0]
    batch = 100
    for responder in range(2):
        sampler.earn_root[0] = 0.0
        deadline = None if seconds is None else began + seconds * (responder + 1) / 4
        for round_ in range(LEARN_ROUNDS):
            wanted = plays * (round_ + 1) // LEARN_ROUNDS - learnt[responder]
            while wanted > 0 and not sampler.full and (deadline is None or time.monotonic() < deadline):
                before = time.process_time()
                done = sampler.play(
                    kernel.LEARN, min(batch, wanted), responder=responder, exploration=LEARN_EXPLORATION
                )
                batch = next_batch(batch, time.process_time() - before)
                learnt[responder] += done
                wanted -= done
            if learnt[responder]:
                kernel.respond(
                    responder, sampler.sets, arrays["set_player"], arrays["set_count"], arrays["set_first"],
                    arrays["set_parent"], arrays["set_visits"], LEAST_VISITS, arrays["average"],
                    arrays["earn"], float(sampler.earn_root[0]), float(learnt[responder]),
                    np.zeros(len(arrays["earn"])), arrays["choice"],
                )
    low, high = _payoff_range(sampler)
    width = max(high - low, 1e-300)
    # The number of pairs is fixed before any is played (from the learning's pace), so that it does not
    # depend on their outcomes, as the bound requires.
    wanted = plays
    if seconds is not None:
        learning = max(time.monotonic() - began, 1e-9)
        left = max(began + seconds - time.monotonic(), 0.0)
        wanted = max(2, min(plays, int(0.9 * left * sum(learnt) / learning / 2)))
    pairs = 0
    total = squares = 0.0
    sums = [0.0, 0.0]
    while pairs < wanted:
        batch = min(BATCH, wanted - pairs)
        outcomes = [np.zeros(batch), np.zeros(batch)]
        for responder in range(2):
            sampler.play(kernel.EVALUATE, batch, responder=responder, outcomes=outcomes[responder])
            sums[responder] += float(outcomes[responder].sum())
        z = ((outcomes[0] + outcomes[1]) / 2 - low) / width
        total += float(z.sum())
        squares += float((z * z).sum())
        pairs += batch
    mean = total / pairs
    variance = max(squares - pairs * mean * mean, 0.0) / (pairs - 1)
    log = math.log(2 / (1 - confidence))
    lower = mean - math.sqrt(2 * variance * log / pairs) - 7 * log / (3 * (pairs - 1))
    players = sampler.game.players
    return SampledBound(
        low + width * mean, max(low + width * lower, 0.0), confidence, min(learnt), pairs,
        {players[k]: sums[k] / pairs for k in range(2)},
    )


def _payoff_range(sampler: Sampler) -> tuple[float, float]:
    """The least and the most a player's payoff (its goal minus half the goals' constant sum) can be:
    from the goal values the rules give either player."""
    values = sampler.setup.goal_values
    goals = [
        int(v) for role in sampler.player_role
        for v in values[sampler.setup.goal_first[role] : sampler.setup.goal_first[role + 1]] if v >= 0
    ]
    half = sampler.constant / 2
    return min(goals) - half, max(goals) - half


__all__ = ["CONFIDENCE", "KIND", "SampledBound", "exploitability_lower_bound"]
