"""Run ``gdl check --dynamic`` over every game of a folder and print a Markdown table of the results.

Usage: .venv/bin/python tests/tools/wellformedness_table.py ../shared/corpus/games \
           --max-states 2000 --seconds 10 --jobs 2 > table.md

Each game runs in its own process with a hard time limit (loading and grounding are outside the
analysis budget), so one slow or failing game cannot stop the run; such games are listed as
"timeout" or "error" with the first line of what went wrong.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from gdl.wellformed import PROPERTIES

SHOWN = {True: "yes", False: "**no**", None: "?"}


#: Address-space limit of each game's process, so that a game the engine cannot ground in memory fails
#: alone (with MemoryError) instead of starving the machine.
MEMORY_LIMIT = 4 << 30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(path: Path, max_states: int, seconds: float) -> tuple[Path, dict[str, Any] | str, float]:
    """The JSON report of one game, or "timeout", or "error: " and the reason."""
    command = [
        str(Path(sys.executable).parent / "gdl"),
        "check",
        "--dynamic",
        "--json",
        "--max-states",
        str(max_states),
        "--seconds",
        str(seconds),
        str(path),
    ]
    started = time.monotonic()
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=3 * seconds + 60, preexec_fn=_limit_memory
        )
    except subprocess.TimeoutExpired:
        return path, "timeout", time.monotonic() - started
    elapsed = time.monotonic() - started
    try:
        result: dict[str, Any] = json.loads(done.stdout)
    except json.JSONDecodeError:
        lines = (done.stderr or done.stdout).strip().splitlines()
        return path, "error: " + (lines[-1] if lines else f"exit {done.returncode}"), elapsed
    if "reachable_states" not in result:
        errors = [d["message"] for d in result["diagnostics"] if d["level"] == "error"]
        errors += done.stderr.strip().splitlines()[-1:]
        return path, "error: " + (errors[0] if errors else "no report"), elapsed
    return path, result, elapsed


def row(path: Path, result: dict[str, Any] | str, elapsed: float) -> str:
    if isinstance(result, str):
        return f"| {path.stem} | {result} |" + " |" * (len(PROPERTIES) + 2) + f" {elapsed:.1f} |"
    states = f"{result['reachable_states']}" + ("" if result["complete"] else "+")
    cells = [SHOWN[result[p]] for p in PROPERTIES]
    return (
        f"| {path.stem} | {states} | {result['terminal_states']} | {result['max_depth']} | "
        + " | ".join(cells)
        + f" | {elapsed:.1f} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--max-states", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    games = sorted(args.folder.glob("*.kif"))
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda p: run(p, args.max_states, args.seconds), games))
    header = ["game", "states", "terminal", "depth", *PROPERTIES, "time (s)"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for path, result, elapsed in results:
        print(row(path, result, elapsed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
