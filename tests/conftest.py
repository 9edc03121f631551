"""Shared test fixtures and hooks: where our games and the shared corpus are, what a test does when
something it needs is absent (:mod:`support.paths`), and the day's sample of the slow tests."""

from __future__ import annotations

import datetime
import signal
import time
import zlib
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from support.paths import CORPUS, JSON_GAMES, in_ci, shared_path

# Property tests check behaviour, never time: a loaded machine (CI, parallel workers) must not fail them.
settings.register_profile("gdl", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gdl")

#: Test modules whose tests all run in one pytest-xdist worker, as they share something slow to start:
#: the Ray tests share one local cluster (and kill its workers, which must not be another worker's).
ONE_WORKER = {"test_cluster.py": "ray", "test_cluster_slow.py": "ray"}

#: The slow tests are cut into this many slices; ``--slow-sample`` runs the slice of the day.
SLOW_SLICES = 28


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Tests go one at a time to whichever worker is free, as with ``--dist load``, except those of
    :data:`ONE_WORKER` (xdist's own ``xdist_group`` marks are lost with pytest 9's node ids)."""
    from xdist.scheduler import LoadScopeScheduling

    class Scheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
            return ONE_WORKER.get(module, nodeid)

    return Scheduling(config, log)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow-sample", type=float, metavar="SECONDS",
        help=f"besides the default tests, run the day's slice (1 of {SLOW_SLICES}, chosen by the date) of "
        "the slow tests that are one case each, spending at most SECONDS on them in each worker",
    )
    parser.addoption(
        "--slow-day", metavar="YYYY-MM-DD", help="the day whose slice --slow-sample runs (default: today)"
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--slow-sample") is not None and config.option.markexpr == "not slow":
        config.option.markexpr = ""  # the slow tests to run are chosen below, not by the default -m


def slow_slice(nodeid: str, day: datetime.date) -> bool:
    """Whether the slow test ``nodeid`` is in the slice of ``day``: a test that is one case of a
    parametrized test (one game, one size), by a hash of its id, so that every test comes round once
    in :data:`SLOW_SLICES` days. Unparametrized slow tests (whole-corpus loops, cluster failures) run
    only in ``make test-all``: one of them may take longer than the whole budget."""
    return "[" in nodeid and zlib.crc32(nodeid.encode()) % SLOW_SLICES == day.toordinal() % SLOW_SLICES


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--slow-sample") is None:
        return
    given = config.getoption("--slow-day")
    day = datetime.date.fromisoformat(given) if given else datetime.datetime.now(datetime.UTC).date()
    kept, dropped = [], []
    for item in items:
        slow = item.get_closest_marker("slow") is not None
        (dropped if slow and not slow_slice(item.nodeid, day) else kept).append(item)
    config.hook.pytest_deselected(items=dropped)
    items[:] = kept


#: Seconds this process has spent in the slow tests of the sample.
_slow_seconds = [0.0]


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("needs_shared"):
        shared_path(mark.args[0])
    budget = item.config.getoption("--slow-sample")
    if budget is not None and item.get_closest_marker("slow") and _slow_seconds[0] >= budget:
        pytest.skip(f"the slow sample's budget of {budget:g} s in this worker is spent")


class _SampleBudgetSpent(BaseException):
    """The slow sample's budget ran out while a test of it ran (not an Exception: tests catch those)."""


def _stop_the_sample(signum: int, frame: Any) -> None:
    raise _SampleBudgetSpent


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    if item.get_closest_marker("slow") is None:
        return (yield)
    budget = item.config.getoption("--slow-sample")
    # One case of a slow test may take many times the whole budget (a corpus game's walk against
    # clingo, minutes): in the sample it is stopped when the budget runs out, and counts as skipped.
    timed = budget is not None and hasattr(signal, "setitimer")
    if timed:
        previous = signal.signal(signal.SIGALRM, _stop_the_sample)
        signal.setitimer(signal.ITIMER_REAL, max(0.001, budget - _slow_seconds[0]))
    started = time.monotonic()
    try:
        return (yield)
    except _SampleBudgetSpent:
        pytest.skip(f"stopped: the slow sample's budget of {budget:g} s in this worker ran out during it")
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        _slow_seconds[0] += time.monotonic() - started


Report = pytest.CollectReport | pytest.TestReport


def _missing_module(report: Report) -> bool:
    """Whether ``report`` is a skip for want of a module (``pytest.importorskip``)."""
    return report.skipped and "could not import" in str(report.longrepr)


def _failed_in_ci(report: Report) -> None:
    """Under CI, a test dependency missing is a failure: the test extras install every one."""
    if in_ci() and _missing_module(report):
        report.outcome = "failed"
        report.longrepr = f"{report.longrepr}\nCI=true: every test dependency must be installed (make test)"


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Report, Report]:
    report = yield
    _failed_in_ci(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Report, Report]:
    report = yield
    _failed_in_ci(report)
    return report


@pytest.fixture
def corpus() -> Path:
    """The shared corpus (a test without it is skipped, or fails under CI: see :mod:`support.paths`)."""
    return shared_path(CORPUS)


@pytest.fixture
def json_games() -> Path:
    """The shared JSON games (as :func:`corpus`)."""
    return shared_path(JSON_GAMES)
