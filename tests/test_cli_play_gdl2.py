"""`gdl play GAME --seed 1` plays every GDL-II game of the corpus that the checker accepts to its end."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gdl2_games import REJECTED_GDL2, gdl2_params
from support.paths import CORPUS

from gdl.cli import main

#: Games whose match takes more than a few seconds (loading, or many steps): slow run only.
SLOW = {
    "small_dominion", "SmallDominion2", "twogenerals", "mastermind", "mastermind448", "Mastermind448",
    "BlindBreakthrough", "stratego", "MontyHall-20door", "minesweeper1", "vis_pacman3p",
}


@pytest.mark.parametrize("path", gdl2_params(CORPUS, SLOW))
def test_gdl_play_finishes_every_gdl2_game(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["play", str(path), "--seed", "1", "--quiet"])
    out, err = capsys.readouterr()
    if path.stem in REJECTED_GDL2:
        assert status == 2 and "the game has errors" in err
        return
    assert status == 0, out + err
    goals = next(line for line in out.splitlines() if line.startswith("goals: "))
    assert "random" not in goals  # nature plays for no goal
    assert "Traceback" not in err
