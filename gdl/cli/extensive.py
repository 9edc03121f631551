"""``gdl solve`` for extensive-form games (``.efg`` and the other formats of
:func:`gdl.extensive.load_extensive`): the value, each information set's optimal behaviour strategy,
the exploitability that proves it, the method and the time."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from gdl.cli._common import counted, emit_json, plural, read_source, time_left
from gdl.cli.progress import Progress
from gdl.errors import GameTooLargeError, LimitError, OutOfTimeError
from gdl.extensive import GDL_SUFFIXES, ExtensiveGame, ExtensiveGameError, NotExtensiveError, read_extensive
from gdl.extensive.count import TreeCount, count_infosets, count_tree, least_bytes
from gdl.extensive.from_gdl import DEFAULT_MAX_NODES, game_of_tree, load_gdl2, read_gdl2
from gdl.extensive.generate import ArraysUnsupportedError, GameTree, generate_tree
from gdl.extensive.model import exact_fraction, tidy
from gdl.extensive.solving import DEFAULT_ITERATIONS as ITERATIONS_OF
from gdl.extensive.solving import ITERATIVE, solve_extensive, solve_tree
from gdl.game import Game

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
    from gdl.errors import LPError, NotTwoPlayerError

    start = time.perf_counter()
    started = time.monotonic() if started is None else started  # --time-limit counts from here
    text = read_source(Path(args.game), "solve", EXTENSIVE_FORMATS)
    if text is None:
        return 2
    bar = Progress("solve")
    try:
        if Path(args.game).suffix.lower() in GDL_SUFFIXES:  # its unfolding is part of the time limit
            made = _generated(args, text, started, bar)
            if isinstance(made, int) or made is None:
                bar.close()
                return made
            game: ExtensiveGame | GameTree = made
        else:
            game = read_extensive(text, args.game)
    except NotExtensiveError as problem:
        bar.close()
        print(f"gdl solve: {args.game}: no extensive form to solve: {problem}", file=sys.stderr)
        return None
    except OutOfTimeError as problem:
        bar.close()
        return _not_solved(args, str(problem).removeprefix(f"{args.game}: "))
    except ExtensiveGameError as problem:
        bar.close()
        _say(problem, args.game, "solve")
        return 2
    method = args.method or "auto"
    if len(game.players) == 1 and method in ITERATIVE:
        print(f"gdl solve: {args.game}: --method {method} applies to games of two players; a game of one "
              "player is solved exactly by backward induction (leave --method out)", file=sys.stderr)
        return 2
    loaded = time.perf_counter() - start
    left = max(time_left(args.time_limit, started), 0.01)
    iterations = args.iterations or ITERATIONS_OF.get(method)
    try:
        bar.say(f"building the sequence form of {args.game}")

        def progress(iteration: int, exploitability: float) -> None:
            bar.say(f"{method} iteration {iteration} of {iterations}, exploitability {exploitability:.3g}")

        if method == "lp" and len(game.players) == 2:
            bar.say(f"solving the sequence-form LP (HiGHS, at most {left:.3g} s)")
        if isinstance(game, GameTree):
            solution = solve_tree(game, method, iterations, left, progress)
        else:
            solution = solve_extensive(game, method, iterations, left, progress)
    except (NotTwoPlayerError, LPError) as problem:
        bar.close()
        return _not_solved(args, str(problem))
    bar.close()
    report = {"game": args.game, **solution.to_json(), "load_seconds": round(loaded, 4)}
    if not args.json:
        _print(report, game, args.quiet)
    if not emit_json(args, report, "solve"):
        return 2
    return 0 if solution.solved else 1


#: CFR+ iterations unless --iterations says otherwise.
DEFAULT_ITERATIONS = ITERATIONS_OF["cfr"]
#: The iterative methods' names as printed.
METHOD_NAMES = {"cfr": "CFR+", "dcfr": "Discounted CFR", "mccfr": "outcome-sampling Monte Carlo CFR"}


def _not_solved(args: argparse.Namespace, reason: str) -> int:
    """Say that the game was not solved, and why; the exit status."""
    if not args.json:
        print(f"{args.game}: not solved: {reason}")
    unsolved = {"game": args.game, "solved": False, "reason": reason}
    return 1 if emit_json(args, unsolved, "solve") else 2


def _generated(
    args: argparse.Namespace, text: str, started: float, bar: Progress
) -> ExtensiveGame | GameTree | int | None:
    """The extensive form of a GDL-II game file: a game of Python objects when it has at most
    :data:`gdl.extensive.from_gdl.DEFAULT_MAX_NODES` nodes, else its arrays; or the exit status after
    saying why there is none (too large for the memory, or for the time: with its size and the nodes
    made so far), or None for a game that has no extensive form gdl solves."""
    from gdl.cli import memory_limit

    game = load_gdl2(text, args.game, seconds=time_left(args.time_limit, started))
    memory = memory_limit() // 2  # the arrays, and as much again for the solver's
    if len(game.players) not in (1, 2):
        return read_gdl2(text, args.game, seconds=time_left(args.time_limit, started))  # says why not
    size: TreeCount | None = None
    try:
        bar.say(f"counting the extensive form of {args.game} over its states")
        size = count_tree(game, seconds=time_left(args.time_limit, started) / 2, memory=memory)
    except (ArraysUnsupportedError, LimitError):  # generating it says why, or finds it is too large
        pass
    needed = None if size is None else least_bytes(size, len(game.players))
    if needed is not None and needed > memory:
        why = f"its arrays would take at least {_gib(needed)}, more than the {_gib(memory)} gdl may use"
        if _samples(args, game):
            return _sampled(args, game, size, why, started, memory, bar)
        return _refused(args, game, size, why, started, memory)
    generated = [0, 0.0]
    total = f" of {size.nodes:,}" if size is not None else ""

    def progress(nodes: int, seconds: float) -> None:
        generated[:] = [nodes, seconds]
        bar.say(f"generating the extensive form: {nodes:,}{total} nodes, {nodes / max(seconds, 1e-9):,.0f} "
                "per second")

    if time_left(args.time_limit, started) <= 0:
        return _refused(
            args, game, size, "the time ran out before the extensive form was made", started, memory
        )
    try:
        tree = generate_tree(
            game, seconds=time_left(args.time_limit, started), memory=memory, progress=progress,
        )
    except ArraysUnsupportedError:  # the import over objects makes it, or says what is wrong
        return read_gdl2(text, args.game, seconds=time_left(args.time_limit, started))
    except (GameTooLargeError, OutOfTimeError) as problem:
        nodes, seconds = generated
        rate = nodes / max(seconds, 1e-9)
        why = f"{problem} ({nodes:,} nodes made in {seconds:.3g} s, {rate:,.0f} per second)"
        if isinstance(problem, GameTooLargeError) and _samples(args, game):
            return _sampled(args, game, size, why, started, memory, bar)
        return _refused(args, game, size, why, started, memory)
    if tree.nodes <= DEFAULT_MAX_NODES:
        return game_of_tree(tree)
    return tree


def _samples(args: argparse.Namespace, game: Game) -> bool:
    """Whether a game whose extensive form is too large to store is solved by sampling it instead."""
    return len(game.players) == 2 and (args.method or "auto") in ("auto", "mccfr")


def _sampled(
    args: argparse.Namespace, game: Game, size: TreeCount | None, why: str, started: float, memory: int,
    bar: Progress,
) -> int:
    """Solve a game too large to store by sampled Monte Carlo CFR, and report it with the tree's size
    and why it was not stored; the exit status (1: never solved exactly)."""
    from gdl.errors import GdlSourceError
    from gdl.extensive.sampled_solve import solve_sampled

    left = time_left(args.time_limit, started)
    if left < MIN_SAMPLING_SECONDS:
        return _refused(args, game, size, f"{why}, and no time is left to sample it", started, memory)
    bar.say(f"sampling {args.game} by Monte Carlo CFR for {left:.3g} s (the tree is not stored)")
    try:
        solution = solve_sampled(
            game, args.iterations or SAMPLED_ITERATIONS, seconds=left, memory=memory, progress=bar.say
        )
    except (ArraysUnsupportedError, GdlSourceError) as problem:
        bar.close()
        return _refused(args, game, size, f"{why}; sampling it failed: {problem}", started, memory)
    bar.close()
    reason = f"not solved: {why}, so it was sampled instead of stored"
    report: dict[str, Any] = {"game": args.game, **solution.to_json(), "reason": reason}
    if size is not None:
        sizes, shown = _sizes(size)
        report["size"] = sizes
        report["reason"] = reason = f"{reason}; the extensive form has {', '.join(shown)}"
    if not args.json:
        run = solution.run
        stopped = {"iterations": "its iterations", "time": "the time limit", "memory": "the memory"}
        touched = ", ".join(f"{player} {count:,}" for player, count in solution.infosets.items())
        print(f"{args.game}: {reason}; {report['concept']}")
        print(f"method: {METHOD_NAMES['mccfr']} through the engine ({run.iterations:,} iterations, "
              f"{run.rate:,.0f} per CPU-second, stopped at {stopped[run.stopped]}); information sets "
              f"touched: {touched}")
        print(f"guarantee: {solution.guarantee}")
        print(f"time: {solution.seconds:.3f} s")
    return 1 if emit_json(args, report, "solve") else 2


#: Sampled Monte Carlo CFR stops at the time limit unless --iterations says otherwise.
SAMPLED_ITERATIONS = 10**12
#: The least time left that is worth sampling a game in (else it is refused with its size).
MIN_SAMPLING_SECONDS = 0.5


def _sizes(size: TreeCount) -> tuple[dict[str, Any], list[str]]:
    """A tree's counted size, for JSON and in words."""
    sizes: dict[str, Any] = {
        "nodes": size.nodes, "terminals": size.terminals, "states": size.states, "saturated": size.saturated,
    }
    least = "at least " if size.saturated else ""  # the counts stop at 2**62
    shown = [
        f"{least}{size.nodes:,} nodes", f"{least}{size.terminals:,} terminals", f"{size.states:,} states"
    ]
    return sizes, shown


def _refused(
    args: argparse.Namespace, game: Game, size: TreeCount | None, why: str, started: float, memory: int
) -> int:
    """Say that the game was not solved, with its size (nodes, terminals, states, and the information
    sets counted within what is left of the time), and why; the exit status."""
    reason = f"not solved: {why}"
    report: dict[str, Any] = {"game": args.game, "solved": False, "reason": reason}
    if size is not None:
        sizes, shown = _sizes(size)
        infosets: dict[str, Any] = {}
        for player in game.players:
            left = time_left(args.time_limit, started) / 2  # each player's count takes half what is left
            try:
                sets = count_infosets(game, player, seconds=left, memory=memory)
            except ArraysUnsupportedError:
                continue
            infosets[player] = {"count": sets.infosets, "complete": sets.complete}
            at_least = "" if sets.complete else "at least "
            shown.append(f"{at_least}{sets.infosets:,} information sets of {player}")
        sizes["infosets"] = infosets
        report["size"] = sizes
        report["reason"] = reason = f"{reason}; the extensive form has {', '.join(shown)}"
    if not args.json:
        print(f"{args.game}: {reason}")
    return 1 if emit_json(args, report, "solve") else 2


def _gib(size: float) -> str:
    return f"{size / 2**30:,.1f} GiB"


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
