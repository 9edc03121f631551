"""What several subcommands share: loading a game with errors reported as messages, not tracebacks."""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
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
from gdl.errors import InvalidGameError, PlayerSpecError, UnreadableFileError
from gdl.files import read_text_file
from gdl.players import PLAYER_KINDS
from gdl.players.registry import ROLE_PREFIX


def _process_age() -> float:
    """Seconds since this process started (Linux; elsewhere 0): importing gdl's modules takes a while
    on a busy machine, and a time limit counts it too."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat, open("/proc/uptime", encoding="ascii") as up:
            ticks = int(stat.read().rpartition(")")[2].split()[19])  # field 22: start time in clock ticks
            uptime = float(up.read().split()[0])
        return max(uptime - ticks / os.sysconf("SC_CLK_TCK"), 0.0)
    except (OSError, ValueError, IndexError):
        return 0.0


#: When the process started, on the :func:`time.monotonic` clock.
_PROCESS_STARTED = time.monotonic() - _process_age()
_commands_started: list[float] = []


def command_started(command: str) -> float:
    """When the command being run started, on the :func:`time.monotonic` clock, for ``--time-limit``
    to count from: the process's start when the process is this command (``gdl COMMAND ...``, its
    first command; starting counts too), else now (a program or a test running commands)."""
    alone = not _commands_started and sys.argv[1:2] == [command]
    _commands_started.append(_PROCESS_STARTED if alone else time.monotonic())
    return _commands_started[-1]


def time_left(limit: float, started: float) -> float:
    """Seconds left of a time limit counted from ``started`` (none left: 0)."""
    return max(limit - (time.monotonic() - started), 0.0)


def source_text(path: Path, formats: tuple[str, ...] = ("gdl",)) -> str | Diagnostic:
    """The text of a game file, or an error diagnostic (code ``unreadable-file``) saying why it cannot
    be read, or that it is in none of the ``formats`` (see :data:`FORMATS`) and which command reads it."""
    try:
        text = read_text_file(path)
    except UnreadableFileError as problem:
        return replace(error("unreadable-file", problem.reason), file=str(path))
    reason = format_problem(path, text, formats)
    return text if reason is None else replace(error("unreadable-file", reason), file=str(path))


#: The formats of game files: what each is, and the commands to name for it (the main ones that read it).
FORMATS: dict[str, tuple[str, tuple[str, ...]]] = {
    "gdl": ("a GDL game", ("check", "play", "solve")),
    "json": ("a game in the JSON format", ("solve", "convert")),
    "efg": ("a Gambit .efg game", ("solve", "convert")),
    "maze": ("a bandit-ambush maze", ("bandits",)),
}
#: The formats by what a file begins with (after white space), and by the file's suffix.
_FORMAT_STARTS = (("{", "json"), ("EFG ", "efg"), ("(", "gdl"), (";", "gdl"))
_FORMAT_SUFFIXES = {".json": "json", ".efg": "efg", ".kif": "gdl", ".gdl": "gdl"}
_MAZE_START = re.compile(r"\d+\s*\n\s*\d+\s*\n")


def file_format(path: Path, text: str) -> str:
    """The format of a game file (a key of :data:`FORMATS`): by how it begins, else by its suffix, else
    GDL (whose checks then say what is wrong)."""
    start = text.lstrip("\ufeff \t\r\n")
    for prefix, name in _FORMAT_STARTS:
        if start.startswith(prefix):
            return name
    if _MAZE_START.match(start):
        return "maze"
    return _FORMAT_SUFFIXES.get(path.suffix.lower(), "gdl")


def format_problem(path: Path, text: str, formats: tuple[str, ...]) -> str | None:
    """Why a file in none of ``formats`` cannot be used, naming the commands that read it; None if it is
    in one of them."""
    found = file_format(path, text)
    if found in formats:
        return None
    what, commands = FORMATS[found]
    wanted = [FORMATS[name][0] for name in formats]
    expected = ", ".join(wanted[:-1]) + " or " + wanted[-1] if len(wanted) > 1 else wanted[0]
    readers = ", ".join(f"gdl {command}" for command in commands[:-1])
    readers = f"{readers} or gdl {commands[-1]}" if readers else f"gdl {commands[-1]}"
    return f"this is {what}, not {expected}: {readers} reads it"


def read_source(path: Path, command: str, formats: tuple[str, ...] = ("gdl",)) -> str | None:
    """The text of a game file in one of ``formats``, or None after telling on stderr why it cannot be
    used."""
    text = source_text(path, formats)
    if isinstance(text, Diagnostic):
        print(f"gdl {command}: {path}: {text.message}", file=sys.stderr)
        return None
    return text


def checked_program(path: Path, command: str) -> CheckedProgram | int:
    """The checked program of a game file, or the exit status 2 (unusable input) after saying on
    stderr why there is none: the file cannot be read or the game has errors."""
    text = read_source(path, command)
    if text is None:
        return 2
    result = check_text(text, str(path))
    if result.checked is None:
        for diagnostic in result.diagnostics:
            print(diagnostic.format(), file=sys.stderr)
        print(f"gdl {command}: {path}: the game has errors (see `gdl check {path}`)", file=sys.stderr)
        return 2
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


def add_in_process(parser: argparse.ArgumentParser) -> None:
    """The ``--in-process`` option of commands that play matches: programs playing a GDL-II game run in
    gdl's own process instead of each in a process of its own."""
    parser.add_argument(
        "--in-process", action="store_true",
        help="GDL-II: play the programs in gdl's own process (faster; unsafe with programs that are not "
        "trusted, which could read the hidden state there)",
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
        formatter_class=_HelpFormatter,
    )


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The description and examples as written; ``--json`` shown as the flag it is, though it still
    takes the old ``--json FILE`` (argparse would show ``--json []``)."""

    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, [_as_flag(action) for action in actions], groups, prefix)

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(_as_flag(action))


def _as_flag(action: argparse.Action) -> argparse.Action:
    if not isinstance(action, _JsonOrOldFile):
        return action
    shown = copy.copy(action)
    shown.nargs = 0
    return shown


#: Old spellings of options, kept for one release in every command that has the new spelling: old
#: spelling -> new one. They are hidden from ``--help`` and say what replaces them when used.
OLD_SPELLINGS = {
    "--seconds": "--time-limit",
    "--budget": "--time-limit",
    "--max-seconds": "--time-limit",
    "--startclock": "--start-clock",
    "--playclock": "--play-clock",
    "--players": "--player",
}


def add_old_spellings(parser: argparse.ArgumentParser) -> None:
    """Give ``parser`` the :data:`OLD_SPELLINGS` of the options it has (``--players A,B ...``: one
    ``--player`` per player)."""
    options = {name: action for action in parser._actions for name in action.option_strings}
    for old, new in OLD_SPELLINGS.items():
        action = options.get(new)
        if action is None or old in options:
            continue
        if new == "--player":
            many = isinstance(action, argparse._AppendAction)
            deprecated(
                parser, old, "--player (once per player)" if many else new, action.dest, nargs="+",
                convert=split_players if many else _one_player,
            )
        else:
            deprecated(parser, old, new, action.dest, type=action.type)


def split_players(texts: list[str]) -> list[str]:
    """Player descriptions from comma-separated texts; ``option=value`` items join the player before
    (``ROLE=KIND`` items start a player)."""
    specs: list[str] = []
    for text in texts:
        for item in filter(None, (part.strip() for part in text.split(","))):
            role = ROLE_PREFIX.match(item)
            if role is None or _names_a_player(role.group(2)):
                specs.append(item)
            elif not specs:
                raise PlayerSpecError(f"option {item!r} comes before any player kind")
            else:
                specs[-1] += "," + item
    return specs


def _names_a_player(text: str) -> bool:
    """Whether ``text`` (what follows ``NAME=``) is a player kind or a player server's URL."""
    kind = text.strip().partition(":")[0].lower()
    return kind in PLAYER_KINDS or kind in ("http", "https")


def _one_player(texts: list[str]) -> str:
    specs = split_players(texts)
    if len(specs) != 1:
        raise PlayerSpecError(f"one player is served, got {len(specs)}: {', '.join(specs)}")
    return specs[0]


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
        try:
            setattr(namespace, self.dest, self.convert(values) if self.convert else values)
        except ValueError as problem:
            parser.error(f"argument {option_string}: {problem}")


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


def add_time_limit(parser: argparse.ArgumentParser, default: float | None, what: str) -> None:
    """``--time-limit SECONDS``, the one name of every time budget (``inf``: none)."""
    shown = f" (default {default:g}; inf for none)" if default is not None else " (inf for none)"
    parser.add_argument(
        "--time-limit", type=time_limit, default=default, metavar="SECONDS", help=f"{what}{shown}"
    )


#: The clocks of a match when none is given, the same in every command (seconds).
START_CLOCK = 10.0
PLAY_CLOCK = 5.0


def add_clocks(parser: argparse.ArgumentParser) -> None:
    """``--start-clock`` and ``--play-clock``, with one default everywhere."""
    parser.add_argument(
        "--start-clock", type=positive_seconds, default=START_CLOCK, metavar="SECONDS",
        help=f"seconds each player may take to prepare (default {START_CLOCK:g})",
    )
    parser.add_argument(
        "--play-clock", type=positive_seconds, default=PLAY_CLOCK, metavar="SECONDS",
        help=f"seconds per move (default {PLAY_CLOCK:g})",
    )


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


def time_limit(text: str) -> float:
    """An argparse type: a positive number of seconds, or ``inf`` for no limit."""
    if text.strip().lower() in ("inf", "infinity"):
        return float("inf")
    return positive_seconds(text)


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


def plural(count: int, one: str, many: str | None = None) -> str:
    """``one`` or ``many`` (default: ``one`` + s) as ``count`` asks."""
    return one if count == 1 else many or one + "s"


def counted(count: int, one: str, many: str | None = None) -> str:
    """``count`` and the noun it asks for: ``1 node``, ``2 nodes``."""
    return f"{count} {plural(count, one, many)}"
