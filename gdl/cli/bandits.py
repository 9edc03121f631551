"""``gdl bandits MAZE``: build the bandit-ambush maze game and solve its sequence-form LP.

Prints the players' sequences, the extended utility table, the equilibrium's realization plans and
the value (see docs/bandits.md for the game and the output).
See ``gdl bandits --help``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from gdl.bandits.game import MAX_NODES, bandits_game
from gdl.bandits.kif import bandits_kif
from gdl.bandits.maze import Maze, read_maze
from gdl.cli._common import (
    add_command,
    add_json_options,
    emit_json,
    output_file,
    positive_int,
    read_source,
    write_text,
)
from gdl.errors import BanditsExportError, GameTooLargeError, MazeError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        subparsers, "bandits", "solve a bandit-ambush maze (a sequence-form LP exercise)",
        """Builds the maze game (the agent's path, the bandits' ambushes, the die of an attack) and prints
the players' sequences, the extended utility table, the equilibrium's realization plans and the value
(see docs/bandits.md).

Exit status: 0 solved (or written), 1 the LP solver failed, 2 an unreadable or malformed maze file,
a game too large for --max-nodes (or for GDL-II), or a file that cannot be written.""",
        [
            "gdl bandits games/bandits/example.txt                  the whole report",
            "gdl bandits games/bandits/example.txt --json           value, realization plans and sizes",
            "gdl bandits games/bandits/example.txt --lp maze.lp     also write the LP (CPLEX LP format)",
            "gdl bandits games/bandits/example.txt --kif maze.kif   write the game as GDL-II, no solving",
        ],
    )
    parser.add_argument("maze", metavar="MAZE", help="maze file: M, N, M rows of N symbols, k, p")
    add_json_options(parser, "value, plans and sizes")
    parser.add_argument(
        "--lp", metavar="FILE", type=output_file, help="write the sequence-form LP to FILE (CPLEX LP format)"
    )
    parser.add_argument(
        "--kif", metavar="FILE", type=output_file,
        help="write the game as GDL-II to FILE (- for stdout) instead of solving it",
    )
    parser.add_argument(
        "--max-nodes", type=positive_int, default=MAX_NODES, metavar="N",
        help=f"refuse games of more than N tree nodes (default {MAX_NODES})",
    )
    parser.set_defaults(run=run)


def _fail(message: str) -> int:
    print(f"gdl bandits: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    text = read_source(Path(args.maze), "bandits", ("maze",))
    if text is None:
        return 2
    try:
        maze = read_maze(text, args.maze)
    except MazeError as problem:
        print(problem, file=sys.stderr)
        return 2
    if args.kif:
        return _export(maze, args.kif)
    # The LP's modules load scipy and HiGHS: only when solving, not for every gdl command.
    from gdl.bandits.report import report_json, report_lines, sequence_names
    from gdl.errors import LPError
    from gdl.extensive.lp import solve_lp
    from gdl.extensive.lp_file import write_lp
    from gdl.extensive.sequence import SequenceForm

    start = time.perf_counter()
    try:
        bandits = bandits_game(maze, max_nodes=args.max_nodes)
    except GameTooLargeError as problem:
        return _fail(f"{args.maze}: {problem}")
    built = time.perf_counter()
    form = SequenceForm.from_game(bandits.game)
    try:
        solution = solve_lp(form)
    except LPError as problem:
        print(f"gdl bandits: {args.maze}: not solved: {problem}", file=sys.stderr)
        return 1
    solved = time.perf_counter()
    if args.lp:
        try:
            write_lp(form, args.lp, sequence_names(form))
        except OSError as problem:
            return _fail(f"cannot write {args.lp}: {problem.strerror or problem}")
    if not args.json:
        print("\n".join(report_lines(bandits, solution)))
    seconds = {"build": built - start, "solve": solved - built}
    return 0 if emit_json(args, report_json(bandits, solution, seconds), "bandits") else 2


def _export(maze: Maze, path: str) -> int:
    try:
        text = bandits_kif(maze)
    except BanditsExportError as problem:
        return _fail(str(problem))
    return 0 if write_text(path, text, "bandits") else 2
