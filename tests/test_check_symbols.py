"""One arity per relation and per function symbol, relations versus functions, defined versus used."""

from __future__ import annotations

import pytest
from support.check import GAME, codes, diagnose, errors, located, span_of

from gdl.diagnostics import Diagnostic, Level


def _only(extra: str, code: str) -> list[Diagnostic]:
    return [d for d in diagnose(extra) if d.code == code]


def test_a_relation_with_two_arities_is_an_error_at_the_second() -> None:
    extra = "(<= (legal robot stay) (cell 1) (cell 1 2))\n(cell 1)\n(cell 1 2)\n"
    found = _only(extra, "relation-arity")
    assert len(found) == 1 and found[0].level is Level.ERROR
    assert span_of(found[0]) == located(GAME + extra, "(cell 1 2)", len(GAME))
    assert "first used with 1 argument at 7:" in found[0].notes[0]


def test_one_arity_per_relation_is_clean() -> None:
    assert _only("(<= (legal robot stay) (cell 1 2))\n(cell 1 2)\n(cell 3 4)\n", "relation-arity") == []


def test_a_function_with_two_arities_is_a_warning() -> None:
    extra = "(legal robot (move 1))\n(legal robot (move 1 2))\n"
    found = _only(extra, "function-arity")
    assert len(found) == 1 and found[0].level is Level.WARNING
    assert span_of(found[0]) == located(GAME + extra, "(move 1 2)")


def test_functions_nested_in_distinct_count_too() -> None:
    extra = "(<= (legal robot (f 1)) (true p) (distinct (f 1 2) p))\n"
    assert len(_only(extra, "function-arity")) == 1


def test_a_name_both_relation_and_function_is_a_warning() -> None:
    extra = "(<= (legal robot stay) (cell 1))\n(cell (cell 2))\n"
    found = _only(extra, "relation-and-function")
    assert len(found) == 1 and found[0].level is Level.WARNING
    assert span_of(found[0]) == located(GAME + extra, "(cell 2)")


def test_undefined_relation_is_a_warning_at_its_first_use() -> None:
    extra = "(<= (legal robot stay) (ready robot) (not (ready robot)))\n"
    found = _only(extra, "undefined-relation")
    assert len(found) == 1 and span_of(found[0]) == located(GAME + extra, "(ready robot)")


def test_true_and_does_need_no_definition() -> None:
    assert _only("(<= (legal robot stay) (true p) (does robot go))\n", "undefined-relation") == []


def test_unused_relation_is_a_warning_but_keywords_are_exempt() -> None:
    found = _only("(spare 1)\n(base p)\n(input robot go)\n", "unused-relation")
    assert [d.message for d in found] == ["relation 'spare' is defined but never used"]


def test_completeness_checks_wait_for_a_readable_program() -> None:
    """After a syntax error clauses are missing, so 'never defined' would be guesswork."""
    found = {d.code for d in diagnose("(<= (legal robot stay) (helper ?x ?x))\n(helper not 1)\n", "")}
    assert found == {"keyword-misuse"}


def test_a_player_whose_goals_need_an_undefined_relation_never_has_a_goal() -> None:
    """HoldYourCourseII writes '(score ?s)' for '(true (score ?s))': no terminal state has a goal."""
    base = GAME.replace("(goal robot 100)", "(<= (goal robot ?s) (points ?s))\n(<= (points ?s) (score ?s))")
    found = [d for d in errors("", base) if d.code == "goal-never-derived"]
    assert len(found) == 1 and found[0].message == "role 'robot' can never have a goal value"
    assert span_of(found[0]) == located(base, "(role robot)")
    assert "e.g. 'points' at" in found[0].notes[0]


@pytest.mark.parametrize(
    "goals",
    [
        "(<= (goal robot ?s) (score ?s))\n(goal robot 0)",  # another goal rule can fire
        "(<= (goal robot 100) (or (score 1) (true q)))",  # another branch can hold
        "(<= (goal robot 100) (not (score 1)))",  # a negated undefined relation always holds
    ],
)
def test_a_goal_rule_that_can_fire_is_enough(goals: str) -> None:
    assert "goal-never-derived" not in codes("", GAME.replace("(goal robot 100)", goals))


def test_nature_needs_no_goal() -> None:
    extra = "(role random)\n(legal random pass)\n(<= (goal random 0) (score 0))\n"
    assert "goal-never-derived" not in codes(extra)
