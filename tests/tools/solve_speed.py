"""Expanded states per CPU-second of the native retrograde solver (gdl.retrograde), and of the search
over game states it replaces, on the games given.

    .venv/bin/python tests/tools/solve_speed.py ../shared/corpus/games/nim3.kif games/tictactoe.kif
    .venv/bin/python tests/tools/solve_speed.py --search ../shared/corpus/games/nim1.kif

Each game is loaded with the compiled engine and explored once to load the kernels; then the exploration
and the valuing are timed (CPU seconds of this process), and the median of ``--runs`` runs printed.
``--search`` also times ``gdl.solve.solve`` on the game loaded with the Datalog engine (the search over
states, which the native solver replaces), with its own limit.
"""

from __future__ import annotations

import argparse
import statistics
import time

import gdl
from gdl.retrograde import explore
from gdl.solve import native_solution, solve


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--search", action="store_true", help="time the search over states too")
    parser.add_argument("--search-limit", type=float, default=600.0, help="seconds for the search")
    args = parser.parse_args()
    for path in args.games:
        game = gdl.load(path, engine="compiled")
        root = game.initial_state()
        explore(game, root, time.monotonic() + 60, 10, 1 << 30, None)
        rates, backs = [], []
        for _ in range(args.runs):
            started = time.process_time()
            found, stopped = explore(game, root, float("inf"), None, 16 << 30, None)
            explored = time.process_time() - started
            started = time.process_time()
            native_solution(found, time.monotonic())
            backs.append(time.process_time() - started)
            count = int(found.counters[0])
            rates.append(count / explored)
        line = (
            f"{game.name}: {count:,} states, {statistics.median(rates):,.0f} expanded states per CPU-s "
            f"(runs {', '.join(f'{r:,.0f}' for r in rates)}), valuing {statistics.median(backs):.3f} CPU-s"
            + (f", stopped: {stopped}" if stopped else "")
        )
        if args.search:
            searched = gdl.load(path, engine="datalog")
            started = time.process_time()
            solution = solve(searched, budget=args.search_limit)
            spent = time.process_time() - started
            rate = solution.states / spent
            line += f"; search: {solution.states:,} states in {spent:.1f} CPU-s ({rate:,.0f}/CPU-s)"
        print(line, flush=True)


if __name__ == "__main__":
    main()
