"""The test suite's own promises: under CI a missing corpus fails with the reason, the day's slice of
the slow tests comes round to every one of them, and it keeps to its budget."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
from pathlib import Path

from conftest import SLOW_SLICES, slow_slice
from support.paths import ROOT


def _pytest(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", *args],
        cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=600,
    )


def test_a_missing_corpus_fails_under_ci_and_is_skipped_elsewhere(tmp_path: Path) -> None:
    absent = tmp_path / "moved-away"
    tests = [
        "tests/test_corpus_check.py::test_expectations_cover_the_invalid_folder",
        "tests/test_reader_lark.py",
    ]
    ci = _pytest(*tests, GDL_SHARED=str(absent), CI="true")
    assert ci.returncode == 1, ci.stdout
    assert f"{absent / 'corpus'} is not present" in ci.stdout and "CI=true" in ci.stdout
    assert " passed" in ci.stdout  # the tests that need no corpus still run
    local = _pytest(*tests, GDL_SHARED=str(absent), CI="")
    assert local.returncode == 0 and " skipped" in local.stdout, local.stdout


def test_every_parametrized_slow_test_is_in_exactly_one_slice_of_the_days() -> None:
    first = datetime.date(2026, 1, 1)
    ids = [f"tests/test_x.py::test_y[game{i}]" for i in range(200)]
    days = [first + datetime.timedelta(n) for n in range(SLOW_SLICES)]
    counts = [sum(slow_slice(node, day) for day in days) for node in ids]
    assert counts == [1] * len(ids)
    one_day = sum(slow_slice(node, first) for node in ids)
    assert 0 < one_day < 200 / SLOW_SLICES * 3  # a slice, not the lot
    assert not any(slow_slice("tests/test_x.py::test_whole_corpus", day) for day in days)


SLOW_CASES = """
import time

import pytest


@pytest.mark.slow
@pytest.mark.parametrize("case", range(4 * 28))
def test_a_minute(case: int) -> None:
    time.sleep(60)
"""


def test_a_case_of_the_slow_sample_that_outlasts_its_budget_is_stopped(tmp_path: Path) -> None:
    (tmp_path / "test_long.py").write_text(SLOW_CASES)
    run = _pytest(
        "-rs", "-c", os.devnull, "-p", "conftest", "--slow-sample=1", str(tmp_path / "test_long.py"),
        PYTHONPATH=str(ROOT / "tests"),
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "budget of 1 s in this worker ran out during it" in run.stdout, run.stdout
    assert " passed" not in run.stdout and " deselected" in run.stdout, run.stdout
