"""Stratified negation: cycles through negation are errors, except where constant arguments refine them."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.check import GAME, diagnose, located, span_of

from gdl.check import CheckedProgram, check_text
from gdl.diagnostics import Level
from gdl.syntax.model import Atom, Constant, Function, Term, Variable, walk_atoms


def test_a_cycle_through_negation_is_an_error_with_its_path() -> None:
    extra = "(<= (legal robot stay) (a 1))\n(<= (a ?x) (b ?x) (not (c ?x)))\n(<= (c ?x) (a ?x))\n(b 1)\n"
    (found,) = [d for d in diagnose(extra) if d.code == "unstratified"]
    assert found.level is Level.ERROR
    assert span_of(found) == located(GAME + extra, "(c ?x)", len(GAME))
    assert found.notes[0] == "cycle: a -> not c -> a"


def test_negation_of_a_lower_stratum_is_fine() -> None:
    extra = "(<= (legal robot stay) (a 1))\n(<= (a ?x) (b ?x) (not (c ?x)))\n(<= (c ?x) (b ?x))\n(b 1)\n"
    assert diagnose(extra) == []


def test_a_self_negation_with_other_constants_is_a_warning() -> None:
    goals = "(<= (goal robot 100) (not (goal robot 0)))\n(<= (goal robot 0) (true q))"
    game = GAME.replace("(goal robot 100)", goals)
    found = diagnose("", game)
    assert [(d.code, d.level) for d in found] == [("stratified-by-arguments", Level.WARNING)]
    result = check_text(game)
    assert result.checked is not None
    _assert_negations_complete_earlier(result.checked)


def test_a_self_negation_that_can_close_is_an_error() -> None:
    goals = "(<= (goal robot 100) (not (goal robot ?x)) (score ?x))\n(score 0)"
    game = GAME.replace("(goal robot 100)", goals)
    assert "unstratified" in [d.code for d in diagnose("", game)]


def _unifiable(a: Term, b: Term, bindings: dict[str, Term]) -> bool:
    """Whether two terms (variables renamed apart by the caller) have a common instance."""
    while isinstance(a, Variable) and a.name in bindings:
        a = bindings[a.name]
    while isinstance(b, Variable) and b.name in bindings:
        b = bindings[b.name]
    if isinstance(a, Variable):
        if a != b:
            bindings[a.name] = b
        return True
    if isinstance(b, Variable):
        bindings[b.name] = a
        return True
    if isinstance(a, Constant) or isinstance(b, Constant):
        return a == b
    assert isinstance(a, Function) and isinstance(b, Function)
    return (a.name, len(a.args)) == (b.name, len(b.args)) and all(
        _unifiable(x, y, bindings) for x, y in zip(a.args, b.args, strict=True)
    )


def _renamed(term: Term, suffix: str) -> Term:
    if isinstance(term, Variable):
        return Variable(term.name + suffix)
    if isinstance(term, Function):
        return Function(term.name, tuple(_renamed(arg, suffix) for arg in term.args))
    return term


def _may_match(head: Atom, atom: Atom) -> bool:
    if (head.relation, head.arity) != (atom.relation, atom.arity):
        return False
    bindings: dict[str, Term] = {}
    pairs = zip(head.args, atom.args, strict=True)
    return all(_unifiable(_renamed(x, "'h"), _renamed(y, "'b"), bindings) for x, y in pairs)


def _assert_negations_complete_earlier(checked: CheckedProgram) -> None:
    """Every rule that could derive a negated atom lies in an earlier stratum than the negation."""
    stratum_of = {id(rule): index for index, stratum in enumerate(checked.strata) for rule in stratum.rules}
    assert len(stratum_of) == len(checked.program.rules)
    for rule in checked.program.rules:
        for atom, positive in walk_atoms(rule.body):
            if positive:
                continue
            for other in checked.program.rules:
                if _may_match(other.head, atom):
                    assert stratum_of[id(other)] < stratum_of[id(rule)], (str(rule), str(other))


@pytest.mark.parametrize(
    "name", ["futoshiki4.kif", "hidato19.kif", "queens08lg.kif", "tictactoe.kif", "hanoi.kif"]
)
def test_corpus_strata_complete_each_negation_first(corpus: Path, name: str) -> None:
    result = check_text((corpus / "games" / name).read_text(encoding="utf-8"))
    assert result.checked is not None
    _assert_negations_complete_earlier(result.checked)
