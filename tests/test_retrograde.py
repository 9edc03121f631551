"""gdl.retrograde: solving turn-taking games natively gives exactly the answers of the search over states."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.graph_games import GraphGame
from support.paths import GAMES

import gdl
import gdl.solve
from gdl.solve import Solution, solve


@pytest.fixture(autouse=True, scope="module")
def _native_whatever_the_size() -> Iterator[None]:
    """Games of every size go to the native solver here (by default the smallest are searched)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gdl.solve, "SMALL_GAME", 0)
        yield


def _both(text: str, **options: object) -> tuple[Solution, Solution]:
    """The solutions of the native solver (compiled engine) and of the search (Datalog engine)."""
    native = solve(gdl.parse(text, engine="compiled"), **options)  # type: ignore[arg-type]
    searched = solve(gdl.parse(text, engine="datalog"), **options)  # type: ignore[arg-type]
    return native, searched


def _same(native: Solution, searched: Solution) -> None:
    assert native.solved == searched.solved, (native.reason, searched.reason)
    if native.solved:
        assert "solved by retrograde analysis on the compiled network" in native.notes
        assert (native.concept, native.value, native.pv, native.states) == (
            searched.concept, searched.value, searched.pv, searched.states,
        )
    else:
        assert native.reason.split(":")[0] == searched.reason.split(":")[0]


@st.composite
def turn_taking_games(draw: st.DrawFn) -> GraphGame:
    """Small explicit games where one role moves in each state (its successors later states, or any
    state), with goals that may be missing."""
    names = draw(st.sampled_from([("r0",), ("r0", "r1"), ("r0", "r1", "r2")]))
    states = draw(st.integers(1, 14))
    acyclic = draw(st.booleans())
    terminal = tuple(draw(st.booleans()) or state == states - 1 for state in range(states))
    value = st.sampled_from([0, 25, 50, 100]) if draw(st.booleans()) else st.one_of(
        st.none(), st.sampled_from([0, 50, 100])
    )
    goals = tuple(tuple(draw(value) for _ in names) for _ in range(states))
    moves = []
    for _ in range(states):
        counts = [1] * len(names)
        counts[draw(st.integers(0, len(names) - 1))] = draw(st.integers(1, 3))
        moves.append(tuple(counts))
    successor = {}
    for state in range(states):
        for joint in itertools.product(*(range(n) for n in moves[state])):
            low = state + 1 if acyclic and state < states - 1 else 0
            successor[(state, joint)] = draw(st.integers(low, states - 1))
    return GraphGame(names, terminal, goals, tuple(moves), successor)


@settings(max_examples=40)
@given(turn_taking_games())
def test_random_turn_taking_games_get_the_searchs_answers(game: GraphGame) -> None:
    _same(*_both(game.kif()))


@pytest.mark.parametrize("name", ["tictactoe.kif", "nim.kif", "buttons.kif"])
def test_bundled_games_get_the_searchs_answers(name: str) -> None:
    text = (GAMES / name).read_text()
    native, searched = _both(text)
    assert native.solved
    _same(native, searched)


def test_a_state_limit_stops_the_exploration_at_that_many_states() -> None:
    native, searched = _both((GAMES / "tictactoe.kif").read_text(), max_states=100)
    assert not native.solved and native.reason == searched.reason == "not solved within budget"
    assert native.states == searched.states == 100


def test_a_state_space_that_will_not_fit_is_refused_with_its_size(tmp_path: Path) -> None:
    game = gdl.load(GAMES / "tictactoe.kif")
    solution = solve(game, memory=300_000)  # about 1,000 states of tictactoe
    assert not solution.solved
    assert "would not fit in 0.3 MiB" in solution.reason and "bytes a state" in solution.reason


def test_simultaneous_moves_are_left_to_the_search() -> None:
    solution = solve(gdl.load(GAMES / "rps.kif"))
    assert solution.solved and "solved by retrograde analysis on the compiled network" not in solution.notes


def test_by_default_small_games_are_searched_and_larger_ones_solved_natively() -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gdl.solve, "SMALL_GAME", 2_000)
        buttons = solve(gdl.load(GAMES / "buttons.kif"))  # 22 states
        tictactoe = solve(gdl.load(GAMES / "tictactoe.kif"))  # 5,478 states
    native = "solved by retrograde analysis on the compiled network"
    assert buttons.solved and native not in buttons.notes
    assert tictactoe.solved and native in tictactoe.notes and tictactoe.states == 5478
