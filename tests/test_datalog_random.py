"""Random stratified programs (negation, recursion, function terms, or, distinct): our model = clingo's."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import model_of

from gdl.check import check_text
from gdl.datalog import evaluate
from gdl.syntax.model import Atom
from gdl.syntax.reader import parse_program

CONSTANTS = ("a", "b", "c", "1")
VARIABLES = ("?x", "?y", "?z")
#: The checker asks every program to be a game; these facts make it one without touching the rest.
GAME = "(role r) (legal r go) (goal r 0) terminal\n"


@st.composite
def ground_terms(draw: st.DrawFn) -> str:
    constant = st.sampled_from(CONSTANTS)
    return draw(
        st.one_of(
            constant,
            constant.map(lambda c: f"(f {c})"),
            st.tuples(constant, constant).map(lambda p: f"(g {p[0]} (f {p[1]}))"),
        )
    )


def _body_term(draw: st.DrawFn, terms: tuple[str, ...] = VARIABLES + CONSTANTS) -> str:
    simple = st.sampled_from(terms)
    return draw(st.one_of(simple, simple, simple.map(lambda t: f"(f {t})")))


@st.composite
def programs(draw: st.DrawFn) -> tuple[str, list[str]]:
    """(rules, extensional facts): relations ``p<i>`` at non-decreasing levels, negation only downwards."""
    facts = [f"(e {draw(ground_terms())} {draw(ground_terms())})" for _ in range(draw(st.integers(1, 6)))]
    facts += [f"(d {draw(ground_terms())})" for _ in range(draw(st.integers(1, 4)))]
    count = draw(st.integers(1, 5))
    arities = [draw(st.integers(0, 2)) for _ in range(count)]
    levels = sorted(draw(st.integers(0, 3)) for _ in range(count))
    relations = [("e", 2, -1), ("d", 1, -1)] + [(f"p{i}", arities[i], levels[i]) for i in range(count)]
    rules = []
    for i in range(count):
        for _ in range(draw(st.integers(1, 3))):
            rules.append(_rule(draw, i, relations, levels[i]))
    return "\n".join(rules), facts


def _rule(draw: st.DrawFn, index: int, relations: list[tuple[str, int, int]], level: int) -> str:
    """A safe rule that keeps the recursion restriction: recursive atoms use only terms bound below."""
    lower = [r for r in relations if r[2] < level]
    same = [r for r in relations if r[2] == level]
    body = []
    for _ in range(draw(st.integers(1, 2))):
        name, arity, _ = draw(st.sampled_from(lower))
        body.append(_atom(name, [_body_term(draw) for _ in range(arity)]))
    bound = tuple(v for v in VARIABLES if v in " ".join(body))
    known = bound + CONSTANTS
    recursive = draw(st.booleans())
    if recursive:
        name, arity, _ = draw(st.sampled_from(same))
        body.append(_atom(name, [_body_term(draw, known) for _ in range(arity)]))
    if bound and draw(st.booleans()):
        name, arity, _ = draw(st.sampled_from(lower))
        body.append(f"(not {_atom(name, [draw(st.sampled_from(known)) for _ in range(arity)])})")
    if bound and draw(st.booleans()):
        body.append(f"(distinct {draw(st.sampled_from(bound))} {_body_term(draw, known)})")
    if draw(st.booleans()):
        branches = []
        for _ in range(2):
            name, arity, other = draw(st.sampled_from(lower + same))
            recursive = recursive or other == level
            branches.append(_atom(name, [draw(st.sampled_from(known)) for _ in range(arity)]))
        body.append(f"(or {' '.join(branches)})")
    # Compound terms in the head of a recursive rule could make the model infinite.
    head_terms = st.sampled_from(known) if recursive else st.one_of(
        st.sampled_from(known), st.sampled_from(known).map(lambda t: f"(f {t})")
    )
    head = _atom(f"p{index}", [draw(head_terms) for _ in range(relations[index + 2][1])])
    return f"(<= {head} {' '.join(body)})"


def _atom(name: str, args: list[str]) -> str:
    return f"({name} {' '.join(args)})" if args else name


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
