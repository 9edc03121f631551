"""Solving an extensive-form game, with the answer checked in exact arithmetic.

:func:`solve_extensive` is what ``gdl solve`` does with an extensive-form game, alone or among many:

- one player (against nature, or alone): the best policy's expected payoff, by an exact backward
  induction over the player's information sets (:func:`gdl.extensive.exact.best_response`);
- two players, constant-sum: the sequence-form LP (``method="lp"``), CFR+ (``"cfr"``), Discounted
  CFR (``"dcfr"``) or outcome-sampling Monte Carlo CFR (``"mccfr"``), all in floating point;
  ``"auto"`` (the default) takes the LP for a sequence form of at most :data:`LP_SEQUENCES` sequences,
  where it is exact, and DCFR beyond, where the LP's memory and time grow faster than the tree. The
  iterative methods measure the exploitability of their average strategy exactly (in floating point)
  on the whole tree as they go. Every method's strategies are then read as fractions and each
  player's best response to them is computed exactly, which bounds the value from both sides. The game
  counts as solved only when the bounds meet: the value is then exact and proven. Otherwise the
  solution says how close it got (:attr:`ExtensiveSolution.guarantee`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from gdl.errors import RoundingBoundError
from gdl.extensive.exact import as_fractions, best_response, check_profile
from gdl.extensive.from_gdl import GdlExtensiveGame
from gdl.extensive.generate import GameTree
from gdl.extensive.model import ExtensiveGame, tidy
from gdl.extensive.rounding import proven_response

if TYPE_CHECKING:
    from gdl.extensive.mccfr import FlatTree
    from gdl.extensive.sequence import SequenceForm

LP_CONCEPT = "Nash equilibrium (two-player constant-sum: the minimax value), by the sequence-form LP"
CFR_CONCEPT = "approximate Nash equilibrium (the average strategy of CFR+; exploitability bounds its error)"
DCFR_CONCEPT = (
    "approximate Nash equilibrium (the average strategy of Discounted CFR; exploitability bounds its error)"
)
MCCFR_CONCEPT = (
    "approximate Nash equilibrium (the average strategy of outcome-sampling Monte Carlo CFR; "
    "exploitability bounds its error)"
)
ONE_PLAYER_CONCEPT = "the best policy's expected payoff (one player against nature), exact"

#: The largest denominators the floating-point strategies are read with, tried in turn until the exact
#: best responses prove an equilibrium (the last gives the tightest bounds when none does).
DENOMINATORS = (1_000, 1_000_000_000)

#: The methods of :func:`solve_extensive` for two players.
METHODS = ("auto", "lp", "cfr", "dcfr", "mccfr")
#: The methods that iterate (``iterations`` applies to them).
ITERATIVE = ("cfr", "dcfr", "mccfr")
_SOLVERS = {"lp": "the LP", "cfr": "CFR+", "dcfr": "Discounted CFR", "mccfr": "Monte Carlo CFR"}
_CONCEPTS = {"cfr": CFR_CONCEPT, "dcfr": DCFR_CONCEPT, "mccfr": MCCFR_CONCEPT}
#: ``method="auto"`` takes the LP up to this many sequences (both players'), DCFR beyond.
LP_SEQUENCES = 50_000
#: Iterations of each method by default.
DEFAULT_ITERATIONS = {"cfr": 1000, "dcfr": 1000, "mccfr": 1_000_000}


@dataclass(frozen=True)
class ExtensiveSolution:
    """What :func:`solve_extensive` found. ``solved`` only when ``exact`` holds each player's value,
    proven in exact arithmetic; ``bounds`` are proven bounds of each player's value either way."""

    #: The game, or its tree of arrays (:func:`solve_tree`).
    game: ExtensiveGame | GameTree
    method: str
    concept: str
    #: Each player's expected payoff under the strategies found (floating point).
    value: dict[str, float]
    #: Proven lower and upper bounds of each player's value.
    bounds: dict[str, tuple[Fraction, Fraction]]
    strategies: dict[str, dict[str, dict[str, float]]]
    exploitability: float
    seconds: float
    size: dict[str, Any]
    iterations: int | None = None
    history: tuple[tuple[int, float], ...] = ()
    reason: str = field(default="")
    #: Whether ``bounds`` are proven (in exact arithmetic, or in floating point with ``rounding``).
    proven: bool = True
    #: The proven bound of the rounding error of best responses computed in floating point (None: in
    #: exact arithmetic, or not proven).
    rounding: float | None = None
    #: A proven upper bound of the strategies' exploitability, where best responses in floating point
    #: with ``rounding`` give one.
    exploitability_upper: Fraction | None = None

    @property
    def exact(self) -> dict[str, Fraction] | None:
        """Each player's exact value, when the bounds are proven and meet."""
        if self.proven and all(low == high for low, high in self.bounds.values()):
            return {player: low for player, (low, _) in self.bounds.items()}
        return None

    @property
    def solved(self) -> bool:
        return self.exact is not None

    @property
    def guarantee(self) -> str:
        """What the solution guarantees, in words."""
        if self.solved:
            return "exact: the value is proven by exact best responses to the strategies"
        first = self.game.players[0]
        low, high = self.bounds[first]
        measured = (
            f"the strategies' exploitability is {self.exploitability:.3g} (measured on the whole tree in "
            "floating point); " if self.method in ITERATIVE else ""
        )
        how = (
            "by best responses computed on the whole tree in floating point, not proven" if not self.proven
            else "proven by exact best responses" if self.rounding is None
            else "proven by best responses computed on the whole tree in floating point with their rounding "
            f"error bounded (at most {self.rounding:.2g})"
        )
        return f"{measured}the value of {first} lies between {float(low):.15g} and {float(high):.15g}, {how}"

    @property
    def states(self) -> int:
        """The nodes of the game tree."""
        return sum(self.game.sizes.values())

    def to_json(self) -> dict[str, Any]:
        """``value`` in payoffs (floating point), ``exact_value`` (fractions as text, only when solved),
        ``bounds`` (proven, as text) and, for a game made from GDL, the same in goal units."""
        game, exact = self.game, self.exact
        report: dict[str, Any] = {
            "title": game.title,
            "solved": self.solved,
            "concept": self.concept,
            "method": self.method,
            "value": {p: tidy(v) for p, v in self.value.items()},
            "exact_value": None if exact is None else {p: str(v) for p, v in exact.items()},
            # Bounds from floating point are shown as floats (rounded outwards when proven), not fractions.
            "bounds": {
                p: [str(low), str(high)] if self.proven and self.rounding is None
                else [repr(_outward(low, -1)), repr(_outward(high, 1))]
                for p, (low, high) in self.bounds.items()
            },
            "reason": self.reason,
            "guarantee": self.guarantee,
            "strategies": self.strategies,
            "exploitability": self.exploitability,
            "seconds": round(self.seconds, 4),
            "size": self.size,
        }
        if isinstance(game, GdlExtensiveGame | GameTree):  # payoffs are goals minus half their constant sum
            offset = game.goal_offset
            report["goal_offset"] = float(offset)
            report["goal_value"] = {p: tidy(v + float(offset)) for p, v in self.value.items()}
            if exact is not None:
                report["exact_goal_value"] = {p: str(v + offset) for p, v in exact.items()}
        if self.rounding is not None:
            report["rounding_error"] = self.rounding
        if self.exploitability_upper is not None:
            report["exploitability_bound"] = {
                "kind": "proven upper bound", "upper_bound": _outward(self.exploitability_upper, 1),
            }
        if self.iterations is not None:
            report["iterations"] = self.iterations
            report["history"] = [{"iteration": i, "exploitability": e} for i, e in self.history]
        return report


def solve_extensive(
    game: ExtensiveGame,
    method: str = "auto",
    iterations: int | None = None,
    seconds: float | None = None,
    progress: Callable[[int, float], None] | None = None,
) -> ExtensiveSolution:
    """Solve ``game`` (see the module docstring). A game of one player is solved exactly whatever the
    method; raises :class:`~gdl.extensive.sequence.NotTwoPlayerError` for other games the solvers do not
    take and :class:`~gdl.extensive.lp.LPError` when the LP fails (or runs out of ``seconds``)."""
    start = time.perf_counter()
    if len(game.players) == 1:
        return _one_player(game, start)
    # The solvers import scipy: only here, so that other commands start without it.
    from gdl.extensive.sequence import SequenceForm

    form = SequenceForm.from_game(game)
    method, found = _run(form, method, iterations, seconds, progress)
    strategy = {infoset: p for player in found.strategies.values() for infoset, p in player.items()}
    first, second = game.players
    for denominator in DENOMINATORS:  # small ones first: an exact equilibrium has them, and they are fast
        check = check_profile(game, as_fractions(strategy, denominator))
        # Constant-sum: what one player can be held to is the constant minus the other's best response.
        constant = sum(check.values.values(), Fraction(0))
        bounds = {
            first: (constant - check.best_responses[second], check.best_responses[first]),
            second: (constant - check.best_responses[first], check.best_responses[second]),
        }
        if bounds[first][0] == bounds[first][1]:
            break
    solution = ExtensiveSolution(
        game, method, _CONCEPTS.get(method, LP_CONCEPT), dict(found.value), bounds,
        found.strategies, found.exploitability.exploitability, time.perf_counter() - start,
        {**dict(game.sizes), **form.describe()},
        iterations=getattr(found, "iterations", None), history=tuple(getattr(found, "history", ())),
    )
    if solution.solved:
        return solution
    low, high = bounds[first]
    reason = (
        f"not solved exactly: the value of {first} lies between {float(low):.15g} and {float(high):.15g} "
        f"(proven by exact best responses), but the strategies {_SOLVERS[method]} found are not an exact "
        "equilibrium"
    )
    return replace(solution, reason=reason)


def _run(
    form: SequenceForm,
    method: str,
    iterations: int | None,
    seconds: float | None,
    progress: Callable[[int, float], None] | None,
    tree: FlatTree | None = None,
    strategies: bool = True,
) -> tuple[str, Any]:
    """The method used (``auto`` resolved) and what it found."""
    from gdl.extensive.cfr import solve_cfr
    from gdl.extensive.lp import solve_lp

    if method == "auto":
        method = "lp" if sum(len(side.sequences) for side in form.sides) <= LP_SEQUENCES else "dcfr"
    if method not in METHODS:
        raise ValueError(f"no method {method!r} (there are {', '.join(METHODS)})")
    if iterations is None:
        iterations = DEFAULT_ITERATIONS.get(method, 1)
    every = max(1, iterations // 20)
    if method in ("cfr", "dcfr"):
        variant = "cfr+" if method == "cfr" else "dcfr"
        return method, solve_cfr(
            form, iterations, report_every=every, seconds=seconds, progress=progress, variant=variant,
            strategies=strategies,
        )
    if method == "mccfr":
        from gdl.extensive.mccfr import solve_mccfr

        return method, solve_mccfr(
            form, iterations, report_every=every, seconds=seconds, progress=progress, tree=tree,
            strategies=strategies,
        )
    return method, solve_lp(form, seconds=seconds)


#: A game of arrays (:func:`solve_tree`) reports its strategies up to this many information sets.
STRATEGY_LIMIT = 20_000


def solve_tree(
    tree: GameTree,
    method: str = "auto",
    iterations: int | None = None,
    seconds: float | None = None,
    progress: Callable[[int, float], None] | None = None,
) -> ExtensiveSolution:
    """Solve a two-player game held as arrays (:class:`gdl.extensive.generate.GameTree`, too large for
    a Python object per node) on its sequence form built from the arrays. The value's bounds are each
    player's best response to the other's strategy, computed on the whole tree in floating point with
    a proven bound of their rounding error (:mod:`gdl.extensive.rounding`; where that analysis does not
    apply, the bounds are measured only: :attr:`ExtensiveSolution.proven` is False); the game is never
    counted as solved. The strategies are reported for at most :data:`STRATEGY_LIMIT` information sets."""
    from gdl.extensive.mccfr import FlatTree
    from gdl.extensive.sequence import SequenceForm

    start = time.perf_counter()
    form = SequenceForm.from_tree(tree)
    flat = FlatTree.from_arrays(tree, form) if method == "mccfr" else None
    small = len(tree.set_player) <= STRATEGY_LIMIT
    method, found = _run(form, method, iterations, seconds, progress, flat, strategies=small)
    measured = found.exploitability
    first, second = form.players
    best = measured.best_responses
    constant = float(form.constant_sum or 0)
    bounds = {
        first: (Fraction(constant - best[second]), Fraction(best[first])),
        second: (Fraction(constant - best[first]), Fraction(best[second])),
    }
    proven, rounding = False, None
    try:
        x, y = found.plans
        most = float(np.abs(tree.payoffs()).max()) if len(tree.term_den) else 0.0
        one, two = (
            proven_response(form, mover, plan, len(tree.term_den), most)
            for mover, plan in ((0, y), (1, x))
        )
        exact_constant = form.constant_sum or Fraction(0)
        bounds = {
            first: (exact_constant - two.upper, one.upper), second: (exact_constant - one.upper, two.upper)
        }
        proven, rounding = True, max(one.error, two.error)
        upper = (one.upper + two.upper - exact_constant) / 2
    except RoundingBoundError:
        upper = None
    solution = ExtensiveSolution(
        tree, method, _CONCEPTS.get(method, LP_CONCEPT), dict(found.value), bounds,
        found.strategies if small else {}, measured.exploitability, time.perf_counter() - start,
        {**tree.sizes, **form.describe()}, iterations=getattr(found, "iterations", None),
        history=tuple(getattr(found, "history", ())), proven=proven, rounding=rounding,
        exploitability_upper=upper,
    )
    return replace(solution, reason=f"not solved exactly: {solution.guarantee}")


def _outward(bound: Fraction, direction: int) -> float:
    """A bound as the nearest float on its side (``direction`` -1: not above it, 1: not below)."""
    near = float(bound)
    if direction * (Fraction(near) - bound) < 0:
        near = math.nextafter(near, direction * math.inf)
    return near


def _one_player(game: ExtensiveGame, start: float) -> ExtensiveSolution:
    (player,) = game.players
    best = best_response(game, player, {})
    strategy = {
        infoset: {action: float(action == choice) for action in game.infosets[infoset].actions}
        for infoset, choice in best.choices.items()
    }
    return ExtensiveSolution(
        game, "exact", ONE_PLAYER_CONCEPT, {player: float(best.value)}, {player: (best.value, best.value)},
        {player: strategy}, 0.0, time.perf_counter() - start, dict(game.sizes),
    )


__all__ = [
    "CFR_CONCEPT", "DCFR_CONCEPT", "LP_CONCEPT", "MCCFR_CONCEPT", "METHODS", "ONE_PLAYER_CONCEPT",
    "ExtensiveSolution", "solve_extensive", "solve_tree",
]
