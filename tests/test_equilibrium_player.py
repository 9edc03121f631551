"""The equilibrium player: a small game of hidden information solved at the start, then played by the
strategy found; hyperplay's play when the game does not fit."""

from __future__ import annotations

import math
import sys
from collections import Counter
from pathlib import Path

import pytest

import gdl
from gdl.extensive.from_gdl import extensive_from_gdl
from gdl.extensive.solving import solve_extensive
from gdl.match import Match
from gdl.players import equilibrium, make_player
from gdl.players.equilibrium import EquilibriumPlayer
from gdl.syntax.model import Term
from gdl.views import View

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"


def test_alone_against_nature_it_plays_the_best_policy_every_time() -> None:
    game = gdl.load(GAMES / "montyhall.kif")
    for seed in range(6):
        record = Match(game, {"candidate": "equilibrium"}, play_clock=5, seed=seed, isolate=False).run()
        assert record.completed, record.abort_reason
        assert record.moves[3]["candidate"] == "switch"  # the best policy: switch, whatever was opened
        assert record.errors and all(not step["candidate"] for step in record.errors)


class _Remembering(EquilibriumPlayer):
    """Remembers the views it was asked about."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed=seed)
        self.views: list[View] = []

    def play_view(self, view: View, deadline: float) -> Term:
        self.views.append(view)
        return super().play_view(view, deadline)


def test_its_moves_follow_the_strategy_found_at_every_information_state() -> None:
    game = gdl.load(GAMES / "kuhn.kif")
    solution = solve_extensive(extensive_from_gdl(game))
    player = _Remembering(seed=3)
    for seed in range(4):
        players = {"player1": player, "player2": "random"}
        record = Match(game, players, play_clock=5, seed=seed, isolate=False).run()
        assert record.completed, record.abort_reason
    assert player.info()["solved"] and player.info()["information_sets"] == 6
    asked = [view for view in player.views if len(view.legal) > 1]
    assert asked
    for view in asked:
        strategy = solution.strategies["player1"][view.information_state()]
        picks = Counter(str(player.play_view(view, math.inf)) for _ in range(1000))
        for action, probability in strategy.items():
            assert abs(picks[action] / 1000 - probability) < 0.06, (view.information_state(), strategy, picks)


def test_against_random_play_it_does_at_least_as_well_as_the_value() -> None:
    game = gdl.load(GAMES / "goofspiel.kif")
    goals = []
    for seed in range(40):
        record = Match(
            game, {"player1": "equilibrium", "player2": "random"}, play_clock=5, seed=seed, isolate=False
        ).run()
        assert record.completed, record.abort_reason
        goals.append(record.goals["player1"])
    # The value is 50; an equilibrium strategy guarantees it in expectation, and random bids give more.
    assert sum(goals) / len(goals) > 50


def test_a_game_too_large_is_played_as_hyperplay_plays_it_and_says_why() -> None:
    game = gdl.load(GAMES / "kuhn.kif")
    player = make_player("equilibrium:max_nodes=10", seed=1)
    record = Match(game, {"player1": player, "player2": "random"}, play_clock=5, seed=2, isolate=False).run()
    assert record.completed and not record.error_count("player1")
    assert player.info()["solved"] is False and "more than 10 nodes" in player.info()["reason"]


def test_the_measuring_tool_plays_each_seat_against_the_equilibrium(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sys.path.insert(0, str(ROOT / "tests" / "tools"))
    try:
        import gdl2_strength
    finally:
        sys.path.remove(str(ROOT / "tests" / "tools"))
    assert gdl2_strength.main([str(GAMES / "kuhn.kif"), "--matches", "3", "--player", "random"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| kuhn |")]
    assert [row.split("|")[2].strip() for row in rows] == ["player1", "player2"]
    values = [float(row.split("|")[3]) for row in rows]
    assert values[0] + values[1] == pytest.approx(100)  # constant-sum: the seats' values add up


def test_the_same_rules_are_solved_once_in_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    game = gdl.load(GAMES / "kuhn.kif")
    first = EquilibriumPlayer(max_nodes=150_000)
    first.start(game, "player2", 30, 5)
    assert first.info()["solved"]

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("solved again")

    monkeypatch.setattr(equilibrium, "extensive_from_gdl", refuse)
    again = EquilibriumPlayer(max_nodes=150_000)
    again.start(gdl.load(GAMES / "kuhn.kif"), "player1", 30, 5)  # the same rules, loaded anew
    assert again.info()["solved"] and again.info()["value"] == pytest.approx(50 - 1 / 18)
