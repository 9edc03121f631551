"""Search against search at equal work: two players in this process, seats alternating, with no clock
that binds (give both an ``iterations`` option), so that a change to the search is measured apart from
its speed::

    .venv/bin/python tests/tools/selfplay.py GAME.kif... --player 'uct:iterations=20000,ponder=0,rave=20' \\
        --opponent 'uct:iterations=20000,ponder=0' --matches 12

Match ``i`` (counted from ``--first``, default 0) seats ``--player`` in role ``i mod n`` (the opponent
in the other roles, each a player of its own) and seeds the players with ``i`` (the player) and
``1000 + i`` (the opponents), unless their descriptions give a ``seed``. Prints a markdown table, one
row per game: matches, the player's score share (its goal over the sum of the match's goals, an even
share when all are 0; the mean over the matches) with a 95 % confidence interval (Student's t), and
the CPU seconds the run took.

With a ``--clock`` that binds (and a ``--start-clock`` long enough to build the engines), the players
are measured at equal time instead, one after the other on one core (give both ``ponder=0``)::

    taskset -c 1 .venv/bin/python tests/tools/selfplay.py GAME.kif --start-clock 10 --clock 1 \
        --player 'uct:ponder=0,decisive=1,anti=0' --opponent 'uct:ponder=0,decisive=0' --matches 10
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from intervals import mean_interval

import gdl
from gdl.match import Match
from gdl.players import make_player


def share(goals: dict[str, int], role: str) -> float:
    """``role``'s goal over the sum of the goals, or an even share when all are 0."""
    total = sum(goals.values())
    return goals[role] / total if total else 1 / len(goals)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="+", type=Path)
    parser.add_argument("--player", required=True, help="the player measured (a player description)")
    parser.add_argument("--opponent", required=True, help="the player of the other roles")
    parser.add_argument("--matches", type=int, default=12, help="matches per game (default 12)")
    parser.add_argument("--first", type=int, default=0, help="the number of the first match (default 0)")
    parser.add_argument("--clock", type=float, default=600.0,
                        help="start and play clock, seconds (default 600: the iterations bind)")
    parser.add_argument("--start-clock", type=float,
                        help="the start clock, seconds, where it differs from --clock (a player that "
                        "builds its engine at the start needs some)")
    args = parser.parse_args(argv)
    print(f"{args.player} against {args.opponent}, in one process")
    print("| game | matches | score share | 95 % CI | CPU s |")
    print("|---|---|---|---|---|")
    for path in args.games:
        game = gdl.load(path)
        roles = [str(role) for role in game.players]
        shares = []
        begun = time.process_time()
        for i in range(args.first, args.first + args.matches):
            seat = roles[i % len(roles)]
            players = {
                role: make_player(args.player, i) if role == seat else make_player(args.opponent, 1000 + i)
                for role in roles
            }
            start = args.clock if args.start_clock is None else args.start_clock
            record = Match(game, players, start, args.clock, isolate=False).run()
            shares.append(share(record.goals, seat))
        low, high = mean_interval(shares)
        print(
            f"| {path.stem} | {len(shares)} | {100 * sum(shares) / len(shares):.0f} % | "
            f"{100 * max(0.0, low):.0f}-{100 * min(1.0, high):.0f} % | {time.process_time() - begun:.0f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
