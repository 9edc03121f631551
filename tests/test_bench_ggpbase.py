"""The harness that runs ggp-base's prover (built outside the repository) beside the Datalog engine."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent / "tools" / "bench_ggpbase.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_ggpbase", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_ggpbase"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_an_absent_reference_is_a_clear_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--classpath", str(tmp_path / "no-such-build"), "tictactoe"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert "no-such-build" in done.stderr
    assert "docs/performance.md" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_a_class_path_without_the_harness_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _script()
    if bench.shutil.which("java") is None:
        assert bench.main(["--classpath", str(tmp_path), "tictactoe"]) == 2
        assert "no java executable" in capsys.readouterr().err
        return
    assert bench.main(["--classpath", str(tmp_path), "tictactoe"]) == 2
    assert "ProverBench" in capsys.readouterr().err


def test_the_table_gives_medians_runs_and_the_ratio() -> None:
    bench = _script()
    rows = [
        bench.Row("chess", prover=[16.0, 18.0, 15.0], datalog=[30.0, 40.0, 35.0], prover_process=[9.0, 8.0]),
        bench.Row("amazons", prover=[2.0], failures={"datalog": "timed out after 240 s"}),
    ]
    lines = bench.table(rows).splitlines()
    assert lines[2] == "| chess | 16 (16, 18, 15) | 8.5 | 35 (30, 40, 35) | 2.19 |"
    assert lines[3] == "| amazons | 2 (2) |  | timed out after 240 s |  |"
    assert bench.Row("nim1", prover=[12345.0], datalog=[6172.5]).cells()[1:] == [
        "12,345 (12,345)", "", "6,172 (6,172)", "0.50",
    ]


def test_a_failed_run_says_its_exception() -> None:
    bench = _script()
    stderr = 'Exception in thread "main" There are no legal moves\n\tat ProverBench.main(ProverBench.java)\n'
    assert bench._why(stderr, 1) == 'Exception in thread "main" There are no legal moves'
    assert bench._why("", 3) == "exit status 3"


def test_both_json_shapes_are_read() -> None:
    bench = _script()
    indented = 'warming up\n{\n  "states_per_cpu_s": 26646.2,\n  "engine": "datalog"\n}\n'
    assert bench._last_json(indented)["states_per_cpu_s"] == 26646.2
    assert bench._last_json('{"states_per_cpu_s": 16.4, "engine": "prover"}\n')["engine"] == "prover"
    with pytest.raises(ValueError):
        bench._last_json("Exception in thread main\n")


def test_the_corpus_is_every_game_but_gdl2(tmp_path: Path) -> None:
    bench = _script()
    (tmp_path / "INDEX.tsv").write_text(
        "file\tbytes\tgdl2\nb.kif\t1\t-\na.kif\t1\t-\nc.kif\t1\tsees\n", encoding="utf-8"
    )
    assert bench.corpus_games(tmp_path) == ["a", "b"]


def test_a_sweep_resumes_and_tabulates_from_its_measurements(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _script()
    jsonl = tmp_path / "sweep.jsonl"
    records = [
        {"game": "chess", "system": "prover", "result": {"states_per_cpu_s": 16.0}, "failure": None},
        {"game": "chess", "system": "datalog", "result": {"states_per_cpu_s": 32.0}, "failure": None},
        {"game": "amazons", "system": "prover", "result": None, "failure": "timed out after 45 s"},
    ]
    jsonl.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    assert bench.measured(jsonl) == {"chess", "amazons"}
    assert bench.main(["--table", "--jsonl", str(jsonl)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == "| chess | 16 (16) |  | 32 (32) | 2.00 |"
    assert lines[3] == "| amazons | timed out after 45 s |  |  |  |"
    assert bench.main(["--table", "--jsonl", str(tmp_path / "none.jsonl")]) == 2
