"""The corpus solving benchmark (tests/tools/solve_corpus.py): its records, resumption, limits and
value comparisons."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))

from solve_corpus import CPU, SOLVED, disagreements, is_done, read_records, table

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "tools" / "solve_corpus.py"


def _run(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True, cwd=ROOT, timeout=600
    )


@pytest.mark.slow
def test_games_are_solved_recorded_resumed_and_checked_against_the_search(tmp_path: Path) -> None:
    out, markdown = tmp_path / "runs.jsonl", tmp_path / "table.md"
    games = ["games/buttons.kif", "games/rps.kif", "tests/games/nonterminating.kif"]
    done = _run("--out", str(out), "--table", str(markdown), "--search-check", "60", *games)
    assert done.returncode == 0, done.stderr
    records = read_records(out)
    assert set(records) == {"buttons.kif", "rps.kif", "nonterminating.kif"}
    buttons, rps, loop = records["buttons.kif"], records["rps.kif"], records["nonterminating.kif"]
    assert (buttons["status"], buttons["value"], buttons["states"], buttons["exact"]) == (
        SOLVED, {"robot": 100}, 22, True
    )
    assert buttons["search_value"] == buttons["value"]
    assert rps["status"] == SOLVED and rps["value"] == {"left": 50, "right": 50}
    assert rps["path"] == "search" and rps["search_status"] == SOLVED
    assert loop["status"] == "not solved" and "repeats" in loop["reason"]
    assert all(record["cpu_seconds"] > 0 and record["peak_mib"] > 0 for record in records.values())
    rows = markdown.read_text().splitlines()
    assert len(rows) == 2 + 3
    assert rows[2].startswith("| buttons | 22 | solved (search); search agrees | robot 100 |")

    # Run again: every game is recorded, so nothing is solved again and no line is added.
    lines = out.read_text().splitlines()
    again = _run("--out", str(out), "--search-check", "60", *games)
    assert again.returncode == 0, again.stderr
    assert out.read_text().splitlines() == lines

    # An older run whose value differs is reported, with exit status 1.
    older = tmp_path / "older.jsonl"
    older.write_text(json.dumps({**buttons, "value": {"robot": 0}}) + "\n")
    compared = _run("--out", str(out), "--compare-with", str(older), "games/buttons.kif")
    assert compared.returncode == 1
    assert "VALUE DISAGREES: buttons.kif: value {'robot': 100}, before {'robot': 0}" in compared.stderr


@pytest.mark.slow
def test_a_game_past_the_cpu_limit_is_stopped_and_reported(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    # Loading and solving tictactoe takes more than one CPU-second.
    done = _run("--out", str(out), "--cpu-limit", "1", "games/tictactoe.kif")
    assert done.returncode == 0, done.stderr
    record = read_records(out)["tictactoe.kif"]
    assert record["status"] == CPU and record["reason"] == "more than 1 CPU-s"
    assert 1 <= record["cpu_seconds"] < 12
    assert not record["exact"]


def test_a_game_stopped_by_a_lower_cpu_limit_is_run_again_with_a_higher_one() -> None:
    stopped = {"status": CPU, "cpu_limit": 60, "max_states": 10}
    assert not is_done(stopped, 600, 10)
    assert is_done(stopped, 60, 10)
    assert not is_done({"status": SOLVED, "cpu_limit": 600, "max_states": 10}, 600, 20)
    assert is_done({"status": "too large", "cpu_limit": 60, "max_states": 10}, 600, 10)


def test_values_that_differ_from_the_search_or_an_older_run_are_listed() -> None:
    record = {
        "file": "g.kif", "status": SOLVED, "value": {"a": 50, "b": 50}, "search_status": SOLVED,
        "search_value": {"a": 100, "b": 0}, "exact": True, "states": 3, "path": "native",
        "cpu_seconds": 1.0, "peak_mib": 60,
    }
    older = {"g.kif": {**record, "value": {"a": 50, "b": 50}}, "h.kif": {"status": SOLVED, "value": {"a": 1}}}
    problems = disagreements([record, {"file": "h.kif", "status": CPU}], older)
    assert problems == [
        "g.kif: value {'a': 50, 'b': 50} but the search gives {'a': 100, 'b': 0}",
        "h.kif: solved before ({'a': 1}), now CPU limit",
    ]
    assert "**VALUE DISAGREES**" in table([record], {"g.kif"})
    agreeing = {**record, "search_value": {"a": 50.00001, "b": 49.99999}}
    assert disagreements([agreeing], {}) == []


def test_a_gdl2_game_too_large_to_store_is_recorded_as_too_large_with_its_node_count() -> None:
    from solve_corpus import CPU, MEMORY, NOT_SOLVED, TOO_LARGE, extensive_fields, result_cell, states_cell

    from gdl.extensive.solve_gdl2 import GAME, TIME, Refused, solve_gdl2

    spoof = ROOT / "games" / "spoof.kif"
    refused = solve_gdl2(spoof.read_text(), str(spoof), method="lp", seconds=60, memory=500_000)
    assert isinstance(refused, Refused)
    record = {"file": "spoof.kif", "path": "extensive", **extensive_fields(refused, 10), "max_states": 10}
    assert (record["status"], record["nodes"], record["states"]) == (TOO_LARGE, 16_381, 16_381)
    # Fewer nodes than the cap: the memory stopped it. The time, or the game's rules: not its size.
    assert extensive_fields(refused, 20_000)["status"] == MEMORY
    assert extensive_fields(replace(refused, cause=TIME), 20_000)["status"] == CPU
    assert extensive_fields(replace(refused, cause=TIME, size=None, made=12), 10)["status"] == TOO_LARGE
    assert extensive_fields(replace(refused, cause=GAME), 10)["status"] == NOT_SOLVED
    assert record["exact"] is False
    assert record["reason"] == refused.reason and record["tree_states"] == 73
    assert states_cell(record) == "16,381" and result_cell(record, set()) == "too large (extensive)"
