"""One vocabulary of options across every ``gdl`` command, ``--help`` worth reading, and exit statuses
that keep the README's promise (0 fine, 1 a bad result, 2 unusable input or command line).

Every option a command shows is either in :data:`SHARED` (the vocabulary, with one meaning: the same
argparse type and default wherever it appears) or in that command's :data:`OWN` options. Old
spellings are hidden from ``--help`` and still work for one release, saying they are deprecated.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gdl import __version__
from gdl.cli import COMMANDS, build_parser, main
from gdl.cli._common import (
    OLD_SPELLINGS,
    PLAY_CLOCK,
    START_CLOCK,
    output_file,
    port_number,
    positive_int,
    positive_seconds,
    time_limit,
)

ROOT = Path(__file__).resolve().parent.parent
NIM = str(ROOT / "games/nim.kif")
TICTACTOE = str(ROOT / "games/tictactoe.kif")
KUHN = str(ROOT / "games/kuhn.efg")
MAZE = str(ROOT / "games/bandits/example.txt")

ANY = object()
#: The shared vocabulary: option strings -> (argparse type, default); ANY where commands differ.
SHARED: dict[tuple[str, ...], tuple[Any, Any]] = {
    ("-h", "--help"): (None, ANY),
    ("--json",): (None, False),
    ("-o", "--output"): (output_file, None),
    ("--time-limit",): (time_limit, ANY),
    ("--start-clock",): (positive_seconds, START_CLOCK),
    ("--play-clock",): (positive_seconds, PLAY_CLOCK),
    ("--engine",): (None, "auto"),
    ("--seed",): (int, ANY),
    ("--max-steps",): (positive_int, ANY),
    ("--max-states",): (positive_int, ANY),
    ("-p", "--player"): (None, ANY),
    ("-q", "--quiet"): (None, False),
    ("-v", "--verbose"): (None, False),
    ("-j", "--jobs"): (positive_int, None),
    ("--cluster",): (None, None),
    ("-n", "--matches"): (positive_int, ANY),
    ("--view",): (port_number, None),
    ("--in-process",): (None, False),
}
#: Each command's own options, beyond the shared ones.
OWN: dict[str, set[str]] = {
    "check": {"--dynamic", "--reader", "--require", "--graph"},
    "bench": {"--batch", "--per-playout"},
    "network": {"--table", "--dot", "--graphml", "--max-atoms", "--picture"},
    "solve": {"--method", "--iterations"},
    "convert": set(),
    "play": {"--reveal"},
    "host": {"--grace", "--reveal"},
    "serve": {"--port", "--host", "--name", "--margin", "--capacity", "--threads", "--cors", "--memory"},
    "tournament": set(),
    "bandits": {"--lp", "--kif", "--max-nodes"},
    "view": {"--game", "--port"},
    "graph": {"--dot"},
}
#: Spellings that once were options and must not be offered any more (they may live on, hidden).
RETIRED = {"--seconds", "--budget", "--max-seconds", "--players", "--startclock", "--playclock"}


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _shown(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and a.help != argparse.SUPPRESS]


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as exit:  # argparse: --help, --version, or a usage error
        status = int(exit.code or 0)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    return status, captured.out, captured.err


def test_every_command_is_in_the_tables() -> None:
    assert set(_subparsers()) == set(COMMANDS) and set(COMMANDS) <= set(OWN)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_a_description_examples_and_only_the_vocabulary(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(capsys, [command, "--help"])
    assert status == 0
    description, _, examples = out.partition("\nexamples:\n")
    assert f"gdl {command}: " in description and examples.startswith(f"  gdl {command} ")
    assert "``" not in out and ":func:" not in out and ":class:" not in out  # no reST markup
    for action in _shown(_subparsers()[command]):
        names = tuple(sorted(action.option_strings))
        assert all(name in out for name in names)
        assert not set(names) & RETIRED, f"gdl {command} offers a retired spelling: {names}"
        shared = next((key for key in SHARED if set(key) == set(names)), None)
        if shared is None:
            assert set(names) <= OWN[command], f"gdl {command}: {names} is in no table"
            continue
        kind, default = SHARED[shared]
        assert action.type is kind, f"gdl {command} {names}: type {action.type}"
        if default is not ANY:
            assert action.default == default, f"gdl {command} {names}: default {action.default}"
    assert not any(name in OWN[command] for key in SHARED for name in key)


@pytest.mark.parametrize("command", COMMANDS)
def test_json_is_a_flag_everywhere(command: str) -> None:
    parser = _subparsers()[command]
    json_option = [a for a in _shown(parser) if "--json" in a.option_strings]
    if json_option:
        (action,) = json_option
        assert action.default is False and (action.nargs == 0 or action.const is True)


@pytest.mark.parametrize(
    "argv",
    [
        ["check", NIM, TICTACTOE],
        ["check", "--dynamic", "--max-states", "50", NIM],
        ["check", "--dynamic", "--max-states", "50", "--jobs", "1", NIM, TICTACTOE],
    ],
    ids=["static", "dynamic", "dynamic-jobs"],
)
def test_json_output_file_holds_what_json_prints(
    argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, printed, _ = _run(capsys, [*argv, "--json"])
    written = tmp_path / "out.json"
    assert _run(capsys, [*argv, "-o", str(written)])[0] == status
    assert _timeless(json.loads(written.read_text())) == _timeless(json.loads(printed))


def _timeless(data: Any) -> Any:
    """JSON without its ``seconds`` fields, which differ from run to run."""
    if isinstance(data, list):
        return [_timeless(item) for item in data]
    if isinstance(data, dict):
        return {key: _timeless(value) for key, value in data.items() if key != "seconds"}
    return data


def test_gdl_alone_prints_the_help_and_version_is_known(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, [])
    assert status == 0 and out.startswith("usage: gdl") and all(name in out for name in COMMANDS)
    status, out, _ = _run(capsys, ["--version"])
    assert status == 0 and out == f"gdl {__version__}\n"


#: The positional arguments each command needs, so that its options can be tried.
POSITIONALS: dict[str, list[str]] = {
    "check": [NIM], "bench": [NIM], "play": [NIM], "solve": [NIM], "convert": [KUHN, "kuhn.json"],
    "bandits": [MAZE], "tournament": [NIM], "serve": [], "host": [NIM], "network": [NIM],
    "view": ["record.json"], "graph": [NIM],
}
#: A value of each new spelling in the table of old ones, and what it parses to.
NEW_VALUES: dict[str, tuple[list[str], Any]] = {
    "--time-limit": (["5"], 5.0),
    "--start-clock": (["3"], 3.0),
    "--play-clock": (["2"], 2.0),
    "--player": (["random,mcts:iterations=5,c=1"], ["random", "mcts:iterations=5,c=1"]),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_takes_the_old_spellings_of_its_options(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = _subparsers()[command]
    options = {name: action for action in parser._actions for name in action.option_strings}
    assert set(POSITIONALS) == set(COMMANDS) and set(NEW_VALUES) == set(OLD_SPELLINGS.values())
    tried = 0
    for old, new in OLD_SPELLINGS.items():
        if new not in options:
            assert old not in options, f"gdl {command} takes {old} but not {new}"
            continue
        value, parsed = NEW_VALUES[new]
        if new == "--player" and not isinstance(options[new], argparse._AppendAction):
            value, parsed = ["mcts:iterations=5,c=1"], "mcts:iterations=5,c=1"  # serve: one player
        args = parser.parse_args([*POSITIONALS[command], old, *value])
        assert getattr(args, options[new].dest) == parsed, (command, old)
        assert f"{old} is deprecated and will be removed; use {new}" in capsys.readouterr().err
        assert old not in parser.format_help()
        tried += 1
    has = {new for new in NEW_VALUES if new in options}
    assert tried == sum(new in has for new in OLD_SPELLINGS.values())


#: Old spellings, still understood: (argv, destination, value).
DEPRECATED = [
    (["check", "--seconds", "5", NIM], "time_limit", 5.0),
    (["bench", "--seconds", "5", NIM], "time_limit", 5.0),
    (["solve", "--budget", "5", NIM], "time_limit", 5.0),
    (["network", "--max-seconds", "5", NIM], "time_limit", 5.0),
    (["host", NIM, "--startclock", "3"], "start_clock", 3.0),
    (["host", NIM, "--playclock", "2"], "play_clock", 2.0),
    (["tournament", NIM, "--players", "random,mcts:iterations=5,c=1", "legal"], "player",
     ["random", "mcts:iterations=5,c=1", "legal"]),
    (["play", NIM, "--players", "first=random,second=mcts:iterations=5,c=1"], "player",
     ["first=random", "second=mcts:iterations=5,c=1"]),
    (["check", "--budget", "5", NIM], "time_limit", 5.0),
    (["play", NIM, "--playclock", "2"], "play_clock", 2.0),
    (["play", NIM, "--json", "match.json"], "output", "match.json"),
    (["tournament", NIM, "--json", "t.json"], "output", "t.json"),
]


@pytest.mark.parametrize(("argv", "dest", "value"), DEPRECATED)
def test_old_spellings_work_and_say_they_are_deprecated(
    argv: list[str], dest: str, value: object, capsys: pytest.CaptureFixture[str]
) -> None:
    args = build_parser().parse_args(argv)
    assert getattr(args, dest) == value
    old = next(arg for arg in argv if arg.startswith("--"))
    if old == "--json":
        assert args.json is False
        old = "--json FILE"
    assert f"{old} is deprecated and will be removed; use -" in capsys.readouterr().err


Check = Callable[[str, str, Path], bool]


def _nothing(out: str, err: str, where: Path) -> bool:
    return True


#: Bad invocations: argv with {tmp} for a scratch folder, the exit
#: status, a text stderr must contain, and a further check of (stdout, stderr, scratch folder).
BAD: list[tuple[list[str], int, str, Check]] = [
    (["network", NIM, "--dot", "/nonexistent/x.dot"], 2, "cannot write '/nonexistent/x.dot'", _nothing),
    (["check", "--dynamic", "--engine", "foo", NIM], 2, "invalid choice: 'foo'", _nothing),
    (["check", "--engine", "foo", NIM], 2, "invalid choice: 'foo'", _nothing),
    (["check", "{tmp}/nosuch.kif"], 2, "nosuch.kif: no such file",
     lambda out, err, _: out.endswith("1 file(s) checked (1 unreadable): 0 error(s), 0 warning(s)\n")),
    (["check", "--json", "{tmp}/nosuch.kif", NIM], 2, "nosuch.kif: no such file",
     lambda out, err, _: [d["code"] for d in json.loads(out)] == ["unreadable-file"]),
    (["check", "--dynamic", "--max-states", "0", NIM], 2, "--max-states: must be at least 1", _nothing),
    (["check", "--dynamic", "--time-limit", "0", NIM], 2, "--time-limit: must be a positive", _nothing),
    (["solve", NIM, "--time-limit", "-1"], 2, "--time-limit: must be a positive number", _nothing),
    (["solve", NIM, "--budget", "nan"], 2, "must be a positive number of seconds", _nothing),
    (["solve", NIM, "-o", "{tmp}/no/x.json"], 2, "no folder", _nothing),
    (["solve", "{tmp}/nosuch.kif"], 2, "nosuch.kif: no such file", _nothing),
    (["bench", NIM, "--engine", "foo"], 2, "invalid choice: 'foo'", _nothing),
    (["bench", NIM, "--time-limit", "inf"], 2, "--time-limit must be a finite number", _nothing),
    (["bench", NIM, "-o", "{tmp}"], 2, "it is a folder", _nothing),
    (["network", NIM, "--max-atoms", "0"], 2, "--max-atoms: must be at least 1", _nothing),
    (["convert", KUHN, "{tmp}/no/kuhn.json"], 2, "no folder", _nothing),
    (["convert", KUHN, "{tmp}/kuhn.xyz"], 2, "unknown output format", _nothing),
    (["bandits", MAZE, "--lp", "{tmp}/no/x.lp"], 2, "no folder", _nothing),
    (["bandits", MAZE, "--max-nodes", "0"], 2, "--max-nodes: must be at least 1", _nothing),
    (["play", NIM, "-o", "/nonexistent/m.json"], 2, "cannot write '/nonexistent/m.json'", _nothing),
    (["play", NIM, "--json", "/nonexistent/m.json"], 2, "--json: cannot write", _nothing),
    (["host", NIM, "-p", "first=random", "-p", "second=random", "-o", "/nonexistent/m.json"], 2,
     "cannot write", _nothing),
    (["tournament", NIM, "-p", "random", "-p", "random", "--json", "/nonexistent/t.json"], 2,
     "cannot write", _nothing),
    (["tournament", NIM, "-p", "human", "-p", "random"], 2, "human", _nothing),
    (["tournament", NIM], 2, "no players: give a --player per role", _nothing),
    (["tournament", NIM, "-p", "random", "-p", "random", "-n", "0"], 2, "at least 1", _nothing),
    (["play", NIM, "--engine", "foo"], 2, "invalid choice: 'foo'", _nothing),
    (["play", NIM, "--play-clock", "0"], 2, "--play-clock: must be a positive", _nothing),
    (["host", NIM, "--start-clock", "-1"], 2, "--start-clock: must be a positive", _nothing),
    (["play", NIM, "-p", "alphazero"], 2, "unknown player kind: 'alphazero'", _nothing),
    (["serve", "--capacity", "0"], 2, "--capacity: must be at least 1", _nothing),
    (["play", NIM, "-p", "legal", "-p", "legal", "--json", "-o", "-"], 0, "",
     lambda out, err, where: not (where / "-").exists() and out.count('"isCompleted": true') == 1),
    (["play", NIM, "-p", "legal", "-p", "legal", "-o", "-"], 0, "",  # the JSON alone, not the text too
     lambda out, err, where: json.loads(out)["isCompleted"] is True),
    (["solve", NIM, "-o", "-"], 0, "", lambda out, err, where: json.loads(out)["solved"] is True),
    (["check", NIM, "-o", "-"], 0, "", lambda out, err, where: json.loads(out) == []),
    (["play", NIM, "-q", "-p", "legal", "-p", "legal", "--json", "-"], 0, "--json FILE is deprecated",
     lambda out, err, where: not (where / "-").exists() and '"isCompleted": true' in out),
    (["nosuchcommand"], 2, "invalid choice: 'nosuchcommand'", _nothing),
    (["solve", NIM, "--json", "-o", "-"], 0, "",
     lambda out, err, where: not (where / "-").exists() and out.count('"solved": true') == 1),
]


@pytest.mark.parametrize(("argv", "status", "message", "check"), BAD)
def test_bad_invocations_exit_with_a_reason(
    argv: list[str], status: int, message: str, check: Check, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # so that a file named "-" would land here
    real = [arg.replace("{tmp}", str(tmp_path)) for arg in argv]
    got, out, err = _run(capsys, real)
    assert got == status, err
    assert message in err
    if status == 2:
        assert err.strip(), "exit status 2 without a reason"
    assert check(out, err, tmp_path), (out, err)


BROKEN = str(ROOT / "tests/checking/broken_buttons.kif")

#: The same kind of failure, the same exit status in every command: (argv, status, text on stderr).
SAME_FAILURE: list[tuple[list[str], int, str]] = [
    *(([command, BROKEN], 2, "the game has errors") for command in ("bench", "network", "play", "solve")),
    (["tournament", BROKEN, "-p", "random", "-p", "random"], 2, "error"),
    (["host", BROKEN], 2, "the game has errors"),
    *(([command, *POSITIONALS[command], "--bogus"], 2, f"usage: gdl {command} ") for command in COMMANDS),
    (["solve", NIM, "--cluster", "ray:auto"], 2, "gdl solve: cannot start or join the Ray cluster"),
    (["check", "--dynamic", NIM, "--cluster", "ray:auto"], 2, "gdl check: cannot start or join"),
    (["tournament", NIM, "-p", "random", "-p", "random", "--cluster", "ray:auto"], 2,
     "gdl tournament: cannot start or join"),
    (["play", NIM, "-p", "mcts:c=-1"], 2, "mcts c must be at least 0, got -1"),
    (["tournament", NIM, "-p", "mcts:c=-1", "-p", "random"], 2, "mcts c must be at least 0"),
    (["serve", "-p", "hyperplay:c=-1"], 2, "hyperplay c must be at least 0"),
]


@pytest.mark.parametrize(("argv", "status", "message"), SAME_FAILURE)
def test_the_same_failure_has_the_same_status_everywhere(
    argv: list[str], status: int, message: str, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    got, _, err = _run(capsys, argv)
    assert got == status, err
    assert message in err


@pytest.mark.parametrize("command", ["play", "tournament", "host", "solve"])
def test_help_shows_json_as_a_flag_and_each_argument_once(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = _run(capsys, [command, "--help"])
    assert "--json []" not in out and "[--json ]" not in out and "[--json]" in out
    positionals = out.partition("positional arguments:\n")[2].partition("\n\n")[0]
    assert [line.split()[0] for line in positionals.splitlines() if line[2] != " "] == ["GAME"], out


def test_time_limit_inf_means_no_limit(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("check", "solve", "network"):
        args = build_parser().parse_args([command, NIM, "--time-limit", "inf"])
        assert args.time_limit == float("inf")
    status, out, _ = _run(capsys, ["solve", NIM, "--time-limit", "inf", "-q"])
    assert status == 0 and out.splitlines()[1] == "value: first 0, second 100"


def test_quiet_solve_shows_the_value_only(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, ["solve", NIM, "-q"])
    assert status == 0 and len(out.splitlines()) == 2 and "principal variation" not in out
    status, out, _ = _run(capsys, ["solve", KUHN, "-q"])
    assert status == 0 and "strategy of" not in out and "exploitability:" in out
    assert len(out.splitlines()) == 3
