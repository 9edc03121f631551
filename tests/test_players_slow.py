"""Long acceptance runs of the players (``pytest -m slow``); results are recorded in docs/players.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdl.tournament import run_tournament

GAMES = Path(__file__).resolve().parent.parent / "games"


@pytest.mark.slow
@pytest.mark.parametrize("opponent", ["mcts", "random"])
def test_minimax_never_loses_tictactoe(opponent: str) -> None:
    result = run_tournament(
        str(GAMES / "tictactoe.kif"), ["minimax", opponent], matches=50, play_clock=1.0, jobs=2, seed=1
    )
    minimax, _ = result.standings
    print(f"\nminimax vs {opponent}: {minimax}")
    assert result.aborted == 0
    assert minimax.losses == 0
    assert minimax.wins + minimax.draws == 50
    assert [m["seats"][0] for m in result.matches].count(0) == 25  # 25 matches in each role


@pytest.mark.slow
def test_mcts_beats_random_at_connect_four(corpus: Path) -> None:
    result = run_tournament(
        str(corpus / "games" / "connectfour.kif"), ["mcts", "random"], matches=50, play_clock=1.0, jobs=2,
        seed=1,
    )
    mcts, _ = result.standings
    print(f"\nmcts vs random at connect four: {mcts}")
    assert result.aborted == 0
    assert mcts.wins >= 45
