"""No clock is missed for compiling the playout kernel (issue 17): the first match on a fresh
installation, with an empty numba cache, is clean."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gdl.engines.warm import warm_up

GAMES = Path(__file__).resolve().parent.parent / "games"


def test_warm_up_runs_once_per_process() -> None:
    warm_up()
    assert warm_up() == warm_up()  # cached: the later calls do nothing


def test_the_first_match_with_an_empty_numba_cache_misses_no_clock(tmp_path: Path) -> None:
    # An empty cache directory is a fresh installation: numba compiles the kernel in this process.
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    command = [
        sys.executable, "-c", "import sys; from gdl.cli import main; sys.exit(main())",
        "play", str(GAMES / "tictactoe.kif"),
        "--player", "xplayer=mcts:iterations=100", "--player", "oplayer=mcts:iterations=100",
        "--start-clock", "1", "--play-clock", "1", "--seed", "1", "-q", "--json", str(tmp_path / "m.json"),
    ]
    result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr
    assert any(tmp_path.rglob("native_kernel.playout*.nbi")), "the kernel was compiled into the fresh cache"
    assert any(tmp_path.rglob("native_kernel.depth_charges*.nbi")), "and its loop of many playouts"
    assert any(tmp_path.rglob("batched_kernel.play*.nbi")), "and so was the batched engine's"
    assert any(tmp_path.rglob("sweep_kernel.sweep*.nbi")), "and the sweep of large networks"
    # Compiling takes seconds (twenty on a busy machine): it made START miss its clock. The players
    # search a fixed number of playouts, so that only compiling could make them late.
    errors = json.loads((tmp_path / "m.json").read_text())["errorMessages"]
    assert all(error == "" for step in errors for error in step), errors
