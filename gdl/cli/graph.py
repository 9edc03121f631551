"""``gdl graph GAME``: the relation dependency graph as a picture (SVG) or Graphviz DOT, with negation,
strata and recursion marked and the checker's problems in red."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gdl.cli._common import add_command, output_file, read_source, write_text
from gdl.diagnostics import has_errors
from gdl.view.graph import rule_picture


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        subparsers,
        "graph",
        "draw a game's relation dependency graph",
        """Writes the relation dependency graph: an edge from each relation to those its rules use, dashed
through not, nodes in layers coloured by stratum, recursion in purple, and what gdl check reports (an
unsafe rule, an undefined relation, a forbidden dependency, a cycle through negation) in red, with its
message. SVG by default (GAME's name with .graph.svg, in the current directory), DOT with --dot.

Exit status: 0 the game has no error, 1 it has (the picture is written all the same), 2 unusable input.""",
        [
            "gdl graph tests/checking/broken_buttons.kif",
            "gdl graph games/tictactoe.kif --dot -o tictactoe.dot",
        ],
    )
    parser.add_argument("game", metavar="GAME", help="GDL file (.kif)")
    parser.add_argument("-o", "--output", type=output_file, metavar="FILE", help="where to write the picture")
    parser.add_argument("--dot", action="store_true", help="write Graphviz DOT instead of SVG")
    parser.set_defaults(run=run)


def picture_file(game: str, dot: bool = False) -> str:
    """Where the picture of ``game`` goes by default: its name with ``.graph.svg`` (or ``.dot``)."""
    return Path(game).stem + (".graph.dot" if dot else ".graph.svg")


def run(args: argparse.Namespace) -> int:
    text = read_source(Path(args.game), "graph")
    if text is None:
        return 2
    picture, diagnostics = rule_picture(text, args.game, "dot" if args.dot else "svg")
    if not write_text(args.output or picture_file(args.game, args.dot), picture, "graph"):
        return 2
    return 1 if has_errors(diagnostics) else 0


def draw_graph(game: str, text: str, directory: str) -> str | None:
    """``gdl check --graph``: write the picture of ``game`` into ``directory``; the note that says where,
    as a link a terminal can open, or None after saying why it cannot be written."""
    path = Path(directory) / picture_file(game)
    picture, diagnostics = rule_picture(text, game)
    try:
        path.write_text(picture, encoding="utf-8")
    except OSError as problem:
        print(f"gdl check: cannot write {path}: {problem.strerror or problem}", file=sys.stderr)
        return None
    return (
        f"{game}: note: dependency graph with {len(diagnostics)} problem(s) marked: {path.resolve().as_uri()}"
    )
