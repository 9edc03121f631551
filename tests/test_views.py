"""Players' views of GDL-II matches and their information-state strings."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.gdl2_games import HIDDEN_BITS, MONTY_HALL

import gdl
from gdl.syntax.reader import parse_term
from gdl.views import View


def test_initial_view_has_the_legal_moves_and_nothing_seen() -> None:
    game = gdl.parse(MONTY_HALL, "datalog")
    view = View.initial(game.initial_state(), "CANDIDATE")
    assert view.role == "candidate" and view.moves == () and view.percepts == ()
    assert [str(m) for m in view.legal] == ["(choose 1)", "(choose 2)", "(choose 3)"]
    assert view.information_state() == "(view candidate (legal (choose 1) (choose 2) (choose 3)))"


def test_after_appends_one_step() -> None:
    game = gdl.parse(MONTY_HALL, "datalog")
    view = View.initial(game.initial_state(), "candidate")
    later = view.after("(choose 1)", [], ["noop"]).after("noop", ["(opened 3)"], ["switch", "noop"])
    assert later.moves == (parse_term("(choose 1)"), parse_term("noop"))
    assert later.percepts == (frozenset(), frozenset({parse_term("(opened 3)")}))
    assert later.information_state() == (
        "(view candidate (step (choose 1) (seen)) (step noop (seen (opened 3))) (legal noop switch))"
    )
    assert view.moves == ()  # views are immutable values


def test_a_view_needs_one_set_of_percepts_per_move() -> None:
    with pytest.raises(ValueError, match="2 moves, 1 sets of percepts"):
        View("a", (parse_term("x"), parse_term("y")), (frozenset(),))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["(pick 0)", "(pick 1)", "(coin 0)", "(coin 1)"]), min_size=4, max_size=4))
def test_information_states_are_equal_exactly_when_views_are(moves: list[str]) -> None:
    """Two steps of hidden bits: equal strings for equal views, whatever order percepts are given in."""
    game = gdl.parse(HIDDEN_BITS, "datalog")
    state = game.initial_state()
    joint = {"a": moves[0], "b": moves[1], "random": "(coin 0)"}
    if not all(state.is_legal(r, m) for r, m in joint.items()):
        return
    seen = state.percepts(joint)["a"]
    first = View.initial(state, "a").after(joint["a"], sorted(seen, key=str), [])
    second = View.initial(state, "a").after(joint["a"], sorted(seen, key=str, reverse=True), [])
    assert first == second and first.information_state() == second.information_state()
    other = View.initial(state, "a").after(joint["a"], [*seen, parse_term("(extra)")], [])
    assert other.information_state() != first.information_state()
