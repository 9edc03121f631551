"""The GDL-II API of games and states: nature, players, percepts and the players' goals."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.clingo_gdl import clingo_game
from support.gdl2_games import HIDDEN_BITS, MONTY_HALL

import gdl
from gdl.errors import IllegalMoveError
from gdl.syntax.reader import parse_term

ENGINES = ["datalog", "compiled"]


@pytest.mark.parametrize("engine", ENGINES)
def test_roles_players_and_nature(engine: str) -> None:
    game = gdl.parse(HIDDEN_BITS, engine)
    assert game.roles == ("a", "random", "b")
    assert game.players == ("a", "b")
    assert game.chance_role == "random"
    assert game.has_percepts


@pytest.mark.parametrize("engine", ENGINES)
def test_a_gdl_game_has_no_nature_and_no_percepts(engine: str) -> None:
    game = gdl.load(Path("games/tictactoe.kif"), engine)
    assert game.players == game.roles
    assert game.chance_role is None and not game.has_percepts
    state = game.initial_state()
    joint = {"xplayer": "(mark 1 1)", "oplayer": "noop"}
    assert state.percepts(joint) == {"xplayer": frozenset(), "oplayer": frozenset()}


@pytest.mark.parametrize("engine", ENGINES)
def test_percepts_follow_the_joint_move(engine: str) -> None:
    game = gdl.parse(HIDDEN_BITS, engine)
    state = game.initial_state()
    assert [str(m) for m in state.legal_moves("random")] == ["(coin 0)", "(coin 1)"]
    seen = state.percepts({"a": "(pick 0)", "random": "(coin 1)", "b": "(pick 1)"})
    assert {r: sorted(map(str, p)) for r, p in seen.items()} == {
        "a": ["(coin 1)", "(other 1)"], "random": [], "b": ["(other 0)"],
    }
    seen = state.percepts({"a": "(pick 1)", "random": "(coin 0)", "b": "(pick 1)"})
    assert {r: sorted(map(str, p)) for r, p in seen.items()} == {"a": ["(coin 0)"], "random": [], "b": []}


@pytest.mark.parametrize("engine", ENGINES)
def test_percepts_check_the_moves_like_next(engine: str) -> None:
    state = gdl.parse(HIDDEN_BITS, engine).initial_state()
    with pytest.raises(IllegalMoveError, match="illegal move: '\\(coin 2\\)' for random"):
        state.percepts({"a": "(pick 0)", "random": "(coin 2)", "b": "(pick 1)"})


@pytest.mark.parametrize("engine", ENGINES)
def test_goals_are_the_players_only(engine: str) -> None:
    game = gdl.parse(MONTY_HALL, engine)
    state = game.initial_state()
    for joint in (
        {"random": "(hide_car 2)", "candidate": "(choose 1)"},
        {"random": "(open_door 3)", "candidate": "noop"},
        {"random": "noop", "candidate": "switch"},
    ):
        state = state.next(joint)
    assert state.is_terminal()
    assert state.goals() == {"candidate": 100}


@pytest.mark.parametrize("engine", ENGINES)
def test_monty_hall_percepts_are_kif_terms(engine: str) -> None:
    game = gdl.parse(MONTY_HALL, engine)
    state = game.initial_state().next({"random": "(hide_car 2)", "candidate": "(choose 1)"})
    seen = state.percepts({"random": "(open_door 3)", "candidate": "noop"})
    assert seen["candidate"] == frozenset({parse_term("(opened 3)")})
    assert [str(p) for p in seen["candidate"]] == ["(opened 3)"]


def test_percepts_agree_with_clingo_through_the_game_api(tmp_path: Path) -> None:
    path = tmp_path / "bits.kif"
    path.write_text(HIDDEN_BITS, encoding="utf-8")
    ours, theirs = gdl.parse(HIDDEN_BITS, "datalog").initial_state(), clingo_game(path).initial_state()
    for joint in ours.joint_moves():
        assert ours.percepts(joint) == theirs.percepts(joint)
