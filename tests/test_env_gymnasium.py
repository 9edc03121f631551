"""gdl.env: one-player GDL games as Gymnasium environments."""

from __future__ import annotations

import csv
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import gymnasium
from gymnasium.utils.env_checker import check_env
from support.corpus import corpus_items
from support.env import instantiated, unless_the_game_breaks_gdl
from support.paths import CORPUS, GAMES, shared_path

import gdl
import gdl.env
from gdl.env.gymnasium import GYM_ID
from gdl.solve import solve
from gdl.syntax.reader import parse_term


def _check(game: gdl.Game) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every warning of check_env is a failure here
        # Made through Gymnasium's registry, so that check_env also tries every render mode.
        check_env(gymnasium.make(GYM_ID, game=game, render_mode="ansi").unwrapped)


@pytest.mark.parametrize(
    "path",
    [GAMES / "buttons.kif", CORPUS / "games" / "maze.kif", CORPUS / "gdl2" / "MontyHall.gdl"],
    ids=lambda p: p.name,
)
def test_check_env_passes(path: Path) -> None:
    _check(gdl.load(shared_path(path)))


def _one_player_corpus_games() -> list[Path]:
    with (CORPUS / "games" / "INDEX.tsv").open(encoding="utf-8") as rows:
        rows_of_one = [row for row in csv.DictReader(rows, delimiter="\t") if row["roles"] == "1"]
    return [CORPUS / "games" / row["file"] for row in rows_of_one]


@pytest.mark.slow
@pytest.mark.parametrize("path", corpus_items(_one_player_corpus_games, at_least=72), ids=str)
def test_check_env_passes_on_every_one_player_corpus_game(path: Path) -> None:
    game = instantiated(path)
    with unless_the_game_breaks_gdl(path):
        _check(game)


def test_the_solvers_principal_variation_wins_through_the_environment() -> None:
    env = gdl.env.gym_env(GAMES / "buttons.kif", render_mode="ansi")
    env.reset(seed=0)
    solution = solve(env.encoding.game)
    assert solution.value == {"robot": 100}
    rewards = []
    for joint in solution.pv:
        action = env.encoding.action("robot", parse_term(joint["robot"]))
        _, reward, terminated, truncated, _ = env.step(action)
        rewards.append(reward)
    assert rewards == [0.0] * (len(solution.pv) - 1) + [1.0]
    assert terminated and not truncated
    assert "(on p)" in (env.render() or "")


#: A puzzle where pressing a lit button is illegal: light both buttons.
LIGHTS = """
(role robot) (button a) (button b)
(<= (legal robot (press ?x)) (button ?x) (not (true (lit ?x))))
(<= (next (lit ?x)) (does robot (press ?x)))
(<= (next (lit ?x)) (true (lit ?x)))
(<= terminal (true (lit a)) (true (lit b)))
(<= (goal robot 100) (true (lit a)) (true (lit b)))
(<= (goal robot 0) (not (true (lit a))))
(<= (goal robot 0) (true (lit a)) (not (true (lit b))))
"""


def test_an_illegal_action_changes_nothing_and_is_flagged() -> None:
    env = gdl.env.gym_env(gdl.parse(LIGHTS))
    env.reset(seed=0)
    press_a = env.encoding.action("robot", parse_term("(press a)"))
    observation, *_ = env.step(press_a)
    assert observation["action_mask"].tolist() == [0, 1]
    after, reward, terminated, _, info = env.step(press_a)
    assert info == {"illegal_action": True} and reward == 0.0 and not terminated
    assert np.array_equal(after["observation"], observation["observation"])
    _, reward, terminated, _, info = env.step(1 - press_a)
    assert terminated and reward == 1.0 and info == {}


def test_max_steps_truncates_and_games_for_several_players_are_refused() -> None:
    env = gdl.env.gym_env(GAMES / "buttons.kif", max_steps=1)
    observation, _ = env.reset(seed=0)
    action = int(np.flatnonzero(observation["action_mask"])[0])
    _, _, terminated, truncated, _ = env.step(action)
    assert truncated and not terminated
    with pytest.raises(ValueError, match=r"game 'tictactoe' has 2 players \(xplayer, oplayer\)"):
        gdl.env.gym_env(GAMES / "tictactoe.kif")


def test_gymnasium_make_finds_gdl_by_its_module_without_gdl_imported_first() -> None:
    # Gymnasium 1.x loads no plugins: "module:id" imports the module that registers the id.
    script = (
        "import sys, gymnasium; assert 'gdl' not in sys.modules;"
        f" env = gymnasium.make('gdl.env.gymnasium:gdl/Game-v0', game={str(GAMES / 'buttons.kif')!r});"
        " observation, info = env.reset(seed=0); print(env.unwrapped.player, env.action_space)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "robot"


def test_stepping_before_reset_says_to_reset_first() -> None:
    env = gdl.env.gym_env(GAMES / "buttons.kif")
    with pytest.raises(gdl.env.NotResetError, match=r"buttons: call reset\(\) before step\(\)"):
        env.step(0)
