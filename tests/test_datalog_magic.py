"""The demand-driven (magic-set) rewriting computes the same answers as the program as written."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import model_of
from test_datalog_random import GAME, programs

from gdl.check import CheckedProgram, check_text
from gdl.check.program import check_rewritten
from gdl.datalog import evaluate
from gdl.datalog.magic import bound_first_order, magic_name, rewrite, rewrite_rules
from gdl.datalog.plan import split_disjunctions
from gdl.engines.datalog import DatalogReasoner
from gdl.syntax.model import Atom, Program, Rule, Variable
from gdl.syntax.reader import parse_program

ROOT = Path(__file__).resolve().parent.parent


def _model(text: str, queries: list[str], rewriting: str | None) -> dict[str, set[tuple[str, ...]]]:
    """The queries' answers on the program as written (None) or rewritten: "adorned" as the Datalog
    engine rewrites it, "single" (one adornment per relation) as grounding does."""
    checked = check_text(text).checked
    assert checked is not None
    if rewriting is not None:
        dynamic = {rule.head.relation for rule in checked.program.rules if rule.head.relation.startswith("p")}
        if rewriting == "adorned":
            program = rewrite(checked.program, queries, dynamic).program
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


@pytest.mark.parametrize("rewriting", ["adorned", "single"])
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
    _same_walks(DatalogReasoner(checked, demand=False), DatalogReasoner(checked, demand=True), steps=40)


@pytest.mark.parametrize(
    "name",
    [
        "breakthrough",
        pytest.param("checkers", marks=pytest.mark.slow),
        pytest.param("chinesecheckers6", marks=pytest.mark.slow),
        pytest.param("amazons", marks=pytest.mark.slow),
        pytest.param("chess", marks=pytest.mark.slow),
    ],
)
def test_both_evaluations_walk_corpus_games_alike(corpus: Path, name: str) -> None:
    path = corpus / "games" / f"{name}.kif"
    checked = check_text(path.read_text(encoding="utf-8"), str(path)).checked
    assert checked is not None
    rewritten = DatalogReasoner(checked, demand=True)
    assert rewritten.demand_driven  # these games are rewritten (and stay stratified)
    _same_walks(DatalogReasoner(checked, demand=False), rewritten, steps=6)


def _same_walks(plain: DatalogReasoner, rewritten: DatalogReasoner, steps: int) -> None:
    rng = random.Random(7)
    a, b = plain.initial(), rewritten.initial()
    for _ in range(steps):
        assert plain.fluents(a) == rewritten.fluents(b)
        assert plain.terminal(a) == rewritten.terminal(b)
        legal = [plain.legal(a, role) for role in range(len(plain.roles))]
        assert legal == [rewritten.legal(b, role) for role in range(len(plain.roles))]
        if plain.terminal(a) or not all(legal):
            break
        moves = [rng.choice(options) for options in legal]
        a, b = plain.next(a, moves), rewritten.next(b, moves)
    for role in range(len(plain.roles)):
        assert plain.goals(a, role) == rewritten.goals(b, role)


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
