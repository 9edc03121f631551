"""``gdl solve`` and ``gdl convert`` on JSON games and GDL-II games: values, diagnostics, exit status."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from support.cli import run
from support.json_games import even_or_odd, mutated_games
from support.paths import GAMES


def test_leduc_from_gdl_is_solved_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "solve", str(GAMES / "leduc.kif"), "--json")
    report = json.loads(out)
    assert report["value"]["player1"] == pytest.approx(-0.085606424078, abs=1e-6)
    assert report["exploitability"] < 1e-9
    # The LP's floating-point strategies bound the value tightly, in fractions, but are no exact
    # equilibrium: the value is not called solved.
    assert status == 1 and report["solved"] is False and report["exact_value"] is None
    low, high = (Fraction(bound) for bound in report["bounds"]["player1"])
    assert low <= Fraction(report["value"]["player1"]) <= high and high - low < Fraction(1, 10**12)
    assert len(report["strategies"]["player1"]) == len(report["strategies"]["player2"]) == 468


def test_a_broken_json_game_is_every_problem_with_its_path_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = even_or_odd()
    document["states"][0]["actions"][1] = {"2": "two"}
    document["states"][6]["player"] = 3
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    for command in (["solve", str(path)], ["convert", str(path), str(tmp_path / "out.efg")]):
        status, out, err = run(capsys, *command)
        assert status == 2 and out == ""
        assert err.splitlines() == [
            f"{path}: states[0].actions[1]: error: action '2' of state 'pick' leads to 'two', "
            "which is no state",
            f"{path}: states[4]: error: state '2' cannot be reached from the start 'pick'",
            f"{path}: states[5]: error: state '2 even' cannot be reached from the start 'pick'",
            f"{path}: states[6]: error: a state with a player lists its actions",
            f"{path}: states[6]: error: state '2 odd' cannot be reached from the start 'pick'",
            f"{path}: states[6].player: error: 3 is not one of ['chance', 1, 2]",
        ]


def test_convert_gdl2_to_json_and_efg_keeps_the_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for suffix in (".json", ".efg"):
        out = tmp_path / f"kuhn{suffix}"
        status, _, _ = run(capsys, "convert", str(GAMES / "kuhn.kif"), str(out))
        assert status == 0
        status, printed, _ = run(capsys, "solve", str(out), "--json")
        assert status == 0
        assert min(json.loads(printed)["value"].values()) == pytest.approx(-1 / 18, abs=1e-9)


def test_convert_refuses_a_game_the_json_format_cannot_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    biased = tmp_path / "biased.efg"
    biased.write_text(
        'EFG 2 R "biased" { "1" "2" }\n'
        'c "" 1 "" { "h" 1/3 "t" 2/3 } 0\n'
        't "" 1 "" { 1, -1 }\n'
        't "" 2 "" { -1, 1 }\n',
        encoding="utf-8",
    )
    status, _, err = run(capsys, "convert", str(biased), str(tmp_path / "biased.json"))
    assert status == 2
    assert "chance is uniform; the chance node at () has probabilities 1/3, 2/3" in err


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=mutated_games())
def test_no_json_input_makes_a_traceback(
    document: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "fuzzed.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    status, _, err = run(capsys, "solve", str(path))
    assert status in (0, 1, 2)
    assert status != 2 or err.startswith(f"{path}: ")


def test_a_zero_value_prints_as_zero_and_noise_as_the_exact_value() -> None:
    from gdl.cli.extensive import rational

    assert rational(-0.0) == "0" and rational(-1e-13) == "0"
    assert rational(-1 / 18 + 1e-12) == "-0.05555555556 (= -1/18)"
    assert rational(0.123456789123) == "0.1234567891"
