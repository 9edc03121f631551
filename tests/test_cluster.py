"""The Ray backend on a local cluster of 2 CPUs, shared by this module's tests (one ``ray.init``).

Tournaments give the process backend's results for the same seeds; a worker killed in the middle of
a tournament costs no match; matches reserve a CPU per thinking player; Ctrl-C cancels the cluster's
work; ``check --dynamic`` and ``solve`` over many games give what they give one game at a time.
All run in one pytest worker (``ONE_WORKER`` in conftest.py).
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")

from gdl.cli import main  # noqa: E402 - after the skip, as ray is optional
from gdl.cluster import RayCluster  # noqa: E402
from gdl.tournament import run_tournament  # noqa: E402

GAMES = Path(__file__).resolve().parent.parent / "games"
TICTACTOE = str(GAMES / "tictactoe.kif")


@pytest.fixture(scope="module", autouse=True)
def cluster() -> Iterator[None]:
    quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
    ray.init(address="local", num_cpus=2, include_dashboard=False, **quiet)
    # this module's task functions are shipped by value: the workers cannot import tests by name
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        yield
    finally:
        ray.shutdown()


def test_a_tournament_on_ray_gives_the_process_backends_results() -> None:
    # fixed iterations and clocks no move comes near, so each match depends on its seed alone
    options: dict[str, Any] = {"matches": 6, "start_clock": 60, "play_clock": 60, "seed": 11}
    specs = ["mcts:iterations=25", "random"]
    by_processes = run_tournament(TICTACTOE, specs, jobs=2, **options).to_json()
    with RayCluster() as backend:
        on_ray = run_tournament(TICTACTOE, specs, backend=backend, **options).to_json()
    # A match rerun because a worker died (the machine's memory is shared) says so; its result is the same.
    reruns = [match.pop("reruns", None) for match in on_ray["matches"] + by_processes["matches"]]
    for index, (ours, theirs) in enumerate(zip(on_ray["matches"], by_processes["matches"], strict=True)):
        assert ours == theirs, f"match {index} differs (reruns: {reruns})"
    assert on_ray == by_processes
    assert by_processes["aborted"] == 0 and len({json.dumps(m["goals"]) for m in on_ray["matches"]}) > 1


def interval(seconds: float) -> tuple[float, float]:
    started = time.monotonic()
    time.sleep(seconds)
    return started, time.monotonic()


def assigned_cpus() -> float:
    cpus: float = ray.get_runtime_context().get_assigned_resources()["CPU"]
    return cpus


def test_tasks_reserve_their_cpus_so_they_never_share_a_core() -> None:
    with RayCluster() as backend:
        assert [o.value for o in backend.map(assigned_cpus, [()], cpus=2)] == [2.0]
        assert [o.value for o in backend.map(assigned_cpus, [()], cpus=1)] == [1.0]
        spans = sorted(outcome.value for outcome in backend.map(interval, [(1.0,)] * 2, cpus=2))
    assert spans[1][0] >= spans[0][1], "two tasks of 2 CPUs ran at once on a cluster of 2"


def test_a_task_asking_for_more_cpus_than_any_node_has_runs_with_a_note() -> None:
    with RayCluster() as backend:
        [outcome] = backend.map(interval, [(0.0,)], cpus=3)
    assert outcome.value is not None
    assert backend.notes == [
        "a task asks for 3 CPUs but the largest node has 2: it runs on 2, so its players share cores"
    ]


def playing_matches() -> set[int]:
    """The processes of this test's own cluster (descendants of this process: its raylet's workers)
    that are playing a match now."""
    parents: dict[int, int] = {}
    titles: dict[int, bytes] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            titles[int(entry)] = Path(f"/proc/{entry}/cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
    ours, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - ours
        ours |= frontier
    return {pid for pid in ours if titles.get(pid, b"").startswith(b"ray::play_one")}


def kill_a_match_once(killed: list[int]) -> threading.Thread:
    """A thread that kills the first worker of this cluster it sees playing a match, and notes its pid."""

    def hunt() -> None:
        deadline = time.monotonic() + 60
        before: set[int] = set()
        while time.monotonic() < deadline:
            now = playing_matches()
            # playing for 0.2 s at least, and still at this instant (the title turns to ray::IDLE after)
            for pid in sorted(now & before):
                if pid in playing_matches():
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    return
            before = now
            time.sleep(0.2)

    thread = threading.Thread(target=hunt, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("retries", [2, 0])
def test_a_worker_killed_in_the_middle_of_a_tournament_costs_no_match(retries: int) -> None:
    killed: list[int] = []
    hunter = kill_a_match_once(killed)
    with RayCluster(retries=retries) as backend:
        result = run_tournament(
            TICTACTOE, ["mcts", "random"], 4, start_clock=5, play_clock=0.3, seed=1, backend=backend
        )
    hunter.join()
    assert killed, "no match was seen running"
    assert len(result.matches) == 4
    lost = "WorkerCrashedError: The worker died unexpectedly while executing this task."
    if retries:  # rerun: every match was played, and one says why it was played again
        assert result.aborted == 0 and all(m["goals"] is not None for m in result.matches)
        [reruns] = [m["reruns"] for m in result.matches if "reruns" in m]
        assert len(reruns) == 1 and reruns[0].startswith(lost)
    else:  # no rerun allowed: the match is aborted with the reason
        assert result.aborted == 1
        [aborted] = [m for m in result.matches if m["goals"] is None]
        assert aborted["abortReason"].startswith(f"its worker died: {lost}")
        assert sum(s.wins + s.draws + s.losses for s in result.standings) == 2 * 3


def test_ctrl_c_cancels_the_matches_under_way_on_the_cluster() -> None:
    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with RayCluster() as backend:
        result = run_tournament(  # each match would take 5 s or more
            TICTACTOE, ["mcts", "mcts"], 8, start_clock=5, play_clock=1, backend=backend,
            progress=interrupt,
        )
    assert result.interrupted and len(result.matches) < 8  # the result of the matches played before
    deadline = time.monotonic() + 10
    while ray.available_resources().get("CPU", 0) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ray.available_resources().get("CPU", 0) == 2, "matches still hold the cluster's CPUs"


def test_the_clusters_error_messages_go_to_standard_error(capsys: pytest.CaptureFixture[str]) -> None:
    with RayCluster() as backend:
        list(backend.map(abs, [(-1,)]))
    ray._private.worker.print_to_stdstream(
        {"lines": ["A worker died"], "pid": "raylet", "is_err": False}, ignore_prefix=False
    )
    captured = capsys.readouterr()
    assert "A worker died" in captured.err and "A worker died" not in captured.out


def without_timings(data: Any) -> Any:
    if isinstance(data, dict):
        return {key: without_timings(value) for key, value in data.items() if key != "seconds"}
    if isinstance(data, list):
        return [without_timings(value) for value in data]
    return data


def test_check_dynamic_over_many_games_gives_each_games_report(capsys: pytest.CaptureFixture[str]) -> None:
    games = [str(GAMES / name) for name in ("buttons.kif", "nim.kif", "rps.kif")]
    assert main(["check", "--dynamic", *games, "--json"]) == 0
    one_by_one = json.loads(capsys.readouterr().out)
    assert main(["check", "--dynamic", *games, "--json", "--cluster", "ray"]) == 0
    assert without_timings(json.loads(capsys.readouterr().out)) == without_timings(one_by_one)
    assert main(["check", "--dynamic", *games, "--cluster", "ray"]) == 0
    captured = capsys.readouterr()
    table = captured.out.splitlines()[-5:]
    assert table[0].split() == [
        "game", "states", "explored", "term", "play", "goals", "mono", "weak", "strong", "seconds"
    ]
    assert table[1].split()[:9] == [games[0], "22", "all", "yes", "yes", "yes", "yes", "yes", "yes"]
    assert table[-1] == "3 game(s) explored: 3 well-formed, 0 not well-formed or not explored, 0 undecided " \
        "(required: terminating, playable, goals defined, weakly winnable)"
    assert "\r" not in captured.err  # the progress bar is for terminals only


def test_solve_over_many_games_gives_each_games_value(capsys: pytest.CaptureFixture[str]) -> None:
    games = [str(GAMES / name) for name in ("nim.kif", "rps.kif", "buttons.kif")]
    values = []
    for game in games:
        assert main(["solve", game, "--json"]) == 0
        values.append(json.loads(capsys.readouterr().out)["value"])
    assert main(["solve", *games, "--json", "--cluster", "ray"]) == 0
    assert [run["value"] for run in json.loads(capsys.readouterr().out)] == values
    assert main(["solve", *games, str(GAMES / "missing.kif"), "--cluster", "ray"]) == 2
    captured = capsys.readouterr()
    assert "missing.kif: no such file" in captured.err
    lines = captured.out.splitlines()
    assert lines[0].split() == ["game", "result", "value", "states", "seconds"]
    assert lines[1].split()[:-1] == [games[0], "solved", "first", "0,", "second", "100", "14"]
    assert lines[-1] == "3 of 3 game(s) solved"


def test_the_tournament_command_runs_on_the_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    arguments = ["tournament", TICTACTOE, "-p", "legal", "-p", "random", "-n", "4", "--seed", "3"]
    assert main([*arguments, "--cluster", "ray"]) == 0
    on_ray = capsys.readouterr().out
    assert main([*arguments, "-j", "2"]) == 0
    assert on_ray == capsys.readouterr().out
    assert on_ray.startswith("tictactoe: 4 matches (0 aborted)")
