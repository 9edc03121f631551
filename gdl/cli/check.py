"""``gdl check FILE...``: report every problem of each game at once.

With ``--dynamic`` and ``--cluster`` (or ``--jobs``), the games are explored in parallel, one per task
on a Ray cluster (or local process), and a summary table ends the output.

Exit status: 0 when no file has an error (warnings allowed), 1 when any has, 2 when a file cannot be
read (missing, a directory, not UTF-8: reported as an ``unreadable-file`` error, in ``--json`` too) or
the command line is wrong.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gdl.check import check_text
from gdl.cli._common import (
    add_cluster_options,
    add_command,
    add_engine_option,
    add_json_options,
    add_time_limit,
    emit_json,
    positive_int,
    source_text,
)
from gdl.cli._corpus_runs import check_many
from gdl.cli._dynamic import check_files
from gdl.cli.graph import draw_graph
from gdl.diagnostics import Diagnostic, Level, has_errors
from gdl.extensive import GDL_SUFFIXES
from gdl.syntax.reader import READERS
from gdl.wellformed import PROPERTIES, REQUIRED


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        subparsers, "check", "check games for errors and warnings",
        """Every problem of each file at once, sorted by position, gringo-style: FILE:LINE:COLUMN: level:
message [code], then notes. --dynamic also explores each game's reachable states: termination,
playability, goals, monotonicity, winnability (see docs/wellformedness.md).

Exit status: 0 when no file has an error (warnings allowed), 1 when one has (with --dynamic: or a
required property fails), 2 when a file cannot be read or the command line is wrong.""",
        [
            "gdl check games/tictactoe.kif",
            "gdl check games/*.kif --json",
            "gdl check --dynamic games/nim.kif --require all --time-limit 10",
        ],
    )
    parser.add_argument(
        "files", nargs="+", metavar="FILE",
        help="GDL files (.kif, .gdl), folders of them (checked file by file), or - for standard input",
    )
    add_json_options(parser, "the diagnostics (with --dynamic: the reports)")
    parser.add_argument(
        "--dynamic", action="store_true",
        help="also explore each game: termination, playability, goals, monotonicity, winnability",
    )
    parser.add_argument("--max-states", type=positive_int, metavar="N",
                        help=f"with --dynamic: explore at most N states (default {MAX_STATES})")
    add_time_limit(parser, 60.0, "with --dynamic: seconds per game, about")
    parser.add_argument(
        "--reader", choices=READERS, default="fast",
        help="how to read KIF: fast (the default) or lark (Lark's LALR parser on gdl's grammar, slower)",
    )
    parser.add_argument(
        "--require", type=_properties, metavar="PROPERTIES",
        help="with --dynamic: the properties whose failure is an error (exit status 1), comma-separated, "
        f"or 'all'; the failure of any other is a warning (default: {','.join(REQUIRED)}; "
        f"properties: {','.join(PROPERTIES)})",
    )
    parser.add_argument(
        "--graph", nargs="?", const=".", metavar="DIR",
        help="also draw each game's dependency graph with its problems marked (GAME.graph.svg in DIR, "
        "default the current directory; see gdl graph) and link it after the diagnostics",
    )
    add_engine_option(parser)
    add_cluster_options(parser, "with --dynamic: games explored at once")
    parser.set_defaults(run=run)


def _properties(text: str) -> tuple[str, ...]:
    """An argparse type: a comma-separated list of dynamic properties, or ``all``."""
    if text.strip() == "all":
        return PROPERTIES
    names = tuple(name.strip().replace("-", "_") for name in text.split(",") if name.strip())
    unknown = [name for name in names if name not in PROPERTIES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown property {unknown[0]!r} (properties: {', '.join(PROPERTIES)}, or all)"
        )
    return names


def report(diagnostics: list[Diagnostic], files: int, as_json: bool) -> None:
    """Print the diagnostics as compiler-style text with a summary line (with ``as_json``: nothing, the
    caller emits the JSON list)."""
    if as_json:
        return
    for diagnostic in diagnostics:
        if diagnostic.code != UNREADABLE:  # said on stderr as the file was met
            print(diagnostic.format())
    unreadable = sum(d.code == UNREADABLE for d in diagnostics)
    errors = sum(d.level is Level.ERROR for d in diagnostics) - unreadable
    warnings = len(diagnostics) - errors - unreadable
    checked = f"{files} file(s) checked" + (f" ({unreadable} unreadable)" if unreadable else "")
    print(f"{checked}: {errors} error(s), {warnings} warning(s)")


#: The code of the diagnostic for a file that cannot be read.
UNREADABLE = "unreadable-file"


#: States explored at most by ``--dynamic`` unless ``--max-states`` says otherwise.
MAX_STATES = 100_000
#: The name of standard input, given as ``-``, in messages.
STDIN = "<stdin>"


def game_files(names: list[str]) -> list[str]:
    """The files to check: a folder stands for its .kif and .gdl files (in its subfolders too, sorted);
    ``-`` is standard input."""
    files = []
    for name in names:
        folder = Path(name)
        found = sorted(
            str(path) for path in folder.rglob("*") if path.suffix.lower() in GDL_SUFFIXES and path.is_file()
        ) if folder.is_dir() else []
        files.extend(found or [STDIN if name == "-" else name])
    return files


def run(args: argparse.Namespace) -> int:
    for option, given in (("--cluster and --jobs apply", args.cluster or args.jobs),
                          ("--max-states applies", args.max_states), ("--require applies", args.require)):
        if given and not args.dynamic:
            print(f"gdl check: {option} to --dynamic", file=sys.stderr)
            return 2
    args.max_states = args.max_states or MAX_STATES
    args.require = REQUIRED if args.require is None else args.require
    args.files = game_files(args.files)
    if args.dynamic and STDIN in args.files:
        print("gdl check: --dynamic explores files, not standard input", file=sys.stderr)
        return 2
    diagnostics: list[Diagnostic] = []
    texts: dict[str, str] = {}
    links: list[str] = []
    unreadable = False
    for name in args.files:
        text = sys.stdin.read() if name == STDIN else source_text(Path(name))
        if isinstance(text, Diagnostic):
            print(f"gdl check: {name}: {text.message}", file=sys.stderr)
            unreadable = True
            diagnostics.append(text)
            continue
        texts[name] = text
        diagnostics.extend(check_text(text, name, reader=args.reader).diagnostics)
        if args.graph:
            link = draw_graph(name, text, args.graph)
            if link is None:
                return 2
            links += [] if args.json else [link]
    if args.dynamic and not unreadable and (args.cluster or args.jobs):
        return check_many(args, texts, diagnostics)
    if args.dynamic and not unreadable:
        return check_files(
            args.files, diagnostics, args.max_states, args.time_limit, args.json, args.engine, args.require,
            emit=lambda data: emit_json(args, data, "check"),
        )
    report(diagnostics, len(args.files), args.json)
    print(*links, sep="\n", end="\n" if links else "")
    if not emit_json(args, lambda: [d.to_json() for d in diagnostics], "check") or unreadable:
        return 2
    return 1 if has_errors(diagnostics) else 0
