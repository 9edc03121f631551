"""Failures that show: what went wrong is said, in one message, with the exit status it deserves."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_script_without_a_main_guard_gets_one_clear_error(tmp_path: Path) -> None:
    script = tmp_path / "tournament_script.py"
    script.write_text(
        "from gdl.tournament import run_tournament\n"
        f"run_tournament({str(ROOT / 'games/nim.kif')!r}, ['random', 'random'], 2, jobs=1,"
        " engine='datalog')\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert done.stderr.count("Traceback") == 1  # the script's own, not one per worker
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("gdl.errors.WorkerStartError: worker processes cannot start")
    assert f"{script} must start gdl's parallel work under `if __name__ == \"__main__\":`" in last
