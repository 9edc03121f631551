"""``gdl tournament GAME --player KIND --player KIND --matches N``: many matches in parallel, roles rotated.

Prints, per player, wins, draws and losses and the mean goal with a 95 % confidence interval; a
progress bar goes to standard error. A player description may carry options
(``mcts:iterations=200,c=1.0``); commas between options stay with their player.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from pathlib import Path

from gdl.backend import open_backend
from gdl.cli._common import (
    add_clocks,
    add_cluster_options,
    add_command,
    add_engine_option,
    add_in_process,
    add_json_options,
    add_max_steps,
    emit_json,
    plural,
    positive_int,
    read_source,
)
from gdl.cli.progress import Progress
from gdl.cli.view import TournamentViewer, add_view_option
from gdl.errors import PlayerSpecError
from gdl.players import PLAYER_KINDS
from gdl.tournament import TournamentResult, run_tournament


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    kinds = ", ".join(sorted(set(PLAYER_KINDS) - {"human"}))
    parser = add_command(
        subparsers, "tournament", "play many matches between programs and tabulate the results",
        f"""Plays N matches in parallel processes, rotating the roles every match, and prints per player
wins, draws and losses and the mean goal with a 95 % confidence interval; a progress bar goes to a
terminal's standard error. One --player per role, in role order (kinds: {kinds}); options follow
the kind (mcts:iterations=200,c=1.0). In a GDL-II game each player runs in a process of its own, out
of reach of the hidden state (--in-process: in its match's process, faster but unsafe with programs
that are not trusted).""",
        [
            "gdl tournament games/tictactoe.kif -p minimax -p mcts:iterations=200 -n 20 --play-clock 1",
            "gdl tournament games/rps.kif -p random -p random -n 100 --play-clock 0.1 --json",
        ],
    )
    parser.add_argument("game", metavar="GAME", help="GDL file (.kif)")
    parser.add_argument(
        "--player", "-p", action="append", default=[], metavar="[ROLE=]KIND[:option=value,...]",
        help="a player, one per role (repeat); ROLE= seats it in that role in the first match",
    )
    parser.add_argument(
        "--matches", "-n", type=positive_int, default=10, metavar="N", help="number of matches (default 10)"
    )
    add_clocks(parser)
    add_max_steps(parser)
    parser.add_argument("--quiet", "-q", action="store_true", help="show only the standings, no progress")
    parser.add_argument("--seed", type=int, help="seed of the first match (match i uses seed + i)")
    add_json_options(parser, "the standings and every match", file_was_json=True)
    add_in_process(parser)
    add_engine_option(parser)
    add_cluster_options(parser, "parallel processes")
    add_view_option(parser, "the standings and each match")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if read_source(Path(args.game), "tournament") is None:
        return 2
    bar = Progress("tournament")
    try:
        specs = args.player
        if not specs:
            raise PlayerSpecError("no players: give a --player per role")
        viewer = None if args.view is None else TournamentViewer(args.game, args.view)
        with open_backend(args.cluster, args.jobs) as backend:
            result = run_tournament(
                args.game, specs, args.matches, start_clock=args.start_clock, play_clock=args.play_clock,
                seed=args.seed, engine=args.engine, max_steps=args.max_steps, backend=backend,
                progress=None if args.quiet else bar.counter("matches"),
                on_match=viewer.on_match if viewer else None, isolate=False if args.in_process else None,
            )
        for note in backend.notes:
            print(f"gdl tournament: note: {note}", file=sys.stderr)
    except FileNotFoundError:
        print(f"gdl tournament: {args.game}: no such file", file=sys.stderr)
        return 2
    except ValueError as problem:
        print(f"gdl tournament: {problem}", file=sys.stderr)
        return 2
    finally:
        bar.close()
    if not args.json:
        print(table(result))
    status = 0 if emit_json(args, result.to_json, "tournament") else 2
    if viewer:
        viewer.finish()
    if status:
        return status
    if result.interrupted:
        done = f"{len(result.matches)} of {args.matches} matches"
        print(f"gdl tournament: interrupted after {done}", file=sys.stderr)
        return 130
    reasons = Counter(match["abortReason"] for match in result.matches if match["goals"] is None)
    for reason, count in reasons.most_common():
        matches = plural(count, "match", "matches")
        print(f"gdl tournament: {count} {matches} aborted: {reason}", file=sys.stderr)
    return 1 if result.aborted else 0


def table(result: TournamentResult) -> str:
    """The standings as a text table."""
    played = len(result.matches) - result.aborted
    lines = [
        f"{result.game}: {played} {plural(played, 'match', 'matches')} ({result.aborted} aborted), "
        "roles rotated each match"
    ]
    names = player_names([s.spec for s in result.standings])
    width = max(len("player"), *map(len, names))
    header = f"{'wins':>5} {'draws':>5} {'losses':>6}  {'mean goal':>16}  {'errors':>6}"
    lines.append(f"{'player':<{width}}  {header}")
    for name, s in zip(names, result.standings, strict=True):
        mean = "-" if math.isnan(s.mean) else f"{s.mean:5.1f}"
        ci = "" if math.isnan(s.ci95) else f" ± {s.ci95:4.1f}"
        lines.append(
            f"{name:<{width}}  {s.wins:>5} {s.draws:>5} {s.losses:>6}  {mean + ci:>16}  {s.errors:>6}"
        )
    return "\n".join(lines)


def player_names(specs: list[str]) -> list[str]:
    """The players' names in a table: their descriptions, numbered where two are the same
    (``random #1``, ``random #2``)."""
    return [
        f"{spec} #{specs[:i].count(spec) + 1}" if specs.count(spec) > 1 else spec
        for i, spec in enumerate(specs)
    ]
