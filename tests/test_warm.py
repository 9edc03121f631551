"""No clock is missed for compiling the playout kernel: the first match on a fresh
installation, with an empty numba cache, is clean."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support.timing import clock

from gdl.engines.warm import warm_up

GAMES = Path(__file__).resolve().parent.parent / "games"


def test_warm_up_runs_once_per_process() -> None:
    warm_up()
    assert warm_up() == warm_up()  # cached: the later calls do nothing


def test_the_first_match_with_an_empty_numba_cache_misses_no_clock(tmp_path: Path) -> None:
    # An empty cache directory is a fresh installation: numba compiles the kernel in this process.
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    seconds = f"{clock(1):g}"  # a 1 s clock on an idle machine, stretched by the load (not by compiling)
    command = [
        sys.executable, "-c", "import sys; from gdl.cli import main; sys.exit(main())",
        "play", str(GAMES / "tictactoe.kif"),
        "--player", "xplayer=mcts:iterations=100", "--player", "oplayer=mcts:iterations=100",
        "--start-clock", seconds, "--play-clock", seconds, "--seed", "1",
        "-q", "--json", str(tmp_path / "m.json"),
    ]
    result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr
    assert any(tmp_path.rglob("native_kernel.playout*.nbi")), "the kernel was compiled into the fresh cache"
    assert any(tmp_path.rglob("native_kernel.depth_charges*.nbi")), "and its loop of many playouts"
    assert any(tmp_path.rglob("batched_kernel.play*.nbi")), "and so was the batched engine's"
    assert any(tmp_path.rglob("sweep_kernel.sweep*.nbi")), "and the sweep of large networks"
    # Compiling takes seconds (twenty on a busy machine): inside a clock, START would miss it. The players
    # search a fixed number of playouts, so that only compiling could make them late.
    errors = json.loads((tmp_path / "m.json").read_text())["errorMessages"]
    assert all(error == "" for step in errors for error in step), errors
