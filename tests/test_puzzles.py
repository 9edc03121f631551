"""The puzzle solver and player: plans checked by playing them through the game's own rules, against
an independent shortest-path search (networkx over a graph written as GDL), and in matches."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gdl
from gdl.game import Game, State
from gdl.ground.grounding import term_of
from gdl.match import Match
from gdl.players import make_player
from gdl.players.puzzles import PuzzlePlan, solve_puzzle
from gdl.players.puzzles.depth import DepthFirst
from gdl.players.puzzles.player import PuzzlePlayer
from gdl.syntax.model import Term

GAMES = Path(__file__).resolve().parent.parent / "games"
TEST_GAMES = Path(__file__).resolve().parent / "games"


def ending(game: Game, state: State, moves: Sequence[Term | str]) -> State:
    """The state ``moves`` lead to from ``state``, each checked legal by the game's rules."""
    role = game.roles[0]
    for move in moves:
        assert state.is_legal(role, move)
        state = state.next({role: move})
    return state


def depth_first_moves(game: Game, line: tuple[int, ...]) -> list[Term]:
    """The moves of a depth-first line (numbers of the network's legal outputs)."""
    legal = game.reasoner.net.legal[0]  # type: ignore[attr-defined]
    return [term_of(legal[k][0]) for k in line]


def solved(game: Game, seconds: float = 30.0) -> PuzzlePlan:
    plan = solve_puzzle(game, game.initial_state(), time.monotonic() + seconds)
    end = ending(game, game.initial_state(), plan.moves)
    assert end.is_terminal()
    assert end.goals()[game.roles[0]] == plan.goal
    return plan


def test_buttons_is_solved_by_the_shortest_line() -> None:
    game = gdl.load(GAMES / "buttons.kif")
    plan = solved(game)
    assert [str(move) for move in plan.moves] == ["a", "b", "a"]
    assert (plan.goal, plan.proven, plan.shortest, plan.method) == (100, True, True, "breadth-first")


def test_a_game_whose_states_repeat_is_solved() -> None:
    # Backward induction gives up on this game (a state repeats); the breadth-first line does not.
    game = gdl.load(TEST_GAMES / "buttons_no_counter.kif")
    plan = solved(game)
    assert (plan.goal, plan.proven, plan.shortest) == (100, True, True)
    assert len(plan.moves) == 3  # a, b, a: p on, p to q, p on again


def test_a_plan_from_a_later_state() -> None:
    game = gdl.load(GAMES / "buttons.kif")
    start = game.initial_state().next({"robot": "b"})
    plan = solve_puzzle(game, start, time.monotonic() + 30)
    end = ending(game, start, plan.moves)
    assert end.is_terminal() and end.goals()["robot"] == 100 and plan.proven


def test_a_terminal_state_needs_no_moves() -> None:
    game = gdl.load(GAMES / "buttons.kif")
    end = ending(game, game.initial_state(), ["a", "b", "a"])
    plan = solve_puzzle(game, end, time.monotonic() + 5)
    assert (plan.moves, plan.goal, plan.proven) == ((), 100, True)


def test_games_of_several_roles_are_refused() -> None:
    game = gdl.load(GAMES / "tictactoe.kif")
    with pytest.raises(ValueError, match="2 roles: a puzzle has one"):
        solve_puzzle(game, game.initial_state(), time.monotonic() + 5)


# A one-role game over a directed graph: the robot walks from node 0 along edges; a node without an
# edge out ends the game with its value as the goal.
def graph_game(edges: list[tuple[int, int]], values: dict[int, int]) -> str:
    facts = [f"(edge n{a} n{b})" for a, b in edges] + [f"(value n{n} {v})" for n, v in values.items()]
    facts += [f"(end n{n})" for n in values]
    return "\n".join([
        "(role robot) (init (at n0))",
        "(<= (legal robot (go ?y)) (true (at ?x)) (edge ?x ?y))",
        "(<= (next (at ?y)) (does robot (go ?y)))",
        "(<= terminal (true (at ?x)) (end ?x))",
        "(<= (goal robot ?v) (true (at ?x)) (value ?x ?v))",
        *facts,
    ])


@st.composite
def graphs(draw: st.DrawFn) -> tuple[list[tuple[int, int]], dict[int, int]]:
    """A graph whose every node has an edge out or is an end with a value (cycles allowed)."""
    size = draw(st.integers(2, 12))
    ends = draw(st.sets(st.integers(1, size - 1), min_size=1))
    values = {n: draw(st.sampled_from([0, 25, 50, 75, 100])) for n in ends}
    edges = set()
    for node in range(size):
        if node in ends:
            continue
        targets = draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=4))
        edges.update((node, target) for target in targets)
    return sorted(edges), values


def best_by_networkx(edges: list[tuple[int, int]], values: dict[int, int]) -> tuple[int, int] | None:
    """The best goal reachable from node 0 and the length of a shortest walk to it."""
    graph = nx.DiGraph(edges)
    graph.add_nodes_from([0, *values])
    distance = nx.single_source_shortest_path_length(graph, 0)
    reachable = [n for n in values if n in distance]
    if not reachable:
        return None
    best = max(values[n] for n in reachable)
    return best, min(distance[n] for n in reachable if values[n] == best)


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_plans_agree_with_shortest_paths(graph: tuple[list[tuple[int, int]], dict[int, int]]) -> None:
    edges, values = graph
    game = gdl.parse(graph_game(edges, values))
    expected = best_by_networkx(edges, values)
    plan = solve_puzzle(game, game.initial_state(), time.monotonic() + 30)
    if expected is None:  # no end is reachable: the walk goes on for ever
        assert (plan.goal, plan.moves) == (None, ())
        return
    assert (plan.goal, len(plan.moves)) == expected
    assert plan.proven and plan.shortest
    end = ending(game, game.initial_state(), plan.moves)
    assert end.is_terminal() and end.goals()["robot"] == plan.goal


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_depth_first_finds_the_best_goal(graph: tuple[list[tuple[int, int]], dict[int, int]]) -> None:
    # Asked for a goal above any (101), the depth-first search visits every reachable state.
    edges, values = graph
    game = gdl.parse(graph_game(edges, values))
    expected = best_by_networkx(edges, values)
    search = DepthFirst(game, game.initial_state(), 101, 1 << 20)
    search.run(float("inf"))
    assert search.exhaustive
    line, goal = search.best()
    if expected is None:
        assert goal is None
        return
    assert goal == expected[0]
    end = ending(game, game.initial_state(), depth_first_moves(game, line))
    assert end.is_terminal() and end.goals()["robot"] == goal


def test_hanoi_in_the_fewest_moves(corpus: Path) -> None:
    plan = solved(gdl.load(corpus / "games" / "hanoi.kif"))
    # Five discs: 2**5 - 1 moves, and the game's step counter ends it at move 31.
    assert (plan.goal, len(plan.moves), plan.proven, plan.shortest) == (100, 31, True, True)


def test_a_knights_tour_is_found_depth_first(corpus: Path) -> None:
    game = gdl.load(corpus / "games" / "knightstour.kif")
    search = DepthFirst(game, game.initial_state(), 100, 64 << 20)
    search.run(float("inf"))  # it ends: found, or every state searched
    line, goal = search.best()
    assert goal == 100 and search.finished
    end = ending(game, game.initial_state(), depth_first_moves(game, line))
    assert end.is_terminal() and end.goals()["robot"] == 100
    # 29 moves visit every square of the 5 x 6 board; the 30th (the count the goal of 100 asks for)
    # lands on a square already left (a hole), which ends the game.
    assert len(line) == 30


def test_a_sudoku_is_filled_by_the_focused_search(corpus: Path) -> None:
    # sudokugrade1's moves are the marks that break no rule so far; the goal is 100 once no cell is
    # blank. The exhaustive search drowns in the orders of the marks; the focused one fills the cell of
    # fewest choices first.
    game = gdl.load(corpus / "games" / "sudokugrade1.kif")
    search = DepthFirst(game, game.initial_state(), 100, 64 << 20, focus=True)
    search.run(float("inf"))
    line, goal = search.best()
    assert goal == 100 and not search.exhaustive
    end = ending(game, game.initial_state(), depth_first_moves(game, line))
    assert end.is_terminal() and end.goals()["robot"] == 100


def test_the_player_plays_its_plan_in_a_match() -> None:
    game = gdl.load(GAMES / "buttons.kif")
    record = Match(game, {"robot": "puzzle"}, start_clock=10, play_clock=2, isolate=False).run()
    assert record.goals == {"robot": 100}
    assert len(record.moves) == 3 and record.error_count("robot") == 0


def test_the_player_replans_off_its_plan() -> None:
    game = gdl.load(GAMES / "buttons.kif")
    player = PuzzlePlayer()
    player.start(game, "robot", 10, 2)
    assert player.info()["proven"] is True and player.info()["plan_moves"] == 3
    state = game.initial_state().next({"robot": "b"})  # not the plan's first move
    while not state.is_terminal():
        state = state.next({"robot": player.play(state, time.monotonic() + 2)})
    assert state.goals()["robot"] == 100
    assert "replanned" in player.info()


def test_the_player_falls_back_in_games_of_two_roles() -> None:
    game = gdl.load(GAMES / "tictactoe.kif")
    record = Match(
        game, {"xplayer": "puzzle:seed=1", "oplayer": "random"}, start_clock=2, play_clock=0.5, seed=1,
        isolate=False,
    ).run()
    assert record.completed and record.error_count("xplayer") == 0
    assert make_player("puzzle").name == "puzzle"
