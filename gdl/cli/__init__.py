"""The ``gdl`` command line. Each subcommand lives in its own module of this package.

A command module defines ``register(subparsers)``, which adds its parser and sets ``run`` (a function
from the parsed arguments to an exit status) as the parser's default.

Exit statuses: 0 success, 1 a bad result (errors found, match aborted, not solved), 2 unusable input
or command line, 3 an internal error (a bug of gdl: one line, the traceback with
``GDL_TRACEBACK=1``), 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import os
import resource
import sys
import traceback
from collections.abc import Sequence

from gdl import __version__
from gdl.cli._common import add_old_spellings
from gdl.errors import ClusterError, PlayerSpecError, WorkerStartError
from gdl.memory import memory_limit

#: Subcommand modules, in the order ``gdl --help`` lists them.
COMMANDS = ("check", "bench", "play", "solve", "convert", "bandits", "tournament", "serve", "host", "network",
            "view", "graph")


#: Commands whose own process works on the rules of a file, and so runs under an address-space limit when
#: started as ``gdl``: rules can be built to take all the memory there is. (The server, ``host`` and
#: ``tournament`` run such work in worker processes with limits of their own; a Ray cluster manages its
#: own memory.)
BOUNDED_COMMANDS = ("check", "bench", "play", "solve", "convert", "bandits", "network", "view", "graph")


def console() -> int:
    """The ``gdl`` command: :func:`main`, with the process of a bounded command (see
    :data:`BOUNDED_COMMANDS`) limited to :func:`memory_limit`, so that rules built to explode end in a
    clear error rather than in the whole machine's memory."""
    argv = sys.argv[1:]
    command = next((word for word in argv if not word.startswith("-")), None)
    if command in BOUNDED_COMMANDS and not any(word.startswith("--cluster") for word in argv):
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = memory_limit() if hard == resource.RLIM_INFINITY else min(memory_limit(), hard)
        if soft == resource.RLIM_INFINITY or soft > limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return main()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gdl", description="Check, reason about, play and solve GDL games.",
        epilog="`gdl COMMAND --help` describes a command, with examples.",
    )
    parser.add_argument("--version", action="version", version=f"gdl {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"gdl.cli.{name}").register(subparsers)
    for command in _subparsers(parser).values():
        add_old_spellings(command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if args.command is None:  # `gdl` alone: what it can do, as git does
        if unknown:
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        parser.print_help()
        return 0
    if unknown:  # the command's usage, not gdl's
        _subparsers(parser)[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    if getattr(args, "output", None) == "-":  # the JSON on standard output, and nothing else there
        args.json, args.output = True, None
    try:
        status: int = args.run(args)
    except (ClusterError, PlayerSpecError, WorkerStartError) as problem:  # found as the work starts
        print(f"gdl {args.command}: {problem}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except MemoryError:
        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        said = f" (its limit is {limit >> 20} MB: GDL_MEMORY_MB sets it)"
        shown = "" if limit == resource.RLIM_INFINITY else said
        print(f"gdl {args.command}: the work ran out of memory{shown}", file=sys.stderr)
        return 1
    except Exception as problem:  # a bug, not the user's input: say so in one line, not a traceback
        if os.environ.get("GDL_TRACEBACK"):
            raise
        where = traceback.extract_tb(problem.__traceback__)[-1]
        print(
            f"gdl {args.command}: internal error: {type(problem).__name__}: {problem} "
            f"(at {where.filename}:{where.lineno}; GDL_TRACEBACK=1 shows the traceback)",
            file=sys.stderr,
        )
        return 3
    return status


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


if __name__ == "__main__":
    sys.exit(main())
