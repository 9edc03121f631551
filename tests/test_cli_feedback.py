"""Long work is never silent: a slow load says what it is doing, ``gdl solve`` counts the states on a
terminal; and a redirected stream gets no ``\\r`` frames."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from gdl.cli import _common, main
from gdl.cli.progress import Progress
from gdl.cli.tournament import player_names

ROOT = Path(__file__).resolve().parent.parent
TICTACTOE = str(ROOT / "games/tictactoe.kif")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_slow_load_says_what_it_is_doing_and_how_long_it_took(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(_common, "SLOW_LOAD", 0.0)
    assert main(["solve", TICTACTOE, "--engine", "datalog", "--max-states", "10"]) == 1
    err = capsys.readouterr().err
    assert f"gdl solve: loading {TICTACTOE}: checking the rules, preparing the Datalog evaluator..." in err
    assert f"gdl solve: loaded {TICTACTOE} in " in err and "(datalog engine)" in err


def test_a_quick_load_is_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", TICTACTOE, "--max-states", "10"]) == 1
    assert capsys.readouterr().err == ""


def test_solve_counts_the_states_on_a_terminal_and_erases_the_line(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setattr("gdl.solve.PROGRESS_EVERY", 100)
    assert main(["solve", TICTACTOE, "--max-states", "1000"]) == 1
    shown = terminal.getvalue()
    assert re.search(r"\r\033\[Kgdl solve: 900 states searched, \d+ s", shown)
    assert shown.endswith("\r\033[K")


def test_a_status_line_writes_nothing_to_a_file() -> None:
    file = io.StringIO()
    line = Progress("solve", file)
    line.states(2000, 1.0)
    line.close()
    assert file.getvalue() == ""


def test_the_tournament_progress_bar_is_for_terminals(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal, file = Terminal(), io.StringIO()
    for stream in (terminal, file):
        monkeypatch.setattr("sys.stderr", stream)
        Progress("tournament").count(3, 10, "matches")
        Progress("tournament").count(10, 10, "matches")
    shown = terminal.getvalue()
    assert shown.startswith("\r\033[K[#########") and shown.endswith("10/10 matches\n")
    assert file.getvalue() == ""


def test_two_players_of_one_kind_are_told_apart_in_the_table() -> None:
    assert player_names(["random", "mcts", "random"]) == ["random #1", "mcts", "random #2"]


def test_a_state_that_comes_back_is_noted_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    loop = tmp_path / "loop.kif"  # a light that one player toggles for ever
    loop.write_text(
        "(role p) (init off) (legal p toggle) (<= (next on) (true off)) (<= (next off) (true on))"
        " (<= terminal (true done)) (goal p 0)\n",
        encoding="utf-8",
    )
    assert main(["play", str(loop), "--max-steps", "6", "--seed", "1"]) == 1
    out = capsys.readouterr().out
    assert out.count("note: step 2 is back in the state of step 0: the game may never end") == 1
    assert "aborted: no terminal state after 6 steps" in out
