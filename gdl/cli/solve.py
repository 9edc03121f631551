"""``gdl solve GAME``: the game-theoretic value of a small game, by searching every reachable state.

An extensive-form game is solved as such instead (see gdl.cli.extensive). While the search runs, a
status line on a terminal's standard error counts the states searched. Several GDL games (or
--cluster, --jobs) are solved in parallel, one game per task, and summed up in a table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gdl.cli._common import (
    add_cluster_options,
    add_command,
    add_engine_option,
    add_json_options,
    add_time_limit,
    emit_json,
    load_game,
    positive_int,
)
from gdl.cli._corpus_runs import solve_many
from gdl.cli.extensive import solve_file
from gdl.cli.progress import Progress
from gdl.extensive import GDL_SUFFIXES, is_extensive
from gdl.solve import Solution, solve


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        subparsers, "solve", "compute a small game's value under perfect play",
        """A GDL game is solved by searching every reachable state once: the value under perfect play
(the concept named: best goal, minimax, mixed minimax, backward induction or security values), a
principal variation, the states searched and the time; it is not solved when --time-limit or
--max-states runs out. An extensive-form game (GDL-II with chance or hidden information, the JSON
format, a Gambit .efg file) is solved as such: each player's value, each information set's optimal
behaviour strategy and the exploitability that proves it, by the sequence-form LP (--method lp,
exact) or CFR+ (--method cfr --iterations N, stopping with what it has at --time-limit).

Exit status: 0 solved, 1 not solved, 2 unusable input.""",
        [
            "gdl solve games/tictactoe.kif",
            "gdl solve games/kuhn.efg --json",
            "gdl solve games/kuhn.efg --method cfr --iterations 500",
            "gdl solve games/nim.kif --time-limit 5 --max-states 100000",
            "gdl solve games/*.kif --jobs 2",
        ],
    )
    parser.add_argument(
        "game", metavar="GAME", help="GDL file (.kif), or an extensive-form game (.efg, .json)"
    )
    parser.add_argument("more_games", nargs="*", metavar="GAME", help="more GDL games: solved in parallel")
    add_time_limit(parser, 60.0, "give up after this many seconds", "--budget")
    parser.add_argument(
        "--max-states", type=positive_int, metavar="N", help="GDL games: give up after N reachable states"
    )
    add_json_options(parser, "the result")
    parser.add_argument(
        "--method",
        choices=("lp", "cfr"),
        default="lp",
        help="extensive-form games: the sequence-form LP (exact, default) or CFR+",
    )
    parser.add_argument(
        "--iterations", type=positive_int, default=1000, metavar="N", help="CFR+ iterations (default 1000)"
    )
    add_engine_option(parser)
    add_cluster_options(parser, "games solved at once")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.more_games or args.cluster or args.jobs:
        games = [args.game, *args.more_games]
        other = [game for game in games if Path(game).suffix.lower() not in GDL_SUFFIXES]
        if other:  # GDL-II games go to the perfect-information solver, which says why it cannot
            print(f"gdl solve: {other[0]}: several games (or --cluster, --jobs) must be GDL games; "
                  "solve an extensive-form game alone", file=sys.stderr)
            return 2
        return solve_many(args, games)
    if is_extensive(args.game):
        status = solve_file(args)
        if status is not None:
            return status
    game = load_game(args.game, args.engine, "solve")
    if game is None:
        return 2
    bar = Progress("solve")
    try:
        solution = solve(game, budget=args.time_limit, max_states=args.max_states, progress=bar.states)
    finally:
        bar.close()
    if not emit_json(args, {"game": game.name, **solution.to_json()}, "solve"):
        return 2
    if not args.json:
        _print(game.name, solution)
    return 0 if solution.solved else 1


def _print(name: str, solution: Solution) -> None:
    if not solution.solved:
        print(f"{name}: {solution.reason} ({solution.states} states, {solution.seconds:.2f} s)")
        return
    print(f"{name}: solved; {solution.concept}")
    print("value: " + ", ".join(f"{role} {value}" for role, value in solution.value.items()))
    print(f"principal variation ({len(solution.pv)} steps):")
    for step, joint in enumerate(solution.pv, 1):
        print(f"  {step:>3}. " + "; ".join(f"{role} {move}" for role, move in joint.items()))
    for role, strategy in solution.strategies.items():
        mixed = ", ".join(f"{move} {p:.3g}" for move, p in strategy.items())
        print(f"optimal mixed strategy of {role} at the start: {mixed}")
    for note in solution.notes:
        print(f"note: {note}")
    print(f"{solution.states} states searched in {solution.seconds:.2f} s")
