"""The demand-driven (magic-set) rewriting computes the same answers as the program as written."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.datalog import GAME, programs, same_walks
from support.oracle import model_of

from gdl.check import CheckedProgram, check_text
from gdl.check.program import check_rewritten
from gdl.datalog import evaluate
from gdl.datalog.magic import (
    adorned_name,
    binding_feed,
    bound_first_order,
    magic_name,
    rewrite,
    rewrite_rules,
)
from gdl.datalog.plan import split_disjunctions
from gdl.engines.datalog import DatalogReasoner, demand_driven
from gdl.syntax.model import Atom, Literal, Program, Rule, Variable
from gdl.syntax.reader import parse_program

ROOT = Path(__file__).resolve().parent.parent


def _model(text: str, queries: list[str], rewriting: str | None) -> dict[str, set[tuple[str, ...]]]:
    """The queries' answers on the program as written (None) or rewritten: "adorned" as the Datalog
    engine rewrites it ("untested": its demands fed without the calls that only test), "single" (one
    adornment per relation) as grounding does."""
    checked = check_text(text).checked
    assert checked is not None
    if rewriting is not None:
        dynamic = {rule.head.relation for rule in checked.program.rules if rule.head.relation.startswith("p")}
        if rewriting in ("adorned", "untested"):
            program = rewrite(checked.program, queries, dynamic, tests=rewriting == "adorned").program
        else:
            program = _single_adornment_program(checked, queries, dynamic)
        result = check_rewritten(program, checked)
        if result.checked is None:  # not stratifiable once rewritten: the caller keeps the original
            return _model(text, queries, None)
        checked = result.checked
    model = evaluate(checked)
    return {name: {tuple(map(str, args)) for args in model.get(name, ())} for name in queries}


def _single_adornment_program(checked: CheckedProgram, queries: list[str], rewritable: set[str]) -> Program:
    """The program rewritten as grounding rewrites it: one adornment per relation, bound-first order."""
    rules = [(head, body) for rule in checked.program.rules for head, body in split_disjunctions(rule)]
    rewritten = rewrite_rules(rules, queries, rewritable, adorn=False, order=bound_first_order)
    found = [Rule(*rule) for item in rewritten for rule in (item.rule, *item.magic)]
    return Program(tuple(found), checked.program.source)


@pytest.mark.parametrize("rewriting", ["adorned", "untested", "single"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.data())
def test_rewritten_random_programs_answer_the_same_queries(
    rewriting: str, program: tuple[str, list[str]], data: st.DataObject
) -> None:
    rules, facts = program
    text = GAME + rules + "\n" + "\n".join(facts)
    defined = sorted({name for name in rules.replace("(", " ").split() if name.startswith("p")})
    queries = data.draw(st.lists(st.sampled_from(defined), min_size=1, unique=True))
    assert _model(text, queries, rewriting) == _model(text, queries, None)


def test_a_negated_check_is_computed_only_where_it_is_asked() -> None:
    # far/2 holds for every pair of the 30 numbers, but the query asks it of neighbours only.
    numbers = " ".join(f"(n {i}) (succ {i} {i + 1})" for i in range(30))
    text = GAME + numbers + """
        (<= (far ?x ?y) (n ?x) (n ?y) (distinct ?x ?y))
        (<= (close ?x ?y) (succ ?x ?y) (not (far ?x ?y)))
        (<= (p ?x) (succ ?x ?y) (far ?x ?y))
    """
    checked = check_text(text).checked
    assert checked is not None
    magic = rewrite(checked.program, ["p", "close"], {"far", "close", "p"})
    assert ("far", 2, "bb") in magic.adorned
    result = check_rewritten(magic.program, checked)
    assert result.checked is not None
    model = evaluate(result.checked)
    assert len(model["far;bb"]) == 29 and "far" not in model  # demanded pairs only, no full relation
    plain = evaluate(checked)
    assert model["p"] == plain["p"] and model["close"] == plain["close"]
    assert {tuple(map(str, pair)) for pair in model["close"]} == {("29", "30")}  # (n 30) is no fact


@pytest.mark.parametrize("name", ["tictactoe.kif", "nim.kif", "rps.kif", "buttons.kif"])
def test_both_evaluations_walk_our_games_alike(name: str) -> None:
    checked = check_text((ROOT / "games" / name).read_text(encoding="utf-8"), name).checked
    assert checked is not None
    same_walks(DatalogReasoner(checked, demand=False), DatalogReasoner(checked, demand=True), steps=40)


@pytest.mark.parametrize(
    "name",
    [
        "breakthrough",
        pytest.param("checkers", marks=pytest.mark.slow),
        pytest.param("chinesecheckers6", marks=pytest.mark.slow),
        pytest.param("amazons", marks=pytest.mark.slow),
        pytest.param("chess", marks=pytest.mark.slow),
        # Rewritten without the tests in their demands (see binding_feed); slow as written.
        pytest.param("crisscross", marks=pytest.mark.slow),
        pytest.param("chinesecheckers4", marks=pytest.mark.slow),
    ],
)
def test_both_evaluations_walk_corpus_games_alike(corpus: Path, name: str) -> None:
    path = corpus / "games" / f"{name}.kif"
    checked = check_text(path.read_text(encoding="utf-8"), str(path)).checked
    assert checked is not None
    rewritten = DatalogReasoner(checked, demand=True)
    assert rewritten.demand_driven  # these games are rewritten (and stay stratified)
    same_walks(DatalogReasoner(checked, demand=False), rewritten, steps=6)


@pytest.mark.parametrize("demand", [False, True])
def test_a_static_relation_split_over_strata_is_complete_in_every_state(demand: bool) -> None:
    # goal is static and negates itself with other arguments: two strata of the static layer.
    text = """(role r) (init s) (<= (legal r go) (true s)) (<= (next s) (true s)) (<= terminal (true s))
        (p1 a) (<= p0 (p1 b)) (<= (goal r 100) p0) (<= (goal r 0) (not (goal r 100)))"""
    checked = check_text(text).checked
    assert checked is not None
    reasoner = DatalogReasoner(checked, demand=demand)
    expected = {args[1] for args in model_of(parse_program(text).rules)["goal"]}
    assert {str(value) for value in reasoner.goals(reasoner.initial(), 0)} == expected == {"0"}



def test_one_adornment_per_relation_binds_what_every_call_binds() -> None:
    # far is called with both arguments bound and with the first only: its one adornment is "bf", and it
    # keeps its name; q is called with nothing bound: it is not rewritten.
    numbers = " ".join(f"(n {i}) (succ {i} {i + 1})" for i in range(30))
    text = GAME + numbers + """
        (<= (far ?x ?y) (n ?x) (n ?y) (distinct ?x ?y))
        (<= (q ?x) (n ?x))
        (<= (p ?x) (succ ?x ?y) (far ?x ?y))
        (<= (p ?x) (q ?x) (far ?x ?z))
    """
    checked = check_text(text).checked
    assert checked is not None
    program = _single_adornment_program(checked, ["p"], {"far", "q", "p"})
    heads = {rule.head.relation for rule in program.rules}
    assert heads - {rule.head.relation for rule in checked.program.rules} == {magic_name("far", "bf")}
    guards = [rule.body[0] for rule in program.rules if rule.head.relation == "far"]
    assert guards == [Atom(magic_name("far", "bf"), (Variable("x"),))]
    result = check_rewritten(program, checked)
    assert result.checked is not None
    model = evaluate(result.checked)
    assert len(model["far"]) == 30 * 29  # each demanded ?x with every ?y: demand binds the first argument
    assert model["p"] == evaluate(checked)["p"]


def test_a_magic_rule_reads_the_calls_before_it_as_rewritten() -> None:
    # q is asked with ?x bound (q;bf), and binds ?y for r: r's demand must read q;bf, the copy that is
    # computed, not q, which no query asks for whole (connectfour's cellopen was such a case).
    text = GAME + """
        (n 1) (n 2) (e 1 2) (e 2 3) (m 3)
        (<= (q ?x ?y) (e ?x ?y))
        (<= (r ?y) (m ?y))
        (<= (p ?x) (n ?x) (q ?x ?y) (r ?y))
    """
    checked = check_text(text).checked
    assert checked is not None
    magic = rewrite(checked.program, ["p"], {"p", "q", "r"})
    assert {("q", 2, "bf"), ("r", 1, "b")} <= magic.adorned
    result = check_rewritten(magic.program, checked)
    assert result.checked is not None
    assert evaluate(result.checked)["p"] == evaluate(checked)["p"] != set()


#: crisscross's shape: a role has no move but noop when two of its pieces are stuck, and a piece is
#: stuck when it cannot move. The demand for the second stuck read the first stuck, which reads the
#: negation of movable, whose demand comes from stuck's: a cycle through negation once rewritten.
STUCK = """
    (role red) (role blue) (init (control red)) (init (cell 1 red)) (init (cell 2 red)) (init (cell 4 blue))
    (init (cell 3 blank)) (init (cell 5 blank)) (init (cell 6 blank))
    (step 1 2) (step 2 3) (step 3 4) (step 4 5) (step 5 6) (step 6 1) (location 1) (location 2) (location 3)
    (location 4) (location 5) (location 6)
    (<= (movable ?p ?b ?e) (true (cell ?b ?p)) (step ?b ?e) (true (cell ?e blank)))
    (<= (movableplayer ?p ?b) (movable ?p ?b ?e))
    (<= (stuck ?b ?p) (not (movableplayer ?p ?b)) (role ?p) (location ?b))
    (<= (legal ?p (move ?b ?e)) (true (control ?p)) (movable ?p ?b ?e))
    (<= (legal ?p noop) (true (control ?q)) (role ?p) (distinct ?p ?q))
    (<= (legal ?p noop) (true (control ?p)) (true (cell ?b1 ?p)) (stuck ?b1 ?p) (true (cell ?b2 ?p))
        (distinct ?b1 ?b2) (stuck ?b2 ?p))
    (<= (next (cell ?e ?p)) (does ?p (move ?b ?e)))
    (<= (next (cell ?b blank)) (does ?p (move ?b ?e)))
    (<= (next (cell ?x ?z)) (true (cell ?x ?z)) (does ?p (move ?b ?e)) (distinct ?x ?b) (distinct ?x ?e))
    (<= (next (cell ?x ?z)) (true (cell ?x ?z)) (does red noop) (does blue noop))
    (<= (next (control red)) (true (control blue)))
    (<= (next (control blue)) (true (control red)))
    (<= terminal (true (cell 6 red)))
    (<= (goal red 100) (true (cell 6 red)))
    (<= (goal ?p 0) (role ?p) (not (true (cell 6 red))))
    (<= (goal blue 0) (true (cell 6 red)))
"""


def test_a_demand_leaves_out_the_calls_that_only_test() -> None:
    checked = check_text(STUCK).checked
    assert checked is not None
    dynamic = {"movable", "movableplayer", "stuck", "legal"}
    assert check_rewritten(rewrite(checked.program, ["legal"], dynamic).program, checked).checked is None
    program = rewrite(checked.program, ["legal"], dynamic, tests=False).program
    demands = [rule for rule in program.rules if rule.head.relation == magic_name("stuck", "bb")]
    # The second stuck's demand: the control and the cells bind ?p and ?b2; the first stuck tests only.
    second = [rule for rule in demands if Variable("b2") in rule.head.args]
    assert len(second) == 1
    assert adorned_name("stuck", "bb") not in {literal.relation for literal in second[0].body
                                              if isinstance(literal, Atom)}
    assert {literal.relation for literal in second[0].body if isinstance(literal, Atom)} == {"true"}
    assert check_rewritten(program, checked).checked is not None


def test_binding_feed_keeps_the_calls_that_bind_what_the_demand_needs() -> None:
    # d(?z) reads c;bf(?x ?y) to bind ?y, which binds ?z through e: both calls stay, t only tests ?x.
    x, y, z = Variable("x"), Variable("y"), Variable("z")
    guard = Atom(magic_name("h", "b"), (x,))
    c = Atom(adorned_name("c", "bf"), (x, y))
    t = Atom(adorned_name("t", "b"), (x,))
    e = Atom(adorned_name("e", "bf"), (y, z))
    feeding: list[Literal] = [guard, t, c, e]
    assert binding_feed(Atom(magic_name("d", "b"), (z,)), feeding, feeding) == [guard, c, e]
    assert binding_feed(Atom(magic_name("d", "b"), (x,)), feeding, feeding) == [guard]


def test_a_game_whose_demands_cycle_through_negation_is_rewritten_without_tests() -> None:
    checked = check_text(STUCK).checked
    assert checked is not None
    rewritten = demand_driven(checked)
    assert rewritten is not checked
    assert magic_name("stuck", "bb") in rewritten.graph.nodes
    demand = DatalogReasoner(checked, demand=True)
    assert demand.demand_driven
    same_walks(DatalogReasoner(checked, demand=False), demand, steps=30)


def test_relations_still_on_a_negative_cycle_are_not_rewritten() -> None:
    # a binds ?x for b's demand, and a reads (not c), whose demand comes from b's: no demand without
    # the tests breaks that cycle, so a, b and c are evaluated whole and the rest stays rewritten.
    text = """
        (role r) (init (on 1)) (init (on 3)) (dom 1) (dom 2) (dom 3) (succ 1 2) (succ 2 3) (succ 3 1)
        (<= (c ?x) (true (on ?x)))
        (<= (a ?x) (dom ?x) (not (c ?x)))
        (<= (b ?x) (succ ?x ?y) (c ?y))
        (<= (free ?x) (dom ?x) (not (true (on ?x))))
        (<= (legal r (put ?x)) (a ?x) (b ?x))
        (<= (legal r (put ?x)) (dom ?x) (free ?x) (c ?x))
        (<= (next (on ?x)) (does r (put ?x)))
        (<= (next (on ?y)) (true (on ?x)) (succ ?x ?y))
        (<= terminal (true (on 2)))
        (<= (goal r 100) (true (on 2)))
        (<= (goal r 0) (not (true (on 2))))
    """
    checked = check_text(text).checked
    assert checked is not None
    assert check_rewritten(
        rewrite(checked.program, ["legal"], {"a", "b", "c", "free", "legal"}, tests=False).program, checked
    ).checked is None
    rewritten = demand_driven(checked)
    assert rewritten is not checked
    names = set(rewritten.graph.nodes)
    assert magic_name("free", "b") in names
    assert not {magic_name(relation, "b") for relation in "abc"} & names
    demand = DatalogReasoner(checked, demand=True)
    assert demand.demand_driven
    same_walks(DatalogReasoner(checked, demand=False), demand, steps=20)
