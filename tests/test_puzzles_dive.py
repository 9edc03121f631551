"""Puzzles without a network: the sound test of whether a goal may still be reached
(:mod:`gdl.players.puzzles.possible`), checked against exhaustive search, and the dive it cuts
(:mod:`gdl.players.puzzles.dive`), checked by playing its lines through the game's own rules."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gdl
import gdl.players.puzzles as puzzles
from gdl.errors import DeadlinePassedError
from gdl.game import Game, State
from gdl.match import Match
from gdl.players import make_player
from gdl.players.puzzles import solve_puzzle
from gdl.players.puzzles.clauses import fluent_value
from gdl.players.puzzles.dive import Diver
from gdl.players.puzzles.possible import Possibility
from gdl.solve import solve

TEST_GAMES = Path(__file__).resolve().parent / "games"
LATIN = gdl.load(TEST_GAMES / "latin3.kif")


def played(game: Game, moves: Sequence[str], state: State | None = None) -> State:
    """The state ``moves`` (texts, each checked legal) lead to from ``state`` (the initial one)."""
    role = game.roles[0]
    state = state or game.initial_state()
    for text in moves:
        by_text = {str(move): move for move in state.legal_moves(role)}
        assert text in by_text, f"{text} is not legal"
        state = state.next({role: by_text[text]})
    return state


def may_reach(possibility: Possibility, state: State, value: int, deadline: float = float("inf")) -> bool:
    role = state.game.roles[0]
    fluents = [fluent_value(f) for f in state.fluents()]
    return possibility.may_hold(fluents, "goal", (role, str(value)), deadline)


def best_goal(state: State) -> int:
    """The best goal reachable from ``state``, by exhaustive search."""
    solution = solve(state.game, 60, start=state)
    assert solution.solved
    return int(solution.value[state.game.roles[0]])


def test_a_value_repeated_in_a_row_or_a_column_makes_the_goal_unreachable() -> None:
    possibility = Possibility(LATIN.checked.program.rules)
    assert may_reach(possibility, LATIN.initial_state(), 100)
    assert not may_reach(possibility, played(LATIN, ["(put 1 1 1)", "(put 1 3 1)"]), 100)
    assert not may_reach(possibility, played(LATIN, ["(put 1 2 3)", "(put 3 2 3)"]), 100)
    assert may_reach(possibility, played(LATIN, ["(put 1 1 1)", "(put 2 2 1)"]), 100)
    # goal 0 (not solved) is reachable from anywhere before the grid is full
    assert may_reach(possibility, played(LATIN, ["(put 1 1 1)", "(put 1 3 1)"]), 0)


def test_the_test_is_sound_on_every_state_of_a_filled_first_row() -> None:
    # Every first row (27) with every mark of the cell below its first: "cannot reach 100" must be
    # proved by the exhaustive search each time, and the test must cut some of them.
    possibility = Possibility(LATIN.checked.program.rules)
    cut = kept = 0
    for a in "123":
        for b in "123":
            for c in "123":
                row = played(LATIN, [f"(put 1 1 {a})", f"(put 1 2 {b})", f"(put 1 3 {c})"])
                for d in "123":
                    state = played(LATIN, [f"(put 2 1 {d})"], row)
                    if may_reach(possibility, state, 100):
                        kept += 1
                    else:
                        cut += 1
                        assert best_goal(state) < 100, state
    assert cut + kept == 81
    assert cut > 60 and kept >= 4  # 6 rows of distinct values, 2 marks below each not under its first


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(0, 2)), min_size=4, max_size=8))
def test_the_test_never_cuts_a_state_the_goal_can_be_reached_from(marks: list[tuple[int, int]]) -> None:
    possibility = Possibility(LATIN.checked.program.rules)
    state = LATIN.initial_state()
    for cell, value in marks:
        move = f"(put {cell // 3 + 1} {cell % 3 + 1} {value + 1})"
        if not state.is_terminal() and move in {str(m) for m in state.legal_moves("filler")}:
            state = played(LATIN, [move], state)
    # four marks or more: few enough states left for the exhaustive search
    if len(state.fluents()) >= 4 and not state.is_terminal() and best_goal(state) == 100:
        assert may_reach(possibility, state, 100)


def test_rules_the_test_does_not_follow_leave_every_goal_possible() -> None:
    # buttons' lights are added through each other: the test gives up and answers "may hold".
    game = gdl.load(Path(__file__).resolve().parent.parent / "games" / "buttons.kif")
    possibility = Possibility(game.checked.program.rules)
    assert all(may_reach(possibility, game.initial_state(), value) for value in (0, 100))


def test_moves_of_one_cell_share_a_precondition() -> None:
    possibility = Possibility(LATIN.checked.program.rules)
    group = {value: possibility.precondition("filler", fluent_value(move))
             for value, move in ((m.args[2].name, m) for m in LATIN.initial_state().legal_moves("filler")  # type: ignore[union-attr]
                                 if str(m).startswith("(put 1 1 "))}
    assert len(group) == 3 and len(set(group.values())) == 1
    other = possibility.precondition("filler", fluent_value(LATIN.initial_state().legal_moves("filler")[-1]))
    assert other != group["1"]


def test_the_dive_fills_the_square() -> None:
    diver = Diver(LATIN, LATIN.initial_state())
    diver.run(float("inf"))
    assert diver.target == 100 and diver.found is not None and len(diver.found) == 9
    end = played(LATIN, [str(move) for move in diver.found])
    assert end.is_terminal() and end.goals()["filler"] == 100


def test_the_dive_aims_at_the_best_goal_left() -> None:
    state = played(LATIN, ["(put 1 1 2)", "(put 1 2 2)"])
    diver = Diver(LATIN, state)
    diver.run(float("inf"))
    assert diver.target == 0 and diver.found is not None
    assert played(LATIN, [str(move) for move in diver.found], state).goals()["filler"] == 0


def test_the_dive_follows_the_game_down_its_line() -> None:
    diver = Diver(LATIN, LATIN.initial_state())
    diver.run(time.monotonic() - 1)  # no time: still at the root
    assert diver.line == () and diver.follow(LATIN.initial_state())
    diver.run(float("inf"))
    assert diver.found is not None
    first = played(LATIN, [str(diver.found[0])])
    assert diver.follow(first) and diver.root == first and len(diver.found) == 8
    assert not diver.follow(played(LATIN, ["(put 3 3 1)"]))


def test_a_puzzle_without_a_network_is_dived_into(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(puzzles, "_network_game", lambda game, seconds: None)
    plan = solve_puzzle(LATIN, LATIN.initial_state(), time.monotonic() + 30)
    assert plan.method == "dive" and plan.goal == 100 and plan.proven and not plan.shortest
    assert played(LATIN, [str(move) for move in plan.moves]).goals()["filler"] == 100


def test_the_player_plays_the_dive_without_a_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(puzzles, "_network_game", lambda game, seconds: None)
    record = Match(LATIN, {"filler": "puzzle"}, start_clock=10, play_clock=2, isolate=False).run()
    assert record.goals == {"filler": 100} and record.error_count("filler") == 0


def test_sudoku_breaks_as_soon_as_a_row_a_column_or_a_square_repeats(corpus: Path) -> None:
    game = gdl.load(corpus / "games" / "sudoku.kif")
    possibility = Possibility(game.checked.program.rules)
    for moves, reachable in (
        (["(play 1 1 5)", "(play 1 9 5)"], False),   # a row
        (["(play 1 1 5)", "(play 9 1 5)"], False),   # a column
        (["(play 1 1 5)", "(play 3 3 5)"], False),   # a square
        (["(play 1 1 5)", "(play 4 4 5)"], True),
    ):
        assert may_reach(possibility, played(game, moves), 100) == reachable, moves


@pytest.mark.slow
def test_the_empty_sudoku_is_filled_by_the_dive(corpus: Path) -> None:
    game = gdl.load(corpus / "games" / "sudoku.kif")
    diver = Diver(game, game.initial_state())
    diver.run(float("inf"))
    assert diver.found is not None and len(diver.found) == 81
    end = played(game, [str(move) for move in diver.found])
    assert end.is_terminal() and end.goals()["sudokuplayer"] == 100


def test_a_test_past_its_deadline_stops_and_the_dive_takes_it_up_again(corpus: Path) -> None:
    game = gdl.load(corpus / "games" / "sudoku.kif")
    possibility = Possibility(game.checked.program.rules)
    with pytest.raises(DeadlinePassedError):
        may_reach(possibility, game.initial_state(), 100, time.monotonic() - 1)
    diver = Diver(LATIN, LATIN.initial_state())
    for _ in range(3):
        diver.run(time.monotonic() - 1)
    diver.run(float("inf"))
    assert diver.found is not None
    assert played(LATIN, [str(move) for move in diver.found]).goals()["filler"] == 100


def test_a_dive_handed_back_is_resumed_without_looking_for_a_network_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(puzzles, "_network_game", lambda game, seconds: None)
    first = solve_puzzle(LATIN, LATIN.initial_state(), time.monotonic() - 1)  # no time: no plan yet
    assert first.method == "none" and first.diver is not None

    def no_network_expected(game: Game, seconds: float) -> None:
        raise AssertionError("looked for a network again")

    monkeypatch.setattr(puzzles, "_network_game", no_network_expected)
    plan = solve_puzzle(LATIN, LATIN.initial_state(), time.monotonic() + 30, diver=first.diver)
    assert plan.method == "dive" and plan.goal == 100
    assert played(LATIN, [str(move) for move in plan.moves]).goals()["filler"] == 100


def test_a_dive_the_game_left_is_replaced_by_one_that_keeps_what_the_test_learnt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(puzzles, "_network_game", lambda game, seconds: None)
    first = solve_puzzle(LATIN, LATIN.initial_state(), time.monotonic() - 1)
    assert first.diver is not None
    off_line = played(LATIN, ["(put 3 3 1)"])
    assert not first.diver.follow(off_line)
    plan = solve_puzzle(LATIN, off_line, time.monotonic() + 30, diver=first.diver)
    assert plan.method == "dive" and plan.goal == 100 and plan.diver is None
    assert played(LATIN, [str(move) for move in plan.moves], off_line).goals()["filler"] == 100
    second = solve_puzzle(LATIN, off_line, time.monotonic() - 1, diver=first.diver)
    assert second.diver is not None and second.diver is not first.diver
    assert second.diver.root == off_line and second.diver.possibility is first.diver.possibility


def test_the_default_player_leaves_a_dive_under_way_to_the_puzzle_player(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With no network and a start clock too short for the dive (less than the margin), uct has no
    # search of its own: the puzzle player goes on diving at each move and fills the square.
    monkeypatch.setattr(puzzles, "_network_game", lambda game, seconds: None)
    player = make_player("uct", seed=1)
    player.start(LATIN, "filler", 0.5, 2)
    assert player.info().get("method") == "none"
    state = LATIN.initial_state()
    while not state.is_terminal():
        state = state.next({"filler": player.play(state, time.monotonic() + 60)})  # the dive stops once found
    assert state.goals()["filler"] == 100
