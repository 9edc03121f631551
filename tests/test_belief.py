"""Belief states: forward filtering with chance probabilities, exact and sampled."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.gdl2_games import HIDDEN_BITS, MONTY_HALL

import gdl
from gdl.belief import Belief, belief_from_view
from gdl.errors import BeliefDepletedError, InconsistentViewError
from gdl.game import State
from gdl.syntax.model import Function
from gdl.syntax.reader import parse_term
from gdl.views import View


def _has(fluent: str) -> object:
    term = parse_term(fluent)
    return lambda state: term in state.fluents()


@pytest.mark.parametrize("engine", ["datalog", "compiled"])
def test_monty_hall_other_door_has_two_thirds(engine: str) -> None:
    game = gdl.parse(MONTY_HALL, engine)
    belief = Belief.initial(game, "candidate").update("(choose 1)", [])
    assert len(belief.states) == 3 and belief.weights == pytest.approx([1 / 3] * 3)
    belief = belief.update("noop", ["(opened 2)"], ["noop", "switch"])
    assert belief.exact and len(belief.states) == 2
    assert belief.probability(_has("(car 3)")) == pytest.approx(2 / 3)
    assert belief.probability(_has("(car 1)")) == pytest.approx(1 / 3)
    assert sum(belief.weights) == pytest.approx(1)


def test_monty_hall_of_the_corpus(corpus: Path) -> None:
    game = gdl.load(corpus / "gdl2" / "MontyHall.gdl")
    view = View.initial(game.initial_state(), "candidate").after("(choose 3)", [], ["noop"])
    view = view.after("noop", ["1"], ["noop", "switch"])
    belief = belief_from_view(game, view)
    assert belief.probability(_has("(car 2)")) == pytest.approx(2 / 3)
    assert belief.probability(_has("(car 3)")) == pytest.approx(1 / 3)


def test_percepts_that_cannot_happen_are_an_error() -> None:
    game = gdl.parse(MONTY_HALL, "datalog")
    belief = Belief.initial(game, "candidate").update("(choose 1)", [])
    with pytest.raises(InconsistentViewError, match="percepts \\['\\(opened 1\\)'\\]"):
        belief.update("noop", ["(opened 1)"])


def test_belief_weights_match_enumeration_of_plays() -> None:
    """Player a saw its coin and, when bits differed, b's bit: weights by counting joint moves."""
    game = gdl.parse(HIDDEN_BITS, "datalog")
    belief = Belief.initial(game, "a").update("(pick 0)", ["(coin 1)"])
    # b picked 0 (a sees no 'other'): one state, certain.
    assert len(belief.states) == 1 and belief.weights == (1.0,)
    assert _has("(picked b 0)")(belief.states[0])


def test_a_player_who_sees_nothing_weighs_every_opponent_move() -> None:
    game = gdl.parse(MONTY_HALL, "datalog")
    belief = Belief.initial(game, "candidate")
    after = belief.update("(choose 2)", [])
    counts = {str(f) for s in after.states for f in s.fluents() if str(f).startswith("(car")}
    assert counts == {"(car 1)", "(car 2)", "(car 3)"}


def test_past_the_budget_the_belief_is_sampled() -> None:
    # tictactoe where oplayer is told nothing (a sees rule for xplayer only makes it GDL-II)
    text = Path("games/tictactoe.kif").read_text() + "(<= (sees xplayer (turn ?p)) (true (control ?p)))"
    game = gdl.parse(text, "datalog")
    belief = Belief.initial(game, "oplayer").update("noop", [])
    sampled = belief.update("(mark 1 1)", [], max_states=3, rng=random.Random(5))
    assert not sampled.exact and 1 <= len(sampled.states) <= 3
    assert sum(sampled.weights) == pytest.approx(1)
    # every state kept is one the view allows: oplayer marked (1 1) after one x
    for state in sampled.states:
        assert _has("(cell 1 1 o)")(state)
    exact = belief.update("(mark 1 1)", [])
    assert set(sampled.states) <= set(exact.states)


def test_sampled_joint_moves_still_respect_the_view() -> None:
    game = gdl.parse(MONTY_HALL, "datalog")
    belief = Belief.initial(game, "candidate").update("(choose 1)", [], max_states=1, rng=random.Random(1))
    assert len(belief.states) == 1 and not belief.exact
    car = next(f.args[0] for f in belief.states[0].fluents() if isinstance(f, Function) and f.name == "car")
    door = next(d for d in ("2", "3") if d != str(car))
    later = belief.update("noop", [f"(opened {door})"], rng=random.Random(2))
    assert not later.exact and later.states == (later.states[0],)
    assert _has(f"(car {car})")(later.states[0]) and not _has(f"(closed {door})")(later.states[0])
    with pytest.raises(InconsistentViewError, match="sampled"):
        belief.update("noop", [f"(opened {car})"], rng=random.Random(2))


def test_sample_draws_by_weight() -> None:
    game = gdl.parse(MONTY_HALL, "datalog")
    belief = Belief.initial(game, "candidate").update("(choose 1)", []).update("noop", ["(opened 2)"])
    rng = random.Random(3)
    draws = [belief.sample(rng) for _ in range(3000)]
    share = sum(_has("(car 3)")(s) for s in draws) / len(draws)
    assert share == pytest.approx(2 / 3, abs=0.04)
    assert all(isinstance(s, State) for s in draws)


def test_a_depleted_sample_is_told_apart_and_rebuilt_from_the_view() -> None:
    game = gdl.parse(MONTY_HALL, "datalog")
    initial = Belief.initial(game, "candidate")
    for seed in range(50):  # a one-state sample with the car behind door 2 or 3
        sampled = initial.update("(choose 1)", [], max_states=1, rng=random.Random(seed))
        fluents = sampled.states[0].fluents()
        opened = next(str(f.args[0]) for f in fluents if isinstance(f, Function) and f.name == "car")
        if opened != "1":
            break
    # the host never opens the door with the car: a view where it opened the sample's cannot come from it
    with pytest.raises(BeliefDepletedError, match="sampled states"):
        sampled.update("noop", [f"(opened {opened})"])
    view = View.initial(game.initial_state(), "candidate").after("(choose 1)", [], ["noop"])
    view = view.after("noop", [f"(opened {opened})"], ["noop", "switch"])
    rebuilt = belief_from_view(game, view, max_states=1, rng=random.Random(4))
    assert rebuilt.states and all(not _has(f"(car {opened})")(s) for s in rebuilt.states)


@functools.cache
def _compiled(text: str) -> gdl.Game:
    return gdl.parse(text, "compiled")


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_an_exact_belief_holds_the_true_state(seed: int) -> None:
    """Random plays of hidden bits and Monty Hall: the true state is always among the exact belief's."""
    rng = random.Random(seed)
    for text, role in ((MONTY_HALL, "candidate"), (HIDDEN_BITS, "a"), (HIDDEN_BITS, "b")):
        game = _compiled(text)
        state, belief = game.initial_state(), Belief.initial(game, role)
        while not state.is_terminal():
            joint = {r: rng.choice(state.legal_moves(r)) for r in game.roles}
            seen = state.percepts(joint)[role]
            state = state.next(joint)
            belief = belief.update(joint[role], seen, state.legal_moves(role))
            assert belief.exact and state in belief.states
            assert sum(belief.weights) == pytest.approx(1) and min(belief.weights) > 0
