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
#: which the demand-driven rewriting computes 50 (mummymaze1p's mummy moves are of this kind). ``on`` is
#: kept by the move, not by a frame axiom alone, so that pair/3 is a relation of each state.
STEP_DEAR = " ".join(f"(n {i})" for i in range(50)) + " ".join(f"(succ {i} {i + 1})" for i in range(8)) + """
    (role r) (init (c 0)) (init on) (<= (legal r go) (true on))
    (<= (pair ?x ?y ?z) (true on) (n ?x) (n ?y) (n ?z))
    (<= (next (c ?y)) (does r go) (true (c ?x)) (succ ?x ?y) (pair ?x ?y 0))
    (<= (next on) (true on) (does r go))
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
    whole_after = whole.next(whole.initial(), whole.legal(whole.initial(), 0))
    assert reasoner.terminal(after) and reasoner.goals(after, 0) == whole.goals(whole_after, 0)


def test_static_strata_left_out_for_their_size_are_completed_on_request() -> None:
    checked = gdl.parse(CUBE, engine="datalog", file="cube.kif").checked
    partial = gdl.engines.datalog._Strata(checked, gdl.datalog.TermTable(), large=1_000)
    assert "triple" in partial.large and partial.deferred
    assert "triple/3" not in partial.static.relations
    assert not any(key.startswith(gdl.datalog.plan.DELTA) for key in partial.static.relations)
    partial.complete()
    assert not partial.deferred
    assert len(partial.static.facts("triple/3")) == 27_000


#: pentago's five in a row, in small: the board is empty in the initial state, where rules are planned.
ROW = " ".join(f"(index {i}) (plusplus {i} {i + 1})" for i in range(1, 7)) + """
    (<= (global ?x ?y ?g ?h) (index ?x) (index ?y) (plusplus ?x ?g) (plusplus ?y ?h))
    (role red) (init (control red))
    (<= (legal red (mark ?x ?y)) (index ?x) (index ?y) (not (true (cell ?x ?y red))))
    (<= (next (cell ?x ?y red)) (does red (mark ?x ?y)))
    (<= (next (cell ?x ?y ?p)) (true (cell ?x ?y ?p)))
    (<= (row ?p) (true (cell ?x1 ?y1 ?p)) (global ?x1 ?y1 ?g1 ?h) (plusplus ?g1 ?g2)
        (true (cell ?x2 ?y2 ?p)) (global ?x2 ?y2 ?g2 ?h) (plusplus ?g2 ?g3)
        (true (cell ?x3 ?y3 ?p)) (global ?x3 ?y3 ?g3 ?h))
    (<= terminal (row red)) (<= (goal red 100) (row red)) (<= (goal red 0) (not (row red)))
"""


def test_a_state_relation_empty_where_rules_are_planned_is_not_read_first() -> None:
    # (true (cell ?x2 ?y2 ?p)) has no fact in the initial state: planned as if it had none, it was read
    # before the static relation that binds ?x2 and ?y2 from ?g2 and ?h, and pentago's terminal test
    # grew to 0.7 s a state by mid-game.
    checked = gdl.parse(ROW, engine="datalog", file="row.kif").checked
    reasoner = gdl.engines.datalog.DatalogReasoner(checked, demand=False)
    assert not reasoner.terminal(reasoner.initial())
    evaluator = reasoner.evaluator
    (number,) = [n for n, s in enumerate(checked.strata) if "row" in s.relations]
    (rule,) = evaluator._compiled[number].rules
    loops = [line.split(" in ")[1].split(".")[0].rstrip(":") for line in rule.code.body if " in " in line]
    state_reads = {local for local, relation, _ in rule.code.fetches if relation == "true/1"}
    # At most one loop over the state's cells: the other cells are looked up, found by global.
    assert len([local for local in loops if local in state_reads]) <= 1


#: ruledepthexponential's chain in small: each level asks the next about both values of one more bit,
#: and the deepest level holds only at the last step, so that every level is empty in most states.
CHAIN = "(bit 0) (bit 1) (succ 1 2) (succ 2 3)" + """
    (role r) (init (step 1)) (legal r go) (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
    (<= (deep ?a ?b ?c ?d ?e ?f) (bit ?a) (bit ?b) (bit ?c) (bit ?d) (bit ?e) (bit ?f) (true (step 3)))
    (<= (level ?a ?b ?c ?d ?e) (bit ?a) (bit ?b) (bit ?c) (bit ?d) (bit ?e)
        (deep ?a ?b ?c ?d ?e 0) (deep ?a ?b ?c ?d ?e 1))
    (<= terminal (level 0 0 0 0 0)) (<= (goal r 100) terminal) (<= (goal r 0) (not terminal))
"""


def test_a_state_relation_empty_where_rules_are_planned_is_not_read_after_a_cross_product() -> None:
    # Planned as a relation of unknown size, (deep ...) came after the bits, and each state enumerated
    # every combination of them before finding it empty (ruledepthexponential: 2 ** 19 a state).
    checked = gdl.parse(CHAIN, engine="datalog", file="chain.kif").checked
    reasoner = gdl.engines.datalog.DatalogReasoner(checked, demand=False)
    state = reasoner.initial()
    assert not reasoner.terminal(state)
    state = reasoner.next(reasoner.next(state, reasoner.legal(state, 0)), reasoner.legal(state, 0))
    assert reasoner.terminal(state)
    evaluator = reasoner.evaluator
    (number,) = [n for n, s in enumerate(checked.strata) if "level" in s.relations]
    (rule,) = evaluator._compiled[number].rules
    loops = [line.split(" in ")[1].split(".")[0].rstrip(":") for line in rule.code.body if " in " in line]
    reads = {local: relation for local, relation, _ in rule.code.fetches}
    assert reads.get(loops[0]) == "deep/6"  # the bits, a static relation, are not fetched
