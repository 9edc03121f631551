"""Random stratified programs (negation, recursion, function terms, or, distinct): our model = clingo's."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.datalog import GAME, programs
from support.oracle import model_of

from gdl.check import check_text
from gdl.datalog import evaluate
from gdl.syntax.model import Atom
from gdl.syntax.reader import parse_program


def _ours(checked_text: str, facts: list[Atom]) -> dict[str, set[tuple[str, ...]]]:
    result = check_text(checked_text)
    assert result.checked is not None, [d.format() for d in result.diagnostics]
    model = evaluate(result.checked, facts)
    return {name: {tuple(map(str, args)) for args in tuples} for name, tuples in model.items()}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.booleans())
def test_random_programs_agree_with_clingo(program: tuple[str, list[str]], facts_apart: bool) -> None:
    rules, facts = program
    if facts_apart:
        # The facts reach the evaluator as atoms, not as rules of the program.
        fact_atoms = [rule.head for rule in parse_program(" ".join(facts)).rules]
        ours = _ours(GAME + rules + "\n(<= (e ?a ?b) (e ?a ?b))(<= (d ?a) (d ?a))", fact_atoms)
    else:
        ours = _ours(GAME + rules + "\n" + "\n".join(facts), [])
    theirs = model_of(parse_program(GAME + rules + "\n" + "\n".join(facts)).rules, [])
    assert ours == theirs


def test_evaluate_recursion_through_function_terms() -> None:
    text = GAME + "(r 0 0) (q 0) (<= (r ?v1 (f ?v1)) (r ?v2 ?v1) (q ?v2))"
    expected = {("0", "0"), ("0", "(f 0)"), ("(f 0)", "(f (f 0))")}
    assert _ours(text, [])["r"] == expected == model_of(parse_program(text).rules)["r"]


def test_rules_deeper_than_python_allows_nesting() -> None:
    """A join of 40 literals (more loops than Python nests) and a rule of 110 tests."""
    chain = " ".join(f"(e ?x{i} ?x{i + 1})" for i in range(40))
    tests = " ".join(f"(d {i})" for i in range(110))
    text = (
        GAME
        + " ".join(f"(e {i} {i + 1})" for i in range(45))
        + " ".join(f"(d {i})" for i in range(110))
        + f"(<= (p ?x0 ?x40) {chain}) (<= q {tests})"
    )
    ours = _ours(text, [])
    assert ours == model_of(parse_program(text).rules)
    assert ours["p"] == {(str(i), str(i + 40)) for i in range(6)} and ours["q"] == {()}
