"""Matches per minute of a tic-tac-toe tournament on the process backend and on a local Ray cluster.

    .venv/bin/python tests/tools/cluster_throughput.py [--matches N] [--runs R] [--cpus C]

Both backends stay open for the whole run (a warm process pool, a Ray cluster of ``cpus`` CPUs started
once) and take turns, ``runs`` times each, after one warm-up tournament each; the table gives medians.
Two pairings: ``mcts:iterations=200`` against ``random`` (a match is some real work) and ``legal``
against ``random`` (a match is a few milliseconds, so the time is mostly the backend's own). Each
match has one thinking player at most, so both backends run ``cpus`` matches at once. The overhead
per match is the wall time per trivial match, times the matches run at once, less the time the same
match takes played directly in this process.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from gdl.backend import Backend, Processes
from gdl.cluster import RayCluster
from gdl.tournament import play_one, run_tournament

GAME = str(Path(__file__).resolve().parents[2] / "games" / "tictactoe.kif")
PAIRINGS = {"mcts": ["mcts:iterations=200", "random"], "trivial": ["legal", "random"]}


def tournament_seconds(backend: Backend[object], specs: list[str], matches: int) -> float:
    started = time.perf_counter()
    result = run_tournament(GAME, specs, matches, start_clock=60, play_clock=60, seed=1, backend=backend)
    assert result.aborted == 0 and len(result.matches) == matches
    return time.perf_counter() - started


def inline_seconds(specs: list[str], matches: int) -> float:
    """Median seconds of one match played in this process (the game loaded already)."""
    text = Path(GAME).read_text(encoding="utf-8")
    times = []
    for seed in range(matches):
        started = time.perf_counter()
        play_one(text, GAME, "auto", 60, 60, None, None, specs, seed)
        times.append(time.perf_counter() - started)
    return statistics.median(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cpus", type=int, default=2)
    args = parser.parse_args()
    started = time.perf_counter()
    ray = RayCluster(cpus=args.cpus)
    ray.map(abs, [(1,)]).__next__()  # start the cluster
    print(f"starting the local Ray cluster: {time.perf_counter() - started:.1f} s")
    backends: dict[str, Backend[object]] = {"processes": Processes(args.cpus), "ray": ray}
    try:
        for pairing, specs in PAIRINGS.items():
            seconds: dict[str, list[float]] = {name: [] for name in backends}
            for backend in backends.values():  # warm-up: workers start, games load
                tournament_seconds(backend, specs, args.cpus * 2)
            for _ in range(args.runs):
                for name, backend in backends.items():
                    seconds[name].append(tournament_seconds(backend, specs, args.matches))
            inline = inline_seconds(specs, 21)
            medians = {name: statistics.median(runs) for name, runs in seconds.items()}
            extra = (medians["ray"] - medians["processes"]) / args.matches
            print(f"{pairing:8} Ray takes {1000 * extra:+.1f} ms of wall time per match more than processes")
            for name, runs in seconds.items():
                median = statistics.median(runs)
                overhead = median / args.matches * args.cpus - inline
                print(
                    f"{pairing:8} {name:10} {args.matches} matches: "
                    f"{', '.join(f'{s:.2f}' for s in runs)} s; median {median:.2f} s = "
                    f"{60 * args.matches / median:.0f} matches/min; "
                    f"per match {1000 * median / args.matches:.1f} ms wall, "
                    f"overhead {1000 * overhead:.1f} ms (match alone: {1000 * inline:.1f} ms)"
                )
    finally:
        for backend in backends.values():
            backend.close()


if __name__ == "__main__":
    main()
