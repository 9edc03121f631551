"""Join planning: the planner's caches give the plans it would give without them, and the evaluator
compiles only what runs and only what changed."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.datalog import same_walks

import gdl.engines.datalog
from gdl.check import check_text
from gdl.datalog.evaluator import Database, Evaluator
from gdl.datalog.plan import Paths, RuleCode, RuleFunction, RulePlanner, Shape, SpecRegistry
from gdl.datalog.terms import TermTable
from gdl.engines.datalog import DatalogReasoner
from gdl.syntax.model import Atom, Constant, Distinct, Function, Literal, Not, Term, Variable

ROOT = Path(__file__).resolve().parent.parent

Size = Callable[[str, Shape, Paths], float | None]


_LEAVES = st.one_of(st.sampled_from("wxyz").map(Variable), st.sampled_from("ab").map(Constant))
TERMS: st.SearchStrategy[Term] = st.one_of(
    _LEAVES, _LEAVES, _LEAVES.map(lambda leaf: Function("f", (leaf,)))
)
RELATIONS = st.sampled_from([("p", 1), ("q", 2), ("r", 3)])
KINDS = st.sampled_from(["atom", "atom", "atom", "not", "distinct"])


@st.composite
def bodies(draw: st.DrawFn) -> tuple[Literal, ...]:
    """A rule body over relations p/1, q/2, r/3 (repeated literals and all), with tests among them."""
    body: list[Literal] = []
    for _ in range(draw(st.integers(1, 9))):
        name, arity = draw(RELATIONS)
        atom = Atom(name, tuple(draw(TERMS) for _ in range(arity)))
        kind = draw(KINDS)
        if kind == "not":
            body.append(Not(atom))
        elif kind == "distinct" and arity > 1:
            body.append(Distinct(atom.args[0], atom.args[1]))
        else:
            body.append(atom)
    return tuple(body)


def _sizes(seed: int) -> Size:
    """Expected matches made up per question, the same answer each time it is asked (None sometimes)."""

    def size(relation: str, shape: Shape, paths: Paths) -> float | None:
        draw = random.Random(repr((seed, relation, shape, paths))).random()
        return None if draw < 0.2 else float(int(draw * 20))

    return size


def _greedy(body: tuple[Literal, ...], delta: int | None, size: Size) -> list[int]:
    """The planner's greedy order as its docstring states it, each score asked of a fresh planner."""
    table = TermTable()
    remaining = list(enumerate(body))
    bound: set[str] = set()
    order = []

    def score(item: tuple[int, Literal]) -> tuple[float, ...]:
        fresh = RulePlanner(table, SpecRegistry(table), size)
        return fresh._score((*item, {v.name for v in item[1].variables()}), bound, delta)

    while remaining:
        names = {position: {v.name for v in literal.variables()} for position, literal in remaining}
        ready = [item for item in remaining if not isinstance(item[1], Atom) and names[item[0]] <= bound]
        positives = [item for item in remaining if isinstance(item[1], Atom)]
        chosen = ready[0] if ready else max(positives, key=score) if positives else remaining[0]
        remaining.remove(chosen)
        order.append(chosen[0])
        bound |= names[chosen[0]]
    return order


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(bodies(), st.integers(0, 9)), min_size=1, max_size=6), st.integers(0, 3))
def test_cached_scores_give_the_orders_of_fresh_ones(
    rules: list[tuple[tuple[Literal, ...], int]], seed: int
) -> None:
    # One planner orders every body, each with a delta (as a recursive stratum's variants), then again
    # with other sizes: a score remembered from the first sizes must not decide the second order.
    table = TermTable()
    planner = RulePlanner(table, SpecRegistry(table), _sizes(seed))
    for size in (_sizes(seed), _sizes(seed + 10)):
        planner.size = size
        for body, choice in rules:
            deltas = [None, *(i for i, literal in enumerate(body) if isinstance(literal, Atom))]
            delta = deltas[choice % len(deltas)]
            assert [position for position, _ in planner.order(body, delta)] == _greedy(body, delta, size)


CHAIN = """
    (<= (h ?x ?z) (a ?x ?y) (b ?y ?z))
"""


Facts = dict[str, list[tuple[str, ...]]]


def _run(evaluator: Evaluator, facts: Facts) -> tuple[Database, set[tuple[str, ...]]]:
    """A database of ``facts`` (relation key -> constants) with every stratum run, and its h/2 facts."""
    table = evaluator.table
    database = Database()
    for relation, tuples in facts.items():
        database.own(relation, [tuple(table.constant(arg) for arg in fact) for fact in tuples])
    for number in range(len(evaluator.checked.strata)):
        evaluator.run(number, database)
    found = {tuple(table.text(i) for i in fact) for fact in database.facts("h/2")}
    return database, found


def test_a_stratum_planned_again_keeps_the_rules_whose_order_did_not_change() -> None:
    checked = check_text(CHAIN, game=False).checked
    assert checked is not None
    evaluator = Evaluator(checked)
    (number,) = [n for n, stratum in enumerate(checked.strata) if "h" in stratum.relations]
    spread = [(str(i), "0") for i in range(30)]
    few_a: Facts = {"a/2": [("1", "2")], "b/2": [("2", str(i)) for i in range(30)] + spread}
    _, found = _run(evaluator, few_a)
    assert found == {("1", str(i)) for i in range(30)}
    (first,) = evaluator._compiled[number].rules
    assert first.code.fetches[0][1] == "a/2"  # the one a/2 fact is read first

    evaluator.replan([number])
    _, again = _run(evaluator, few_a)
    assert again == found
    assert evaluator._compiled[number].rules[0] is first  # the same order: the same compiled rule

    evaluator.replan([number])
    wide = [("7", str(i)) for i in range(30)]
    few_b: Facts = {"a/2": [(str(i), "5") for i in range(30)] + wide, "b/2": [("5", "6")]}
    _, other = _run(evaluator, few_b)
    assert other == {(str(i), "6") for i in range(30)}
    (second,) = evaluator._compiled[number].rules
    assert second is not first
    assert second.code.fetches[0][1] == "b/2"  # now the one b/2 fact is read first


#: p and q are defined through each other; r has no facts, so q never has any and no round reads news
#: of q.
MUTUAL = """
    (<= (p ?x ?y) (e ?x ?y))
    (<= (p ?x ?z) (p ?x ?y) (e ?y ?z))
    (<= (p ?x ?x) (q ?x))
    (<= (q ?y) (p ?x ?y) (r ?y))
"""


def test_a_rule_is_compiled_when_it_first_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = check_text(MUTUAL, game=False).checked
    assert checked is not None
    evaluator = Evaluator(checked)
    compiled: list[str] = []
    function = RulePlanner.function

    def counted(self: RulePlanner, code: RuleCode) -> RuleFunction:
        compiled.append(code.title)
        return function(self, code)

    monkeypatch.setattr(RulePlanner, "function", counted)
    chain = {"e/2": [(str(i), str(i + 1)) for i in range(5)]}
    _run(evaluator, chain)
    (number,) = [n for n, stratum in enumerate(checked.strata) if "p" in stratum.relations]
    stratum = evaluator._compiled[number]
    reading_p = [rule for delta, rule in stratum.variants if delta.endswith("p/2")]
    assert len(stratum.variants) == 3 and len(reading_p) == 2
    # The 4 rules and the 2 variants reading news of p, not the one reading news of q.
    assert len(compiled) == len(stratum.rules) + len(reading_p) == 6
    text = evaluator.table.text
    assert {(text(x), text(y)) for x, y in _run(evaluator, chain)[0].facts("p/2")} == {
        (str(i), str(j)) for i in range(5) for j in range(i + 1, 6)
    }


@pytest.mark.parametrize("name", ["tictactoe.kif", "buttons.kif"])
def test_walks_agree_when_the_state_strata_are_planned_again_early(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    # Planned again after the second state (see REPLAN_AT): the rules of the same order are kept, the
    # others compiled anew, and the walks are those of the game as written.
    monkeypatch.setattr(gdl.engines.datalog, "REPLAN_AT", 2)
    checked = check_text((ROOT / "games" / name).read_text(encoding="utf-8"), name).checked
    assert checked is not None
    same_walks(DatalogReasoner(checked, demand=False), DatalogReasoner(checked, demand=True), steps=40)
