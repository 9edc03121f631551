"""The Ray backend when a whole node dies, and Ctrl-C sent to the command (slow: each starts a cluster).

    .venv/bin/pytest -m slow tests/test_cluster_slow.py -n 0
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.cli import at_a_terminal

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

from gdl.cluster import RayCluster  # noqa: E402 - after the skip, as ray is optional
from gdl.tournament import run_tournament  # noqa: E402

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
TICTACTOE = str(ROOT / "games" / "tictactoe.kif")


@pytest.fixture
def two_nodes() -> Iterator[Any]:
    """A head node and a second node of one CPU each, on this machine, the driver connected."""
    cluster = cluster_utils.Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    cluster.connect()
    try:
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_a_node_that_dies_in_the_middle_of_a_tournament_costs_no_match(two_nodes: Any) -> None:
    [worker_node] = two_nodes.worker_nodes

    def remove_the_node(done: int, total: int) -> None:
        if done == 1:  # the other node is in the middle of a match
            two_nodes.remove_node(worker_node, allow_graceful=False)

    with RayCluster() as backend:
        result = run_tournament(
            TICTACTOE, ["mcts", "random"], 6, start_clock=5, play_clock=0.5, seed=2, backend=backend,
            progress=remove_the_node,
        )
    assert len(result.matches) == 6 and result.aborted == 0
    reruns = [reason for match in result.matches for reason in match.get("reruns", [])]
    assert reruns and all(r.startswith(("NodeDiedError", "WorkerCrashedError")) for r in reruns)


def ray_processes_of(parent: int) -> list[int]:
    """The processes whose parent is ``parent`` (the Ray daemons a command started)."""
    children = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent:
            children.append(int(pid))
    return children


def test_ctrl_c_stops_a_tournament_on_the_cluster_and_the_cluster_it_started() -> None:
    command = [
        sys.executable, "-c", "import sys; from gdl.cli import main; sys.exit(main())",
        "tournament", TICTACTOE, "-p", "mcts", "-p", "mcts", "-n", "20", "--play-clock", "1",
        "--cluster", "ray",
    ]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=ROOT, preexec_fn=at_a_terminal)
    assert process.stderr is not None
    seen = ""
    while "1/20 matches" not in seen:  # the cluster runs matches
        character = process.stderr.read(1)
        assert character, f"the tournament ended early: {seen}"
        seen += character
    daemons = ray_processes_of(process.pid)
    assert daemons
    process.send_signal(signal.SIGINT)
    try:
        status = process.wait(timeout=60)
    finally:
        process.kill()
    assert status == 130
    assert "interrupted" in process.stderr.read()
    deadline = time.monotonic() + 30
    while any(Path(f"/proc/{pid}").exists() for pid in daemons) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not [pid for pid in daemons if Path(f"/proc/{pid}").exists()], "the cluster outlived the command"
