"""CPU seconds per state of the Datalog engine, the game as written against its demand-driven rewriting.

    .venv/bin/python tests/tools/demand_table.py GAME.kif... [--steps N] [--runs R]

Both evaluations walk the same random game (same seed, same moves) in the same process, alternately,
``runs`` times; the table gives medians of the CPU seconds per state (legal, terminal, next and, at the
end, goals) after a first walk that compiles the rules, and which evaluation ``DatalogReasoner`` picks
by itself. A walk stops after ``--budget`` CPU-seconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from gdl.check import check_text
from gdl.engines.datalog import DatalogReasoner


def walk(reasoner: DatalogReasoner, steps: int, budget: float) -> float:
    """CPU seconds per state of a seeded random walk."""
    rng = random.Random(1)
    state = reasoner.initial()
    start = time.process_time()
    done = 0
    for done in range(1, steps + 1):  # noqa: B007 (done counts the states evaluated)
        legal = [reasoner.legal(state, role) for role in range(len(reasoner.roles))]
        if reasoner.terminal(state) or not all(legal) or time.process_time() - start > budget:
            break
        state = reasoner.next(state, [rng.choice(moves) for moves in legal])
    return (time.process_time() - start) / done


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("games", nargs="+", type=Path)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--budget", type=float, default=20.0)
    args = parser.parse_args()
    print("| game | as written (ms/state) | rewritten (ms/state) | speed-up | picked |")
    print("|---|---:|---:|---:|---|")
    for path in args.games:
        checked = check_text(path.read_text(encoding="utf-8"), str(path)).checked
        if checked is None:
            continue
        plain = DatalogReasoner(checked, demand=False)
        rewritten = DatalogReasoner(checked, demand=True)
        if not rewritten.demand_driven:
            print(f"| {path.stem} | | | | as written (the rewriting is not stratified) |")
            continue
        picked = "rewritten" if DatalogReasoner(checked).demand_driven else "as written"
        times: dict[str, list[float]] = {"plain": [], "rewritten": []}
        for run in range(args.runs + 1):
            for name, reasoner in (("plain", plain), ("rewritten", rewritten)):
                seconds = walk(reasoner, args.steps, args.budget)
                if run:
                    times[name].append(seconds)
        a, b = statistics.median(times["plain"]), statistics.median(times["rewritten"])
        print(f"| {path.stem} | {a * 1000:.3f} | {b * 1000:.3f} | {a / b:.1f}x | {picked} |", flush=True)


if __name__ == "__main__":
    main()
