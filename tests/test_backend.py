"""The process backend and the loop every backend shares: reruns, lost tasks, errors, bad --cluster values."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gdl.backend import Outcome, Processes, open_backend
from gdl.errors import ClusterError


def die_once(marker: str, value: int, seconds: float = 0.0) -> int:
    """Kill the worker process the first time (when ``marker`` does not exist yet), then return ``value``
    after ``seconds``."""
    if marker and not Path(marker).exists():
        Path(marker).touch()
        time.sleep(0.2)  # the others have started
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(seconds)
    return value


def die_always(value: int) -> int:
    os.kill(os.getpid(), signal.SIGKILL)
    return value


def refuse(value: int) -> int:
    raise ValueError(f"no {value}")


def outcomes_by_index(outcomes: list[Outcome[int]]) -> dict[int, Outcome[int]]:
    assert len({o.index for o in outcomes}) == len(outcomes)
    return {o.index: o for o in outcomes}


def test_a_task_whose_worker_dies_is_rerun_and_its_neighbours_are_not_blamed(tmp_path: Path) -> None:
    marker = str(tmp_path / "died")
    calls = [(marker, 10), ("", 11, 1.0), ("", 12), ("", 13)]
    with Processes(jobs=2, retries=0) as backend:
        results = outcomes_by_index(list(backend.map(die_once, calls)))
    # The pool breaks under the first two tasks and the queued ones: none knows whose worker died, so
    # none is blamed, though no reruns are allowed; run again one at a time, all succeed.
    assert [results[i].value for i in range(4)] == [10, 11, 12, 13]
    assert results[0].reruns == results[1].reruns == ("a worker process died (the process pool broke)",)
    assert all(r.lost is None for r in results.values())


def test_a_task_that_always_kills_its_worker_is_lost_with_the_reason() -> None:
    with Processes(jobs=2, retries=1) as backend:
        outcomes = list(backend.map(die_always, [(1,)]))
    [outcome] = outcomes
    assert outcome.value is None
    assert outcome.lost == "a worker process died (the process pool broke)"
    assert len(outcome.reruns) == 1  # one rerun allowed, then lost


def test_an_exception_of_the_function_itself_reaches_the_caller() -> None:
    with Processes(jobs=1) as backend, pytest.raises(ValueError, match="no 3"):
        list(backend.map(refuse, [(3,)]))


def test_common_arguments_come_first_and_every_call_has_an_outcome() -> None:
    with open_backend(None, jobs=2) as backend:
        outcomes = outcomes_by_index(list(backend.map(pow, [(1,), (2,), (3,)], common=(2,))))
    assert {i: o.value for i, o in outcomes.items()} == {0: 2, 1: 4, 2: 8}


@pytest.mark.parametrize(
    ("cluster", "message"),
    [
        ("dask", "unknown cluster 'dask' (use ray, or ray:ADDRESS to join a running one)"),
        ("ray:", "unknown cluster 'ray:'"),
    ],
)
def test_an_unknown_cluster_is_a_clear_error(cluster: str, message: str) -> None:
    with pytest.raises(ClusterError, match=message.replace("(", r"\(").replace(")", r"\)")):
        open_backend(cluster)


PROBE = """
import os
import sys

from gdl.backend import open_backend
from gdl.workers import Limits, WorkerProcess


class Probe:
    def loaded(self) -> bool:
        return "gdl.warm_workers" in sys.modules


if __name__ == "__main__":
    with open_backend(None, jobs=1) as backend:
        assert [outcome.value for outcome in backend.map(os.getpid, [()])][0] > 0
    worker = WorkerProcess(Probe(), Limits(), "probe")
    worker.start()
    print(worker.call("loaded", 60.0))
    worker.close()
"""


def test_a_process_pool_started_first_leaves_the_workers_their_preloaded_gdl(tmp_path: Path) -> None:
    # One fork server serves a process: had the pool started it bare, every player and checker started
    # after it would import gdl and load the compiled kernels again, inside its CPU-time limit.
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]
