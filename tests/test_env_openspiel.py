"""gdl.env: GDL and GDL-II games as OpenSpiel games, checked with OpenSpiel's own algorithms."""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyspiel")

import pyspiel
from open_spiel.python import policy
from open_spiel.python.algorithms import cfr, expected_game_score, exploitability, mcts
from support.env import corpus_games, instantiated, present, unless_the_game_breaks_gdl
from support.paths import CORPUS, GAMES

import gdl
from gdl.env import openspiel_game, register
from gdl.env.openspiel import GdlState
from gdl.extensive.from_gdl import extensive_from_gdl
from gdl.extensive.lp import solve_lp
from gdl.players.minimax import MinimaxPlayer

SAMPLE = [
    GAMES / "tictactoe.kif",
    GAMES / "rps.kif",
    GAMES / "kuhn.kif",
    CORPUS / "games" / "3pconnectfour.kif",
    CORPUS / "gdl2" / "KriegTictactoe.gdl",
    CORPUS / "gdl2" / "MontyHall.gdl",
]


def _random_simulations(game: gdl.Game, sims: int) -> None:
    """OpenSpiel's own checks of a game: random plays, every state cloned, serialized and read back."""
    for dynamics in ("auto", "sequential"):
        pyspiel.random_sim_test(openspiel_game(game, dynamics=dynamics), num_sims=sims, serialize=True,
                                verbose=False)


@pytest.mark.parametrize("path", SAMPLE, ids=lambda p: p.name)
def test_openspiels_random_simulation_test_passes(path: Path) -> None:
    _random_simulations(present(path), 5)


@pytest.mark.slow
@pytest.mark.parametrize("path", corpus_games(), ids=lambda p: p.name)
def test_openspiels_random_simulation_test_passes_on_every_corpus_game_that_instantiates(path: Path) -> None:
    game = instantiated(path)
    with unless_the_game_breaks_gdl(path):
        _random_simulations(game, 2)


def test_mcts_from_openspiel_plays_tictactoe_against_gdls_minimax() -> None:
    game = openspiel_game(GAMES / "tictactoe.kif", zero_sum=True)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    gdl_game = gdl.load(GAMES / "tictactoe.kif")
    for mcts_player in (0, 1):
        rng = np.random.RandomState(mcts_player)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=2, random_state=rng)
        bot = mcts.MCTSBot(game, 1.4, 300, evaluator, random_state=rng, solve=True)
        minimax = MinimaxPlayer()
        role = gdl_game.players[1 - mcts_player]
        minimax.start(gdl_game, role, 600, 600)
        state = game.new_initial_state()
        assert isinstance(state, GdlState)
        while not state.is_terminal():
            if state.current_player() == mcts_player:
                state.apply_action(bot.step(state))
            else:
                # A deadline far off: the search stops once exhaustive, so a loaded machine cannot hurry it.
                move = minimax.play(state.gdl_state, time.monotonic() + 600)
                state.apply_action(game.encoding.action(role, move))
        goals = state.gdl_state.goals()
        # Minimax plays tictactoe perfectly: it never loses; returns are the zero-sum shifted goals.
        assert goals[role] >= 50
        assert state.returns()[1 - mcts_player] == goals[role] - 50


def test_cfr_on_monty_hall_finds_that_switching_wins_two_thirds() -> None:
    game = openspiel_game(present(CORPUS / "gdl2" / "MontyHall.gdl"))
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    solver = cfr.CFRPlusSolver(game)
    for _ in range(30):
        solver.evaluate_and_update_policy()
    value = expected_game_score.policy_value(game.new_initial_state(), [solver.average_policy()])
    assert value[0] == pytest.approx(200 / 3, abs=0.1)  # goal units: winning is 100


def test_sequential_form_hides_pending_moves_and_simultaneous_nodes_take_all() -> None:
    rps = gdl.load(GAMES / "rps.kif")
    sequential = openspiel_game(rps, dynamics="sequential")
    assert sequential.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    seen = set()
    for left in range(3):
        state = sequential.new_initial_state()
        state.apply_action(left)
        assert state.current_player() == 1
        seen.add(state.information_state_string(1))
    assert len(seen) == 1  # right cannot tell what left chose

    simultaneous = openspiel_game(rps)  # "auto" finds the simultaneous moves
    assert simultaneous.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    state = simultaneous.new_initial_state()
    assert state.current_player() == pyspiel.PlayerId.SIMULTANEOUS
    state.apply_actions([0, 1])
    assert "(round 1)" in str(state)


def test_information_states_are_the_players_views() -> None:
    game = present(CORPUS / "gdl2" / "KriegTictactoe.gdl")
    spiel = openspiel_game(game)
    # Play to the first decision of the second player twice, with different first moves.
    strings, states = set(), set()
    for first in range(2):
        state = spiel.new_initial_state()
        mover = state.current_player()
        state.apply_action(state.legal_actions()[first])
        while state.current_player() == mover:  # a refused move in Krieg tictactoe: try again
            state.apply_action(state.legal_actions()[0])
        other = state.current_player()
        strings.add(state.information_state_string(other))
        states.add(str(state))
        assert state.information_state_string(other).startswith(f"(view {game.players[other]}")
    assert len(states) == 2 and len(strings) == 1


def test_registration_names_and_loads() -> None:
    game = gdl.load(GAMES / "tictactoe.kif")
    name = register(game)
    assert re.fullmatch(r"python_gdl_tictactoe(_\d+)?", name)
    assert name == register(game)  # the same game keeps its name
    other = register(gdl.load(GAMES / "tictactoe.kif"))
    assert other != name and re.fullmatch(r"python_gdl_tictactoe_\d+", other)
    assert pyspiel.load_game(name).num_players() == 2
    with pytest.raises(ValueError, match="unknown dynamics 'parallel'"):
        register(game, dynamics="parallel")


@pytest.fixture(scope="module")
def kuhn() -> pyspiel.Game:
    # Zero-sum returns: goal - 50, and a goal is 50 plus the chips won, so returns are the chips won.
    return openspiel_game(GAMES / "kuhn.kif", zero_sum=True)


def test_cfr_on_kuhn_poker_from_gdl2_converges_to_minus_one_eighteenth(kuhn: pyspiel.Game) -> None:
    solver = cfr.CFRPlusSolver(kuhn)
    gaps = []
    for _ in range(3):
        for _ in range(40):
            solver.evaluate_and_update_policy()
        average = solver.average_policy()
        gaps.append(exploitability.exploitability(kuhn, average))
    value = expected_game_score.policy_value(kuhn.new_initial_state(), [average, average])
    assert value[0] == pytest.approx(-1 / 18, abs=1e-3)
    assert gaps[0] > gaps[-1] and gaps[-1] < 5e-3


class _LPPolicy(policy.Policy):  # type: ignore[misc]
    """gdl's LP strategy (information-set key -> move -> probability) as an OpenSpiel policy."""

    def __init__(self, game: pyspiel.Game, strategies: dict[str, dict[str, dict[str, float]]]) -> None:
        super().__init__(game, list(range(game.num_players())))
        self.strategies = strategies
        self.encoding = game.encoding

    def action_probabilities(self, state: pyspiel.State, player_id: int | None = None) -> dict[int, float]:
        player = state.current_player()
        role = self.encoding.players[player]
        chosen = self.strategies[role][state.information_state_string(player)]
        return {a: chosen[state.action_to_string(player, a)] for a in state.legal_actions()}


def test_gdls_lp_strategy_on_kuhn_has_zero_exploitability_by_openspiels_measure(kuhn: pyspiel.Game) -> None:
    extensive = extensive_from_gdl(gdl.load(GAMES / "kuhn.kif"))
    solution = solve_lp(extensive)
    assert solution.value["player1"] == pytest.approx(-1 / 18, abs=1e-9)
    # Every information set OpenSpiel meets is one of the extensive form's: the same views.
    lp_policy = _LPPolicy(kuhn, solution.strategies)
    value = expected_game_score.policy_value(kuhn.new_initial_state(), [lp_policy, lp_policy])
    assert value[0] == pytest.approx(-1 / 18, abs=1e-9)
    assert exploitability.exploitability(kuhn, lp_policy) == pytest.approx(0, abs=1e-9)


def test_states_serialize_and_come_back_equal(kuhn: pyspiel.Game) -> None:
    rps = openspiel_game(GAMES / "rps.kif", dynamics="sequential")
    for game, actions in ((kuhn, [2, 0]), (rps, [1])):
        state = game.new_initial_state()
        for action in actions:
            state.apply_action(action)
        back = game.deserialize_state(state.serialize())
        assert str(back) == str(state) and back.history() == state.history()
        player = back.current_player()
        assert back.information_state_string(player) == state.information_state_string(player)
        assert back.legal_actions() == state.legal_actions()


def test_kuhn_loaded_by_path_is_constant_sum_and_the_lp_strategy_has_zero_exploitability() -> None:
    game = pyspiel.load_game("gdl", {"path": str(GAMES / "kuhn.kif")})
    assert game.get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert game.utility_sum() == 100  # goals are 50 plus the chips won: proved by visiting every state
    solution = solve_lp(extensive_from_gdl(gdl.load(GAMES / "kuhn.kif")))
    lp_policy = _LPPolicy(game, solution.strategies)
    value = expected_game_score.policy_value(game.new_initial_state(), [lp_policy, lp_policy])
    assert value[0] == pytest.approx(50 - 1 / 18, abs=1e-9)  # returns are goals
    assert exploitability.exploitability(game, lp_policy) == pytest.approx(0, abs=1e-9)
    zero_sum = pyspiel.load_game("gdl", {"path": str(GAMES / "kuhn.kif"), "zero_sum": True})
    assert zero_sum.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert exploitability.exploitability(zero_sum, _LPPolicy(zero_sum, solution.strategies)) == pytest.approx(
        0, abs=1e-9
    )


def test_a_game_is_constant_sum_only_when_every_terminal_state_says_so(tmp_path: Path) -> None:
    tictactoe = pyspiel.load_game("gdl", {"path": str(GAMES / "tictactoe.kif")})
    assert tictactoe.get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
    general = tmp_path / "both_win.kif"
    general.write_text(
        "(role a) (role b) (init (s 0)) (<= (legal ?r (go ?x)) (role ?r) (x ?x)) (x 0) (x 1)"
        " (<= (next (s 1)) (does a (go 0))) (<= (next (s 2)) (does a (go 1)))"
        " (<= terminal (not (true (s 0))))"
        " (<= (goal ?r 100) (role ?r) (true (s 1))) (<= (goal ?r 0) (role ?r) (true (s 2)))"
        " (<= (goal ?r 0) (role ?r) (true (s 0)))"
    )
    loaded = pyspiel.load_game("gdl", {"path": str(general)})
    assert loaded.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    with pytest.raises(ValueError, match="declared constant-sum, but its goals"):
        register(gdl.load(general), constant_sum=True)


def test_loading_by_path_without_a_path_says_what_is_needed() -> None:
    with pytest.raises(ValueError, match=r'give the path of a GDL game'):
        pyspiel.load_game("gdl", {})
