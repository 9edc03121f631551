"""Golden playthroughs of our own games (see tests/playthroughs/record.py), replayed move by move."""

from __future__ import annotations

from pathlib import Path

import pytest
from playthroughs.record import GAMES, HERE, recorded_moves, render

import gdl

RECORDED = sorted(HERE.glob("*.txt"))


def test_every_game_has_a_playthrough() -> None:
    assert {p.stem for p in RECORDED} == {p.stem for p in GAMES.glob("*.kif")}


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_playthrough_replays(path: Path) -> None:
    golden = path.read_text(encoding="utf-8")
    game = gdl.load(GAMES / f"{path.stem}.kif", engine="datalog")
    moves = recorded_moves(golden)
    assert moves, "a playthrough makes at least one move"
    assert render(game, moves) == golden


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_playthrough_replays_on_every_engine(path: Path) -> None:
    """Whatever engine "auto" picks must tell the same story."""
    golden = path.read_text(encoding="utf-8")
    game = gdl.load(GAMES / f"{path.stem}.kif")
    assert render(game, recorded_moves(golden)) == golden
