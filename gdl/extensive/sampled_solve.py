"""Solving a two-player GDL-II game whose extensive form is too large to store: sampled Monte Carlo CFR
(:mod:`gdl.extensive.sampling`) for most of the time, then a statistical lower bound of its average
strategy's exploitability (:mod:`gdl.extensive.sampled_bound`) for the rest."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gdl.extensive.generate import DEFAULT_MEMORY
from gdl.extensive.sampled_bound import SampledBound, exploitability_lower_bound
from gdl.extensive.sampling import SampledRun, Sampler, sample_mccfr
from gdl.game import Game

SAMPLED_CONCEPT = (
    "approximate Nash equilibrium (the average strategy of outcome-sampling Monte Carlo CFR, sampled "
    "through the engine without storing the tree)"
)
#: The share of ``seconds`` the sampling takes; the bound takes the rest.
SAMPLING_SHARE = 0.6
#: Plays of each phase of the bound when no time limit caps it.
BOUND_PLAYS = 200_000


@dataclass(frozen=True)
class SampledSolution:
    """What :func:`solve_sampled` found: never a solution, an approximation with a bound."""

    title: str
    run: SampledRun
    #: Information sets stored, per player.
    infosets: dict[str, int]
    bound: SampledBound
    seconds: float

    @property
    def guarantee(self) -> str:
        return self.bound.statement

    def to_json(self) -> dict[str, Any]:
        run = self.run
        return {
            "title": self.title, "solved": False, "concept": SAMPLED_CONCEPT, "method": "mccfr",
            "tree": "sampled", "iterations": run.iterations, "stopped": run.stopped,
            "iterations_per_cpu_second": round(run.rate), "infosets": self.infosets,
            "exploitability_bound": self.bound.to_json(), "guarantee": self.guarantee,
            "seconds": round(self.seconds, 4),
        }


def solve_sampled(
    game: Game, iterations: int, *, seconds: float | None = None, memory: int = DEFAULT_MEMORY, seed: int = 0,
    bound_plays: int = BOUND_PLAYS, progress: Callable[[str], None] | None = None,
) -> SampledSolution:
    """Run sampled MCCFR on ``game`` for ``iterations`` iterations or :data:`SAMPLING_SHARE` of
    ``seconds``, then bound its exploitability in what is left (at most ``bound_plays`` plays of each
    phase); ``progress(text)`` says how the sampling goes. Raises
    :class:`~gdl.errors.ArraysUnsupportedError` for a game without a network and
    :class:`~gdl.errors.GdlSourceError` when a sampled play breaks the rules."""
    began = time.monotonic()
    sampler = Sampler(game, memory=memory, seed=seed)
    def sampled(done: int, spent: float) -> None:
        if progress is not None:
            progress(f"Monte Carlo CFR: {done:,} iterations, {done / max(spent, 1e-9):,.0f} per second, "
                     f"{sampler.sets:,} information sets")

    share = None if seconds is None else SAMPLING_SHARE * seconds
    run = sample_mccfr(sampler, iterations, seconds=share, progress=sampled)
    left = None if seconds is None else max(seconds - (time.monotonic() - began), 0.01)
    if progress is not None:
        progress("learning best responders and evaluating them, for a lower bound of the exploitability")
    bound = exploitability_lower_bound(sampler, bound_plays, seconds=left)
    return SampledSolution(game.name, run, sampler.infosets(), bound, time.monotonic() - began)


__all__ = ["SAMPLED_CONCEPT", "SampledSolution", "solve_sampled"]
