"""Players: the registry of kinds and options, and each kind's choices checked against game theory."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.games import DOMINANT, board
from support.timing import NEVER, slack

import gdl
from gdl.errors import PlayerSpecError
from gdl.game import Game
from gdl.players import PLAYER_KINDS, Player, make_player, options, parse_spec
from gdl.players.human import HumanPlayer
from gdl.players.mcts import MctsPlayer
from gdl.players.minimax import MinimaxPlayer
from gdl.players.random import RandomPlayer

GAMES = Path(__file__).resolve().parent.parent / "games"


@pytest.fixture(scope="module")
def tictactoe() -> Game:
    return gdl.load(GAMES / "tictactoe.kif")


def started(spec: str, game: Game, role: str, clock: float = 5.0) -> Player:
    player = make_player(spec)
    player.start(game, role, clock, clock)
    return player


# -- registry -----------------------------------------------------------------------------------------


def test_every_kind_is_built_from_its_name() -> None:
    assert set(PLAYER_KINDS) == {
        "random", "legal", "human", "minimax", "mcts", "uct", "hyperplay", "equilibrium", "puzzle"
    }
    for kind, cls in PLAYER_KINDS.items():
        player = make_player(kind)
        assert isinstance(player, cls)
        assert player.name == kind


def test_options_are_converted_to_their_types() -> None:
    player = make_player(" MCTS : iterations = 250, c=0.5 ,seed=3")
    assert isinstance(player, MctsPlayer)
    assert (player.iterations, player.c) == (250, 0.5)
    minimax = make_player("minimax:depth=3,margin=0.2")
    assert isinstance(minimax, MinimaxPlayer)
    assert (minimax.max_depth, minimax.margin) == (3, 0.2)
    assert options("mcts") == {"iterations": int, "c": float, "seed": int, "margin": float, "batch": int}
    assert options("human") == {}
    assert parse_spec("random:seed=4") == ("random", {"seed": "4"})


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "alphazero",
            "unknown player kind: 'alphazero' "
            "(choose from: equilibrium, human, hyperplay, legal, mcts, minimax, puzzle, random, uct)",
        ),
        ("minimax:dept=3", "unknown option 'dept' for minimax player (options: depth, margin)"),
        ("legal:seed=1", "unknown option 'seed' for legal player (options: none)"),
        ("mcts:iterations=many", "option 'iterations' of mcts player expects an integer, got 'many'"),
        ("mcts:c=nan", "option 'c' of mcts player expects a finite number, got 'nan'"),
        ("mcts:iterations", "option 'iterations' of mcts player is not of the form option=value"),
        ("mcts:iterations=0", "bad mcts player: mcts iterations must be at least 1, got 0"),
        ("minimax:depth=-2", "bad minimax player: minimax depth must be at least 1, got -2"),
        ("uct:rave=-1", "bad uct player: uct rave must be at least 0, got -1"),
        ("uct:prior=-2", "bad uct player: uct prior must be at least 0, got -2"),
        ("uct:bias=-0.5", "bad uct player: uct bias must be at least 0, got -0.5"),
        ("uct:savers=yes", "option 'savers' of uct player expects an integer, got 'yes'"),
        ("uct:minimax=1.5", "bad uct player: uct minimax must be at most 1, got 1.5"),
        ("uct:minimax=-0.1", "bad uct player: uct minimax must be at least 0, got -0.1"),
        ("uct:probe=10", "bad uct player: uct probe must be at most 9, got 10"),
        ("uct:threats=-1", "bad uct player: uct threats must be at least 0, got -1"),
        ("uct:probe_visit=0", "bad uct player: uct probe_visit must be at least 1, got 0"),
        ("uct:capture=1.5", "bad uct player: uct capture must be at most 1, got 1.5"),
        ("uct:solve=x", "option 'solve' of uct player expects an integer, got 'x'"),
    ],
)
def test_bad_descriptions_get_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(PlayerSpecError) as caught:
        make_player(spec)
    assert str(caught.value) == message


def test_the_seed_argument_is_a_default_that_the_description_overrides() -> None:
    game = gdl.load(GAMES / "tictactoe.kif")
    state = game.initial_state()

    def choices(spec: str, seed: int | None) -> list[str]:
        player = make_player(spec, seed)
        player.start(game, "xplayer", 1, 1)
        return [str(player.play(state, time.monotonic() + 1)) for _ in range(12)]

    assert choices("random", 5) == choices("random", 5) == choices("random:seed=5", 99)
    assert choices("random", 5) != choices("random", 6)


# -- random and legal ---------------------------------------------------------------------------------


def test_random_and_legal_players_choose_legal_moves(tictactoe: Game) -> None:
    state = board(tictactoe, ["x.o", ".x.", "o.."], "xplayer")
    legal = state.legal_moves("xplayer")
    random_player = started("random:seed=2", tictactoe, "xplayer")
    seen = {random_player.play(state, time.monotonic() + 1) for _ in range(60)}
    assert seen == set(legal)  # uniform over 5 moves: 60 draws miss one with probability < 1e-5
    legal_player = started("legal", tictactoe, "xplayer")
    assert legal_player.play(state, time.monotonic() + 1) == legal[0]
    assert str(legal[0]) == "(mark 1 2)"
    assert str(started("legal", tictactoe, "oplayer").play(state, time.monotonic() + 1)) == "noop"


# -- human ----------------------------------------------------------------------------------------------


def test_human_player_reasks_until_the_input_is_a_legal_move(tictactoe: Game) -> None:
    state = board(tictactoe, ["xo.", "...", "..."], "xplayer")
    script = io.StringIO("\n0\n99\nplease\n(mark 1 1)\n((\n3\n")
    shown = io.StringIO()
    human = HumanPlayer(input=script, output=shown)
    human.start(tictactoe, "xplayer", 1, 1)
    move = human.play(state, time.monotonic() + 1)
    assert str(move) == "(mark 2 2)"  # the third legal move: (mark 1 3), (mark 2 1), (mark 2 2), ...
    text = shown.getvalue()
    assert "  1. (mark 1 3)" in text and "  7. (mark 3 3)" in text
    assert text.count("not a legal move") == 6  # "", 0, 99, please, an occupied cell, bad KIF


def test_human_player_accepts_a_move_written_as_kif(tictactoe: Game) -> None:
    state = board(tictactoe, ["...", "...", "..."], "oplayer")
    human = HumanPlayer(input=io.StringIO("  NOOP \n"), output=io.StringIO())
    human.start(tictactoe, "xplayer", 1, 1)
    assert str(human.play(state, time.monotonic() + 1)) == "noop"


# -- minimax ----------------------------------------------------------------------------------------------


def test_minimax_takes_a_win_in_one(tictactoe: Game) -> None:
    state = board(tictactoe, ["xx.", "oo.", "..."], "xplayer")
    player = started("minimax:depth=2", tictactoe, "xplayer")
    assert str(player.play(state, time.monotonic() + NEVER)) == "(mark 1 3)"


def test_minimax_blocks_the_only_threat(tictactoe: Game) -> None:
    state = board(tictactoe, ["x..", ".o.", "..x"], "oplayer")
    # x threatens nothing yet; o must not play a corner (x would fork): an edge is the only safe reply.
    player = started("minimax", tictactoe, "oplayer")
    move = str(player.play(state, time.monotonic() + NEVER))
    assert move in {"(mark 1 2)", "(mark 2 1)", "(mark 2 3)", "(mark 3 2)"}
    assert player.info()["exact"] is True and player.info()["value"] == 50


def test_minimax_proves_a_lost_position(tictactoe: Game) -> None:
    # x has a fork (two open lines) and o to move can block only one.
    state = board(tictactoe, ["x.x", ".o.", "x.o"], "oplayer")
    player = started("minimax", tictactoe, "oplayer")
    player.play(state, time.monotonic() + NEVER)
    assert (player.info()["exact"], player.info()["value"]) == (True, 0.0)


def test_minimax_plays_nim_by_theory() -> None:
    game = gdl.load(GAMES / "nim.kif")
    for stones in (2, 3, 5, 6):
        state = game.state([f"(stones {stones})", "(control first)"])
        move = started("minimax", game, "first").play(state, time.monotonic() + NEVER)
        take = int(str(move).split()[1].rstrip(")"))
        assert (stones - take) % 3 == 1  # leave a pile one more than a multiple of three


def test_minimax_is_paranoid_but_finds_dominant_simultaneous_moves() -> None:
    game = gdl.parse(DOMINANT)
    state = game.initial_state()
    assert str(started("minimax", game, "row").play(state, time.monotonic() + NEVER)) == "a"
    assert str(started("minimax", game, "column").play(state, time.monotonic() + NEVER)) == "l"


#: One player, two ways to the same end: ``a_slow`` takes two steps, ``b_fast`` one. The slow move sorts
#: first, so a player that breaks ties by move order alone takes it.
RACE = """
(role r) (init (at start))
(<= (legal r a_slow) (true (at start)))
(<= (legal r b_fast) (true (at start)))
(<= (legal r go) (true (at middle)))
(<= (next (at middle)) (does r a_slow))
(<= (next (at end)) (does r b_fast))
(<= (next (at end)) (does r go))
(<= terminal (true (at end)))
(goal r GOAL)
"""


@pytest.mark.parametrize(("goal", "best"), [(100, "b_fast"), (0, "a_slow"), (50, None)])
def test_minimax_wins_soonest_and_loses_latest(goal: int, best: str | None) -> None:
    game = gdl.parse(RACE.replace("GOAL", str(goal)))
    player = started("minimax", game, "r")
    move = str(player.play(game.initial_state(), time.monotonic() + NEVER))
    assert best is None or move == best
    assert player.info()["exact"] is True and player.info()["value"] == goal


def test_minimax_wins_soonest_even_when_both_wins_are_known_from_an_earlier_search() -> None:
    # Before its move the player searches from (at p), where the opponent may move to (at middle) or to
    # (at start): both wins are then proven and stored, and the slow one is stored as the best move of
    # (at start). Move order alone would replay it; the depth tie-break takes the quick one.
    game = gdl.parse(RACE.replace("GOAL", "100").replace("(init (at start))", "(init (at p))") + """
        (role opp) (<= (legal r noop) (true (at p)))
        (<= (legal opp to_middle) (true (at p))) (<= (legal opp to_start) (true (at p)))
        (<= (legal opp noop) (not (true (at p))))
        (<= (next (at middle)) (does opp to_middle)) (<= (next (at start)) (does opp to_start))
        (goal opp 0)""")
    player = started("minimax", game, "r")
    before = game.initial_state()
    player.play(before, time.monotonic() + NEVER)
    after = before.next({"r": "noop", "opp": "to_start"})
    assert str(player.play(after, time.monotonic() + NEVER)) == "b_fast"


def test_minimax_answers_before_its_deadline(tictactoe: Game) -> None:
    player = started("minimax:margin=0.05", tictactoe, "xplayer")
    begun = time.monotonic()
    move = player.play(tictactoe.initial_state(), begun + 0.3)
    assert time.monotonic() - begun < 0.3 + slack(0.5)  # the deadline, late only by the load
    assert move in tictactoe.initial_state().legal_moves("xplayer")


# -- mcts -------------------------------------------------------------------------------------------------


def test_mcts_takes_a_win_in_one_and_counts_iterations(tictactoe: Game) -> None:
    state = board(tictactoe, ["xx.", "oo.", "..."], "xplayer")
    player = started("mcts:iterations=300,seed=1", tictactoe, "xplayer", clock=30)
    assert str(player.play(state, time.monotonic() + NEVER)) == "(mark 1 3)"
    assert player.info()["iterations"] == 300


def test_mcts_is_reproducible_with_a_seed_and_an_iteration_budget(tictactoe: Game) -> None:
    def run() -> list[str]:
        player = started("mcts:iterations=60,seed=7", tictactoe, "xplayer", clock=30)
        return [str(player.play(tictactoe.initial_state(), time.monotonic() + NEVER)) for _ in range(3)]

    assert run() == run()


def test_mcts_reuses_its_tree_for_the_state_reached(tictactoe: Game) -> None:
    player = MctsPlayer(iterations=300, seed=3)
    player.start(tictactoe, "xplayer", 30, 30)
    state = tictactoe.initial_state()
    move = player.play(state, time.monotonic() + NEVER)
    root = player._root
    assert root is not None
    after = next(child for child in root.children.values() if child.state == state.next(
        {"xplayer": move, "oplayer": "noop"}
    ))
    # The reply the tree explored most, two plies below the root: the state x faces next.
    reached = max(after.children.values(), key=lambda node: sum(map(sum, node.visits)))
    kept = player._reuse(reached.state)
    assert kept is reached
    assert sum(kept.visits[0]) > 0  # statistics gathered while thinking about the earlier move
    player.play(reached.state, time.monotonic() + NEVER)
    assert player._root is reached


def test_mcts_decoupled_selection_finds_dominant_simultaneous_moves() -> None:
    game = gdl.parse(DOMINANT)
    for role, best in (("row", "a"), ("column", "l")):
        player = started("mcts:iterations=200,seed=2", game, role)
        assert str(player.play(game.initial_state(), time.monotonic() + NEVER)) == best


def test_mcts_answers_before_its_deadline(tictactoe: Game) -> None:
    player = started("mcts:margin=0.05", tictactoe, "xplayer")
    begun = time.monotonic()
    player.play(tictactoe.initial_state(), begun + 0.3)
    assert time.monotonic() - begun < 0.3 + slack(0.5)  # the deadline, late only by the load
    assert player.info()["iterations"] > 0


def test_every_program_player_completes_rock_paper_scissors() -> None:
    game = gdl.load(GAMES / "rps.kif")
    for kind in ("random:seed=1", "legal", "minimax:depth=2", "mcts:iterations=30,seed=1"):
        players = {role: started(kind, game, role) for role in game.roles}
        state = game.initial_state()
        while not state.is_terminal():
            state = state.next({r: p.play(state, time.monotonic() + NEVER) for r, p in players.items()})
        assert sum(state.goals().values()) == 100


def test_random_player_is_a_player() -> None:
    assert issubclass(RandomPlayer, Player)
    assert repr(RandomPlayer()) == "<RandomPlayer 'random'>"


@given(st.text(alphabet="mctsrandomlegal:=,.0123456789x -", max_size=30))
def test_any_description_is_a_player_or_a_clear_error(spec: str) -> None:
    try:
        player = make_player(spec)
    except PlayerSpecError as problem:
        assert str(problem) and "\n" not in str(problem)
    else:
        assert player.name == spec.strip().partition(":")[0].strip().lower()
