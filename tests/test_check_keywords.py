"""Keyword placement, keyword arities and the keywords every game must define."""

from __future__ import annotations

import pytest
from support.check import GAME, codes, diagnose, errors, located, span_of

from gdl.diagnostics import Level


def test_the_minimal_game_is_clean() -> None:
    assert diagnose("") == []


@pytest.mark.parametrize(
    ("keyword", "definition"),
    [("role", "(role robot)"), ("legal", "(legal robot go)"), ("goal", "(goal robot 100)"),
     ("terminal", "(<= terminal (true q))")],
)
def test_a_missing_keyword_is_an_error(keyword: str, definition: str) -> None:
    game = GAME.replace(definition, "")
    found = [d for d in diagnose("", game) if d.code == "missing-keyword"]
    assert len(found) == 1 and f"'{keyword}'" in found[0].message
    assert found[0].level is Level.ERROR and found[0].span.line == 0


def test_an_empty_file_lacks_all_four_keywords() -> None:
    assert sorted(codes("", "")) == ["missing-keyword"] * 4


def test_role_defined_by_a_rule_is_an_error() -> None:
    extra = "(<= (role ?x) (true (player ?x)))\n"
    found = [d for d in diagnose(extra) if d.code == "role-not-fact"]
    assert len(found) == 1 and span_of(found[0]) == located(GAME + extra, "(role ?x)", len(GAME))


def test_role_with_a_variable_is_no_ground_fact() -> None:
    assert "role-not-fact" in codes("(<= (role ?x))\n")


def test_an_unmatched_parenthesis_is_reported_alone() -> None:
    assert codes("", "(role robot)\n(legal robot go") == ["unmatched-paren"]


@pytest.mark.parametrize("keyword", ["true", "does"])
def test_true_and_does_never_in_heads(keyword: str) -> None:
    extra = f"(<= ({keyword} robot go) (true p))\n" if keyword == "does" else "(<= (true r) (true p))\n"
    found = [d for d in errors(extra) if d.code == "keyword-in-head"]
    assert len(found) == 1 and f"'{keyword}'" in found[0].message


@pytest.mark.parametrize("keyword", ["init", "next", "base", "input"])
def test_init_next_base_input_never_in_bodies(keyword: str) -> None:
    literal = f"({keyword} robot go)" if keyword == "input" else f"({keyword} p)"
    extra = f"(<= (legal robot stay) {literal})\n"
    found = [d for d in errors(extra) if d.code == "keyword-in-body"]
    assert len(found) == 1 and span_of(found[0]) == located(GAME + extra, literal, len(GAME))


def test_a_sees_rule_may_look_at_the_next_state() -> None:
    assert "keyword-in-body" not in codes("(<= (sees robot q) (next q))\n")


@pytest.mark.parametrize(
    ("fact", "keyword"),
    [
        ("(role robot other)", "role"),
        ("(init p q)", "init"),
        ("(legal robot)", "legal"),
        ("(goal robot)", "goal"),
        ("(terminal now)", "terminal"),
        ("(base p q)", "base"),
        ("(input robot)", "input"),
        ("(sees robot)", "sees"),
    ],
)
def test_keyword_arity(fact: str, keyword: str) -> None:
    found = [d for d in errors(fact + "\n") if d.code == "keyword-arity"]
    assert len(found) == 1 and span_of(found[0]) == located(GAME + fact, fact, len(GAME))
    assert f"'{keyword}'" in found[0].message


def test_keyword_arity_is_reported_once_per_wrong_arity() -> None:
    found = [d for d in errors("(next 1 2)\n(next 2 3)\n") if d.code == "keyword-arity"]
    assert len(found) == 1 and "2 times" in found[0].notes[1]


def test_gdl2_words_are_accepted() -> None:
    game = GAME.replace("(role robot)", "(role robot)\n(role random)")
    extra = "(legal random go)\n(<= (sees robot q) (does random go))\n(goal random 0)\n"
    assert errors(extra, game) == []
