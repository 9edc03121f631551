"""gdl.env: GDL and GDL-II games as PettingZoo environments (AEC and Parallel)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, parallel_api_test, seed_test
from support.env import corpus_games, instantiated, present, unless_the_game_breaks_gdl
from support.paths import CORPUS, GAMES

import gdl
import gdl.env
import gdl.env.encoding
import gdl.ground.domains
from gdl.errors import IllegalMoveError
from gdl.render import render


@pytest.fixture(scope="module")
def tictactoe() -> gdl.Game:
    return gdl.load(GAMES / "tictactoe.kif")


def _seeded(environment: Any) -> Any:
    """``environment`` with its action spaces seeded: PettingZoo's tests play the moves they sample,
    and a run must not depend on chance (KriegTictactoe.gdl reaches states that break GDL)."""
    for number, agent in enumerate(environment.possible_agents):
        environment.action_space(agent).seed(number)
    return environment


def _pettingzoo_tests(game: gdl.Game, cycles: int) -> None:
    with warnings.catch_warnings():
        # PettingZoo advises Box observations and agents named like player_0; ours are dicts named by role.
        warnings.simplefilter("ignore", UserWarning)
        api_test(_seeded(gdl.env.env(game)), num_cycles=cycles)
        seed_test(lambda: gdl.env.env(game), num_cycles=cycles)
        parallel_api_test(_seeded(gdl.env.parallel_env(game)), num_cycles=cycles)


SAMPLE = [
    GAMES / "tictactoe.kif",  # turn-taking
    GAMES / "rps.kif",  # simultaneous
    CORPUS / "games" / "3pconnectfour.kif",  # three players
    CORPUS / "gdl2" / "KriegTictactoe.gdl",  # GDL-II: percepts
    CORPUS / "gdl2" / "MontyHall2.gdl",  # GDL-II: nature and percepts
    GAMES / "kuhn.kif",  # GDL-II: nature deals, hidden cards
    GAMES / "spoof.kif",  # GDL-II: the README's example
]


@pytest.mark.parametrize("path", SAMPLE, ids=lambda p: p.name)
def test_pettingzoo_api_seed_and_parallel_tests_pass(path: Path) -> None:
    _pettingzoo_tests(present(path), 100)


@pytest.mark.slow
@pytest.mark.parametrize("path", corpus_games(), ids=lambda p: p.name)
def test_pettingzoo_tests_pass_on_every_corpus_game_that_instantiates(path: Path) -> None:
    game = instantiated(path)
    with unless_the_game_breaks_gdl(path):
        _pettingzoo_tests(game, 50)


def test_observation_is_the_state_and_the_mask_the_legal_moves(tictactoe: gdl.Game) -> None:
    aec = gdl.env.env(tictactoe)
    aec.reset(seed=1)
    rng = np.random.default_rng(3)
    state = tictactoe.initial_state()
    pending: dict[str, gdl.syntax.model.Term] = {}
    forced = 0
    fluents = aec.encoding.fluents
    while not state.is_terminal():
        agent = aec.agent_selection
        observation = aec.observe(agent)
        assert {fluents[i] for i in np.flatnonzero(observation["observation"])} == state.fluents()
        moves = aec.encoding.moves[agent]
        assert [moves[i] for i in np.flatnonzero(observation["action_mask"])] == state.legal_moves(agent)
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        aec.step(action)
        pending[agent] = moves[action]
        # Those with a choice act; where no one has one (the last, forced, mark), everyone acts.
        acting = [p for p in tictactoe.players if len(state.legal_moves(p)) > 1] or tictactoe.players
        if set(acting) <= set(pending):
            state = state.next({p: pending.get(p, state.legal_moves(p)[0]) for p in tictactoe.players})
            pending = {}
            forced += acting == tictactoe.players
    assert forced == 1 and all(aec.terminations.values())
    assert aec._episode.state == state


def _play(aec: gdl.env.GdlAECEnv, moves: list[str]) -> None:
    for move in moves:
        agent = aec.agent_selection
        aec.step(aec.encoding.action(agent, gdl.game.parse_term(move)))


X_WINS = ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)", "(mark 1 3)"]


def test_rewards_are_goals_over_100_at_the_end_or_shifted_to_sum_to_zero(tictactoe: gdl.Game) -> None:
    cases = ((False, {"xplayer": 1.0, "oplayer": 0.0}), (True, {"xplayer": 0.5, "oplayer": -0.5}))
    for zero_sum, expected in cases:
        aec = gdl.env.env(tictactoe, zero_sum=zero_sum)
        aec.reset()
        _play(aec, X_WINS[:-1])
        assert aec.rewards == {"xplayer": 0.0, "oplayer": 0.0}
        _play(aec, X_WINS[-1:])
        assert all(aec.terminations.values())
        assert aec.rewards == expected
        # Each agent collects its reward on its last turn, and then leaves.
        for agent in list(aec.agents):
            assert aec.agent_selection == agent
            assert aec.last()[1] == expected[agent]
            aec.step(None)
        assert aec.agents == []


def test_an_illegal_action_is_refused_and_changes_nothing(tictactoe: gdl.Game) -> None:
    aec = gdl.env.env(tictactoe)
    aec.reset()
    _play(aec, ["(mark 2 2)"])
    before = aec.observe("oplayer")
    taken = aec.encoding.action("oplayer", gdl.game.parse_term("(mark 2 2)"))
    with pytest.raises(IllegalMoveError, match=r"illegal action \d+ \(\(mark 2 2\)\) of oplayer"):
        aec.step(taken)
    with pytest.raises(IllegalMoveError, match=r"not in 0\.\.9"):
        aec.step(99)
    assert aec.agent_selection == "oplayer"
    assert all(np.array_equal(before[k], aec.observe("oplayer")[k]) for k in before)


def test_a_simultaneous_move_is_applied_once_every_agent_has_chosen() -> None:
    game = gdl.load(GAMES / "rps.kif")
    aec = gdl.env.env(game)
    aec.reset(seed=0)
    start = aec.observe("right")["observation"].copy()
    assert aec.agent_selection == "left"
    aec.step(0)
    # Right chooses without any trace of left's choice in what it observes.
    assert aec.agent_selection == "right"
    assert np.array_equal(aec.observe("right")["observation"], start)
    aec.step(0)
    assert aec._episode.steps == 1
    assert not np.array_equal(aec.observe("right")["observation"], start)


def test_gdl2_observation_is_the_players_own_view() -> None:
    game = present(CORPUS / "gdl2" / "MontyHall.gdl")
    aec = gdl.env.env(game)
    encoding = aec.encoding
    percepts = encoding.percepts["candidate"]
    for seed in range(6):
        aec.reset(seed=seed)
        first = aec.observe("candidate")["observation"]
        assert not first.any()  # nothing seen, no move made, no step played
        aec.step(encoding.action("candidate", gdl.game.parse_term("(choose 1)")))
        # While the host opens a door, the candidate has one move, noop, and plays it.
        mask = aec.observe("candidate")["action_mask"]
        assert [str(encoding.moves["candidate"][i]) for i in np.flatnonzero(mask)] == ["noop"]
        aec.step(int(np.flatnonzero(mask)[0]))
        after = aec.observe("candidate")["observation"]
        seen = {percepts[i] for i in np.flatnonzero(after[: len(percepts)])}
        # The host opened a door, neither the candidate's (1) nor the car's; the car stays unseen.
        car = next(f for f in aec._episode.state.fluents() if str(f).startswith("(car"))
        assert len(seen) == 1 and str(next(iter(seen))) not in ("1", str(car.args[0]))
        assert after[-1] == aec._episode.steps == 2


#: A GDL-II game of four turns where both players see every move that is not noop.
COUNTING = """
(role a) (role b) (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(init (step 0)) (init (control a))
(<= (legal ?r up) (true (control ?r)))
(<= (legal ?r stay) (true (control ?r)))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= (next (control a)) (true (control b)))
(<= (next (control b)) (true (control a)))
(<= (sees ?r (moved ?p ?m)) (role ?r) (does ?p ?m) (distinct ?m noop))
(<= terminal (true (step 4)))
(goal a 50) (goal b 50)
"""


def test_percepts_of_what_is_not_a_role_reach_nobody() -> None:
    # As in vis_pacman3p: (sees ?x ...) for every ?x with a location, pellets included.
    seen_by_roles = "(<= (sees ?r (moved ?p ?m)) (role ?r)"
    seen_by_things = "(thing a) (thing pellet)\n(<= (sees ?r (moved ?p ?m)) (thing ?r)"
    encoding = gdl.env.env(gdl.parse(COUNTING.replace(seen_by_roles, seen_by_things))).encoding
    moves = ["(moved a stay)", "(moved a up)", "(moved b stay)", "(moved b up)"]
    assert [str(p) for p in encoding.percepts["a"]] == moves
    assert encoding.percepts["b"] == ()


@pytest.mark.parametrize("name", ["counting", "KriegTictactoe.gdl", "MontyHall.gdl"])
def test_gdl2_observation_parts_agree_with_the_view(name: str) -> None:
    game = gdl.parse(COUNTING) if name == "counting" else present(CORPUS / "gdl2" / name)
    aec = gdl.env.env(game)
    encoding = aec.encoding
    rng = np.random.default_rng(5)
    nonempty = [0, 0]
    for seed in range(3):
        aec.reset(seed=seed)
        acted_at = dict.fromkeys(game.players, -1)  # the step each agent last acted in
        for agent in aec.agent_iter():
            observation, _, terminated, truncated, _ = aec.last()
            if terminated or truncated:
                aec.step(None)
                continue
            vector, view = observation["observation"], aec.view(agent)
            count = len(encoding.percepts[agent])
            decoded = [
                {encoding.percepts[agent][i] for i in np.flatnonzero(vector[part * count:(part + 1) * count])}
                for part in (0, 1)
            ]
            assert decoded[0] == (view.percepts[-1] if view.percepts else set())
            # The earlier part: every step from the one it last acted in, whose percepts it has not observed.
            since = view.percepts[max(acted_at[agent], 0) : -1]
            assert decoded[1] == set().union(*since)
            nonempty[1] += bool(decoded[1])
            assert vector[-1] == len(view.moves) == aec._episode.steps
            acted_at[agent] = aec._episode.steps
            aec.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    if name == "counting":
        assert nonempty[1] > 0  # the earlier part was exercised


def test_nature_follows_the_seed() -> None:
    game = present(CORPUS / "gdl2" / "MontyHall.gdl")

    def cars(seed: int) -> list[str]:
        aec = gdl.env.env(game)
        found = []
        for _ in range(8):
            aec.reset(seed=seed if not found else None)
            aec.step(0)
            found.append(next(str(f) for f in aec._episode.state.fluents() if str(f).startswith("(car")))
        return found

    assert cars(7) == cars(7)
    assert len(set(cars(7) + cars(8))) > 1


def test_render_draws_the_board_as_gdl_play_does(tictactoe: gdl.Game) -> None:
    aec = gdl.env.env(tictactoe, render_mode="ansi")
    aec.reset()
    _play(aec, ["(mark 2 2)"])
    state = tictactoe.initial_state().next({"xplayer": "(mark 2 2)", "oplayer": "noop"})
    assert aec.render() == f"step 1\n{render(state)}"


def test_parallel_env_plays_one_joint_move_per_step() -> None:
    game = gdl.load(GAMES / "rps.kif")
    par = gdl.env.parallel_env(game, zero_sum=True)
    observations, _ = par.reset(seed=0)
    rock = {agent: par.encoding.action(agent, gdl.game.parse_term("rock")) for agent in par.agents}
    paper = {**rock, "right": par.encoding.action("right", gdl.game.parse_term("paper"))}
    for _ in range(3):
        assert observations["left"]["action_mask"].sum() == 3
        observations, rewards, terminations, _, _ = par.step(paper)
    assert all(terminations.values()) and par.agents == []
    assert rewards == {"left": -0.5, "right": 0.5}


def test_max_steps_truncates(tictactoe: gdl.Game) -> None:
    aec = gdl.env.env(tictactoe, max_steps=2)
    aec.reset()
    _play(aec, ["(mark 1 1)", "(mark 2 2)"])
    assert all(aec.truncations.values()) and not any(aec.terminations.values())
    assert aec.rewards == {"xplayer": 0.0, "oplayer": 0.0}


def test_bad_options_and_games_get_clear_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="unknown render mode 'rgb'"):
        gdl.env.env(GAMES / "tictactoe.kif", render_mode="rgb")
    with pytest.raises(TypeError, match=r"game must be a gdl\.Game or a path"):
        gdl.env.env(42)  # type: ignore[arg-type]
    monkeypatch.setattr(gdl.env.encoding, "AUTO_MAX_ATOMS", 10)
    monkeypatch.setattr(gdl.ground.domains, "MAX_TERMS", 5)
    game = gdl.load(GAMES / "tictactoe.kif", engine="datalog")
    with pytest.raises(gdl.env.UngroundableGameError, match="game 'tictactoe' cannot be numbered"):
        gdl.env.env(game)


def test_stepping_or_observing_before_reset_says_to_reset_first() -> None:
    aec = gdl.env.env(GAMES / "tictactoe.kif")
    for call in (lambda: aec.step(0), aec.last, lambda: aec.observe("xplayer")):
        with pytest.raises(gdl.env.NotResetError, match=r"reset\(\) before step\(\), last\(\) or observe"):
            call()
    parallel = gdl.env.parallel_env(GAMES / "tictactoe.kif")
    with pytest.raises(gdl.env.NotResetError, match=r"call reset\(\) before"):
        parallel.step({"xplayer": 0, "oplayer": 0})
    aec.reset(seed=0)
    assert aec.last()[0] is not None
