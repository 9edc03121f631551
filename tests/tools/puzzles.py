"""Puzzles played by the puzzle player within real clocks: one match per one-role game, through
:class:`gdl.match.Match` with the player in a worker process of its own (as ``gdl serve`` runs it,
under the same CPU allowance)::

    .venv/bin/python tests/tools/puzzles.py ../shared/corpus/games/hanoi.kif ...
    .venv/bin/python tests/tools/puzzles.py --corpus ../shared/corpus/games --start-clock 20 --play-clock 5

``--corpus DIR`` plays every one-role game of ``DIR/INDEX.tsv`` (with the games given). Prints a markdown
table, one row per game: the goal the match ended with, whether the plan made in the start clock was
proven best (and proven shortest), its moves, the states its searches expanded and their CPU seconds
(the player process's own time, whatever the machine's load), the errors charged to the player (missed
clocks, illegal moves) and the match's wall-clock seconds. Exit status 1 when a game ended below 100
whose plan was proven to reach 100, or with an error charged to the player.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path
from typing import Any

import gdl
from gdl.match import Match


def one_role_games(corpus: Path) -> list[Path]:
    """The games of ``corpus/INDEX.tsv`` that have one role."""
    with (corpus / "INDEX.tsv").open(encoding="utf-8") as index:
        return [corpus / row["file"] for row in csv.DictReader(index, delimiter="\t") if row["roles"] == "1"]


def first_plan(record: Any, role: str) -> dict[str, Any]:
    """What the player reported about the plan made in the start clock (its first answer's info)."""
    for step in record.infos:
        if step.get(role):
            return dict(step[role])
    return {}


def play(path: Path, start_clock: float, play_clock: float, seed: int) -> dict[str, Any]:
    game = gdl.load(str(path))
    role = game.roles[0]
    began = time.monotonic()
    record = Match(game, {role: "puzzle"}, start_clock, play_clock, seed=seed, isolate=True).run()
    info = first_plan(record, role)
    return {
        "game": path.stem,
        "goal": record.goals.get(role),
        "plan": info,
        "steps": len(record.moves),
        "errors": record.error_count(role),
        "wall": time.monotonic() - began,
        "aborted": record.abort_reason if record.aborted else "",
    }


HEADER = (
    "| game | goal | plan's goal | proven best | steps | states | solve CPU s | search | errors | wall s |\n"
    "|------|-----:|------------:|-------------|------:|-------:|------------:|--------|-------:|-------:|"
)


def row(result: dict[str, Any]) -> str:
    plan = result["plan"]
    proven = "yes" if plan.get("proven") else "no"
    if plan.get("proven") and not plan.get("shortest"):
        proven += " (length not)"
    goal = "-" if result["goal"] is None else str(result["goal"])
    if result["aborted"]:
        goal += f" (aborted: {result['aborted']})"
    states = plan.get("states")
    cells = [
        result["game"], goal, plan.get("plan_goal", "-"), proven, result["steps"],
        "-" if states is None else f"{states:,}", plan.get("seconds", "-"), plan.get("method", "-"),
        result["errors"], f"{result['wall']:.0f}",
    ]
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def failed(result: dict[str, Any]) -> bool:
    """An error charged to the player, or a goal below the 100 its plan was proven to reach."""
    plan = result["plan"]
    proven_win = bool(plan.get("proven")) and plan.get("plan_goal") == 100
    return bool(result["errors"]) or (proven_win and result["goal"] != 100)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="*", type=Path)
    parser.add_argument("--corpus", type=Path, help="also every one-role game of this folder's INDEX.tsv")
    parser.add_argument("--start-clock", type=float, default=20.0)
    parser.add_argument("--play-clock", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    games = list(args.games) + (one_role_games(args.corpus) if args.corpus else [])
    print(HEADER)
    failures = 0
    for path in games:
        result = play(path, args.start_clock, args.play_clock, args.seed)
        print(row(result), flush=True)
        failures += failed(result)
    print(f"\n{len(games)} games, {failures} failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
