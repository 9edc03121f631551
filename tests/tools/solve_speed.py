"""Expanded states per CPU-second of the native retrograde solver (gdl.retrograde), and of the search
over game states it replaces, on the games given.

    .venv/bin/python tests/tools/solve_speed.py ../shared/corpus/games/nim3.kif games/tictactoe.kif
    .venv/bin/python tests/tools/solve_speed.py --max-states 2000000 ../shared/corpus/games/connectfour.kif
    .venv/bin/python tests/tools/solve_speed.py --search ../shared/corpus/games/nim1.kif

Each game is loaded with the compiled engine and explored once to load the kernels; then the exploration
(every reachable state, or the first ``--max-states`` found: breadth first, so a game too large to solve
is measured on its first levels) and the valuing of a complete exploration are timed (CPU seconds of this
process), and the median of ``--runs`` runs printed with the memory the arrays take. ``--search`` also
times ``gdl.solve.solve`` on the game loaded with the Datalog engine (the search over states, which the
native solver replaces), with its own limit.
"""

from __future__ import annotations

import argparse
import statistics
import time

import gdl
from gdl.retrograde import EDGES, EXPANDED, STATES, Exploration, explore
from gdl.solve import native_solution, solve


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-states", type=int, help="stop each exploration at this many states found")
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
            found, stopped = explore(game, root, float("inf"), args.max_states, 16 << 30, None)
            rates.append(int(found.counters[EXPANDED]) / (time.process_time() - started))
            if not stopped:
                started = time.process_time()
                native_solution(found, time.monotonic())
                backs.append(time.process_time() - started)
        line = (
            f"{game.name}: {_counts(found)}, {statistics.median(rates):,.0f} expanded states per CPU-s "
            f"(runs {', '.join(f'{r:,.0f}' for r in rates)}), "
            + (f"valuing {statistics.median(backs):.3f} CPU-s" if backs else f"stopped: {stopped}")
            + f"; {found.bytes_per_state():.0f} bytes a state"
        )
        if args.search:
            searched = gdl.load(path, engine="datalog")
            started = time.process_time()
            solution = solve(searched, budget=args.search_limit, max_states=args.max_states)
            spent = time.process_time() - started
            rate = solution.states / spent
            line += f"; search: {solution.states:,} states in {spent:.1f} CPU-s ({rate:,.0f}/CPU-s)"
        print(line, flush=True)


def _counts(found: Exploration) -> str:
    states, expanded = int(found.counters[STATES]), int(found.counters[EXPANDED])
    edges = int(found.counters[EDGES])
    return f"{states:,} states ({expanded:,} expanded, {edges / max(expanded, 1):.1f} successors each)"


if __name__ == "__main__":
    main()
