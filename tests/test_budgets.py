"""Every budget is checked inside every loop that can run long (joins that add no fact, the planning of
long rules, the unfolding of extensive forms), and every command honours its ``--time-limit``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from support.hostile import long_rule, negation_bomb, static_spin

import gdl
from gdl.budget import budget, checkpoint
from gdl.check import check
from gdl.cli import main
from gdl.datalog.evaluator import Database, Evaluator
from gdl.errors import BudgetExceededError, GdlSourceError, OutOfTimeError
from gdl.extensive.from_gdl import read_gdl2
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
def test_a_static_join_of_a_billion_rounds_ends_within_the_load_budget(engine: str) -> None:
    begun = time.process_time()
    with pytest.raises(BudgetExceededError):
        gdl.parse(static_spin(200), engine=engine, max_seconds=3.0)
    assert time.process_time() - begun < 3.0 * 1.1 + 1.0


@pytest.mark.slow
def test_a_rule_of_twenty_thousand_literals_is_planned_within_the_load_budget() -> None:
    begun = time.process_time()
    with pytest.raises(BudgetExceededError):
        gdl.parse(long_rule(20_000), max_seconds=3.0)
    assert time.process_time() - begun < 3.0 * 1.1 + 1.0


KRIEGTICTACTOE = Path(__file__).resolve().parent.parent / "games" / "kriegtictactoe.kif"


def test_unfolding_a_gdl2_game_stops_at_its_time_limit() -> None:
    begun = time.monotonic()
    # Its 16 billion nodes: the time runs out, or (on the compiled network, fast) the node limit first.
    with pytest.raises(GdlSourceError, match=r"extensive form is not complete|more than 1000000 nodes"):
        read_gdl2(KRIEGTICTACTOE.read_text(), str(KRIEGTICTACTOE), seconds=3.0)
    # Behaviour, not speed: the default of 120 s would run far past this on any machine.
    assert time.monotonic() - begun < 60
    with pytest.raises(OutOfTimeError, match="while the rules were loaded"):
        read_gdl2(KRIEGTICTACTOE.read_text(), str(KRIEGTICTACTOE), seconds=0.0)


def test_solve_says_not_solved_and_exits_1_when_the_time_limit_runs_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["solve", str(KRIEGTICTACTOE), "--time-limit", "1"]) == 1
    assert "kriegtictactoe.kif: not solved: " in capsys.readouterr().out
    assert main(["solve", str(KRIEGTICTACTOE), "--time-limit", "1", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["solved"] is False and "kriegtictactoe" in report["reason"]


@pytest.mark.slow  # it measures time
def test_solve_honours_its_time_limit_on_kriegtictactoe(capsys: pytest.CaptureFixture[str]) -> None:
    # Loading and unfolding run under a budget of wall time, checked at every node: the command ends
    # within the limit however busy the machine (its process start is another matter).
    begun = time.monotonic()
    assert main(["solve", str(KRIEGTICTACTOE), "--time-limit", "5"]) == 1
    assert time.monotonic() - begun < 5 * 1.1 + 1.0
    assert "not solved" in capsys.readouterr().out


def test_checking_a_negation_bomb_is_refused_in_little_memory() -> None:
    # 650 heads reading each other: 422,500 dependencies split by constant arguments, about 130 MB (a
    # 69 kB file of this kind took 3.2 GB to check).
    text = negation_bomb(650)
    tracemalloc.start()
    try:
        result = check(read(text).program)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.checked is None
    assert any("dependencies, too many to check" in " ".join(d.notes) for d in result.diagnostics)
    assert peak < 90_000_000


def test_a_budget_of_wall_time_is_checked_like_one_of_cpu_time() -> None:
    with budget("loading", 0.0, wall=True), pytest.raises(BudgetExceededError, match=r"budget of 0 s$"):
        checkpoint()
    with budget("loading", 0.0, wall=True), pytest.raises(BudgetExceededError):
        gdl.parse(static_spin(12), engine="datalog")


def test_check_dynamic_counts_loading_in_its_time_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "spin.kif"
    path.write_text(static_spin(200))  # 1.6 billion rounds of a join at load time
    assert main(["check", "--dynamic", "--engine", "datalog", str(path), "--time-limit", "1"]) == 1
    assert "loading took more than its budget of 1 s" in capsys.readouterr().err


def test_solve_counts_loading_in_its_time_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "spin.kif"
    path.write_text(static_spin(200))
    assert main(["solve", "--engine", "datalog", str(path), "--time-limit", "1"]) == 1
    assert "loading took more than its budget of " in capsys.readouterr().err


def test_a_distinct_of_compound_terms_makes_no_term_per_round() -> None:
    checked = check(read(static_spin(12)).program).checked
    assert checked is not None
    evaluator = Evaluator(checked)
    database = Database()
    for number in range(len(checked.strata)):
        evaluator.run(number, database)
    # 12 ** 4 rounds of (distinct (f ?a ?b ?c ?e) (f ?a ?b ?c ?e)): each made two terms f(...).
    assert len(evaluator.table.args) < 1000
    assert not database.facts("spin/4")


def test_a_standalone_command_is_bounded_in_memory_and_says_so(tmp_path: Path) -> None:
    # 90^4 facts of a static relation: gigabytes, unless the command's own limit stops it.
    numbers = " ".join(f"(n {i})" for i in range(90))
    game = tmp_path / "memory.kif"
    game.write_text(
        f"(role r) {numbers} (<= (big ?a ?b ?c ?d) (n ?a) (n ?b) (n ?c) (n ?d)) (init (s 0))"
        " (<= (legal r (go ?a)) (big ?a ?b ?c ?d) (true (s 0))) (<= (next (s 1)) (does r (go 0)))"
        " (<= terminal (true (s 1))) (<= (goal r 100) (true (s 1))) (<= (goal r 0) (true (s 0)))"
    )
    script = "import sys; from gdl.cli import console; sys.exit(console())"
    done = subprocess.run(
        [sys.executable, "-c", script, "solve", str(game), "--engine", "datalog"],
        capture_output=True, text=True, timeout=600, env={**os.environ, "GDL_MEMORY_MB": "700"},
    )
    assert done.returncode == 1, done.stderr
    assert "the work ran out of memory (its limit is 700 MB: GDL_MEMORY_MB sets it)" in done.stderr
    assert "Traceback" not in done.stderr
