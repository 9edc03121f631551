"""Factors of a network (gdl.ground.factors): which games have independent sub-games, and the network of
one sub-game played alone, checked step by step against the game itself."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

import gdl
from gdl.engines.compiled import CompiledReasoner
from gdl.ground.factors import MAX_FACTORS, Factoring, factor, restrict
from gdl.match import Match
from gdl.players.random import RandomPlayer
from gdl.players.uct.player import UctPlayer
from gdl.syntax.model import Function, Term

GAMES = Path(__file__).parent.parent / "games"
TWIN = Path(__file__).parent / "games" / "twin_tictactoe.kif"


def compiled(path: Path) -> tuple[gdl.Game, CompiledReasoner]:
    game = gdl.load(path, engine="compiled")
    assert isinstance(game.reasoner, CompiledReasoner)
    return game, game.reasoner


def board(move: Term) -> str:
    assert isinstance(move, Function)
    return str(move.args[0])


def factoring_of(reasoner: CompiledReasoner) -> Factoring:
    found = factor(reasoner.net)
    assert found is not None
    return found


def test_the_boards_of_twin_tictactoe_are_its_factors_and_whose_turn_it_is_is_shared() -> None:
    _, reasoner = compiled(TWIN)
    net = reasoner.net
    found = factoring_of(reasoner)
    boards = [{net.fluents[b][1] for b in each.bases} for each in found.factors]
    assert boards == [{"1"}, {"2"}]
    assert all(net.fluents[b][0] == "cell" for each in found.factors for b in each.bases)
    assert len(found.factors[0].bases) == len(found.factors[1].bases) == 18  # 9 cells, x or o
    assert {net.fluents[b][0] for b in found.shared} == {"control"}
    for index, each in enumerate(found.factors):
        moves = {net.moves[node - net.first_input][1][1] for node in each.inputs}
        assert moves == {str(index + 1)}  # (mark BOARD m n), both roles
        assert len(each.inputs) == 18
    assert found.between_roles(net)


@pytest.mark.parametrize("name", ["tictactoe.kif", "nim.kif", "rps.kif"])
def test_a_game_of_one_board_has_no_factors(name: str) -> None:
    _, reasoner = compiled(GAMES / name)
    assert factor(reasoner.net) is None


def lights(count: int) -> str:
    """A game of ``count`` lights, each toggled by a move of its own, over three steps."""
    facts = " ".join(f"(light {i})" for i in range(count))
    return f"""
        (role robot) {facts} (succ 0 1) (succ 1 2) (succ 2 3)
        (init (step 0))
        (<= (legal robot (toggle ?l)) (light ?l))
        (<= (next (on ?l)) (does robot (toggle ?l)) (not (true (on ?l))))
        (<= (next (on ?l)) (true (on ?l)) (not (does robot (toggle ?l))))
        (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
        (<= terminal (true (step 3)))
        (<= (goal robot 100) (true (on 0)))
        (<= (goal robot 0) (not (true (on 0))))
    """


def test_independent_lights_are_factors_up_to_a_bound_and_the_step_counter_is_shared() -> None:
    small = gdl.parse(lights(3), engine="compiled")
    assert isinstance(small.reasoner, CompiledReasoner)
    found = factoring_of(small.reasoner)
    net = small.reasoner.net
    assert [sorted(net.fluents[b] for b in each.bases) for each in found.factors] == [
        [("on", str(i))] for i in range(3)
    ]
    assert sorted(net.fluents[b][0] for b in found.shared) == ["step"] * 4
    assert not found.between_roles(net)  # the robot alone moves in each
    many = gdl.parse(lights(MAX_FACTORS + 1), engine="compiled")
    assert isinstance(many.reasoner, CompiledReasoner)
    assert factor(many.reasoner.net) is None


def test_a_factor_played_alone_is_the_game_on_its_board_with_the_other_at_its_start() -> None:
    """Step by step along random matches: in the factor's network, from the game's state projected on
    the factor, a role's moves are its moves on the factor's board, or one move that passes where it has
    none; the next state is the projection of the game's next state; terminal and goals are the game's
    in the projected state (or the factor has no move left)."""
    game, reasoner = compiled(TWIN)
    net = reasoner.net
    found = factoring_of(reasoner)
    alone = []
    for index in range(len(found.factors)):
        restricted = restrict(net, found, index)
        assert restricted is not None
        alone.append(CompiledReasoner(game.checked, network=(reasoner.grounding, restricted)))
    rng = random.Random(5)
    compared = 0
    for _ in range(30):
        state = reasoner.initial()
        while not reasoner.terminal(state):
            moves = [rng.choice(reasoner.legal(state, role)) for role in range(len(net.roles))]
            for index, factor_reasoner in enumerate(alone):
                projected = found.project(state, index)
                passes = []
                stalled = True
                for role in range(len(net.roles)):
                    mine = [m for m in reasoner.legal(state, role) if board(m) == str(index + 1)]
                    stalled = stalled and not mine
                    theirs = factor_reasoner.legal(projected, role)
                    if mine:
                        assert sorted(map(str, theirs)) == sorted(map(str, mine))
                    else:
                        assert len(theirs) == 1
                    passes.append(theirs[0])
                assert factor_reasoner.terminal(projected) == (reasoner.terminal(projected) or stalled)
                for role in range(len(net.roles)):
                    assert factor_reasoner.goals(projected, role) == reasoner.goals(projected, role)
                played = [
                    move if board(move) == str(index + 1) else passes[role] for role, move in enumerate(moves)
                ]
                after = reasoner.next(state, moves)
                assert factor_reasoner.next(projected, played) == found.project(after, index)
                compared += 1
            state = reasoner.next(state, moves)
    assert compared > 200


def test_uct_searches_each_factor_alone_and_finds_the_win_on_its_board() -> None:
    """x to mark board 1, with two marks in a row there and no threat against it on board 2: the
    factor's search (where one role chooses at each node) proves the win."""
    game, _ = compiled(TWIN)
    state = game.initial_state()
    for x_move, o_move in [
        ("(mark 1 1 1)", "(mark 2 2 2)"),
        ("(mark 2 3 1)", "(mark 1 3 3)"),
        ("(mark 1 1 2)", "(mark 2 2 1)"),
        ("(mark 2 2 3)", "(mark 1 3 2)"),
    ]:
        state = state.next({"x": x_move, "o": o_move})
    player = UctPlayer(seed=1, ponder=0, iterations=4000)
    player.start(game, "x", 5.0, 5.0)
    assert player.info()["factors"] == 2
    move = player.play(state, time.monotonic() + 30)
    assert str(move) == "(mark 1 1 3)"
    assert player.info()["factor"] == 0 and player.info()["proven"] is True


def test_uct_with_factors_beats_random_play_at_twin_tictactoe() -> None:
    game, _ = compiled(TWIN)
    won = 0
    for seat in range(4):
        roles = ["x", "o"] if seat % 2 == 0 else ["o", "x"]
        players = {
            roles[0]: UctPlayer(seed=seat, iterations=2000, ponder=0),
            roles[1]: RandomPlayer(seed=seat),
        }
        record = Match(game, players, start_clock=5, play_clock=5, isolate=False).run()
        assert record.completed
        won += record.goals[roles[0]] == 100
    assert won >= 3
