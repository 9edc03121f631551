"""GDL-II play measured against exact solutions: a player's mean goal against the equilibrium player,
beside the game's value, in each seat::

    .venv/bin/python tests/tools/gdl2_strength.py games/kuhn.kif games/montyhall.kif --matches 200
    .venv/bin/python tests/tools/gdl2_strength.py games/kuhn.kif --player random --matches 200

For each game the extensive form is solved once here (:func:`gdl.extensive.solving.solve_extensive`): the
value of each seat, in goal units, is what an equilibrium strategy guarantees against any opponent. Then
``--matches`` matches are played in each seat, in this process, the measured player (``--player``,
default hyperplay) against ``equilibrium`` (:class:`gdl.players.equilibrium.EquilibriumPlayer`) in the
other seats; a game of one player (against nature) is played alone. Match ``i`` uses seed ``i``.

Prints a markdown table, one row per game and seat: the seat's value, the player's mean goal with a 95 %
confidence interval (Student's t), the shortfall (value minus mean: what the player gives away against
an equilibrium, at least 0 in expectation up to the equilibrium's exploitability), the errors charged
to the player, and the seconds the matches took.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from intervals import mean_interval

import gdl
from gdl.extensive.from_gdl import extensive_from_gdl
from gdl.extensive.solving import solve_extensive
from gdl.match import Match
from gdl.players import make_player


def measure(path: Path, player: str, matches: int, play_clock: float) -> list[str]:
    """The table rows of one game."""
    game = gdl.load(path)
    tree = extensive_from_gdl(game)
    solution = solve_extensive(tree)
    offset = float(tree.goal_offset)
    rows = []
    for seat in game.players:
        goals: list[float] = []
        errors = 0
        began = time.perf_counter()
        for i in range(matches):
            players = {
                role: make_player(player if role == seat else "equilibrium", seed=10 * i + k)
                for k, role in enumerate(game.players)
            }
            record = Match(game, players, start_clock=60, play_clock=play_clock, seed=i, isolate=False).run()
            if not record.completed:
                raise SystemExit(f"{path.name}: match {i} did not complete: {record.abort_reason}")
            goals.append(record.goals[seat])
            errors += record.error_count(seat)
        value = solution.value[seat] + offset
        low, high = mean_interval(goals)
        mean = statistics.fmean(goals)
        seconds = time.perf_counter() - began
        rows.append(
            f"| {game.name} | {seat} | {value:.2f}{'' if solution.solved else ' (approx.)'} | {mean:.2f} "
            f"| {low:.2f} to {high:.2f} | {value - mean:+.2f} | {errors} | {seconds:.0f} |"
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="+", type=Path)
    parser.add_argument("--player", default="hyperplay", help="the measured player (default: hyperplay)")
    parser.add_argument("--matches", type=int, default=100, help="matches per seat (default: 100)")
    parser.add_argument("--play-clock", type=float, default=5.0)
    args = parser.parse_args(argv)
    print(f"player: {args.player}, {args.matches} matches per seat against equilibrium")
    print("| game | seat | value | mean goal | 95 % CI | shortfall | errors | seconds |")
    print("|---|---|---:|---:|---|---:|---:|---:|")
    for path in args.games:
        for row in measure(path, args.player, args.matches, args.play_clock):
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
