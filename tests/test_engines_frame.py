"""Relations that read only fluents no move changes are computed once per set of those fluents
(gdl.engines.frame), and the Datalog reasoner answers every state as the plain evaluator does."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gdl
import gdl.engines.datalog
from gdl.check import CheckedProgram
from gdl.datalog.evaluator import evaluate
from gdl.engines.datalog import DatalogReasoner
from gdl.engines.frame import ANY, fluent_kind, kinds_read, reads_only, unchanging_kinds
from gdl.syntax.model import Atom, Constant, Function, Term, Variable

#: A 3 x 3 maze: walls are kept by frame axioms only, and ``open/5`` (the steps walls allow) reads
#: nothing else of the state, as wargame01's horizontalStep/6 reads only its walls.
MAZE = """
    (role r)
    (init (at 1 1)) (init (wall 1 1 e)) (init (wall 2 2 n)) (init (wall 2 1 n)) (init (t 0))
    (coord 1) (coord 2) (coord 3) (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
    (<= (adj ?x ?y e ?x2 ?y) (coord ?y) (succ ?x ?x2) (coord ?x2))
    (<= (adj ?x ?y w ?x2 ?y) (coord ?y) (succ ?x2 ?x) (coord ?x2))
    (<= (adj ?x ?y n ?x ?y2) (coord ?x) (succ ?y ?y2) (coord ?y2))
    (<= (adj ?x ?y s ?x ?y2) (coord ?x) (succ ?y2 ?y) (coord ?y2))
    (<= (blocked ?x ?y ?d) (true (wall ?x ?y ?d)))
    (<= (blocked ?x2 ?y2 w) (adj ?x ?y e ?x2 ?y2) (true (wall ?x ?y e)))
    (<= (blocked ?x2 ?y2 s) (adj ?x ?y n ?x2 ?y2) (true (wall ?x ?y n)))
    (<= (open ?x ?y ?d ?x2 ?y2) (adj ?x ?y ?d ?x2 ?y2) (not (blocked ?x ?y ?d)))
    (<= (legal r (move ?d)) (true (at ?x ?y)) (open ?x ?y ?d ?x2 ?y2))
    (<= (legal r stay))
    (<= (next (at ?x2 ?y2)) (does r (move ?d)) (true (at ?x ?y)) (open ?x ?y ?d ?x2 ?y2))
    (<= (next (at ?x ?y)) (does r stay) (true (at ?x ?y)))
    (<= (next (wall ?x ?y ?d)) (true (wall ?x ?y ?d)))
    (<= (next (t ?m)) (true (t ?n)) (succ ?n ?m))
    (<= terminal (true (t 4)))
    (<= terminal (true (at 3 3)))
    (<= (goal r 100) (true (at 3 3)))
    (<= (goal r 0) (not (true (at 3 3))))
"""

COORDS = ("1", "2", "3")
WALLS = [f"(wall {x} {y} {d})" for x in COORDS for y in COORDS for d in "nesw"]
PLACES = [f"(at {x} {y})" for x in COORDS for y in COORDS]
TIMES = [f"(t {n})" for n in range(5)]


def maze() -> CheckedProgram:
    return gdl.parse(MAZE, engine="datalog", file="maze.kif").checked


def fluent(text: str) -> Term:
    name, *args = text.strip("()").split()
    return Function(name, tuple(Constant(arg) for arg in args))


def test_fluents_kept_only_by_frame_axioms_are_unchanging() -> None:
    assert unchanging_kinds(maze().program) == {("wall", 3)}


@pytest.mark.parametrize(
    ("extra", "unchanging"),
    [
        ("(<= (next (wall 1 1 n)) (true (at 1 1)))", set()),  # a wall can be built
        ("(<= (next (wall ?x ?y ?d)) (true (wall ?x ?y ?d)) (true (t 0)))", set()),  # or kept conditionally
        ("(<= (next ?f) (true (t 9)) (true ?f))", set()),  # a rule can make any fluent
        ("(<= (next (wall ?x ?y ?d)) (true (wall ?x ?y ?d)))", {("wall", 3)}),  # the same axiom twice
    ],
)
def test_any_other_rule_making_a_kind_makes_it_changing(extra: str, unchanging: set[tuple[str, int]]) -> None:
    checked = gdl.parse(MAZE + extra, engine="datalog", file="maze.kif").checked
    assert unchanging_kinds(checked.program) == unchanging


def test_kinds_of_fluents() -> None:
    assert fluent_kind(Constant("on")) == ("on", 0)
    assert fluent_kind(fluent("(wall 1 1 e)")) == ("wall", 3)
    assert fluent_kind(Variable("x")) == ANY


def test_a_relation_reads_only_what_it_and_all_it_uses_read() -> None:
    program = maze().program
    read = kinds_read(program)
    assert read["blocked"] == {("wall", 3)} and read["legal"] == {("at", 2)}
    depends_on = {"open": {"open", "blocked", "adj", "true"}, "legal": {"legal", "open", "true"}}
    walls = frozenset({("wall", 3)})
    assert reads_only({"open"}, depends_on, read, walls)
    assert not reads_only({"legal"}, depends_on, read, walls)
    assert not reads_only({"open"}, {"open": {"open", "does"}}, read, walls)


def test_the_relations_of_walls_are_computed_once_in_a_walk() -> None:
    # (Rewritten for demand, open/5 is asked for from the piece's place: a relation of the state.)
    reasoner = DatalogReasoner(maze(), demand=False)
    strata = reasoner._strata
    frame_relations = {r for n in strata.frame for r in strata.program.strata[n].relations}
    assert {"blocked", "open"} <= frame_relations
    state = reasoner.initial()
    for _ in range(4):
        assert not reasoner.terminal(state)
        state = reasoner.next(state, [reasoner.legal(state, 0)[0]])
        database = reasoner._cache[state].database if state in reasoner._cache else None
        assert database is None or "open/5" not in database.owned
    assert len(strata._frames) == 1


def model_answers(checked: CheckedProgram, state: frozenset[Term]) -> tuple[set[str], bool, set[str]]:
    """Legal moves, terminal and goals of ``state`` by the plain evaluator of the whole program."""
    model = evaluate(checked, [Atom("true", (f,)) for f in state])
    legal = {str(move) for _, move in model.get("legal", ())}
    goals = {str(goal) for _, goal in model.get("goal", ())}
    return legal, "terminal" in model, goals


def model_next(checked: CheckedProgram, state: frozenset[Term], move: Term) -> set[str]:
    facts = [Atom("true", (f,)) for f in state] + [Atom("does", (Constant("r"), move))]
    return {str(f) for (f,) in evaluate(checked, facts).get("next", ())}


states = st.builds(
    lambda walls, places, times: frozenset(map(fluent, walls + places + times)),
    st.lists(st.sampled_from(WALLS), max_size=8, unique=True),
    st.lists(st.sampled_from(PLACES), max_size=2, unique=True),
    st.lists(st.sampled_from(TIMES), max_size=1),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(states, min_size=1, max_size=5), st.booleans())
def test_any_states_are_answered_as_the_plain_evaluator_does(
    monkeypatch: pytest.MonkeyPatch, sequence: list[frozenset[Term]], demand: bool,
) -> None:
    # States of other walls than the initial one's, unreachable in play, each get their own frame; a
    # small cache makes them evict one another.
    monkeypatch.setattr(gdl.engines.datalog, "CACHE_SIZE", 2)
    checked = maze()
    reasoner = DatalogReasoner(checked, demand=demand)
    assert demand or reasoner._strata.frame
    for fluents in sequence:
        state = reasoner.from_fluents(fluents)
        legal, terminal, goals = model_answers(checked, fluents)
        moves = reasoner.legal(state, 0)
        assert {str(move) for move in moves} == legal
        assert reasoner.terminal(state) == terminal
        assert {str(goal) for goal in reasoner.goals(state, 0)} == goals
        for move in moves:
            after = reasoner.fluents(reasoner.next(state, [move]))
            assert {str(f) for f in after} == model_next(checked, fluents, move)
