"""What playing each player of a match in a process of its own costs: wall seconds per match of random
players, isolated (the default for GDL-II games) and in the match's process, median of the runs.

    .venv/bin/python tests/tools/isolation_cost.py GAME... [--matches N] [--runs R]

The isolated figure covers a process started per player and the game loaded there (before the clocks);
the first match of a process also starts the fork server, and is left out.
"""

from __future__ import annotations

import argparse
import statistics
import time

import gdl
from gdl.match import Match
from gdl.players import make_player


def seconds_per_match(game: gdl.Game, isolate: bool, matches: int) -> float:
    started = time.perf_counter()
    for seed in range(matches):
        players = {role: make_player("random", seed) for role in game.players}
        record = Match(game, players, isolate=isolate, seed=seed).run()
        assert not any(record.error_count(role) for role in game.players), record.errors
    return (time.perf_counter() - started) / matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="+")
    parser.add_argument("--matches", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print("| game | in the match's process (s) | isolated (s) |")
    print("| --- | ---: | ---: |")
    for path in args.games:
        game = gdl.load(path)
        seconds_per_match(game, True, 1)  # the fork server starts once
        figures = [
            statistics.median(seconds_per_match(game, isolate, args.matches) for _ in range(args.runs))
            for isolate in (False, True)
        ]
        print(f"| {game.name} | {figures[0]:.3f} | {figures[1]:.3f} |")


if __name__ == "__main__":
    main()
