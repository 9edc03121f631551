"""Best responses in floating point with a proven rounding-error bound: the exact best response (in
fractions, on the same game) always lies within it."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.paths import GAMES

from gdl.extensive.exact import best_response
from gdl.extensive.from_gdl import game_of_tree, load_gdl2
from gdl.extensive.generate import GameTree, generate_tree
from gdl.extensive.model import ExtensiveGame
from gdl.extensive.rounding import behaviour_of, proven_response
from gdl.extensive.sequence import SequenceForm
from gdl.extensive.solving import solve_tree


@pytest.fixture(scope="module", params=["kuhn", "leduc"])
def stored(request: pytest.FixtureRequest) -> tuple[GameTree, SequenceForm, ExtensiveGame]:
    path = GAMES / f"{request.param}.kif"
    tree = generate_tree(load_gdl2(path.read_text(), str(path)))
    return tree, SequenceForm.from_tree(tree), game_of_tree(tree)


def _exact_strategy(form: SequenceForm, mover: int, plan: np.ndarray) -> dict[str, dict[str, Fraction]]:
    """The strategy the bound is about: the behaviour read from the plan, each set divided by its exact
    sum."""
    side = form.sides[mover]
    behaviour, _ = behaviour_of(side, plan)
    strategy = {}
    for index, key in enumerate(side.infosets):
        first, count = int(side.first[index]), int(side.count[index])
        read = [Fraction(float(behaviour[first + k])) for k in range(count)]
        total = sum(read, Fraction(0))
        strategy[key] = {side.sequences[first + k][1]: p / total for k, p in enumerate(read)}
    return strategy


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sharpness=st.floats(0.1, 30.0))
def test_the_exact_best_response_lies_within_the_proven_bound(
    stored: tuple[GameTree, SequenceForm, ExtensiveGame], seed: int, sharpness: float
) -> None:
    tree, form, game = stored
    rng = np.random.default_rng(seed)
    most = float(np.abs(tree.payoffs()).max())
    for mover in range(2):
        other = form.sides[1 - mover]
        weights = rng.random(len(other.sequences)) ** sharpness  # near pure when sharp
        plan = other.plan_of(weights)  # not normalised: behaviour_of reads and normalises the ratios
        bound = proven_response(form, mover, plan, len(tree.term_den), most)
        exact = best_response(game, form.players[mover], _exact_strategy(form, 1 - mover, plan)).value
        assert bound.lower <= exact <= bound.upper
        assert 0 < bound.error < 1e-9  # and tight


def test_solve_tree_proves_its_bounds_around_the_known_value(
    stored: tuple[GameTree, SequenceForm, ExtensiveGame],
) -> None:
    tree = stored[0]
    known = {"kuhn": Fraction(-1, 18)}  # Leduc's value is only known in floating point
    solution = solve_tree(tree, "lp")
    low, high = solution.bounds[tree.players[0]]
    assert solution.proven and solution.rounding is not None and solution.rounding < 1e-9
    assert high - low < 1e-6 and not solution.solved
    if tree.game.name in known:
        assert low <= known[tree.game.name] <= high
    report = solution.to_json()
    assert "rounding error bounded" in report["guarantee"] and report["rounding_error"] == solution.rounding
    shown_low, shown_high = (float(b) for b in report["bounds"][tree.players[0]])
    assert Fraction(shown_low) <= low and high <= Fraction(shown_high)  # rounded outwards
    # The proven bound of the exploitability is above what was measured, by at most the rounding.
    bound = report["exploitability_bound"]
    assert bound["kind"] == "proven upper bound"
    assert solution.exploitability <= bound["upper_bound"] <= solution.exploitability + 3 * solution.rounding


ONE_SIDED = """
(role random) (role guesser) (role watcher)
(init (step 0))
(<= (legal random (deal ?c)) (true (step 0)) (card ?c))
(<= (legal random noop) (not (true (step 0))))
(<= (legal guesser noop) (true (step 0)))
(<= (legal guesser (guess ?c)) (true (step 1)) (card ?c))
(legal watcher noop)
(card a) (card b)
(<= (next (dealt ?c)) (does random (deal ?c)))
(<= (next (dealt ?c)) (true (dealt ?c)))
(<= (next (guessed ?c)) (does guesser (guess ?c)))
(<= (next (step 1)) (true (step 0)))
(<= (next (step 2)) (true (step 1)))
(<= terminal (true (step 2)))
(<= (goal guesser 100) (true (dealt ?c)) (true (guessed ?c)))
(<= (goal guesser 0) (true (dealt ?c)) (not (true (guessed ?c))))
(<= (goal watcher 0) (true (dealt ?c)) (true (guessed ?c)))
(<= (goal watcher 100) (true (dealt ?c)) (not (true (guessed ?c))))
(<= (sees watcher (step ?s)) (true (step ?s)))
"""


def test_a_stored_tree_where_one_player_never_chooses_has_a_sequence_form_and_a_value() -> None:
    # The guesser cannot see the card: a coin flip, worth 50 of its goal to it (payoff 0, the goals less
    # half their sum); the watcher has no decision at all.
    tree = generate_tree(load_gdl2(ONE_SIDED, "one_sided.kif"))
    form = SequenceForm.from_tree(tree)
    assert [len(side.infosets) for side in form.sides] == [1, 0]
    solved = solve_tree(tree, "lp")
    low, high = solved.bounds["guesser"]
    assert tree.goal_offset == 50 and low <= 0 <= high and high - low < 1e-9
