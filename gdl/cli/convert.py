"""``gdl convert GAME OUT``: write an extensive-form game in another format, chosen by OUT's suffix.

See ``gdl convert --help``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gdl.cli._common import add_command, counted, output_file
from gdl.cli.extensive import load_extensive_game
from gdl.extensive import WRITERS, ExtensiveGameError, write_extensive


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        subparsers, "convert", "write an extensive-form game in another format",
        f"""Reads an extensive-form game (GDL-II, the JSON format, a Gambit .efg file) and writes it in the
format OUT's suffix names ({', '.join(sorted(WRITERS))}); a format that cannot hold the game (e.g.
the JSON format and non-uniform chance) is said so, with exit status 2. See docs/extensive.md.""",
        ["gdl convert games/kuhn.efg kuhn.json", "gdl convert games/kuhn.kif kuhn.efg"],
    )
    parser.add_argument("game", metavar="GAME", help="the game (.kif, .json, .efg)")
    parser.add_argument(
        "out", metavar="OUT", type=output_file, help="the file to write; its suffix picks the format"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if Path(args.out).suffix.lower() not in WRITERS:
        print(
            f"gdl convert: {args.out}: unknown output format (gdl writes {', '.join(sorted(WRITERS))})",
            file=sys.stderr,
        )
        return 2
    game = load_extensive_game(args.game, "convert")
    if game is None:
        return 2
    try:
        write_extensive(game, args.out)
    except ExtensiveGameError as problem:  # the format cannot hold this game
        print(f"gdl convert: {args.out}: {problem}", file=sys.stderr)
        return 2
    except OSError as problem:
        print(f"gdl convert: cannot write {args.out}: {problem.strerror or problem}", file=sys.stderr)
        return 2
    nodes = counted(sum(game.sizes.values()), "node")
    infosets = counted(len(game.infosets), "information set")
    print(f"{args.out}: written ({nodes}, {infosets})")
    return 0
