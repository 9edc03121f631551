"""The Datalog reasoner refuses a game whose relations computed once per game grow past a limit."""

from __future__ import annotations

import pytest

import gdl
import gdl.datalog.plan
import gdl.engines.datalog
from gdl.errors import GameTooLargeError

#: A static relation of 30 x 30 x 30 = 27,000 facts in a one-move game.
CUBE = " ".join(f"(n {i})" for i in range(30)) + """
    (<= (triple ?x ?y ?z) (n ?x) (n ?y) (n ?z))
    (role r) (init s) (<= (legal r go) (true s) (triple 1 2 3)) (<= (next done) (does r go))
    (<= terminal (true done)) (<= (goal r 100) (true done)) (<= (goal r 0) (true s))
"""


def test_a_static_relation_past_the_limit_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gdl.engines.datalog, "STATIC_FACT_LIMIT", 10_000)
    expected = r"cannot evaluate 'cube\.kif': more than 10000 facts of 'triple/3'"
    with pytest.raises(GameTooLargeError, match=expected):
        gdl.parse(CUBE, engine="datalog", file="cube.kif")


def test_under_the_limit_the_game_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gdl.engines.datalog, "STATIC_FACT_LIMIT", 30_000)
    state = gdl.parse(CUBE, engine="datalog", file="cube.kif").initial_state()
    assert state.next({"r": "go"}).goals() == {"r": 100}


#: Cheap to ask about, dear to step as written: ``next`` reads a per-state relation of 50 ** 3 facts of
#: which the demand-driven rewriting computes 50 (mummymaze1p's mummy moves are of this kind).
STEP_DEAR = " ".join(f"(n {i})" for i in range(50)) + " ".join(f"(succ {i} {i + 1})" for i in range(8)) + """
    (role r) (init (c 0)) (init on) (<= (legal r go) (true on))
    (<= (pair ?x ?y ?z) (true on) (n ?x) (n ?y) (n ?z))
    (<= (next (c ?y)) (does r go) (true (c ?x)) (succ ?x ?y) (pair ?x ?y 0))
    (<= (next on) (true on))
    (<= terminal (true (c 8))) (<= (goal r 100) (true (c 8))) (<= (goal r 0) (not (true (c 8))))
"""


def test_the_trial_of_the_two_evaluations_takes_a_step() -> None:
    checked = gdl.parse(STEP_DEAR, engine="datalog", file="step.kif").checked
    reasoner = gdl.engines.datalog.DatalogReasoner(checked)
    assert reasoner.demand_driven
    state = reasoner.initial()
    for _ in range(8):
        assert not reasoner.terminal(state)
        state = reasoner.next(state, reasoner.legal(state, 0))
    assert reasoner.terminal(state)


def test_a_large_static_relation_is_asked_for_by_demand_not_computed_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # triple/3 has 27,000 facts; legal asks for one of them (mummymaze1p's direction-from/5 has 6.5
    # million, and computing them all took most of its 40 s to its first legal moves).
    monkeypatch.setattr(gdl.engines.datalog, "LARGE_STATIC", 1_000)
    checked = gdl.parse(CUBE, engine="datalog", file="cube.kif").checked
    reasoner = gdl.engines.datalog.DatalogReasoner(checked)
    assert reasoner.demand_driven
    assert "triple/3" not in reasoner._strata.static.relations
    whole = gdl.engines.datalog.DatalogReasoner(checked, demand=False)
    assert len(whole._strata.static.facts("triple/3")) == 27_000
    state = reasoner.initial()
    assert reasoner.legal(state, 0) == whole.legal(whole.initial(), 0) != ()
    after = reasoner.next(state, reasoner.legal(state, 0))
    assert reasoner.terminal(after) and reasoner.goals(after, 0) == whole.goals(after, 0)


def test_static_strata_left_out_for_their_size_are_completed_on_request() -> None:
    checked = gdl.parse(CUBE, engine="datalog", file="cube.kif").checked
    partial = gdl.engines.datalog._Strata(checked, gdl.datalog.TermTable(), large=1_000)
    assert "triple" in partial.large and partial.deferred
    assert "triple/3" not in partial.static.relations
    assert not any(key.startswith(gdl.datalog.plan.DELTA) for key in partial.static.relations)
    partial.complete()
    assert not partial.deferred
    assert len(partial.static.facts("triple/3")) == 27_000
