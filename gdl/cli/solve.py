"""``gdl solve GAME``: the game-theoretic value of a small game, by searching every reachable state.

An extensive-form game is solved as such instead (see gdl.cli.extensive). While the search runs, a
status line on a terminal's standard error counts the states searched. Several GDL games (or
--cluster, --jobs) are solved in parallel, one game per task, and summed up in a table.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace

from gdl.budget import budget
from gdl.cli._common import (
    add_cluster_options,
    add_command,
    add_engine_option,
    add_json_options,
    add_time_limit,
    command_started,
    emit_json,
    load_game,
    positive_int,
    time_left,
)
from gdl.cli._corpus_runs import solve_many
from gdl.cli.extensive import DEFAULT_ITERATIONS, solve_file
from gdl.cli.progress import Progress
from gdl.extensive import is_extensive
from gdl.extensive.solving import ITERATIVE, METHODS
from gdl.solve import Solution, solve, solving_engine


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        subparsers, "solve", "compute a small game's value under perfect play",
        """A GDL game is solved by searching every reachable state once: the value under perfect play
(the concept named: best goal, minimax, mixed minimax, backward induction or security values), a
principal variation, the states searched and the time; it is not solved when --time-limit or
--max-states runs out. With --engine auto (the default) a game whose network takes longer to build
than auto's few seconds gets one built within a quarter of --time-limit. The states are kept in at most
three quarters of the memory gdl may use (GDL_MEMORY_MB, else three quarters of the machine's). An
extensive-form game (GDL-II with chance or hidden information, the JSON format, a Gambit .efg file) is
solved as such: each player's value, each information set's optimal
behaviour strategy and the exploitability that proves it, by the sequence-form LP (--method lp,
exact), CFR+, Discounted CFR or Monte Carlo CFR (--method cfr, dcfr, mccfr --iterations N, stopping with
what they have at --time-limit); --method auto (the default) takes the LP for a small game, DCFR beyond.
A GDL-II game is counted and generated on the compiled network, with its progress on a terminal; one
too large for the memory is printed with its size and, with --method auto or mccfr, sampled instead of
stored (Monte Carlo CFR through the engine until --time-limit or --iterations, then a statistical lower
bound of its strategy's exploitability: 95 % confidence, not a proof), else refused.

Exit status: 0 solved, 1 not solved, 2 unusable input.""",
        [
            "gdl solve games/tictactoe.kif",
            "gdl solve games/kuhn.efg --json",
            "gdl solve games/kuhn.efg --method cfr --iterations 500",
            "gdl solve games/leduc.kif --method dcfr --iterations 2000 --quiet",
            "gdl solve games/kriegtictactoe.kif --time-limit 30 --json",
            "gdl solve games/nim.kif --time-limit 5 --max-states 100000",
            "gdl solve games/*.kif --jobs 2",
        ],
    )
    parser.add_argument(
        "games", nargs="+", metavar="GAME",
        help="GDL file (.kif), or an extensive-form game (.efg, .json); several games are solved in parallel",
    )
    add_time_limit(parser, 60.0, "give up after this many seconds")
    parser.add_argument(
        "--max-states", type=positive_int, metavar="N", help="GDL games: give up after N reachable states"
    )
    add_json_options(parser, "the result")
    parser.add_argument(
        "--quiet", "-q", action="store_true",
        help="show only the value (no principal variation, no strategies)",
    )
    parser.add_argument(
        "--method",
        choices=METHODS,
        help="extensive-form games of two players: auto (the default: the LP for a small sequence form, "
        "Discounted CFR beyond), the sequence-form LP, CFR+, Discounted CFR or Monte Carlo CFR",
    )
    parser.add_argument(
        "--iterations", type=positive_int, metavar="N",
        help=f"with --method cfr, dcfr or mccfr: iterations (default {DEFAULT_ITERATIONS}; mccfr 1,000,000)",
    )
    add_engine_option(parser)
    add_cluster_options(parser, "games solved at once")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    started = command_started("solve")
    games = args.games
    args.game = games[0]
    extensive = [game for game in games if is_extensive(game)]
    problem = _inapplicable(args, games, extensive)
    if problem:
        print(f"gdl solve: {problem}", file=sys.stderr)
        return 2
    if len(games) > 1 or args.cluster or args.jobs:
        return solve_many(args, games)
    if extensive:
        status = solve_file(args, started)
        if status is not None:
            return status
    # The time limit counts loading too: a game not loaded in time is not solved (exit 1).
    with budget("loading", time_left(args.time_limit, started), total=True, wall=True):
        game = load_game(args.game, args.engine, "solve")
    if game is None:
        return 1 if time_left(args.time_limit, started) == 0 else 2
    if args.engine == "auto":
        game = solving_engine(game, time_left(args.time_limit, started))
    bar = Progress("solve")
    searched = [0, 0.0]  # states and seconds so far, for Ctrl-C

    def progress(states: int, seconds: float) -> None:
        searched[:] = [states, seconds]
        bar.states(states, seconds)

    try:
        left = time_left(args.time_limit, started)
        solution = solve(game, budget=left, max_states=args.max_states, progress=progress)
    except KeyboardInterrupt:
        bar.close()
        states, seconds = searched
        print(f"gdl solve: interrupted after {states} states searched in {seconds:.0f} s", file=sys.stderr)
        return 130
    finally:
        bar.close()
    solution = spelled(solution, game.spell)
    if not emit_json(args, {"game": game.name, **solution.to_json()}, "solve"):
        return 2
    if not args.json:
        _print(game.name, solution, args.quiet)
    return 0 if solution.solved else 1


def _inapplicable(args: argparse.Namespace, games: list[str], extensive: list[str]) -> str:
    """Why an option given does not apply to the games (refused rather than ignored), or ""."""
    if args.method is not None and not extensive:
        return (
            f"--method applies to extensive-form games (GDL-II with nature or percepts, .efg, .json); "
            f"{games[0]} is a game of perfect information, solved exactly by searching its states"
        )
    if args.iterations is not None and args.method not in ITERATIVE:
        return f"--iterations applies to --method {', '.join(ITERATIVE)}"
    if args.max_states is not None and len(extensive) == len(games):
        return (
            f"--max-states applies to games of perfect information; {extensive[0]} is solved in "
            "extensive form"
        )
    return ""


def spelled(solution: Solution, spell: Callable[[str], str]) -> Solution:
    """The solution with its roles and moves spelled as the rules spell them, for output."""
    return replace(
        solution,
        value={spell(role): value for role, value in solution.value.items()},
        exact_value={spell(role): value for role, value in solution.exact_value.items()},
        pv=[{spell(role): spell(move) for role, move in joint.items()} for joint in solution.pv],
        strategies={
            spell(role): {spell(move): p for move, p in strategy.items()}
            for role, strategy in solution.strategies.items()
        },
    )


def _print(name: str, solution: Solution, quiet: bool) -> None:
    if not solution.solved:
        rate = solution.states / max(solution.seconds, 1e-9)
        seconds = f"{solution.seconds:.2f} s, {rate:,.0f} a second"
        print(f"{name}: {solution.reason} ({solution.states:,} states, {seconds})")
        for note in solution.notes:
            print(f"note: {note}")
        return
    print(f"{name}: solved; {solution.concept}")
    print("value: " + ", ".join(
        f"{role} {value}" + (f" (= {exact})" if "/" in (exact := solution.exact_value.get(role, "")) else "")
        for role, value in solution.value.items()
    ))
    if quiet:
        return
    print(f"principal variation ({len(solution.pv)} steps):")
    for step, joint in enumerate(solution.pv, 1):
        print(f"  {step:>3}. " + "; ".join(f"{role} {move}" for role, move in joint.items()))
    for role, strategy in solution.strategies.items():
        mixed = ", ".join(f"{move} {p:.3g}" for move, p in strategy.items())
        print(f"optimal mixed strategy of {role} at the start: {mixed}")
    for note in solution.notes:
        print(f"note: {note}")
    print(f"{solution.states} states searched in {solution.seconds:.2f} s")
