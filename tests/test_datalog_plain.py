"""The evaluator as a plain Datalog engine: programs that are no game, checked with ``game=False``."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from gdl.check import check_text
from gdl.datalog import evaluate
from gdl.syntax.model import Atom, Constant


def _model(text: str, facts: list[Atom]) -> dict[str, set[tuple[str, ...]]]:
    result = check_text(text, game=False)
    assert result.checked is not None, [d.format() for d in result.diagnostics]
    model = evaluate(result.checked, facts)
    return {name: {tuple(map(str, args)) for args in tuples} for name, tuples in model.items()}


REACH = """
(<= (path ?x ?y) (edge ?x ?y))
(<= (path ?x ?z) (edge ?x ?y) (path ?y ?z))
(<= (node ?x) (edge ?x ?y))
(<= (node ?y) (edge ?x ?y))
(<= (unreachable ?x ?y) (node ?x) (node ?y) (not (path ?x ?y)))
"""


def test_a_program_without_role_or_goal_is_plain_datalog() -> None:
    assert not check_text(REACH).ok  # as a game it lacks role, legal, goal and terminal
    assert check_text(REACH, game=False).diagnostics == ()


def test_plain_datalog_still_rejects_unsafe_and_unstratified_rules() -> None:
    for text in ["(<= (p ?x) (not (q ?x)))", "(<= (p a) (not (q a))) (<= (q a) (p a))"]:
        assert not check_text(text, game=False).ok


@settings(max_examples=60, deadline=None)
@given(st.sets(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=12))
def test_reachability_with_negation_matches_its_definition(edges: set[tuple[int, int]]) -> None:
    facts = [Atom("edge", (Constant(str(a)), Constant(str(b)))) for a, b in sorted(edges)]
    model = _model(REACH, facts)
    # The transitive closure computed independently by repeated squaring of the edge relation.
    closure = set(edges)
    while True:
        longer = {(a, d) for (a, b), (c, d) in itertools.product(closure, closure) if b == c}
        if longer <= closure:
            break
        closure |= longer
    nodes = {n for edge in edges for n in edge}
    as_text = {(str(a), str(b)) for a, b in closure}
    assert model.get("path", set()) == as_text
    expected_unreachable = {(str(a), str(b)) for a in nodes for b in nodes} - as_text
    assert model.get("unreachable", set()) == expected_unreachable
