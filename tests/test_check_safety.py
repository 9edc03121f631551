"""Rule safety, on hand-written rules and against clingo's own safety check on random rules."""

from __future__ import annotations

import clingo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.check import GAME, diagnose, located, span_of

from gdl.check import check
from gdl.diagnostics import Diagnostic
from gdl.syntax.model import Atom, Constant, Distinct, Literal, Not, Program, Rule, Term, Variable


def _unsafe(extra: str) -> list[Diagnostic]:
    return [d for d in diagnose(extra) if d.code == "unsafe-variable"]


@pytest.mark.parametrize(
    ("rule", "variable"),
    [
        ("(<= (legal ?r stay) (true p))", "?r"),
        ("(<= (legal robot stay) (true p) (not (cell ?x)))", "?x"),
        ("(<= (legal robot stay) (true p) (distinct ?x p))", "?x"),
        ("(<= (legal ?r stay) (or (role ?r) (true p)))", "?r"),
        ("(<= (legal robot stay) (or (and (true p) (not (cell ?y))) (cell ?y)))", "?y"),
    ],
)
def test_unsafe_variable_is_reported_at_the_variable(rule: str, variable: str) -> None:
    extra = f"{rule}\n(cell 1)\n"
    (found,) = _unsafe(extra)
    assert span_of(found) == located(GAME + extra, variable, len(GAME))
    assert f"'{variable}'" in found.message and f"'{variable}'" in found.notes[0]


@pytest.mark.parametrize(
    "rule",
    [
        "(<= (legal ?r stay) (role ?r))",
        "(<= (legal robot stay) (cell ?x) (not (cell ?x)) (distinct ?x 2))",
        "(<= (legal ?r stay) (or (role ?r) (and (true p) (role ?r))))",
        "(<= (legal robot stay) (cell ?y) (or (not (cell ?y)) (true p)))",
        "(<= (legal robot stay) (or (and (cell ?y) (not (cell ?y))) (true p)))",
    ],
)
def test_safe_rules_pass(rule: str) -> None:
    assert _unsafe(f"{rule}\n(cell 1)\n") == []


def test_each_unsafe_variable_is_reported_once_per_rule() -> None:
    found = _unsafe("(<= (legal ?r ?r) (true p) (not (cell ?r)))\n(cell 1)\n")
    assert len(found) == 1


# -- clingo as an independent judge of safety ---------------------------------------------------

_VARIABLES = st.sampled_from([Variable("x"), Variable("y"), Variable("z")])
_TERMS: st.SearchStrategy[Term] = st.one_of(_VARIABLES, st.just(Constant("a")))
_ATOMS = st.builds(
    lambda name, args: Atom(name, tuple(args)),
    st.sampled_from(["p", "q"]),
    st.lists(_TERMS, min_size=2, max_size=2),
)
_LITERALS: st.SearchStrategy[Literal] = st.one_of(
    _ATOMS, st.builds(Not, _ATOMS), st.builds(Distinct, _TERMS, _TERMS)
)


def _asp_term(term: Term) -> str:
    return term.name.upper() if isinstance(term, Variable) else term.name


def _asp_literal(literal: Literal) -> str:
    if isinstance(literal, Atom):
        return f"{literal.relation}({','.join(map(_asp_term, literal.args))})"
    if isinstance(literal, Not):
        return "not " + _asp_literal(literal.atom)
    assert isinstance(literal, Distinct)
    return f"{_asp_term(literal.left)}!={_asp_term(literal.right)}"


def _clingo_says_safe(rule: Rule) -> bool:
    text = f"h({','.join(map(_asp_term, rule.head.args))}) :- {', '.join(map(_asp_literal, rule.body))}."
    messages: list[str] = []
    control = clingo.Control(logger=lambda _code, message: messages.append(message))
    try:
        control.add("base", [], text)
        control.ground([("base", [])])
    except RuntimeError:
        assert any("unsafe" in m for m in messages), messages
        return False
    return True


@settings(max_examples=150, deadline=None)
@given(st.lists(_TERMS, min_size=1, max_size=2), st.lists(_LITERALS, min_size=1, max_size=4))
def test_safety_agrees_with_clingo(head_args: list[Term], body: list[Literal]) -> None:
    rule = Rule(Atom("h", tuple(head_args)), tuple(body))
    diagnostics = check(Program((rule,))).diagnostics
    ours = not any(d.code == "unsafe-variable" for d in diagnostics)
    assert ours == _clingo_says_safe(rule)
