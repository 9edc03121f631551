"""The JSON and GDL-II sources through the dispatcher, solved: the values the issue asks for."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from support.extensive_strategies import games
from support.paths import JSON_GAMES, needs_json_games

from gdl.extensive import (
    GdlSourceError,
    JsonGameError,
    NotExtensiveError,
    is_extensive,
    load_extensive,
    write_extensive,
)
from gdl.extensive.from_gdl import GdlExtensiveGame
from gdl.extensive.jsonformat import read_json_game, write_json_game
from gdl.extensive.lp import solve_lp
from gdl.extensive.model import Chance, Decision, ExtensiveGame, Node, Terminal

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
SHARED = JSON_GAMES


@needs_json_games
def test_kuhn_json_value_is_minus_one_eighteenth() -> None:
    solution = solve_lp(load_extensive(SHARED / "kuhn.json"))
    assert solution.value["1"] == pytest.approx(-1 / 18, abs=1e-9)
    assert solution.value["2"] == pytest.approx(1 / 18, abs=1e-9)
    assert solution.exploitability.exploitability < 1e-9


@needs_json_games
def test_even_or_odd_value_is_zero() -> None:
    solution = solve_lp(load_extensive(SHARED / "even-or-odd.json"))
    assert solution.value["1"] == pytest.approx(0, abs=1e-9)
    assert solution.exploitability.exploitability < 1e-9
    # player 1 must show one or two fingers with equal chance, or player 2 guesses it
    assert solution.strategies["1"]["1:"] == pytest.approx({"1": 0.5, "2": 0.5}, abs=1e-9)


def test_kuhn_from_gdl_has_the_same_value_in_payoff_units() -> None:
    game = load_extensive(GAMES / "kuhn.kif")
    assert isinstance(game, GdlExtensiveGame) and game.goal_offset == 50
    solution = solve_lp(game)
    assert solution.value["player1"] == pytest.approx(-1 / 18, abs=1e-9)
    assert solution.value["player1"] + float(game.goal_offset) == pytest.approx(50 - 1 / 18, abs=1e-9)
    assert solution.exploitability.exploitability < 1e-9


def test_leduc_from_gdl_has_openspiels_value() -> None:
    game = load_extensive(GAMES / "leduc.kif")
    solution = solve_lp(game)
    assert solution.value["player1"] == pytest.approx(-0.085606424078, abs=1e-6)
    assert solution.exploitability.exploitability < 1e-9


def test_the_dispatcher_tells_gdl2_from_gdl(tmp_path: Path) -> None:
    assert is_extensive(GAMES / "kuhn.kif") and is_extensive(GAMES / "leduc.kif")
    assert not is_extensive(GAMES / "tictactoe.kif")
    assert not is_extensive(tmp_path / "missing.kif")
    with pytest.raises(NotExtensiveError, match=r"tictactoe\.kif: a GDL game without the role random"):
        load_extensive(GAMES / "tictactoe.kif")


def test_gdl2_files_with_errors_or_too_many_players(tmp_path: Path) -> None:
    broken = tmp_path / "broken.kif"
    broken.write_text("(role random) (role a) (<= (legal a ?x) (true (f ?y)))\n")
    with pytest.raises(GdlSourceError) as raised:
        load_extensive(broken)
    lines = str(raised.value).splitlines()
    assert any(line.startswith(f"{broken}:1:") and "unsafe variable" in line for line in lines)
    assert lines[-1] == f"{broken}: the game has errors (see `gdl check {broken}`)"
    three = tmp_path / "three.kif"
    three.write_text((GAMES / "kuhn.kif").read_text().replace("(role player2)", "(role player2) (role x)"))
    with pytest.raises(NotExtensiveError, match=r"three.kif: game 'three' has 3 players"):
        load_extensive(three)


def test_a_broken_json_file_through_the_dispatcher(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"start": "a", "states": [{"name": "a", "player": 1, "knowledge": "", "actions": []}]}')
    with pytest.raises(
        JsonGameError, match=r"broken.json: states\[0\].actions: error: state 'a' has no actions"
    ):
        load_extensive(path)


def test_kuhn_from_gdl_converts_to_json_and_keeps_its_value(tmp_path: Path) -> None:
    out = tmp_path / "kuhn.json"
    write_extensive(load_extensive(GAMES / "kuhn.kif"), out)
    converted = load_extensive(out)
    assert converted.players == ("1", "2")
    assert solve_lp(converted).value["1"] == pytest.approx(-1 / 18, abs=1e-9)


def _uniform_and_keyed(node: Node) -> Node:
    """The same tree with uniform chance and information-set keys ``player:key`` (as JSON reads them)."""
    if isinstance(node, Terminal):
        return node
    children = [_uniform_and_keyed(child) for child in node.children]
    if isinstance(node, Chance):
        return Chance.uniform(node.actions, children)
    assert isinstance(node, Decision)
    return Decision(node.player, f"{node.player}:{node.infoset}", node.actions, children)


@settings(max_examples=60, deadline=None)
@given(games())
def test_random_games_round_trip_through_json(game: ExtensiveGame) -> None:
    uniform = ExtensiveGame(game.players, _uniform_and_keyed(game.root))
    assert read_json_game(write_json_game(uniform)) == uniform
    # the value survives too
    assert solve_lp(read_json_game(write_json_game(uniform))).value["1"] == pytest.approx(
        solve_lp(uniform).value["1"], abs=1e-9
    )
