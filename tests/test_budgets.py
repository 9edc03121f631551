"""Every budget is checked inside every loop that can run long: joins that add no fact, the planning of
long rules, the unfolding of extensive forms."""

from __future__ import annotations

import time

import pytest
from hostile import long_rule, static_spin

import gdl
from gdl.budget import BudgetExceededError, budget
from gdl.check import check
from gdl.datalog.evaluator import Database, Evaluator
from gdl.ground.facts import Facts
from gdl.ground.joins import pattern_rule, plan_join
from gdl.syntax.model import Atom, Variable
from gdl.syntax.reader import read


def test_a_join_that_adds_no_fact_still_checks_its_budget() -> None:
    checked = check(read(static_spin(12)).program).checked
    assert checked is not None
    evaluator = Evaluator(checked)
    database = Database()
    spin = next(n for n, stratum in enumerate(checked.strata) if "spin" in stratum.relations)
    for number in range(spin):
        evaluator.run(number, database)
    evaluator.stratum(spin, database)  # planned and compiled outside the budget: the join alone is timed
    # 12 ** 4 rounds, none adding a fact: a budget spent before they start must stop them.
    with budget("evaluating static relations", 0.0), pytest.raises(BudgetExceededError):
        evaluator.run(spin, database)
    assert not database.facts("spin/4")


def test_the_grounders_join_planning_checks_its_budget() -> None:
    variables = [Variable(f"x{i}") for i in range(301)]
    body = [Atom("e", (variables[i], variables[i + 1])) for i in range(300)]
    rule = pattern_rule(Atom("path", (variables[0], variables[300])), list(body), set(), -1)
    facts = Facts()
    facts.add("e", ("1", "2"))
    with budget("planning joins", 0.0), pytest.raises(BudgetExceededError):
        plan_join(rule, None, facts)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["datalog", "auto"])
def test_a_static_join_of_a_hundred_million_rounds_ends_within_the_load_budget(engine: str) -> None:
    begun = time.process_time()
    with pytest.raises(BudgetExceededError):
        gdl.parse(static_spin(100), engine=engine, max_seconds=3.0)
    assert time.process_time() - begun < 3.0 * 1.1 + 1.0


@pytest.mark.slow
def test_a_rule_of_twenty_thousand_literals_is_planned_within_the_load_budget() -> None:
    begun = time.process_time()
    with pytest.raises(BudgetExceededError):
        gdl.parse(long_rule(20_000), max_seconds=3.0)
    assert time.process_time() - begun < 3.0 * 1.1 + 1.0
