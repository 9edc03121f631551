"""The checker's GDL-II rules: nature's role ``random`` and the percepts ``sees``."""

from __future__ import annotations

import pytest
from support.check import GAME, codes, diagnose, errors, located, span_of
from support.gdl2_games import HIDDEN_BITS, MONTY_HALL

from gdl.check import check_text
from gdl.diagnostics import Level


@pytest.mark.parametrize("game", [MONTY_HALL, HIDDEN_BITS])
def test_gdl2_games_are_clean(game: str) -> None:
    assert list(check_text(game).diagnostics) == []


def test_sees_may_read_the_state_and_the_moves() -> None:
    extra = "(<= (sees robot (saw ?m)) (does robot ?m) (true p))\n"
    assert diagnose(extra) == []


def test_sees_has_two_arguments() -> None:
    extra = "(<= (sees robot) (true p))\n"
    found = [d for d in errors(extra) if d.code == "keyword-arity"]
    assert len(found) == 1 and found[0].message == "'sees' with 1 argument"
    assert "'sees' takes 2 arguments" in found[0].notes


def test_sees_only_in_heads() -> None:
    extra = "(<= (sees robot seen) (true p))\n(<= (legal robot stay) (sees robot seen))\n"
    found = [d for d in errors(extra) if d.code == "keyword-in-body"]
    assert len(found) == 1 and found[0].message == "'sees' in the body of a rule"
    text = GAME + extra
    assert span_of(found[0]) == located(text, "(sees robot seen)", text.index("(legal robot stay)"))
    assert "each role what it perceives" in found[0].notes[0]


@pytest.mark.parametrize("literal", ["(random 1)", "random"])
def test_random_as_a_relation_is_an_error(literal: str) -> None:
    extra = f"(<= (legal robot stay) {literal})\n"
    found = [d for d in errors(extra) if d.code == "random-relation"]
    assert len(found) == 1 and found[0].message == "'random' used as a relation"
    assert span_of(found[0]) == located(GAME + extra, literal, len(GAME))
    assert "'(role random)'" in found[0].notes[0]


def test_random_as_a_role_defined_by_a_rule_is_an_error() -> None:
    assert "role-not-fact" in codes("(<= (role random) (true p))\n")


def test_a_goal_of_random_is_a_warning() -> None:
    extra = "(role random)\n(legal random pass)\n(goal random 0)\n"
    found = [d for d in diagnose(extra) if d.code == "goal-of-random"]
    assert len(found) == 1 and found[0].level is Level.WARNING
    assert span_of(found[0]) == located(GAME + extra, "(goal random 0)", len(GAME))
    assert "plays no goal" in found[0].notes[0]


def test_a_goal_of_a_random_that_is_no_role_is_only_a_goal() -> None:
    assert "goal-of-random" not in codes("(goal random 0)\n")


def test_percepts_of_an_unknown_role_are_a_warning() -> None:
    extra = "(<= (sees ghost (saw ?m)) (does robot ?m))\n"
    found = [d for d in diagnose(extra) if d.code == "sees-unknown-role"]
    assert len(found) == 1 and found[0].level is Level.WARNING and "'ghost'" in found[0].message
