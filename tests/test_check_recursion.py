"""The recursion restriction (GDL specification, definition 15)."""

from __future__ import annotations

import pytest
from support.check import GAME, diagnose, located, span_of

from gdl.diagnostics import Diagnostic

#: ``num`` is a finite domain; ``count`` is recursive.
_DOMAIN = "(num 1)\n(num 2)\n(succ 1 2)\n(<= (legal robot (say ?n)) (count ?n))\n"


def _violations(extra: str) -> list[Diagnostic]:
    return [d for d in diagnose(_DOMAIN + extra) if d.code == "recursion-restriction"]


@pytest.mark.parametrize(
    "rule",
    [
        "(count 1)\n(<= (count ?y) (count ?x) (succ ?x ?y))",  # ?x is bound by succ, off the cycle
        "(count 1)\n(<= (count ?x) (count ?x))",  # ?x is an argument of the head
        "(count 1)\n(<= (count 2) (count 1))",  # ground
        "(count 1)\n(<= (count ?y) (or (and (num ?x) (count ?x)) (count 1)) (num ?y))",  # bound in its branch
    ],
)
def test_restricted_recursion_passes(rule: str) -> None:
    assert _violations(rule + "\n") == []


def test_a_growing_term_is_reported_at_the_offending_argument() -> None:
    extra = "(count 1)\n(<= (count (s ?x)) (count ?x))\n"
    (found,) = _violations(extra)
    text = GAME + _DOMAIN + extra
    call = located(text, "(count ?x)", text.index("(<= (count (s"))[0]
    assert span_of(found) == (call + len("(count "), call + len("(count ?x"))
    assert "'?x'" in found.notes[0] and found.notes[1] == "cycle: count -> count"


def test_a_cycle_through_another_relation_is_found() -> None:
    extra = "(count 1)\n(<= (count (s ?x)) (more ?x))\n(<= (more ?y) (count ?y))\n"
    (found,) = _violations(extra)
    assert found.notes[1] == "cycle: count -> more -> count"


def test_a_binding_literal_on_the_cycle_does_not_count() -> None:
    extra = "(count 1)\n(<= (count ?y) (count ?x) (count ?z) (succ ?x ?y))\n"
    (found,) = _violations(extra)  # ?x is bound by succ; ?z only by the recursive call itself
    assert "'?z'" in found.notes[0]


def test_inside_or_only_the_same_branch_or_the_outside_binds() -> None:
    extra = "(count 1)\n(<= (count (s ?x)) (or (count ?x) (num ?x)))\n"
    assert len(_violations(extra)) == 1


def test_a_negation_next_to_the_recursive_call_binds_nothing() -> None:
    extra = "(count 1)\n(<= (count (s ?x)) (count ?x) (not (num ?x)))\n"
    assert len(_violations(extra)) == 1


def test_unsafe_rules_are_left_to_the_safety_check() -> None:
    diagnostics = diagnose(_DOMAIN + "(count 1)\n(<= (count ?x) (count ?y))\n")
    assert [d.code for d in diagnostics if d.level.value == "error"] == ["unsafe-variable"]
