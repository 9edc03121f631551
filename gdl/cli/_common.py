"""What several subcommands share: loading a game with errors reported as messages, not tracebacks."""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import gdl
from gdl.check import CheckedProgram, check_text
from gdl.diagnostics import Diagnostic, error
from gdl.engines import AUTO_MAX_ATOMS, AUTO_MAX_SECONDS, ENGINES
from gdl.errors import InvalidGameError


def source_text(path: Path) -> str | Diagnostic:
    """The text of a game file, or an error diagnostic (code ``unreadable-file``) saying why it cannot
    be read."""
    try:
        return path.read_text(encoding="utf-8")
    except IsADirectoryError:
        reason = "is a directory"
    except FileNotFoundError:
        reason = "no such file"
    except UnicodeDecodeError as problem:
        reason = f"not UTF-8 text (byte {problem.start})"
    except OSError as problem:
        reason = problem.strerror or type(problem).__name__
    return replace(error("unreadable-file", reason), file=str(path))


def read_source(path: Path, command: str) -> str | None:
    """The text of a game file, or None after telling on stderr why it cannot be read."""
    text = source_text(path)
    if isinstance(text, Diagnostic):
        print(f"gdl {command}: {path}: {text.message}", file=sys.stderr)
        return None
    return text


def checked_program(path: Path, command: str) -> CheckedProgram | int:
    """The checked program of a game file, or the exit status after saying on stderr why there is
    none: 2 when the file cannot be read, 1 when the game has errors."""
    text = read_source(path, command)
    if text is None:
        return 2
    result = check_text(text, str(path))
    if result.checked is None:
        for diagnostic in result.diagnostics:
            print(diagnostic.format(), file=sys.stderr)
        return 1
    return result.checked


#: Seconds of loading after which a command says what it is doing.
SLOW_LOAD = 2.0


def load_game(path: str, engine: str, command: str) -> gdl.Game | None:
    """The game in ``path``, or None after printing why it cannot be loaded (prefixed by ``command``).
    A load that takes more than :data:`SLOW_LOAD` seconds (a large game being grounded and compiled)
    says so on stderr, and how long it took in the end."""
    text = read_source(Path(path), command)
    if text is None:
        return None
    started = time.monotonic()
    said: list[bool] = []
    note = threading.Timer(SLOW_LOAD, _say_loading, (path, engine, command, said))
    note.daemon = True
    note.start()
    try:
        game = gdl.parse(text, engine=engine, file=path)
    except InvalidGameError as problem:
        for diagnostic in problem.diagnostics:
            print(diagnostic.format(), file=sys.stderr)
        print(f"gdl {command}: {path}: the game has errors (see `gdl check {path}`)", file=sys.stderr)
        return None
    except ValueError as problem:
        print(f"gdl {command}: {path}: {problem}", file=sys.stderr)
        return None
    finally:
        note.cancel()
    if said:
        engine_used = type(game.reasoner).__name__.removesuffix("Reasoner").lower()
        print(
            f"gdl {command}: loaded {path} in {time.monotonic() - started:.1f} s ({engine_used} engine)",
            file=sys.stderr,
        )
    return game


def _say_loading(path: str, engine: str, command: str, said: list[bool]) -> None:
    doing = {
        "auto": "building the compiled engine (the Datalog evaluator if that would take more than "
        f"{AUTO_MAX_SECONDS:g} CPU-s in all or {AUTO_MAX_ATOMS} ground atoms)",
        "compiled": "grounding and compiling them",
    }.get(engine, "preparing the Datalog evaluator")
    print(f"gdl {command}: loading {path}: checking the rules, {doing}...", file=sys.stderr, flush=True)
    said.append(True)


def add_engine_option(parser: argparse.ArgumentParser, *extra: str) -> None:
    """The ``--engine`` option of commands that reason about a game (``extra``: engines only this
    command knows, such as bench's ``batched``)."""
    choices = (*ENGINES, *extra)
    parser.add_argument(
        "--engine", default="auto", choices=choices, metavar="ENGINE",
        help=f"reasoning engine: {', '.join(choices)} (default: auto, the fastest that loads the game)",
    )


def output_file(text: str) -> str:
    """An argparse type: a file to write, refused at once (not after the work) when its folder is
    missing or not writable; ``-`` is standard output."""
    if text == "-":
        return text
    folder = Path(text).parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: no folder {str(folder)!r}")
    if Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: it is a folder")
    if not os.access(folder, os.W_OK):
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: folder {str(folder)!r} is not writable")
    return text


def add_cluster_options(parser: argparse.ArgumentParser, jobs_help: str) -> None:
    """The ``--cluster`` and ``--jobs`` options of commands that run many tasks (see :mod:`gdl.backend`)."""
    parser.add_argument(
        "--cluster", metavar="ray[:ADDRESS]",
        help="run the tasks on a Ray cluster: one started here, or the running one at ADDRESS "
        "(ray:auto for this machine's; see docs/cluster.md)",
    )
    parser.add_argument(
        "--jobs", "-j", type=positive_int, metavar="N",
        help=f"{jobs_help} (default: one per CPU); with --cluster ray, the CPUs of the cluster started",
    )


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (argparse reports anything else in one line)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 to 65535 (0 lets the system pick a free one)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is from 0 to 65535, got {value}")
    return value


def write_text(path: str, text: str, command: str) -> bool:
    """Write ``text`` to ``path`` (``-``: standard output) and say so on stderr; False after saying on
    stderr why the file cannot be written."""
    if path == "-":
        sys.stdout.write(text)
        return True
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as problem:
        print(f"gdl {command}: cannot write {path}: {problem.strerror or problem}", file=sys.stderr)
        return False
    print(f"wrote {path}", file=sys.stderr)
    return True


def write_json(path: str, data: Any, command: str) -> bool:
    """Save ``data`` as indented JSON (``-``: standard output); False after saying why it cannot."""
    return write_text(path, json.dumps(data, indent=2) + "\n", command)


# -- the shared vocabulary of options ----------------------------------------------------------------


def add_command(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    summary: str,
    description: str,
    examples: list[str],
) -> argparse.ArgumentParser:
    """A subcommand's parser with its one-line summary (``gdl --help``), a description and examples
    (``gdl NAME --help``), written as plain text."""
    shown = "\n".join(f"  {example}" for example in examples)
    return subparsers.add_parser(
        name,
        help=summary,
        description=f"gdl {name}: {summary}.\n\n{description.strip()}",
        epilog=f"examples:\n{shown}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


class DeprecatedAlias(argparse.Action):
    """An old spelling of an option, kept for one release: it does what the new one does and says so on
    stderr. The new spelling is ``replacement``; ``convert`` turns the old value into the new one."""

    def __init__(self, option_strings: list[str], dest: str, replacement: str = "", **kwargs: Any) -> None:
        self.replacement = replacement
        self.convert = kwargs.pop("convert", None)
        super().__init__(option_strings, dest, help=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(
            f"{parser.prog}: {option_string} is deprecated and will be removed; use {self.replacement}",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, self.convert(values) if self.convert else values)


def deprecated(parser: argparse.ArgumentParser, old: str, new: str, dest: str, **kwargs: Any) -> None:
    """Accept ``old`` as a hidden, deprecated spelling of ``new`` (same destination)."""
    parser.add_argument(old, dest=dest, action=DeprecatedAlias, replacement=new, **kwargs)


def add_json_options(
    parser: argparse.ArgumentParser, result: str, output: bool = True, file_was_json: bool = False
) -> None:
    """``--json`` (the result as JSON on stdout instead of text) and, with ``output``, ``-o/--output
    FILE`` (the result as JSON in FILE too; ``-`` is stdout), the same in every command; ``result``
    names what is written. ``file_was_json``: the command used to take ``--json FILE`` for ``-o FILE``,
    still accepted for one release with a deprecation note."""
    if file_was_json:
        parser.add_argument(
            "--json", nargs="?", const=True, default=False, action=_JsonOrOldFile, metavar="",
            help=f"print {result} as JSON instead of text",
        )
    else:
        parser.add_argument("--json", action="store_true", help=f"print {result} as JSON instead of text")
    if output:
        parser.add_argument(
            "-o", "--output", type=output_file, metavar="FILE",
            help=f"also write {result} as JSON to FILE (- for standard output)",
        )


class _JsonOrOldFile(argparse.Action):
    """``--json`` as a flag; ``--json FILE``, the old spelling of ``-o FILE``, with a deprecation note."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if values is True:
            namespace.json = True
            return
        print(f"{parser.prog}: --json FILE is deprecated and will be removed; use -o FILE", file=sys.stderr)
        try:
            namespace.output = output_file(values)
        except argparse.ArgumentTypeError as problem:
            parser.error(f"argument --json: {problem}")


def add_time_limit(parser: argparse.ArgumentParser, default: float | None, what: str, *old: str) -> None:
    """``--time-limit SECONDS``, the one name of every time budget (old names kept as deprecated)."""
    shown = f" (default {default:g})" if default is not None else ""
    parser.add_argument(
        "--time-limit", type=positive_seconds, default=default, metavar="SECONDS", help=f"{what}{shown}"
    )
    for name in old:
        deprecated(parser, name, "--time-limit", "time_limit", type=positive_seconds)


#: The clocks of a match when none is given, the same in every command (seconds).
START_CLOCK = 10.0
PLAY_CLOCK = 5.0


def add_clocks(parser: argparse.ArgumentParser, *old: str) -> None:
    """``--start-clock`` and ``--play-clock``, with one default everywhere; ``old``: the command's old
    spellings of both, in that order, kept as deprecated."""
    parser.add_argument(
        "--start-clock", type=positive_seconds, default=START_CLOCK, metavar="SECONDS",
        help=f"seconds each player may take to prepare (default {START_CLOCK:g})",
    )
    parser.add_argument(
        "--play-clock", type=positive_seconds, default=PLAY_CLOCK, metavar="SECONDS",
        help=f"seconds per move (default {PLAY_CLOCK:g})",
    )
    for name, new in zip(old, ("--start-clock", "--play-clock"), strict=False):
        deprecated(parser, name, new, new[2:].replace("-", "_"), type=positive_seconds)


#: Steps after which a match that has not ended is aborted, unless ``--max-steps`` says otherwise.
MAX_STEPS = 1000


def add_max_steps(parser: argparse.ArgumentParser) -> None:
    """``--max-steps N``: a match that has not ended after N steps is aborted (a game may never end)."""
    parser.add_argument(
        "--max-steps", type=positive_int, default=MAX_STEPS, metavar="N",
        help=f"abort the match after N steps without a terminal state (default {MAX_STEPS})",
    )


def positive_seconds(text: str) -> float:
    """An argparse type: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def emit_json(args: argparse.Namespace, data: Any, command: str) -> bool:
    """Print ``data`` as JSON when ``--json`` asks for it and write it to ``-o FILE`` when given; False
    after saying why the file cannot be written. ``data`` may be a function making it, called only
    when it is asked for."""
    if not args.json and args.output is None:
        return True
    if callable(data):
        data = data()
    if args.json:
        print(json.dumps(data, indent=2))
    if args.output is not None:
        return write_json(args.output, data, command)
    return True
