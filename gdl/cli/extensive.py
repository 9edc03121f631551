"""``gdl solve`` for extensive-form games (``.efg`` and the other formats of
:func:`gdl.extensive.load_extensive`): the value, each information set's optimal behaviour strategy,
the exploitability that proves it, the method and the time."""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gdl.cli._common import emit_json, read_source
from gdl.cli.progress import Progress
from gdl.extensive import ExtensiveGame, ExtensiveGameError, NotExtensiveError, read_extensive
from gdl.extensive.from_gdl import GdlExtensiveGame

if TYPE_CHECKING:
    from gdl.extensive.cfr import CFRSolution
    from gdl.extensive.lp import LPSolution

LP_CONCEPT = "Nash equilibrium (two-player constant-sum: the minimax value), exact by the sequence-form LP"
CFR_CONCEPT = "approximate Nash equilibrium (the average strategy of CFR+; exploitability bounds its error)"


def load_extensive_game(path: str, command: str) -> ExtensiveGame | None:
    """The game in ``path``, or None after saying on stderr why there is none."""
    text = read_source(Path(path), command)
    if text is None:
        return None
    try:
        return read_extensive(text, path)
    except ExtensiveGameError as problem:
        _say(problem, path, command)
    return None


def _say(problem: ExtensiveGameError, path: str, command: str) -> None:
    message = str(problem)
    print(message if message.startswith(path) else f"gdl {command}: {path}: {message}", file=sys.stderr)


def rational(value: float) -> str:
    """A value with its exact fraction when it is one with a small denominator: ``-1/18``."""
    close = Fraction(value).limit_denominator(1000)
    exact = abs(float(close) - value) < 1e-9
    # Shown as the exact value's float when there is one: no solver noise, and + 0.0 makes -0.0 plain 0.
    shown = f"{(float(close) if exact else value) + 0.0:.10g}"
    if exact and close.denominator > 1:
        return f"{shown} (= {close})"
    return shown


def solve_file(args: argparse.Namespace) -> int | None:
    """``gdl solve`` on an extensive-form game file; None for a GDL-II game that has no extensive form
    gdl solves (not two players with constant-sum goals), after a note on stderr saying why, so that
    the perfect-information solver can report on it."""
    # The solvers import scipy: only here, so that other commands start without it.
    from gdl.errors import LPError, NotTwoPlayerError
    from gdl.extensive.cfr import solve_cfr
    from gdl.extensive.lp import solve_lp
    from gdl.extensive.sequence import SequenceForm

    start = time.perf_counter()
    text = read_source(Path(args.game), "solve")
    if text is None:
        return 2
    try:
        game = read_extensive(text, args.game)
    except NotExtensiveError as problem:
        print(f"gdl solve: {args.game}: no extensive form to solve: {problem}", file=sys.stderr)
        return None
    except ExtensiveGameError as problem:
        _say(problem, args.game, "solve")
        return 2
    loaded = time.perf_counter() - start
    bar = Progress("solve")
    try:
        bar.say(f"building the sequence form of {args.game}")
        form = SequenceForm.from_game(game)
        solution: LPSolution | CFRSolution
        if args.method == "cfr":
            every = max(1, args.iterations // 20)

            def progress(iteration: int, exploitability: float) -> None:
                shown = f"exploitability {exploitability:.3g}"
                bar.say(f"CFR+ iteration {iteration} of {args.iterations}, {shown}")

            solution = solve_cfr(
                form, args.iterations, report_every=every, seconds=args.time_limit, progress=progress
            )
        else:
            bar.say(f"solving the sequence-form LP (HiGHS, at most {args.time_limit:g} s)")
            solution = solve_lp(form, seconds=args.time_limit)
    except (NotTwoPlayerError, LPError) as problem:
        bar.close()
        if not args.json:
            print(f"{args.game}: not solved: {problem}")
        unsolved = {"game": args.game, "solved": False, "reason": str(problem)}
        return 1 if emit_json(args, unsolved, "solve") else 2
    bar.close()
    report = _report(args.game, game, solution)
    report["load_seconds"] = round(loaded, 4)
    if not args.json:
        _print(report, game)
    return 0 if emit_json(args, report, "solve") else 2


def _report(name: str, game: ExtensiveGame, solution: LPSolution | CFRSolution) -> dict[str, Any]:
    from gdl.extensive.cfr import CFRSolution

    method = "cfr" if isinstance(solution, CFRSolution) else "lp"
    report: dict[str, Any] = {
        "game": name,
        "title": game.title,
        "solved": True,
        "concept": CFR_CONCEPT if method == "cfr" else LP_CONCEPT,
        "method": method,
        "value": solution.value,
        "strategies": solution.strategies,
        "exploitability": solution.exploitability.exploitability,
        "seconds": round(solution.seconds, 4),
        "size": {**dict(game.sizes), **solution.form.describe()},
    }
    if isinstance(game, GdlExtensiveGame):  # payoffs are goals minus half their constant sum
        report["goal_offset"] = float(game.goal_offset)
        report["goal_value"] = {p: v + float(game.goal_offset) for p, v in solution.value.items()}
    if isinstance(solution, CFRSolution):
        report["iterations"] = solution.iterations
        report["history"] = [{"iteration": i, "exploitability": e} for i, e in solution.history]
    return report


def _print(report: dict[str, Any], game: ExtensiveGame) -> None:
    print(f"{report['game']}: solved; {report['concept']}")
    print("value: " + ", ".join(f"{player} {rational(v)}" for player, v in report["value"].items()))
    if "goal_value" in report:
        goals = ", ".join(f"{player} {rational(v)}" for player, v in report["goal_value"].items())
        print(f"value in goal units: {goals} (payoff + {report['goal_offset']:g}, half the goals' sum)")
    for player, strategy in report["strategies"].items():
        print(f"strategy of {player} ({len(strategy)} information sets):")
        for infoset, probabilities in strategy.items():
            shown = ", ".join(f"{action} {p:.4g}" for action, p in probabilities.items())
            print(f"  {infoset}: {shown}")
    if report["method"] == "cfr":
        steps = ", ".join(f"{h['iteration']}: {h['exploitability']:.3g}" for h in report["history"])
        print(f"exploitability as CFR+ went (iteration: exploitability): {steps}")
    print(f"exploitability: {report['exploitability']:.3g}")
    method = (
        f"CFR+ ({report['iterations']} iterations)"
        if report["method"] == "cfr"
        else "sequence-form LP (HiGHS)"
    )
    size = report["size"]
    print(
        f"method: {method}; {sum(size['sequences'].values())} sequences, "
        f"{sum(size['infosets'].values())} information sets, {sum(dict(game.sizes).values())} nodes"
    )
    print(f"time: {report['seconds']:.3f} s to solve, {report['load_seconds']:.3f} s to load")
