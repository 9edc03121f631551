"""The puzzles named in the acceptance of the puzzle player, each played in a match with 20 s start and
5 s play clocks by the player in a worker process of its own (as ``gdl serve`` runs it): the best goal,
and no error charged. tests/tools/puzzles.py plays every one-role game of the corpus the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

import gdl
from gdl.match import Match

PUZZLES = ["hanoi", "hanoi_6_disks", "eightpuzzle", "knightstour", "knightmove", "sudokugrade1"]


@pytest.mark.slow
@pytest.mark.parametrize("name", PUZZLES)
def test_a_puzzle_is_solved_within_its_clocks(corpus: Path, name: str) -> None:
    game = gdl.load(corpus / "games" / f"{name}.kif")
    role = game.roles[0]
    record = Match(game, {role: "puzzle"}, start_clock=20, play_clock=5, seed=1, isolate=True).run()
    assert record.completed and record.error_count(role) == 0
    assert record.goals == {role: 100}
