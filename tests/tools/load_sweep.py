"""How long every corpus game takes to give its first legal moves: ``gdl.load(path, engine=...)``, then
``initial_state().legal_moves(role)`` for each role, in a fresh process per game (so that a game that
hangs cannot stall the sweep, and no game profits from another's warm caches)::

    .venv/bin/python tests/tools/load_sweep.py                       # every game, engine="auto"
    .venv/bin/python tests/tools/load_sweep.py --engine compiled GAME...
    taskset -c 0 .venv/bin/python tests/tools/load_sweep.py --timeout 60

prints a markdown table sorted by CPU time, slowest first: wall and CPU seconds of loading plus the
first legal moves, of loading alone, the engine chosen, and the CPU seconds of the compiled engine's
phases (instantiation, network, code generation, compile() ...) when it was built, or why
``engine="auto"`` gave it up. The default games are ../shared/corpus/games/*.kif and
../shared/corpus/gdl2/*; ``--slowest N`` prints only the N slowest rows.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"

#: What runs in each child process: prints one JSON object (imports are not counted).
CHILD = r"""
import io, json, logging, sys, time
import gdl
from gdl.errors import InvalidGameError
path, engine = sys.argv[1], sys.argv[2]
said = io.StringIO()
handler = logging.StreamHandler(said)
logging.getLogger("gdl.engines").addHandler(handler)
logging.getLogger("gdl.engines").setLevel(logging.INFO)
wall, cpu = time.perf_counter(), time.process_time()
try:
    game = gdl.load(path, engine=engine)
except InvalidGameError:
    print(json.dumps({"status": "does not check"}))
    sys.exit()
except Exception as problem:
    print(json.dumps({"status": type(problem).__name__ + ": " + str(problem)[:100]}))
    sys.exit()
loaded = {"load_wall": time.perf_counter() - wall, "load_cpu": time.process_time() - cpu}
state = game.initial_state()
moves = sum(len(state.legal_moves(role)) for role in game.roles)
print(json.dumps({
    "status": "ok", "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu, **loaded,
    "engine": type(game.reasoner).__name__.removesuffix("Reasoner").lower(), "moves": moves,
    "phases": getattr(game.reasoner, "phases", {}), "auto": said.getvalue().strip().partition(": ")[2],
}))
"""


def measure(path: Path, engine: str, timeout: float) -> dict[str, object]:
    """One game's figures, measured in a fresh interpreter."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(path), engine],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        return {"status": f"timeout after {timeout:g} s", "wall": timeout, "cpu": timeout}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"status": f"exit {done.returncode}: {last[:100]}", "wall": 0.0, "cpu": 0.0}
    result: dict[str, object] = json.loads(lines[-1])
    return result


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("games", nargs="*", type=Path)
    parser.add_argument("--engine", default="auto")
    parser.add_argument("--timeout", type=float, default=120.0, help="wall seconds per game (default 120)")
    parser.add_argument("--slowest", type=int, help="print only the N slowest games")
    args = parser.parse_args()
    games = args.games or [*sorted((CORPUS / "games").glob("*.kif")), *sorted((CORPUS / "gdl2").glob("*"))]
    rows = []
    for path in games:
        result = measure(path, args.engine, args.timeout)
        rows.append((path, result))
        print(f"{path.name}: {json.dumps(result)}", file=sys.stderr, flush=True)
    rows.sort(key=lambda row: -float(str(row[1].get("cpu", 0.0))))
    print("| game | wall s | CPU s | load wall s | load CPU s | engine | compiled engine's phases (CPU s) |")
    print("|---|---|---|---|---|---|---|")
    for path, result in rows[: args.slowest]:
        if result["status"] != "ok":
            print(f"| {path.name} | | | | | {result['status']} | |")
            continue
        phases = result.get("phases")
        shown = ", ".join(f"{k} {v:.2f}" for k, v in phases.items()) if isinstance(phases, dict) else ""
        shown = shown or str(result.get("auto", ""))
        print(
            f"| {path.name} | {result['wall']:.2f} | {result['cpu']:.2f} | {result['load_wall']:.2f} | "
            f"{result['load_cpu']:.2f} | {result['engine']} | {shown} |"
        )
    slow = [path.name for path, result in rows if float(str(result.get("cpu", 0.0))) > 10]
    failed = [path.name for path, result in rows if result["status"] not in ("ok", "does not check")]
    print(f"\n{len(rows)} games; over 10 CPU-seconds: {', '.join(slow) or 'none'}; "
          f"not loaded: {', '.join(failed) or 'none'}")


if __name__ == "__main__":
    main()
