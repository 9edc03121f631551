"""GDL-II matches: nature's moves drawn by the match, each player handed only its own view."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from support.gdl2_games import HIDDEN_BITS
from support.recording_player import Recording, check_calls

import gdl
from gdl.errors import UnknownRoleError
from gdl.game import Game, State
from gdl.match import Match
from gdl.players import Player, make_player
from gdl.syntax.model import Term
from gdl.views import View

GAMES = Path(__file__).resolve().parent.parent / "games"
OURS = ["montyhall", "spoof", "kriegtictactoe"]


def _game(name: str) -> Game:
    if name == "hiddenbits":
        return gdl.parse(HIDDEN_BITS, file="hiddenbits.kif")
    return gdl.load(GAMES / f"{name}.kif")


@pytest.mark.parametrize("name", [*OURS, "hiddenbits"])
def test_a_player_is_handed_its_own_moves_and_percepts_and_nothing_else(name: str) -> None:
    game = _game(name)
    for seed in range(3):
        players = {role: Recording(seed * 10 + i) for i, role in enumerate(game.players)}
        # In this process (the recordings are read here), each with a game of its own.
        record = Match(game, players, play_clock=5, seed=seed, ask_forced=True, isolate=False).run()
        assert record.completed, record.abort_reason
        for role, player in players.items():
            assert player.calls[0][1][0] is not game and player.calls[0][1][1:] == (role, 10.0, 5.0)
            check_calls(player, record, role, game)
        # The referee's record has the truth: every joint move, nature's included, and each role's percepts.
        assert all(set(step) == set(game.roles) for step in record.moves)
        assert len(record.percepts) == len(record.moves)


def test_percepts_differ_between_roles_and_hide_the_state() -> None:
    game = _game("kriegtictactoe")
    players = {role: Recording(i) for i, role in enumerate(game.players)}
    record = Match(game, players, play_clock=5, seed=4, ask_forced=True, isolate=False).run()
    seen = {role: {p for step in record.percepts for p in step[role]} for role in game.players}
    # Each role sees only its own tries' results and that its turn has come: never a cell of the board.
    for percepts in seen.values():
        assert percepts and all(p.startswith(("(placed ", "(taken ")) or p == "your_turn" for p in percepts)
    placed = {role: {p for p in seen[role] if p.startswith("(placed")} for role in game.players}
    assert not placed["xplayer"] & placed["oplayer"]


def test_nature_moves_uniformly_and_reproducibly_with_the_match_seed() -> None:
    game = _game("montyhall")
    hidden: Counter[str] = Counter()
    for seed in range(300):
        record = Match(game, {"candidate": make_player("random", seed)}, seed=seed, isolate=False).run()
        hidden[record.moves[0]["random"]] += 1
        assert record.players["random"] == "nature" and "random" not in record.goals
    assert set(hidden) == {"(hide_car 1)", "(hide_car 2)", "(hide_car 3)"}
    # Each door 100 times on average; a 99.9 % band of the binomial(300, 1/3) is 100 +- 27.
    assert all(73 <= count <= 127 for count in hidden.values()), hidden
    again = [Match(game, {"candidate": make_player("random", 7)}, seed=7).run().moves for _ in range(2)]
    assert again[0] == again[1]


def test_nature_has_no_player() -> None:
    game = _game("montyhall")
    with pytest.raises(ValueError, match="'random' is nature"):
        Match(game, {"candidate": make_player("random"), "random": make_player("random")})
    with pytest.raises(UnknownRoleError, match="candidate"):
        Match(game, {})


def test_the_record_has_the_percepts_per_role_per_step_in_the_ggp_base_spelling() -> None:
    game = _game("montyhall")
    record = Match(game, {"candidate": make_player("random", 1)}, seed=1).run()
    data = json.loads(json.dumps(record.to_json()))
    assert data["roles"] == ["candidate", "random"]
    assert len(data["percepts"]) == len(data["moves"]) == 4
    opened = data["percepts"][2][0]
    assert len(opened) == 1 and opened[0].startswith("( opened ")
    assert data["goalValues"][1] is None and data["goalValues"][0] in (0, 100)


def test_a_gdl_match_is_as_before() -> None:
    game = gdl.load(GAMES / "tictactoe.kif")

    class Stateful(Player):
        def play(self, state: State, deadline: float) -> Term:
            assert isinstance(state, State)
            return state.legal_moves(self.role)[0]

        def play_view(self, view: View, deadline: float) -> Term:
            raise AssertionError("a perfect-information player gets the state")

    record = Match(game, {"xplayer": Stateful(), "oplayer": Stateful()}, seed=1).run()
    assert record.completed and not record.percepts and "percepts" not in record.to_json()


def test_perfect_information_players_play_gdl2_games_on_a_state_drawn_from_their_belief() -> None:
    game = _game("spoof")
    players = {"flipper": make_player("mcts:iterations=20", 1), "hider": make_player("minimax:depth=2")}
    record = Match(game, players, play_clock=5, seed=2, isolate=False).run()  # the players, not isolation
    assert record.completed and not any(record.error_count(r) for r in game.players)


def _wins(kind: str, matches: int) -> tuple[int, int]:
    game = _game("montyhall")
    wins = switches = 0
    for seed in range(matches):
        # The player's generator must not be nature's: seeded alike, the two would draw alike, and the
        # candidate's first door would be correlated with the car's.
        player = make_player(kind, 100_000 + seed)
        record = Match(game, {"candidate": player}, seed=seed, isolate=False).run()
        wins += record.goals["candidate"] == 100
        switches += record.moves[3]["candidate"] == "switch"
    return wins, switches


def test_hyperplay_switches_doors_and_wins_two_thirds_of_monty_hall() -> None:
    wins, switches = _wins("hyperplay:iterations=20", 300)
    assert switches == 300
    # 99 % interval of binomial(300, 2/3): 200 +- 2.576 * 8.16.
    assert 179 <= wins <= 221


def test_random_play_wins_half_of_monty_hall() -> None:
    wins, switches = _wins("random", 300)
    assert 100 <= switches <= 200
    # 99 % interval of binomial(300, 1/2): 150 +- 2.576 * 8.66.
    assert 128 <= wins <= 172


def test_hyperplay_does_no_worse_than_random_at_kuhn_poker() -> None:
    game = gdl.load(GAMES / "kuhn.kif")
    matches = 200

    def mean_goal(kind: str, seat: str) -> float:
        other = next(p for p in game.players if p != seat)
        total = 0
        for seed in range(matches):
            players = {seat: make_player(kind, seed), other: make_player("random", 1000 + seed)}
            total += Match(game, players, seed=seed, isolate=False).run().goals[seat]
        return total / matches

    for seat in game.players:
        assert mean_goal("hyperplay:iterations=30,samples=8", seat) >= mean_goal("random", seat)
