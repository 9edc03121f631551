"""``gdl solve`` and ``gdl convert`` on extensive-form games."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from support.cli import run
from support.paths import GAMES

from gdl.errors import UnknownFormatError
from gdl.extensive import load_extensive, read_extensive, write_extensive

KUHN = GAMES / "kuhn.efg"


def test_solve_kuhn_prints_value_strategies_and_proof(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "solve", str(KUHN))
    assert status == 0
    assert "value: 1 -0.05555555556 (= -1/18), 2 0.05555555556 (= 1/18)" in out
    assert "strategy of 2 (6 information sets):" in out
    assert "  2:1b: Pass 0.6667, Bet 0.3333" in out  # the queen calls a bet a third of the time
    assert "exploitability: " in out and "method: sequence-form LP (HiGHS)" in out and "time: " in out


def test_solve_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "solve", str(KUHN), "--json")
    assert status == 0
    report = json.loads(out)
    assert report["solved"] is True and report["method"] == "lp"
    assert "Nash equilibrium" in report["concept"]
    assert report["value"]["1"] == pytest.approx(-1 / 18, abs=1e-9)
    assert report["exploitability"] < 1e-9
    assert set(report["strategies"]) == {"1", "2"}
    assert report["strategies"]["1"]["1:2pb"] == {"Pass": pytest.approx(0.0), "Bet": pytest.approx(1.0)}
    assert report["seconds"] >= 0


def test_solve_with_cfr(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "solve", str(KUHN), "--method", "cfr", "--iterations", "300", "--json")
    report = json.loads(out)
    # CFR+ comes close to an equilibrium, not onto one: proven bounds, but not solved exactly.
    assert status == 1 and report["solved"] is False and report["exact_value"] is None
    assert report["reason"].startswith("not solved exactly: the value of 1 lies between")
    low, high = (Fraction(bound) for bound in report["bounds"]["1"])
    assert low < Fraction(-1, 18) < high and high - low < 4 * report["exploitability"] + 1e-12
    assert report["method"] == "cfr" and report["iterations"] == 300
    assert report["history"][-1]["iteration"] == 300
    assert report["exploitability"] == report["history"][-1]["exploitability"] < 1e-2
    assert report["value"]["1"] == pytest.approx(-1 / 18, abs=2 * report["exploitability"])
    status, out, _ = run(capsys, "solve", str(KUHN), "--method", "cfr", "--iterations", "40")
    assert "exploitability as CFR+ went" in out and "CFR+ (40 iterations)" in out


def test_bad_efg_is_one_line_with_position_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.efg"
    broken.write_text('EFG 2 R "x" { "1" "2" }\np "" 1 1 "" { "a" } 0\nt "" 1 "" { 1 }\n')
    status, out, err = run(capsys, "solve", str(broken))
    assert status == 2 and out == ""
    assert err.strip() == f"{broken}:3:6: error: 1 payoffs for 2 players"
    status, _, err = run(capsys, "solve", str(tmp_path / "missing.efg"))
    assert status == 2 and "no such file" in err
    (tmp_path / "binary.efg").write_bytes(b"\xff\xfe\x00")
    status, _, err = run(capsys, "solve", str(tmp_path / "binary.efg"))
    assert status == 2 and "not UTF-8" in err


def test_general_sum_game_is_not_solved(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    general = tmp_path / "general.efg"
    general.write_text('EFG 2 R "x" { "1" "2" }\np "" 1 1 "" { "a" "b" } 0\nt "" 1 "" { 1, 1 }\nt "" 0\n')
    status, out, _ = run(capsys, "solve", str(general))
    assert status == 1 and "not solved" in out and "general-sum" in out
    status, out, _ = run(capsys, "solve", str(general), "--json")
    assert status == 1 and json.loads(out)["solved"] is False


def test_convert_efg_and_refuse_unknown_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_path = tmp_path / "copy.efg"
    status, out, _ = run(capsys, "convert", str(KUHN), str(out_path))
    assert status == 0 and "58 nodes, 12 information sets" in out
    assert load_extensive(out_path) == load_extensive(KUHN)
    status, _, err = run(capsys, "convert", str(KUHN), str(tmp_path / "copy.xyz"))
    assert status == 2 and "unknown output format" in err
    status, _, err = run(capsys, "convert", str(tmp_path / "missing.efg"), str(out_path))
    assert status == 2 and "no such file" in err
    status, _, err = run(capsys, "convert", str(KUHN), str(tmp_path / "no" / "dir.efg"))
    assert status == 2 and "cannot write" in err


def test_the_dispatcher_reads_and_writes_by_suffix(tmp_path: Path) -> None:
    game = load_extensive(KUHN)
    assert read_extensive("\ufeff" + KUHN.read_text(), "kuhn.EFG") == game  # any case, a byte order mark
    with pytest.raises(UnknownFormatError, match=r"x\.txt: not an extensive-form game file \(gdl reads .efg"):
        load_extensive(tmp_path / "x.txt")
    with pytest.raises(UnknownFormatError, match="cannot write this format"):
        write_extensive(game, tmp_path / "x.txt")
    assert not (tmp_path / "x.txt").exists()


def test_a_gdl2_game_without_an_extensive_form_falls_back_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_solve import MONTY_HALL

    path = tmp_path / "monty.kif"  # a bystander who always gets 0 makes it general-sum
    path.write_text(MONTY_HALL + "(role bystander)\n(legal bystander noop)\n(goal bystander 0)\n")
    status, out, err = run(capsys, "solve", str(path))
    assert status == 1 and "not solved: a GDL-II game" in out
    assert f"gdl solve: {path}: no extensive form to solve: " in err and "is not constant-sum" in err


def test_a_gdl2_game_is_solved_in_payoffs_and_goal_units(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "solve", str(GAMES / "kuhn.kif"), "--json")
    assert status == 0
    report = json.loads(out)
    assert report["value"]["player1"] == pytest.approx(-1 / 18, abs=1e-9)
    assert report["goal_offset"] == 50
    assert report["goal_value"]["player1"] == pytest.approx(50 - 1 / 18)
    assert report["goal_value"]["player2"] == pytest.approx(50 + 1 / 18)
    status, out, _ = run(capsys, "solve", str(GAMES / "kuhn.kif"))
    assert "value in goal units: player1 49.94444444 (= 899/18), player2 50.05555556 (= 901/18)" in out


def test_a_gdl2_game_too_large_for_the_memory_is_refused_with_its_size(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GDL_MEMORY_MB", "1")  # half a megabyte for the arrays: spoof needs about 650 KB
    status, out, _ = run(capsys, "solve", str(GAMES / "spoof.kif"), "--json", "--method", "lp")
    report = json.loads(out)
    assert status == 1 and report["solved"] is False
    assert report["size"]["nodes"] == 16_381 and report["size"]["terminals"] == 10_239
    # Counted within the same memory: the flipper's 364 all, the hider's 2047 only in part.
    counted = report["size"]["infosets"]
    assert counted["flipper"] == {"count": 364, "complete": True}
    assert counted["hider"]["complete"] is False and 0 < counted["hider"]["count"] < 2047
    assert "more than the 0.0 GiB gdl may use" in report["reason"]
    assert "at least" in report["reason"] and "16,381 nodes" in report["reason"]


def test_a_gdl2_game_beyond_the_objects_is_solved_on_its_arrays(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gdl.extensive.solve_gdl2

    monkeypatch.setattr(gdl.extensive.solve_gdl2, "DEFAULT_MAX_NODES", 10)  # kuhn's 55 nodes stay arrays
    status, out, _ = run(capsys, "solve", str(GAMES / "kuhn.kif"), "--method", "dcfr", "--json")
    report = json.loads(out)
    # Proven in floating point with a bound of the rounding error, but never "solved" exactly.
    assert status == 1 and report["solved"] is False and report["method"] == "dcfr"
    assert report["value"]["player1"] == pytest.approx(-1 / 18, abs=1e-3)
    assert "rounding error bounded" in report["guarantee"] and report["exploitability"] < 1e-3
    assert 0 < report["rounding_error"] < 1e-12
    assert report["size"]["terminal"] == 30 and set(report["strategies"]) == {"player1", "player2"}
    low, high = (float(bound) for bound in report["bounds"]["player1"])  # floats, as measured
    assert low <= -1 / 18 <= high and high - low <= 4 * report["exploitability"] + 1e-12
