"""The benchmark harness (tests/tools/bench_reference.py): its engines, its tables, a run."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))

from bench_reference import GAMES, PROLOG, REFERENCES, Measurement, bench_engines, result_fields, tables

SCRIPT = Path(__file__).resolve().parent / "tools" / "bench_reference.py"


def test_every_bench_engine_but_auto_is_measured() -> None:
    engines = bench_engines()
    assert {"datalog", "compiled", "batched"} <= set(engines)
    assert "auto" not in engines


def test_result_lines_are_read() -> None:
    line = (
        "RESULT reasoner=gdl game=nim1 playouts=10 secs=1.00 cpu_secs=0.50 playouts_per_cpu_s=20.0 "
        "states_per_cpu_s=160.0 avg_depth=7.00 engine=compiled"
    )
    fields = result_fields("warming up\n" + line + "\n")
    assert fields is not None
    assert fields["playouts_per_cpu_s"] == "20.0"
    assert fields["engine"] == "compiled"
    assert result_fields("gdl bench: cannot load\n") is None


def test_tables_give_medians_and_ratios_to_prolog_and_sancho() -> None:
    def measured(run: int, system: str, rate: float | None) -> Measurement:
        return Measurement(run, "connectfour", system, rate, None, None, "" if rate else "it broke")

    rows = [
        measured(1, PROLOG, 1000), measured(2, PROLOG, 900), measured(3, PROLOG, 1100),
        measured(1, "compiled", 47_000), measured(2, "compiled", 94_000), measured(3, "compiled", 100_000),
        measured(1, "batched", None), measured(2, "batched", 200_000), measured(3, "batched", 180_000),
    ]
    text = tables(rows, ["connectfour"], [PROLOG, "compiled", "batched"])
    assert "| connectfour | 1,000; 900; 1,100: **1,000** | 47,000; 94,000; 100,000: **94,000** |" in text
    assert "failed; 200,000; 180,000: **190,000**" in text  # a failed run is left out of the median
    sancho = REFERENCES["Sancho"][GAMES.index("connectfour")]
    # compiled: 94,000 / 1,000 = 94 = Sancho's ratio (1.0 of it); batched: 190 (2.0 of Sancho's)
    assert f"| connectfour | 94 | 190 | {sancho} | 9.7 | 1 | 2 |" in text
    assert "- connectfour, batched: it broke" in text


def test_a_run_prints_the_tables(corpus: Path) -> None:
    prolog = [] if shutil.which(PROLOG) else ["--no-prolog"]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--games", "buttons", "--engines", "compiled", "--runs", "1",
         "--seconds", "0.3", "--corpus", str(corpus / "games"), *prolog],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("| buttons |"))
    assert "failed" not in row
    assert row.count("**") == 2 * (2 if not prolog else 1)


def test_a_game_not_in_the_corpus_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--games", "nosuchgame", "--corpus", str(tmp_path), "--no-prolog"],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 2
    assert "no nosuchgame" in done.stderr


def test_an_engine_gdl_bench_lacks_is_refused() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--engines", "compiled,nosuchengine", "--no-prolog"],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 2
    assert "no engine nosuchengine" in done.stderr
