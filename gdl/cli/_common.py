"""What several subcommands share: loading a game with errors reported as messages, not tracebacks."""

from __future__ import annotations

import argparse
import sys

import gdl
from gdl.errors import InvalidGameError


def load_game(path: str, engine: str, command: str) -> gdl.Game | None:
    """The game in ``path``, or None after printing why it cannot be loaded (prefixed by ``command``)."""
    try:
        return gdl.load(path, engine=engine)
    except InvalidGameError as problem:
        for diagnostic in problem.diagnostics:
            print(diagnostic.format(), file=sys.stderr)
        print(f"gdl {command}: {path}: the game has errors (see `gdl check {path}`)", file=sys.stderr)
    except FileNotFoundError:
        print(f"gdl {command}: {path}: no such file", file=sys.stderr)
    except IsADirectoryError:
        print(f"gdl {command}: {path}: is a directory", file=sys.stderr)
    except UnicodeDecodeError as problem:
        print(f"gdl {command}: {path}: not UTF-8 text (byte {problem.start})", file=sys.stderr)
    except OSError as problem:
        print(f"gdl {command}: {path}: {problem.strerror}", file=sys.stderr)
    except ValueError as problem:
        print(f"gdl {command}: {path}: {problem}", file=sys.stderr)
    return None


def add_engine_option(parser: argparse.ArgumentParser) -> None:
    """The ``--engine`` option of commands that reason about a game."""
    parser.add_argument(
        "--engine", default="auto", help="reasoning engine (default: auto, the best available)"
    )
