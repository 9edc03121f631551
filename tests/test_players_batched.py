"""The mcts player with batched playouts (``mcts:batch=K``): K playouts per leaf on the batched engine."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest
from support.games import board
from support.paths import GAMES
from support.timing import NEVER

import gdl
import gdl.ground.propnet
from gdl.budget import checkpoint
from gdl.game import Game
from gdl.match import Match
from gdl.players import make_player
from gdl.players.mcts import MctsPlayer
from gdl.players.random import RandomPlayer


@pytest.fixture(scope="module")
def tictactoe() -> Game:
    return gdl.load(GAMES / "tictactoe.kif")


def batched(spec: str, game: Game, role: str) -> MctsPlayer:
    player = make_player(spec)
    assert isinstance(player, MctsPlayer)
    player.start(game, role, 30, 30)
    return player


def test_the_batch_option_comes_through_the_registry() -> None:
    player = make_player("mcts:batch=32,iterations=10")
    assert isinstance(player, MctsPlayer) and player.batch == 32
    assert make_player("mcts").batch == 1  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="mcts batch must be at least 1, got 0"):
        make_player("mcts:batch=0")


@pytest.mark.parametrize("engine", ["auto", "datalog"])
def test_batched_mcts_takes_a_win_in_one(engine: str) -> None:
    game = gdl.load(GAMES / "tictactoe.kif", engine=engine)
    # x must take (mark 1 3) now, else o wins at (mark 2 3).
    state = board(game, ["xx.", "oo.", "..."], "xplayer")
    player = batched("mcts:batch=32,iterations=60,seed=1", game, "xplayer")
    assert str(player.play(state, time.monotonic() + NEVER)) == "(mark 1 3)"


def test_a_batched_leaf_backs_up_the_mean_goal_of_its_playouts(tictactoe: Game) -> None:
    """One iteration from the root: the root's statistics hold the mean of the K playouts' goals / 100."""
    player = batched("mcts:batch=32,iterations=1,seed=3", tictactoe, "xplayer")
    assert player._batched is not None
    engine = player._batched[1]
    seen: list[npt.NDArray[np.int64]] = []
    original = engine.rollouts

    def recorded(states: Sequence[int]) -> npt.NDArray[np.int64]:
        values = original(states)
        assert len(states) == 32
        seen.append(values)
        return values

    engine.rollouts = recorded  # type: ignore[method-assign]
    state = board(tictactoe, ["x..", ".o.", "..."], "xplayer")
    player.play(state, time.monotonic() + NEVER)
    assert len(seen) == 1
    # Every playout ends in a tictactoe outcome: the goals of x and o add up to 100.
    assert set(map(int, seen[0].sum(axis=1))) == {100}
    root = player._root
    assert root is not None
    expected = seen[0].mean(axis=0) / 100
    for role in range(2):
        assert sum(root.visits[role]) == 1
        assert sum(root.totals[role]) == pytest.approx(expected[role])


def test_batched_mcts_does_not_lose_to_random(tictactoe: Game) -> None:
    for seed in range(3):
        players = {
            "xplayer": make_player(f"mcts:batch=32,iterations=40,seed={seed}"),
            "oplayer": RandomPlayer(seed=seed),
        }
        record = Match(tictactoe, players, start_clock=30, play_clock=30, seed=seed).run()
        assert record.completed and record.error_count("xplayer") == 0
        assert record.goals["xplayer"] >= 50
        assert players["xplayer"]._batched is not None  # type: ignore[attr-defined]  # it played batched


def test_every_phase_of_its_own_build_is_bounded_by_the_start_clock(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A network phase that would never end is stopped at half the start clock, not only instantiation."""

    def endless(*args: object, **kwargs: object) -> object:
        while True:
            checkpoint()

    game = gdl.load(GAMES / "tictactoe.kif", engine="datalog")
    monkeypatch.setattr(gdl.ground.propnet, "build", endless)
    player = make_player("mcts:batch=32,iterations=50,seed=1")
    assert isinstance(player, MctsPlayer)
    with caplog.at_level(logging.WARNING, logger="gdl.players.mcts"):
        player.start(game, "xplayer", 1.0, 30)
    assert player._batched is None
    assert "building the compiled engine took more than its budget of 0.5 s" in caplog.text


def test_a_game_too_large_falls_back_to_single_playouts(
    tictactoe: Game, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """With an atom budget of 1, instantiation fails as for a really large game."""
    game = gdl.load(GAMES / "tictactoe.kif", engine="datalog")
    monkeypatch.setattr("gdl.engines.AUTO_MAX_ATOMS", 1)
    with caplog.at_level(logging.WARNING, logger="gdl.players.mcts"):
        player = batched("mcts:batch=32,iterations=200,seed=1", game, "xplayer")
    assert player._batched is None
    assert "batch=32 falls back to single playouts" in caplog.text
    state = board(game, ["xx.", "oo.", "..."], "xplayer")
    assert str(player.play(state, time.monotonic() + NEVER)) == "(mark 1 3)"
