"""Keyword dependencies through the dependency graph, reported at the literal that starts them."""

from __future__ import annotations

import pytest
from support.check import GAME, diagnose, located, span_of

from gdl.diagnostics import Diagnostic, Level


def _found(extra: str, base: str = GAME) -> list[Diagnostic]:
    return [d for d in diagnose(extra, base) if d.code in {"forbidden-dependency", "negated-dependency"}]


@pytest.mark.parametrize("keyword", ["init", "base"])
@pytest.mark.parametrize("forbidden", ["(true q)", "(does robot go)", "(legal robot go)", "terminal"])
def test_static_keywords_never_depend_on_the_state(keyword: str, forbidden: str) -> None:
    extra = f"(<= ({keyword} r) {forbidden})\n"
    found = _found(extra)
    assert len(found) == 1 and found[0].level is Level.ERROR
    assert span_of(found[0]) == located(GAME + extra, forbidden, len(GAME))


@pytest.mark.parametrize("keyword", ["legal robot stay", "goal robot 50", "terminal"])
def test_legal_goal_terminal_never_depend_on_does(keyword: str) -> None:
    head = keyword if keyword == "terminal" else f"({keyword})"
    assert len(_found(f"(<= {head} (does robot go))\n")) == 1
    assert _found(f"(<= {head} (true p))\n") == []


def test_the_dependency_is_found_transitively_with_its_path() -> None:
    extra = "(<= (legal robot stay) (moved robot))\n(<= (moved ?r) (step ?r))\n(<= (step ?r) (does ?r go))\n"
    (found,) = _found(extra)
    assert span_of(found) == located(GAME + extra, "(moved robot)")
    assert found.notes[0] == "dependency: legal -> moved -> step -> does"


def test_a_dependency_only_through_negation_is_a_warning() -> None:
    extra = "(<= (legal robot stay) (not (moved robot)))\n(<= (moved ?r) (does ?r go))\n"
    (found,) = _found(extra)
    assert found.level is Level.WARNING and found.code == "negated-dependency"
    assert found.notes[0] == "dependency: legal -> not moved -> does"


def test_role_may_be_used_by_anything() -> None:
    assert _found("(<= (init (control ?r)) (role ?r))\n(<= (base (control ?r)) (role ?r))\n") == []


def test_a_direct_negated_use_is_still_an_error() -> None:
    (found,) = _found("(<= (legal robot stay) (not (does robot go)))\n")
    assert found.level is Level.ERROR and found.notes[0] == "dependency: legal -> does"
