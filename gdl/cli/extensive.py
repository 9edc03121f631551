"""``gdl solve`` for extensive-form games (``.efg`` and the other formats of
:func:`gdl.extensive.load_extensive`): the value, each information set's optimal behaviour strategy,
the exploitability that proves it, the method and the time."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from gdl.cli._common import counted, emit_json, plural, read_source, time_left
from gdl.cli.progress import Progress
from gdl.errors import LPError, NotTwoPlayerError, OutOfTimeError
from gdl.extensive import GDL_SUFFIXES, ExtensiveGame, ExtensiveGameError, NotExtensiveError, read_extensive
from gdl.extensive.from_gdl import load_gdl2
from gdl.extensive.generate import GameTree
from gdl.extensive.model import exact_fraction, tidy
from gdl.extensive.solve_gdl2 import (
    Gdl2Outcome,
    NoExtensiveForm,
    Refused,
    Sampled,
    Solved,
    solve_gdl2,
    solve_stored,
)
from gdl.extensive.solving import DEFAULT_ITERATIONS as ITERATIONS_OF
from gdl.extensive.solving import ITERATIVE

#: The formats of extensive-form games (see :data:`gdl.cli._common.FORMATS`).
EXTENSIVE_FORMATS = ("gdl", "json", "efg")


def load_extensive_game(path: str, command: str) -> ExtensiveGame | None:
    """The game in ``path``, or None after saying on stderr why there is none."""
    text = read_source(Path(path), command, EXTENSIVE_FORMATS)
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
    close = exact_fraction(value)
    shown = f"{tidy(value):.10g}"
    if close is not None and close.denominator > 1:
        return f"{shown} (= {close})"
    return shown


def solve_file(args: argparse.Namespace, started: float | None = None) -> int | None:
    """``gdl solve`` on an extensive-form game file; None for a GDL-II game that has no extensive form
    gdl solves (neither one player nor two with constant-sum goals), after a note on stderr saying why,
    so that the perfect-information solver can report on it."""
    start = time.perf_counter()
    started = time.monotonic() if started is None else started  # --time-limit counts from here
    text = read_source(Path(args.game), "solve", EXTENSIVE_FORMATS)
    if text is None:
        return 2
    bar = Progress("solve")
    try:
        outcome = _solved(args, text, start, started, bar.say)
    except ExtensiveGameError as problem:
        bar.close()
        return _failed(args, problem)
    bar.close()
    if isinstance(outcome, int):
        return outcome
    if isinstance(outcome, NoExtensiveForm):
        _no_extensive_form(args, outcome.reason)
        return None
    if isinstance(outcome, Refused):
        return _refused(args, outcome)
    if isinstance(outcome, Sampled):
        return _sampled(args, outcome)
    solution = outcome.solution
    report = {"game": args.game, **solution.to_json(), "load_seconds": round(outcome.load_seconds, 4)}
    if not args.json:
        _print(report, solution.game, args.quiet)
    if not emit_json(args, report, "solve"):
        return 2
    return 0 if solution.solved else 1


def _failed(args: argparse.Namespace, problem: ExtensiveGameError) -> int | None:
    """Say why the game was not solved; the exit status, or None when it has no extensive form."""
    if isinstance(problem, NotExtensiveError):
        _no_extensive_form(args, str(problem))
        return None
    if isinstance(problem, OutOfTimeError):
        return _not_solved(args, str(problem).removeprefix(f"{args.game}: "))
    if isinstance(problem, NotTwoPlayerError | LPError):
        return _not_solved(args, str(problem))
    _say(problem, args.game, "solve")
    return 2


def _no_extensive_form(args: argparse.Namespace, reason: str) -> None:
    """Say that the game has no extensive form gdl solves (the perfect-information solver comes next)."""
    print(f"gdl solve: {args.game}: no extensive form to solve: {reason}", file=sys.stderr)


def _solved(
    args: argparse.Namespace, text: str, start: float, started: float, say: Callable[[str], None]
) -> Gdl2Outcome | int:
    """What solving the game did (its load time counted from ``start``), or the exit status 2 when
    ``--method`` does not apply to it."""
    method = args.method or "auto"
    if Path(args.game).suffix.lower() in GDL_SUFFIXES:  # its unfolding is part of the time limit
        game = load_gdl2(text, args.game, seconds=time_left(args.time_limit, started))
        if _inapplicable(args, game.players, method):
            return 2
        called = time.perf_counter()
        outcome = solve_gdl2(
            game, args.game, method=method, iterations=args.iterations,
            seconds=time_left(args.time_limit, started), progress=say,
        )
        if isinstance(outcome, Solved):  # the load time counts the game's loading too
            return replace(outcome, load_seconds=called - start + outcome.load_seconds)
        return outcome
    extensive = read_extensive(text, args.game)
    if _inapplicable(args, extensive.players, method):
        return 2
    loaded = time.perf_counter() - start
    left = time_left(args.time_limit, started)
    return Solved(solve_stored(extensive, args.game, method, args.iterations, left, say), loaded)


#: CFR+ iterations unless --iterations says otherwise.
DEFAULT_ITERATIONS = ITERATIONS_OF["cfr"]
#: The iterative methods' names as printed.
METHOD_NAMES = {"cfr": "CFR+", "dcfr": "Discounted CFR", "mccfr": "outcome-sampling Monte Carlo CFR"}


def _inapplicable(args: argparse.Namespace, players: Sequence[str], method: str) -> bool:
    """Whether ``--method`` names an iterative method for a game of one player, after saying so."""
    if len(players) == 1 and method in ITERATIVE:
        print(f"gdl solve: {args.game}: --method {method} applies to games of two players; a game of one "
              "player is solved exactly by backward induction (leave --method out)", file=sys.stderr)
        return True
    return False


def _not_solved(args: argparse.Namespace, reason: str) -> int:
    """Say that the game was not solved, and why; the exit status."""
    if not args.json:
        print(f"{args.game}: not solved: {reason}")
    unsolved = {"game": args.game, "solved": False, "reason": reason}
    return 1 if emit_json(args, unsolved, "solve") else 2


def _sampled(args: argparse.Namespace, sampled: Sampled) -> int:
    """Report a game too large to store that was sampled by Monte Carlo CFR, with the tree's size and
    why it was not stored; the exit status (1: never solved exactly)."""
    report: dict[str, Any] = {"game": args.game, **sampled.to_json()}
    if not args.json:
        solution = sampled.solution
        run = solution.run
        stopped = {"iterations": "its iterations", "time": "the time limit", "memory": "the memory"}
        touched = ", ".join(f"{player} {count:,}" for player, count in solution.infosets.items())
        print(f"{args.game}: {sampled.reason}; {report['concept']}")
        print(f"method: {METHOD_NAMES['mccfr']} through the engine ({run.iterations:,} iterations, "
              f"{run.rate:,.0f} per CPU-second, stopped at {stopped[run.stopped]}); information sets "
              f"touched: {touched}")
        print(f"guarantee: {solution.guarantee}")
        print(f"time: {solution.seconds:.3f} s")
    return 1 if emit_json(args, report, "solve") else 2


def _refused(args: argparse.Namespace, refused: Refused) -> int:
    """Say that the game was not solved, with its size and why; the exit status."""
    if not args.json:
        print(f"{args.game}: {refused.reason}")
    return 1 if emit_json(args, {"game": args.game, **refused.to_json()}, "solve") else 2


def _print(report: dict[str, Any], game: ExtensiveGame | GameTree, quiet: bool) -> None:
    if report["solved"]:
        print(f"{report['game']}: solved; {report['concept']}")
    else:
        print(f"{report['game']}: {report['reason']}; {report['concept']}")
    print("value: " + ", ".join(f"{player} {rational(v)}" for player, v in report["value"].items()))
    if "goal_value" in report and report["goal_offset"]:
        goals = ", ".join(f"{player} {rational(v)}" for player, v in report["goal_value"].items())
        print(f"value in goal units: {goals} (payoff + {report['goal_offset']:g}, half the goals' sum)")
    if quiet:
        print(f"exploitability: {report['exploitability']:.3g}")
        return
    for player, strategy in report["strategies"].items():
        print(f"strategy of {player} ({len(strategy)} {plural(len(strategy), 'information set')}):")
        for infoset, probabilities in strategy.items():
            shown = ", ".join(f"{action} {p:.4g}" for action, p in probabilities.items())
            print(f"  {infoset}: {shown}")
    if report["method"] in ITERATIVE:
        steps = ", ".join(f"{h['iteration']}: {h['exploitability']:.3g}" for h in report["history"])
        print(f"exploitability as {METHOD_NAMES[report['method']]} went (iteration: exploitability): {steps}")
    print(f"exploitability: {report['exploitability']:.3g}")
    method = {
        **{name: f"{METHOD_NAMES[name]} ({report.get('iterations')} iterations)" for name in ITERATIVE},
        "lp": "sequence-form LP (HiGHS)",
        "exact": "backward induction over the player's information sets, in fractions",
    }[report["method"]]
    size = report["size"]
    counts = (
        f"{counted(sum(size['sequences'].values()), 'sequence')}, "
        f"{counted(sum(size['infosets'].values()), 'information set')}, "
        if "sequences" in size else ""
    )
    print(f"method: {method}; {counts}{counted(sum(dict(game.sizes).values()), 'node')}")
    if report["solved"]:
        print("exact, checked by exact best responses: the value is proven")
    else:
        print(f"guarantee: {report['guarantee']}")
    print(f"time: {report['seconds']:.3f} s to solve, {report['load_seconds']:.3f} s to load")
