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
from gdl.datalog.terms import TermTable
from gdl.engines.datalog import DatalogReasoner
from gdl.engines.frame import matcher, reads_only, selector, terms_read, unchanging_reads, unifiable
from gdl.syntax.model import Atom, Constant, Function, Term, Variable
from gdl.syntax.reader import parse_term

#: A 3 x 3 maze: its walls, ``(cell ?x ?y (wall ?d))``, are kept by a frame axiom alone, while the
#: piece, ``(cell ?x ?y piece)``, moves; ``open/5`` (the steps walls allow) reads nothing else of the
#: state, as wargame01's horizontalStep/6 reads only its walls.
MAZE = """
    (role r)
    (init (cell 1 1 piece)) (init (cell 1 1 (wall e))) (init (cell 2 2 (wall n)))
    (init (cell 2 1 (wall n))) (init (t 0))
    (coord 1) (coord 2) (coord 3) (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
    (<= (adj ?x ?y e ?x2 ?y) (coord ?y) (succ ?x ?x2) (coord ?x2))
    (<= (adj ?x ?y w ?x2 ?y) (coord ?y) (succ ?x2 ?x) (coord ?x2))
    (<= (adj ?x ?y n ?x ?y2) (coord ?x) (succ ?y ?y2) (coord ?y2))
    (<= (adj ?x ?y s ?x ?y2) (coord ?x) (succ ?y2 ?y) (coord ?y2))
    (<= (blocked ?x ?y ?d) (true (cell ?x ?y (wall ?d))))
    (<= (blocked ?x2 ?y2 w) (adj ?x ?y e ?x2 ?y2) (true (cell ?x ?y (wall e))))
    (<= (blocked ?x2 ?y2 s) (adj ?x ?y n ?x2 ?y2) (true (cell ?x ?y (wall n))))
    (<= (open ?x ?y ?d ?x2 ?y2) (adj ?x ?y ?d ?x2 ?y2) (not (blocked ?x ?y ?d)))
    (<= (legal r (move ?d)) (true (cell ?x ?y piece)) (open ?x ?y ?d ?x2 ?y2))
    (<= (legal r stay))
    (<= (next (cell ?x2 ?y2 piece)) (does r (move ?d)) (true (cell ?x ?y piece)) (open ?x ?y ?d ?x2 ?y2))
    (<= (next (cell ?x ?y piece)) (does r stay) (true (cell ?x ?y piece)))
    (<= (next (cell ?x ?y (wall ?d))) (true (cell ?x ?y (wall ?d))))
    (<= (next (t ?m)) (true (t ?n)) (succ ?n ?m))
    (<= terminal (true (t 4)))
    (<= terminal (true (cell 3 3 piece)))
    (<= (goal r 100) (true (cell 3 3 piece)))
    (<= (goal r 0) (not (true (cell 3 3 piece))))
"""

COORDS = ("1", "2", "3")
WALLS = [f"(cell {x} {y} (wall {d}))" for x in COORDS for y in COORDS for d in "nesw"]
PLACES = [f"(cell {x} {y} piece)" for x in COORDS for y in COORDS]
TIMES = [f"(t {n})" for n in range(5)]
#: What the maze reads of its walls.
WALL_READS = {"(cell ?x ?y (wall ?d))", "(cell ?x ?y (wall e))", "(cell ?x ?y (wall n))"}


def maze(extra: str = "") -> CheckedProgram:
    checked = gdl.parse(MAZE + extra, engine="datalog", file="maze.kif").checked
    assert checked is not None
    return checked


def test_fluents_kept_only_by_frame_axioms_are_unchanging() -> None:
    assert {str(term) for term in unchanging_reads(maze().program)} == WALL_READS


@pytest.mark.parametrize(
    ("extra", "unchanging"),
    [
        # A wall north of (1, 1) can be built: the literals that can read it read changing fluents.
        ("(<= (next (cell 1 1 (wall n))) (true (cell 1 1 piece)))", {"(cell ?x ?y (wall e))"}),
        ("(<= (next (cell ?x ?y (wall ?d))) (true (cell ?x ?y (wall ?d))) (true (t 0)))", set()),
        ("(<= (next ?f) (true (t 9)) (true ?f))", set()),  # a rule can make any fluent
        ("(<= (next (cell ?x ?y (wall ?d))) (true (cell ?x ?y (wall ?d))))", WALL_READS),  # twice
        ("(<= (next (cell ?x ?y 1)) (true (t 3)) (coord ?x) (coord ?y))", WALL_READS),  # no walls
    ],
)
def test_any_other_rule_that_can_make_a_fluent_makes_it_changing(extra: str, unchanging: set[str]) -> None:
    assert {str(term) for term in unchanging_reads(maze(extra).program)} == unchanging


def test_a_relation_reads_only_what_it_and_all_it_uses_read() -> None:
    program = maze().program
    read = terms_read(program)
    assert {str(term) for term in read["legal"]} == {"(cell ?x ?y piece)"}
    depends_on = {"open": {"open", "blocked", "adj", "true"}, "legal": {"legal", "open", "true"}}
    unchanging = unchanging_reads(program)
    assert reads_only({"open"}, depends_on, read, unchanging)
    assert not reads_only({"legal"}, depends_on, read, unchanging)
    assert not reads_only({"open"}, {"open": {"open", "does"}}, read, unchanging)


def test_the_relations_of_walls_are_computed_once_in_a_walk() -> None:
    # (Rewritten for demand, open/5 is asked for from the piece's place: a relation of the state.)
    reasoner = DatalogReasoner(maze(), demand=False)
    strata = reasoner._strata
    frame_relations = {r for n in strata.frame for r in strata.program.strata[n].relations}
    assert {"blocked", "open"} <= frame_relations
    state = reasoner.initial()
    for _ in range(4):
        assert not reasoner.terminal(state)
        moves = reasoner.legal(state, 0)
        assert "open/5" not in reasoner._cache[state].database.owned
        state = reasoner.next(state, [moves[0]])
    assert len(strata._frames) == 1
    (frame,) = strata._frames
    assert {reasoner.table.text(fluent) for fluent in frame} == {
        "(cell 1 1 (wall e))", "(cell 2 2 (wall n))", "(cell 2 1 (wall n))",
    }


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
    lambda walls, places, times: frozenset(map(parse_term, walls + places + times)),
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


# -- unification and matching -----------------------------------------------------------------------

ground_terms = st.recursive(
    st.sampled_from([Constant(name) for name in "abc"]),
    lambda inner: st.builds(
        Function, st.sampled_from(["f", "g"]), st.lists(inner, min_size=1, max_size=3).map(tuple),
    ),
    max_leaves=8,
)


@st.composite
def generalised(draw: st.DrawFn, term: Term) -> Term:
    """``term`` with some subterms replaced by variables (from a few names, so some repeat)."""
    if draw(st.integers(0, 3)) == 0:
        return Variable(draw(st.sampled_from("xyz")))
    if isinstance(term, Function):
        return Function(term.name, tuple(draw(generalised(arg)) for arg in term.args))
    return term


@given(ground_terms.flatmap(lambda g: st.tuples(st.just(g), generalised(g), generalised(g))))
def test_terms_with_a_common_instance_unify(terms: tuple[Term, Term, Term]) -> None:
    ground, left, right = terms
    table = TermTable()
    ident = table.intern(ground)
    # (A variable repeated in a generalisation can stand for two different subterms: not an instance.)
    if matcher([left], table)(ident):
        assert unifiable(left, ground) and unifiable(ground, left)
        if matcher([right], table)(ident):
            assert unifiable(left, right) and unifiable(right, left)


@given(ground_terms, ground_terms.flatmap(lambda g: generalised(g)))
def test_a_ground_term_matches_a_pattern_exactly_when_they_unify(ground: Term, pattern: Term) -> None:
    table = TermTable()
    assert matcher([pattern], table)(table.intern(ground)) == unifiable(pattern, ground)


def test_unification_respects_repeated_variables_and_structure() -> None:
    assert not unifiable(parse_term("(f ?x ?x)"), parse_term("(f a b)"))
    assert unifiable(parse_term("(f ?x ?x)"), parse_term("(f ?y b)"))
    assert not unifiable(parse_term("(f ?x a ?x)"), parse_term("(f ?y ?y b)"))
    assert unifiable(parse_term("(f ?x)"), parse_term("(f ?x)"))  # apart: one ?x is not the other
    assert not unifiable(parse_term("(f a)"), parse_term("(g a)"))
    assert not unifiable(parse_term("(f a)"), parse_term("(f a a)"))
    assert not unifiable(Constant("a"), parse_term("(f a)"))


def test_the_selector_gives_a_states_instances_of_the_patterns() -> None:
    table = TermTable()
    select = selector([parse_term("(cell ?x ?y (wall ?d))"), Constant("lit")], table)
    texts = ["(cell 1 1 (wall e))", "(cell 1 1 piece)", "lit"]
    ids = {text: table.intern(parse_term(text)) for text in texts}
    first = frozenset(ids.values())
    assert select(first) == {ids["(cell 1 1 (wall e))"], ids["lit"]}
    assert select(frozenset({ids["(cell 1 1 piece)"], ids["lit"]})) == {ids["lit"]}
    assert select(frozenset()) == frozenset()
    assert selector([Variable("f")], table)(first) == first
