"""Output details: numbers as exact as the values they stand for, plurals, names as the rules spell
them, standard output holding one thing."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import gdl
from gdl.cli import main

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "json-games"


def test_the_bandits_value_is_the_float_of_its_exact_fraction(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bandits", str(ROOT / "games/bandits/example.txt"), "--json"]) == 0
    value = json.loads(capsys.readouterr().out)["value"]
    assert repr(value) == repr(float(Fraction(2123, 420))) == "5.054761904761905"


def test_a_zero_value_is_not_negative(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # matching pennies: value 0, which the LP reports as -0.0 for one player
    efg = tmp_path / "pennies.efg"
    efg.write_text(
        'EFG 2 R "pennies" { "1" "2" }\n'
        'p "" 1 1 "a" { "H" "T" } 0\n'
        'p "" 2 1 "b" { "H" "T" } 0\n'
        't "" 1 "" { 1, -1 }\nt "" 2 "" { -1, 1 }\n'
        'p "" 2 1 "b" { "H" "T" } 0\n'
        't "" 3 "" { -1, 1 }\nt "" 4 "" { 1, -1 }\n'
    )
    assert main(["solve", str(efg), "--json"]) == 0
    out = capsys.readouterr().out
    assert "-0.0" not in out and json.loads(out)["value"] == {"1": 0.0, "2": 0.0}
    if (SHARED / "even-or-odd.json").is_file():
        assert main(["solve", str(SHARED / "even-or-odd.json"), "--json"]) == 0
        assert "-0.0" not in capsys.readouterr().out


def test_one_of_a_thing_is_not_plural(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "one.efg"
    game.write_text('EFG 2 R "one" { "1" "2" }\np "" 1 1 "a" { "x" "y" } 0\nt "" 1 "" { 1, -1 }\n'
                    't "" 2 "" { 0, 0 }\n')
    assert main(["solve", str(game)]) == 0
    out = capsys.readouterr().out
    assert "(1 information set):" in out and "1 information set," in out
    assert main(["convert", str(game), str(tmp_path / "one.json")]) == 0
    assert "1 information set)" in capsys.readouterr().out
    assert main(["play", str(ROOT / "games/tictactoe.kif"), "-p", "legal", "--max-steps", "1", "-q"]) == 1
    assert "no terminal state after 1 step\n" in capsys.readouterr().out


def test_the_solve_table_is_as_wide_as_its_figures(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the game column is as wide as the paths given, whatever the clone's place
    games = ["games/tictactoe.kif", "games/nim.kif", "games/montyhall.kif"]
    assert main(["solve", *games, "--max-states", "20", "-j", "1"]) == 1
    lines = capsys.readouterr().out.splitlines()
    header, *rows, summary = lines
    assert header.split() == ["game", "result", "value", "states", "seconds"]
    figures = header[header.index("result"):]
    assert len(figures) < 60, header  # no column padded to the length of a reason
    assert any("not solved within budget (" in row for row in rows) and summary.endswith("game(s) solved")


#: A game whose rules spell names with capitals.
UPPER = """(role White) (role Black) (init (Turn White))
(<= (legal White (Mark A)) (true (Turn White))) (<= (legal White Noop) (true (Turn Black)))
(<= (legal Black (Mark B)) (true (Turn Black))) (<= (legal Black Noop) (true (Turn White)))
(<= (next (Turn Black)) (true (Turn White))) (<= (next Done) (true (Turn Black)))
(<= terminal (true Done)) (goal White 100) (goal Black 0)"""


def test_play_solve_and_states_spell_names_as_the_rules_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "upper.kif"
    game.write_text(UPPER)
    assert main(["play", str(game), "-p", "legal", "-p", "legal"]) == 0
    out = capsys.readouterr().out
    assert "upper: White = legal, Black = legal" in out and "goals: White 100, Black 0" in out
    assert main(["solve", str(game)]) == 0
    out = capsys.readouterr().out
    assert "value: White 100, Black 0" in out and "1. White (Mark A); Black Noop" in out
    assert main(["solve", str(game), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == {"White": 100, "Black": 0}
    assert data["pv"][0] == {"White": "(Mark A)", "Black": "Noop"}
    state = gdl.load(str(game)).initial_state()
    assert repr(state) == "<State (Turn White)>"
    illegal = r"illegal move: '\(Mark B\)' for White in <State \(Turn White\)>"
    with pytest.raises(gdl.IllegalMoveError, match=illegal):
        state.next({"white": "(mark b)", "black": "noop"})
    with pytest.raises(gdl.errors.GameDefinitionError, match=r"no move for role\(s\) Black in"):
        state.next({"white": "(mark a)"})
