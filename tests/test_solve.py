"""The solver: values from game theory (not from our own output), solution concepts, budgets, the CLI."""

from __future__ import annotations

import json
import re
from collections import deque
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.clingo_gdl import ClingoGame
from support.gdl2_games import MONTY_HALL

import gdl
import gdl.engines
import gdl.solve
from gdl.cli import main
from gdl.game import Game
from gdl.solve import (
    BACKWARD_INDUCTION,
    BEST_GOAL,
    MINIMAX,
    MIXED_MINIMAX,
    SECURITY,
    Solution,
    solve,
    solve_matrix_game,
)

GAMES = Path(__file__).resolve().parent.parent / "games"


def replay(game: Game, solution: Solution) -> dict[str, int]:
    """Play the principal variation (every move must be legal) and return the goals at its end."""
    state = game.initial_state()
    for joint in solution.pv:
        state = state.next(joint)
    assert state.is_terminal()
    return state.goals()


def nim(stones: int) -> str:
    """Our nim with ``stones`` stones: misère, take one or two, whoever takes the last stone loses."""
    text = (GAMES / "nim.kif").read_text(encoding="utf-8")
    assert "(init (stones 7))" in text and "(succ 6 7)" in text
    more = "".join(f"\n(succ {n} {n + 1})" for n in range(7, stones))
    return text.replace("(init (stones 7))", f"(init (stones {stones}))") + more


def test_tictactoe_is_a_draw() -> None:
    game = gdl.load(GAMES / "tictactoe.kif")
    solution = solve(game)
    assert solution.solved and solution.concept == MINIMAX
    assert solution.value == {"xplayer": 50, "oplayer": 50}
    assert replay(game, solution) == {"xplayer": 50, "oplayer": 50}
    # 5478 legal positions of tictactoe (a known count) -- with the player to move implied by the marks.
    assert solution.states == 5478


@pytest.mark.parametrize("stones", range(1, 13))
def test_nim_player_to_move_loses_exactly_on_one_more_than_a_multiple_of_three(stones: int) -> None:
    game = gdl.parse(nim(stones))
    solution = solve(game)
    first_loses = stones % 3 == 1
    assert solution.solved and solution.concept == MINIMAX
    assert solution.value == ({"first": 0, "second": 100} if first_loses else {"first": 100, "second": 0})
    assert replay(game, solution) == solution.value


@pytest.mark.parametrize("name", ["nim1.kif", "nim2.kif"])
def test_corpus_nim_follows_boutons_theorem(corpus: Path, name: str) -> None:
    # Normal play (whoever takes the last object wins): the player to move wins iff the heaps' xor is not 0.
    path = corpus / "games" / name
    heaps = [int(n) for n in re.findall(r"\(init \(heap \w+ (\d+)\)\)", path.read_text(encoding="utf-8"))]
    assert len(heaps) == 4
    nim_sum = 0
    for heap in heaps:
        nim_sum ^= heap
    game = gdl.load(path)
    solution = solve(game)
    winner = 100 if nim_sum != 0 else 0
    assert solution.value == {"player1": winner, "player2": 100 - winner}
    assert replay(game, solution) == solution.value


def shortest_win(path: Path) -> int:
    """Length of a shortest sequence to goal 100, by breadth-first search over clingo's reasoning."""
    oracle = ClingoGame(path)
    (role,) = oracle.roles
    seen = {oracle.initial}
    frontier = deque([(oracle.initial, 0)])
    while frontier:
        state, depth = frontier.popleft()
        if oracle.terminal(state):
            if oracle.goals(state, role) == ["100"]:
                return depth
            continue
        for joint in oracle.joint_moves(state):
            after = oracle.next(state, joint)
            if after not in seen:
                seen.add(after)
                frontier.append((after, depth + 1))
    raise AssertionError("no winning sequence")


def test_buttons_is_won_by_the_shortest_sequence() -> None:
    game = gdl.load(GAMES / "buttons.kif")
    solution = solve(game)
    assert solution.solved and solution.concept == BEST_GOAL
    assert solution.value == {"robot": 100}
    assert replay(game, solution) == {"robot": 100}
    assert len(solution.pv) == shortest_win(GAMES / "buttons.kif") == 3  # a, b, a (the game's comment)


def test_corpus_buttons_is_won_by_the_shortest_sequence(corpus: Path) -> None:
    # The corpus game (it has no base facts, so clingo's oracle cannot ground it): lights p, q, r, all off;
    # a toggles p, b swaps p and q, c swaps q and r; all on wins; the game ends after 6 presses.
    presses = {
        "a": lambda p, q, r: (not p, q, r),
        "b": lambda p, q, r: (q, p, r),
        "c": lambda p, q, r: (p, r, q),
    }
    frontier, depth, seen = {(False, False, False)}, 0, set()
    while (True, True, True) not in frontier:
        seen |= frontier
        frontier = {press(*lights) for lights in frontier for press in presses.values()} - seen
        depth += 1
    assert depth <= 6
    game = gdl.load(corpus / "games" / "buttons.kif")
    solution = solve(game)
    assert solution.value == {"robot": 100}
    assert replay(game, solution) == {"robot": 100}
    assert len(solution.pv) == depth


def test_rock_paper_scissors_is_even_in_mixed_strategies() -> None:
    # A symmetric zero-sum game is worth half to each; each round is won with uniform play.
    solution = solve(gdl.load(GAMES / "rps.kif"))
    assert solution.solved and solution.concept == MIXED_MINIMAX
    assert solution.value == {"left": 50, "right": 50}
    third = pytest.approx(1 / 3)
    assert solution.strategies == {
        role: {"paper": third, "rock": third, "scissors": third} for role in ("left", "right")
    }
    assert len(solution.pv) == 3


MATRIX = """
(role row) (role column)
(init start)
(legal row a) (legal row b) (legal column l) (legal column r)
(<= (next done) (true start))
(<= (next (played ?m ?n)) (does row ?m) (does column ?n))
(<= terminal (true done))
(payoff a l 60) (payoff a r 70) (payoff b l 30) (payoff b r 80)
(complement 60 40) (complement 70 30) (complement 30 70) (complement 80 20)
(<= (goal row ?v) (true (played ?m ?n)) (payoff ?m ?n ?v))
(<= (goal column ?w) (true (played ?m ?n)) (payoff ?m ?n ?v) (complement ?v ?w))
(<= (goal ?p 0) (role ?p) (not done_playing))
(<= done_playing (true (played ?m ?n)))
"""


def test_a_simultaneous_zero_sum_game_with_a_saddle_point_has_its_pure_value() -> None:
    # Row's maximin: a guarantees min(60, 70) = 60; column's: l guarantees min(40, 70) = 40; 60 + 40 = 100.
    solution = solve(gdl.parse(MATRIX))
    assert solution.concept == MIXED_MINIMAX
    assert solution.value == {"row": 60, "column": 40}
    assert solution.pv == [{"row": "a", "column": "l"}]
    assert solution.strategies == {"row": {"a": 1.0}, "column": {"l": 1.0}}


def test_a_simultaneous_zero_sum_game_without_a_saddle_point_needs_mixing() -> None:
    # Payoffs to row 100 0 / 0 50: value 100 * 50 / 150 = 33.33; row plays a with 1/3, b with 2/3.
    text = MATRIX.replace("(payoff a l 60) (payoff a r 70) (payoff b l 30) (payoff b r 80)",
                          "(payoff a l 100) (payoff a r 0) (payoff b l 0) (payoff b r 50)")
    text = text.replace("(complement 60 40) (complement 70 30) (complement 30 70) (complement 80 20)",
                        "(complement 100 0) (complement 0 100) (complement 50 50)")
    solution = solve(gdl.parse(text))
    assert solution.concept == MIXED_MINIMAX
    assert solution.value == {"row": 33.3333, "column": 66.6667}
    assert solution.strategies["row"] == {"a": pytest.approx(1 / 3), "b": pytest.approx(2 / 3)}


@given(st.lists(st.lists(st.integers(0, 100), min_size=1, max_size=4), min_size=1, max_size=4).filter(
    lambda rows: len({len(r) for r in rows}) == 1
))
def test_matrix_game_solutions_carry_their_own_certificate(payoff: list[list[int]]) -> None:
    # Optimal strategies certify the value: row's guarantees at least v against every column, column's
    # holds row to at most v against every row (linear programming duality, checked exactly).
    value, row, column = solve_matrix_game(payoff)
    assert sum(row) == 1 == sum(column) and min(row) >= 0 and min(column) >= 0
    for j in range(len(payoff[0])):
        assert sum(row[i] * payoff[i][j] for i in range(len(payoff))) >= value
    for i in range(len(payoff)):
        assert sum(column[j] * payoff[i][j] for j in range(len(payoff[0]))) <= value
    assert min(map(min, payoff)) <= value <= max(map(max, payoff))


def test_a_general_sum_simultaneous_game_reports_security_values() -> None:
    # Row gets 100 for a whatever column does; column gets 70 for l, 30 for r: both guaranteed.
    text = MATRIX.replace("(payoff a l 60) (payoff a r 70) (payoff b l 30) (payoff b r 80)",
                          "(payoff a l 100) (payoff a r 100) (payoff b l 0) (payoff b r 0)")
    column_goals = "(<= (goal column 70) (true (played ?m l))) (<= (goal column 30) (true (played ?m r)))"
    text = text.replace(
        "(<= (goal column ?w) (true (played ?m ?n)) (payoff ?m ?n ?v) (complement ?v ?w))", column_goals
    )
    solution = solve(gdl.parse(text))
    assert solution.concept == SECURITY
    assert solution.value == {"row": 100, "column": 70}
    assert solution.pv == [{"row": "a", "column": "l"}]


THREE = """
(role a) (role b) (role c)
(init (turn a))
(legal a x) (<= (legal a y) (true (turn a)))
(<= (legal b noop) (role b)) (<= (legal c noop) (role c))
(<= (next (chose ?m)) (does a ?m) (distinct ?m noop))
(<= terminal (true (chose ?m)))
(<= (goal a 50) (true (chose x))) (<= (goal b 100) (true (chose x))) (<= (goal c 0) (true (chose x)))
(<= (goal a 60) (true (chose y))) (<= (goal b 0) (true (chose y))) (<= (goal c 100) (true (chose y)))
(<= (goal ?p 0) (role ?p) (not chosen))
(<= chosen (true (chose ?m)))
"""


def test_more_roles_are_solved_by_backward_induction() -> None:
    solution = solve(gdl.parse(THREE))
    assert solution.concept == BACKWARD_INDUCTION
    assert solution.value == {"a": 60, "b": 0, "c": 100}  # a picks what is best for a
    assert solution.pv == [{"a": "y", "b": "noop", "c": "noop"}]


def test_an_exhausted_budget_is_reported_honestly() -> None:
    solution = solve(gdl.load(GAMES / "tictactoe.kif"), max_states=10)
    assert not solution.solved
    assert solution.reason == "not solved within budget"
    assert solution.states == 10 and solution.value == {} and solution.pv == []


def test_a_game_that_can_repeat_a_state_is_not_solved() -> None:
    looping = """
    (role r) (init here)
    (legal r stay) (legal r leave)
    (<= (next here) (does r stay))
    (<= (next gone) (does r leave))
    (<= terminal (true gone))
    (goal r 100)
    """
    solution = solve(gdl.parse(looping))
    assert not solution.solved and "a state repeats" in solution.reason


def test_a_game_that_breaks_gdl_at_run_time_is_not_solved_and_says_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stuck = "(role r) (init a) (<= (legal r go) (true b)) (<= (next a) (true a)) (<= terminal (true b))"
    stuck += "(goal r 0)"
    solution = solve(gdl.parse(stuck))
    assert not solution.solved
    assert solution.reason == (
        "not solved: the rules break GDL: role 'r' has no legal move in non-terminal state <State a>"
    )
    path = tmp_path / "stuck.kif"
    path.write_text(stuck, encoding="utf-8")
    assert main(["solve", "--engine", "datalog", str(path)]) == 1
    captured = capsys.readouterr()
    assert "stuck: not solved: the rules break GDL: role 'r' has no legal move" in captured.out
    assert "Traceback" not in captured.err


# -- the command ------------------------------------------------------------------------------------------


def test_gdl_solve_prints_value_line_and_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", str(GAMES / "buttons.kif")]) == 0
    out = capsys.readouterr().out
    assert "solved; best reachable goal" in out
    assert "value: robot 100" in out
    assert re.search(r"1\. robot a\n +2\. robot b\n +3\. robot a\n", out)
    assert re.search(r"\d+ states searched in \d+\.\d\d s", out)


def test_gdl_solve_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", str(GAMES / "buttons.kif"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["solved"] is True and data["value"] == {"robot": 100}
    assert data["pv"] == [{"robot": "a"}, {"robot": "b"}, {"robot": "a"}]
    assert isinstance(data["states"], int) and isinstance(data["seconds"], float)


def test_gdl_solve_out_of_budget_and_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["solve", str(GAMES / "tictactoe.kif"), "--max-states", "50"]) == 1
    assert "tictactoe: not solved within budget (50 states" in capsys.readouterr().out
    assert main(["solve", str(GAMES / "tictactoe.kif"), "--max-states", "50", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["solved"] is False
    assert main(["solve", str(tmp_path / "missing.kif")]) == 2
    assert "missing.kif: no such file" in capsys.readouterr().err
    broken = tmp_path / "broken.kif"
    broken.write_text("(role robot\n", encoding="utf-8")
    assert main(["solve", str(broken)]) == 2
    assert "the game has errors" in capsys.readouterr().err
    # a bad --time-limit: tests/test_cli_vocabulary.py


@pytest.mark.parametrize(
    ("text", "what"),
    [
        (MONTY_HALL, "percepts ('sees')"),
    ],
)
def test_a_gdl2_game_is_not_solved_as_if_every_role_saw_the_state(text: str, what: str) -> None:
    solution = solve(gdl.parse(text))
    assert not solution.solved and solution.states == 0
    assert solution.reason.startswith(f"not solved: a GDL-II game with {what};")


def test_a_game_with_nature_and_no_sees_rule_is_solved_with_every_move_told() -> None:
    # Without sees rules every role is told nature's moves (GDL's protocol): the candidate knows where
    # the car is, and the value is the mean over nature's moves of perfect play.
    solution = solve(gdl.parse(MONTY_HALL.replace("(<= (sees candidate", "(<= (hint candidate")))
    assert solution.solved and solution.value == {"candidate": 100}
    assert any("expected goal" in note for note in solution.notes)


def test_gdl_solve_says_why_it_does_not_solve_a_gdl2_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A bystander who always gets 0 makes the game general-sum: it has no extensive form gdl solves.
    bystander = "\n(role bystander)\n(legal bystander noop)\n(goal bystander 0)\n"
    path = tmp_path / "monty.kif"
    path.write_text(MONTY_HALL + bystander, encoding="utf-8")
    assert main(["solve", str(path)]) == 1
    out = capsys.readouterr().out
    assert "monty: not solved: a GDL-II game with percepts ('sees')" in out


def test_a_game_auto_left_to_datalog_is_solved_on_a_network_that_builds_in_a_share_of_the_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gdl.engines, "AUTO_MAX_SECONDS", 0.0)  # auto's budget too short for any network
    game = gdl.load(GAMES / "tictactoe.kif")
    assert getattr(game.reasoner, "net", None) is None
    solving = gdl.solve.solving_engine(game, 60.0)
    assert solving.reasoner.net is not None and solving.name == game.name  # type: ignore[attr-defined]
    assert solve(solving).value == solve(game).value == {"xplayer": 50, "oplayer": 50}
    assert gdl.solve.solving_engine(game, 0.0) is game  # no time for a network: the game as it was
    monkeypatch.setattr(gdl.solve, "NETWORK_MAX_ATOMS", 10)
    assert gdl.solve.solving_engine(game, 60.0) is game  # too many ground atoms: the game as it was


def test_gdl_solve_builds_the_network_auto_gave_up_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(gdl.engines, "AUTO_MAX_SECONDS", 0.0)
    monkeypatch.setattr(gdl.solve, "SMALL_GAME", 1_000)  # tictactoe's 5,478 states go to the native solver
    assert main(["solve", str(GAMES / "tictactoe.kif"), "--json"]) == 0
    assert gdl.solve.NATIVE in json.loads(capsys.readouterr().out)["notes"]
    assert main(["solve", str(GAMES / "tictactoe.kif"), "--json", "--engine", "datalog"]) == 0
    assert gdl.solve.NATIVE not in json.loads(capsys.readouterr().out)["notes"]


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 8).flatmap(lambda n: st.lists(
    st.lists(st.sampled_from([0, 25, 50, 75, 100]) | st.integers(0, 100), min_size=n, max_size=n),
    min_size=2, max_size=8,
)))
def test_large_matrix_games_solved_in_floating_point_are_proven_exactly(payoff: list[list[int]]) -> None:
    # HiGHS's solution, made exact, must prove the value the simplex over fractions finds (ties in the
    # payoffs make many games degenerate: several optimal strategies, columns tight by accident).
    from gdl.solution_concepts import _certified, _simplex

    certified = _certified([[Fraction(x) for x in row] for row in payoff])
    assert certified is not None
    value, row, column = certified
    assert value == _simplex(payoff)[0]
    assert sum(row) == 1 == sum(column) and min(row) >= 0 and min(column) >= 0
    rows, columns = range(len(payoff)), range(len(payoff[0]))
    assert all(sum(row[i] * payoff[i][j] for i in rows) >= value for j in columns)
    assert all(sum(column[j] * payoff[i][j] for j in columns) <= value for i in rows)


def test_a_floating_point_solution_that_proves_nothing_leaves_the_game_to_the_simplex(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import numpy as np

    from gdl import solution_concepts

    payoff = [[(7 * i + 3 * j) % 5 * 25 for j in range(6)] for i in range(6)]
    exact = solution_concepts._simplex(payoff)
    # A maximin that is not one: each player's first move only.
    monkeypatch.setattr(solution_concepts, "_float_maximin", lambda a: np.eye(len(a))[0])
    assert solution_concepts._certified([[Fraction(x) for x in row] for row in payoff]) is None
    assert solve_matrix_game(payoff) == exact
