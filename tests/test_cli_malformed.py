"""Malformed input never makes ``gdl`` print a traceback: each command says what is wrong, with a
position where there is one, and exits 0 (fine), 1 (the game or result is bad) or 2 (unusable input).

The sweep script ``tests/tools/cli_sweep.py`` runs the same inputs (and the corpus) in subprocesses.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.malformed import TICTACTOE, malformed_contents, malformed_paths

from gdl.cli import main

UNREADABLE = {"binary": "not UTF-8 text", "latin1": "not UTF-8 text", "directory": "is a directory",
              "missing": "no such file"}
#: Syntax errors, with the line and column of the offending parenthesis, counted by hand (the reader
#: nests up to 1000 lists).
POSITIONED = {"unbalanced_open": (2, 1), "unbalanced_close": (1, 9), "deep_unclosed": (1, 1001)}
#: Tic-tac-toe written with other line ends, a byte order mark or a final comment: nothing to report.
CLEAN = ("crlf", "bom", "comment_at_eof")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return malformed_paths(tmp_path_factory.mktemp("malformed"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))  # an exception here is the bug this module guards against
    captured = capsys.readouterr()
    assert status in (0, 1, 2)
    return status, captured.out, captured.err


@pytest.mark.parametrize("name", [*malformed_contents(), "directory", "missing"])
def test_check_explains_every_malformed_input(
    name: str, inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(inputs[name])
    status, out, err = run(capsys, "check", path)
    if name in UNREADABLE:
        assert status == 2 and err.startswith(f"gdl check: {path}: {UNREADABLE[name]}")
        assert err.count("\n") == 1
    elif name in CLEAN:
        assert status == 0 and out.endswith("0 error(s), 0 warning(s)\n")
    elif name in POSITIONED:
        line, column = POSITIONED[name]
        assert status == 1 and f"{path}:{line}:{column}: error:" in out
    for diagnostic in re.findall(r"^.*: error: .*$", out, re.MULTILINE):
        assert diagnostic.startswith(path)


@pytest.mark.parametrize("name", ["huge_number", "huge_goal", "deep_nesting", "bom", "binary", "missing"])
@pytest.mark.parametrize("command", [
    ["play", "--engine", "datalog", "-q", "--max-steps", "20", "--seed", "1"],
    ["solve", "--engine", "datalog", "--max-states", "300"],
    ["check", "--dynamic", "--max-states", "300", "--time-limit", "2"],
])
def test_reasoning_commands_survive_malformed_input(
    name: str, command: list[str], inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, *command, str(inputs[name]))
    if status == 2:
        assert err.strip(), "exit status 2 without a reason"
    assert "Traceback" not in out + err and "Exceeds the limit" not in out + err


def test_a_goal_value_too_long_for_int_is_reported_as_a_bad_goal(
    inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "solve", "--engine", "datalog", str(inputs["huge_goal"]))
    assert status == 1 and "is not in 0..100" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["serve", "--port", "99999"], "argument --port: a port is from 0 to 65535, got 99999"),
    (["play", "GAME", "--max-steps", "-1"], "argument --max-steps: must be at least 1, got -1"),
    (["tournament", "GAME", "-p", "random", "-p", "random", "-j", "0"], "--jobs/-j: must be at least 1"),
    (["tournament", "BINARY", "-p", "random", "-p", "random"], "binary.kif: not UTF-8 text (byte 128)"),
    (["play", "GAME", "-q", "-o", "MISSING/match.json"], "cannot write"),
    (["tournament", "GAME", "-p", "random", "-p", "random", "--cluster", "dask"], "unknown cluster 'dask'"),
    (["check", "GAME", "--cluster", "ray"], "gdl check: --cluster and --jobs apply to --dynamic"),
    (["solve", "GAME", "--method", "cfr"], "gdl solve: --method applies to extensive-form games"),
])
def test_bad_options_and_outputs_are_one_line_errors(
    argv: list[str], message: str, inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    names = {"GAME": str(inputs["crlf"]), "BINARY": str(inputs["binary"]), "MISSING": str(inputs["missing"])}
    argv = [names.get(arg, arg).replace("MISSING", names["MISSING"]) for arg in argv]
    try:
        status = main(argv)
    except SystemExit as exit:  # argparse's way out, with its usage and a one-line error
        status = int(exit.code or 0)
    err = capsys.readouterr().err
    assert status == 2 and message in err.splitlines()[-1] and "Traceback" not in err


def test_an_internal_error_is_one_line_with_its_own_exit_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*_: object, **__: object) -> None:
        raise KeyError("lost")

    monkeypatch.setattr("gdl.cli.solve.solve", broken)
    monkeypatch.delenv("GDL_TRACEBACK", raising=False)
    assert main(["solve", str(TICTACTOE)]) == 3
    err = capsys.readouterr().err
    assert err.startswith("gdl solve: internal error: KeyError: 'lost' (at ") and err.count("\n") == 1
    monkeypatch.setenv("GDL_TRACEBACK", "1")
    with pytest.raises(KeyError):
        main(["solve", str(TICTACTOE)])
