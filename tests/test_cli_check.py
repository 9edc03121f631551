"""``gdl check``: exit statuses, the text and JSON reports, and the README's example."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest
from support.check import GAME

from gdl.cli import main

ROOT = Path(__file__).resolve().parent.parent
BROKEN = "tests/checking/broken_buttons.kif"
_KEYS = {"file", "line", "column", "end_line", "end_column", "level", "code", "message", "notes"}


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_valid_game_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", _write(tmp_path, "ok.kif", GAME)]) == 0
    assert capsys.readouterr().out == "1 file(s) checked: 0 error(s), 0 warning(s)\n"


def test_warnings_alone_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "warn.kif", GAME + "(spare 1)\n")
    assert main(["check", path]) == 0
    expected = f"{path}:7:1: warning: relation 'spare' is defined but never used [unused-relation]"
    assert expected in capsys.readouterr().out


def test_errors_exit_1_with_compiler_style_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "bad.kif", GAME + "(<= (legal ?r stay) (true p))\n")
    assert main(["check", path]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{path}:7:12: error: unsafe variable '?r' in a rule for 'legal' [unsafe-variable]"
    assert lines[1].startswith(f"{path}:7:12: note: '?r' occurs in the head")
    assert lines[-1] == "1 file(s) checked: 1 error(s), 0 warning(s)"


@pytest.mark.parametrize("problem", ["missing", "directory", "latin-1"])
def test_unreadable_files_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], problem: str) -> None:
    path = tmp_path / "game.kif"
    if problem == "directory":
        path.mkdir()
    elif problem == "latin-1":
        path.write_bytes("(role jos\u00e9)".encode("latin-1"))
    assert main(["check", str(path)]) == 2
    assert capsys.readouterr().err.startswith(f"gdl check: {path}: ")


def test_an_unreadable_file_wins_over_errors(tmp_path: Path) -> None:
    assert main(["check", _write(tmp_path, "bad.kif", "(role"), str(tmp_path / "missing.kif")]) == 2


def test_no_file_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["check"])
    assert stopped.value.code == 2


def test_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = GAME + "(<= (legal robot stay) (true p) (not (cell ?x)))\n(cell 1)\n"
    path = _write(tmp_path, "bad.kif", text)
    assert main(["check", "--json", path]) == 1
    (item,) = json.loads(capsys.readouterr().out)
    assert set(item) == _KEYS
    assert item["file"] == path and item["level"] == "error" and item["code"] == "unsafe-variable"
    offset = text.index("?x")
    line = text.count("\n", 0, offset) + 1
    column = offset - text.rindex("\n", 0, offset)
    where = (item["line"], item["column"], item["end_line"], item["end_column"])
    assert where == (line, column, line, column + 2)
    assert isinstance(item["notes"], list) and "'?x'" in item["notes"][0]


def test_json_of_several_files_is_one_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = [_write(tmp_path, "a.kif", "(role"), _write(tmp_path, "b.kif", "")]
    assert main(["check", "--json", *paths]) == 1
    reported = json.loads(capsys.readouterr().out)
    assert {item["file"] for item in reported} == set(paths)
    assert [item["code"] for item in reported if item["file"] == paths[1]] == ["missing-keyword"] * 4


def test_our_own_games_check_cleanly(capsys: pytest.CaptureFixture[str]) -> None:
    games = sorted(str(path) for path in (ROOT / "games").glob("*.kif"))
    assert games and main(["check", *games]) == 0


def test_readme_shows_the_real_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.search(rf"\$ gdl check {re.escape(BROKEN)}\n(.*?)```", readme, re.DOTALL)
    assert shown is not None
    monkeypatch.chdir(ROOT)
    assert main(["check", BROKEN]) == 1
    assert capsys.readouterr().out == shown.group(1)


def test_an_unreadable_file_is_counted_and_listed_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "nosuch.kif", "games/nim.kif"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("gdl check: nosuch.kif: no such file")
    assert captured.out.splitlines()[-1] == "2 file(s) checked (1 unreadable): 0 error(s), 0 warning(s)"
    assert main(["check", "--json", "nosuch.kif", "games/nim.kif"]) == 2
    listed = json.loads(capsys.readouterr().out)
    assert [(d["file"], d["code"], d["message"]) for d in listed] == [
        ("nosuch.kif", "unreadable-file", "no such file")
    ]


def test_the_lark_reader_checks_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    broken = "tests/checking/broken_buttons.kif"
    assert main(["check", broken]) == 1
    fast = capsys.readouterr().out
    assert main(["check", "--reader", "lark", broken]) == 1
    assert capsys.readouterr().out == fast


@pytest.mark.parametrize("option", [["--require", "all"], ["--max-states", "5"]])
def test_dynamic_options_without_dynamic_are_refused(
    option: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(ROOT / "games/nim.kif"), *option]) == 2
    assert f"gdl check: {option[0]} applies to --dynamic" in capsys.readouterr().err


def test_standard_input_is_checked_as_dash(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("(role p) (<= (legal p ?m))"))
    assert main(["check", "-"]) == 1
    assert "<stdin>:1:" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO((ROOT / "games/nim.kif").read_text()))
    assert main(["check", "-", "--json"]) == 0 and json.loads(capsys.readouterr().out) == []


def test_a_folder_is_checked_file_by_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "good.kif").write_text((ROOT / "games/nim.kif").read_text())
    (tmp_path / "sub" / "bad.gdl").write_text("(role p) (<= (legal p ?m))")
    (tmp_path / "notes.txt").write_text("not a game")
    assert main(["check", str(tmp_path), "--json"]) == 1
    files = {d["file"] for d in json.loads(capsys.readouterr().out)}
    assert files == {str(tmp_path / "sub" / "bad.gdl")}
    assert main(["check", str(tmp_path)]) == 1
    assert capsys.readouterr().out.splitlines()[-1].startswith("2 file(s) checked: ")
