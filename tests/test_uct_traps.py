"""The uct player's traps: among moves proven to attain the same value, the one after which the most of
the next mover's answers are mistakes (give the player more), in its tree and in the table of a game
solved at the start (:mod:`gdl.players.solved`), checked against minimax by brute force."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from support.games import DOMINANT, STUCK
from support.timing import NEVER
from test_players_uct import root_of, started, tree_of

import gdl
from gdl.game import Game, State
from gdl.players.solved import PLAYOUT_NOISE, solve_small
from gdl.players.uct import warm_up
from gdl.players.uct.tree import Edge, choose
from gdl.solve import solve

GAMES = Path(__file__).resolve().parent.parent / "games"


@pytest.fixture(scope="module")
def tictactoe() -> Game:
    warm_up()
    return gdl.load(GAMES / "tictactoe.kif")


def mover_of(state: State) -> str:
    """The role whose turn it is: the one with a move other than noop."""
    return next(r for r in state.game.roles if any(str(m) != "noop" for m in state.legal_moves(r)))


def answers(state: State) -> list[State]:
    """The states the move of ``state``'s one role to choose leads to (the others' noop played)."""
    mover = mover_of(state)
    noop = {r: state.legal_moves(r)[0] for r in state.game.roles if r != mover}
    return [state.next({**noop, mover: move}) for move in state.legal_moves(mover)]


def positions(game: Game, rng: random.Random, count: int, plies: range) -> Iterator[State]:
    """Of ``count`` random walks from the start, each of a number of ``plies`` (fewer where the game
    ends), the states they end in that are not terminal."""
    for _ in range(count):
        state = game.initial_state()
        for _ in range(rng.choice(plies)):
            if state.is_terminal():
                break
            state = rng.choice(answers(state))
        if not state.is_terminal():
            yield state


@cache
def minimax(state: State) -> tuple[int, ...]:
    """Each role's goal under minimax play from ``state`` (tictactoe's goals are constant-sum)."""
    if state.is_terminal():
        return tuple(state.goals()[r] for r in state.game.roles)
    index = state.game.roles.index(mover_of(state))
    return max((minimax(s) for s in answers(state)), key=lambda goals: goals[index])


def test_choose_prefers_the_move_with_more_traps_among_those_proven_equal() -> None:
    edges = [Edge(0, 90, 0.5, 0.5, 10), Edge(1, 5, 0.5, 0.5, 11), Edge(2, 50, 0.9, 0.0, 12)]
    traps = {10: 0.25, 11: 0.75, 12: 1.0}
    assert choose(edges, 0.5, lambda e, v: traps[e.child]).output == 1
    assert choose(edges, 0.5).output == 0  # without traps to look at: the most visited
    # A move proven worse is never taken for its traps, also before the root is proven.
    assert choose(edges[::2], None, lambda e, v: traps[e.child]).output == 0


def test_traps_are_the_share_of_answers_minimax_values_above_the_proven_value(tictactoe: Game) -> None:
    compared = 0
    for state in positions(tictactoe, random.Random(5), 30, range(2, 6)):
        role = tictactoe.roles.index(mover_of(state))
        tree, reasoner = tree_of(tictactoe)
        root = root_of(tree, reasoner, state)
        tree.search(root, 200_000)
        if not tree.solved(root):
            continue  # the solver proves a draw only once every move is proven
        value = tree.value(root, role)
        assert 100 * value == minimax(state)[role]
        for edge, after in zip(tree.edges(root, role), answers(state), strict=True):
            if edge.proven is None or edge.proven < value or edge.child < 0 or value == 0:
                continue  # a lost root's moves may be proven by one answer, the others left open
            following = answers(after) if not after.is_terminal() else []
            mistakes = sum(minimax(s)[role] > 100 * value for s in following)
            assert tree.traps(edge.child, role, value) == (mistakes / len(following) if following else 0.0)
            compared += 1
    assert compared >= 20


def traps(state: State, role: int, value: int) -> float:
    """The share of the answers in ``state`` after which ``role`` gets more than ``value`` (minimax)."""
    if state.is_terminal() or state.game.roles.index(mover_of(state)) == role:
        return 0.0
    following = answers(state)
    return sum(minimax(s)[role] > value for s in following) / len(following)


@cache
def playout_means(state: State) -> tuple[float, ...]:
    """Each role's mean goal under uniformly random play from ``state``."""
    if state.is_terminal():
        return tuple(float(state.goals()[r]) for r in state.game.roles)
    following = [playout_means(s) for s in answers(state)]
    return tuple(sum(means[r] for means in following) / len(following) for r in range(len(following[0])))


@cache
def against_playouts(state: State, role: int) -> float:
    """``role``'s expectation from ``state`` against an opponent that takes each move with a weight of
    exp(its playout mean / PLAYOUT_NOISE), ``role`` keeping its value and maximising the expectation."""
    if state.is_terminal():
        return float(state.goals()[state.game.roles[role]])
    following = answers(state)
    mover = state.game.roles.index(mover_of(state))
    if mover == role:
        return max(against_playouts(s, role) for s in following if minimax(s)[role] == minimax(state)[role])
    weights = [math.exp(playout_means(s)[mover] / PLAYOUT_NOISE) for s in following]
    return sum(w * against_playouts(s, role) for w, s in zip(weights, following, strict=True)) / sum(weights)


def test_a_solved_game_keeps_the_value_with_the_best_expectation_against_playouts(tictactoe: Game) -> None:
    solved = solve_small(tictactoe, time.monotonic() + NEVER)
    assert solved is not None
    rng = random.Random(8)
    compared = 0
    for state in positions(tictactoe, rng, 40, range(0, 7)):
        mover = mover_of(state)
        role = tictactoe.roles.index(mover)
        assert [solved.value(state, r) for r in tictactoe.roles] == list(minimax(state))
        chosen = solved.choose(state, mover, rng)
        assert chosen is not None and chosen.value == minimax(state)[role]
        after = dict(zip(state.legal_moves(mover), answers(state), strict=True))[chosen.move]
        assert minimax(after)[role] == chosen.value
        assert chosen.expected == pytest.approx(against_playouts(after, role), abs=1e-9)
        assert chosen.expected == pytest.approx(against_playouts(state, role), abs=1e-9)  # the best move's
        assert chosen.traps == traps(after, role, chosen.value)
        compared += 1
    assert compared >= 30


def test_the_table_holds_every_reachable_state_and_only_small_turn_taking_games() -> None:
    nim = gdl.load(GAMES / "nim.kif")
    solved = solve_small(nim, time.monotonic() + NEVER)
    assert solved is not None
    assert len(solved.valued) == solve(nim).states
    tictactoe = gdl.load(GAMES / "tictactoe.kif")
    assert solve_small(tictactoe, time.monotonic() + NEVER, most_states=1000) is None  # too many states
    assert solve_small(gdl.parse(DOMINANT), time.monotonic() + NEVER) is None  # simultaneous moves
    assert solve_small(gdl.load(GAMES / "dice.kif"), time.monotonic() + NEVER) is None  # nature
    assert solve_small(gdl.parse(CYCLE), time.monotonic() + NEVER) is None  # a state repeats
    assert solve_small(gdl.parse(STUCK), time.monotonic() + NEVER) is None  # a state breaks GDL


#: Two roles taking turns over two states for ever, or ending it.
CYCLE = """
(role a) (role b)
(init (turn a))
(<= (legal ?r pass) (true (turn ?r)))
(<= (legal ?r stop) (true (turn ?r)))
(<= (legal a noop) (true (turn b)))
(<= (legal b noop) (true (turn a)))
(<= (next (turn b)) (does a pass))
(<= (next (turn a)) (does b pass))
(<= (next over) (does ?r stop))
(<= terminal (true over))
(goal a 50) (goal b 50)
"""


def test_uct_plays_a_solved_game_from_its_table(tictactoe: Game) -> None:
    player = started("uct:seed=1", tictactoe, "xplayer", clock=NEVER)
    assert player.info()["solved"] == solve(tictactoe).states
    state = tictactoe.initial_state()
    move = player.play(state, time.monotonic() + NEVER)
    after = dict(zip(state.legal_moves("xplayer"), answers(state), strict=True))[move]
    assert player.info()["value"] == 50 and player.info()["proven"] is True
    assert player.info()["expected"] == round(against_playouts(after, 0), 1)
    # Without the table, the search plays.
    searching = started("uct:seed=1,solve=0,iterations=2000,ponder=0", tictactoe, "xplayer", clock=0.5)
    searching.play(tictactoe.initial_state(), time.monotonic() + NEVER)
    assert "solved" not in searching.info() and searching.info()["iterations"] > 0
