"""The compiled engine's sweeps (:mod:`gdl.engines.sweep`: the network evaluated from tables, for functions
too large to generate code for) against its generated code on arbitrary states and inputs, and against
the Datalog evaluator on random walks."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.engines import QUICK, checked_game, corpus_problems, disagreements, reach_game

import gdl.engines.compiled
from gdl.budget import budget
from gdl.check import CheckedProgram, check_text
from gdl.engines.codegen import function_outputs
from gdl.engines.compiled import CompiledReasoner
from gdl.errors import BudgetExceededError
from gdl.ground.grounding import term_of

ROOT = Path(__file__).resolve().parent.parent
#: A code limit that no function of these games reaches: every function is generated code.
NO_LIMIT = 10**9


@cache
def twins(name: str) -> tuple[CompiledReasoner, CompiledReasoner]:
    """A game's reasoner with generated code only, and with sweeps only."""
    checked = reach_game() if name == "reach" else checked_game(ROOT / "games" / f"{name}.kif")
    written, swept = CompiledReasoner(checked, code_limit=NO_LIMIT), CompiledReasoner(checked, code_limit=-1)
    assert written.swept == frozenset() and written.phases["tables"] < 1
    assert swept.swept == {"analyse", "goals", "successor", *(["percepts"] if swept.net.sees else [])}
    assert swept.source.strip() == ""
    return written, swept


@pytest.mark.parametrize("name", ["tictactoe", "buttons", "nim", "reach", "kriegtictactoe", "montyhall"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_sweeps_agree_with_generated_code_on_any_state_and_joint_move(name: str, data: st.DataObject) -> None:
    """Any set of fluents, reachable or not (a cycle block in reach), and any joint move, legal or not."""
    written, swept = twins(name)
    fluents = data.draw(st.sets(st.sampled_from([term_of(f) for f in written.net.fluents])))
    ours, theirs = written.from_fluents(fluents), swept.from_fluents(fluents)
    assert swept.terminal(theirs) == written.terminal(ours)
    joint = []
    for role in range(len(written.roles)):
        assert swept.legal(theirs, role) == written.legal(ours, role)
        assert swept.goals(theirs, role) == written.goals(ours, role)
        moves = [term_of(move) for r, move in written.net.moves if r == role]
        joint.append(data.draw(st.sampled_from(moves)))
    assert swept.fluents(swept.next(theirs, joint)) == written.fluents(written.next(ours, joint))
    assert swept.sees(theirs, joint) == written.sees(ours, joint)


@pytest.mark.parametrize("name", QUICK)
def test_quick_corpus_walks_with_sweeps_agree_with_datalog(corpus: Path, name: str) -> None:
    assert disagreements(checked_game(corpus / "games" / f"{name}.kif"), range(2), 80, code_limit=-1) == []


@pytest.mark.slow
def test_every_corpus_game_that_instantiates_agrees_with_datalog_in_sweeps(corpus: Path) -> None:
    def compare(checked: CheckedProgram) -> list[str]:
        return disagreements(checked, range(2), 60, code_limit=-1)

    assert corpus_problems(corpus, compare) == []


def test_recursive_rules_in_a_sweep_agree_with_datalog() -> None:
    assert disagreements(reach_game(), range(6), 10, code_limit=-1) == []


def test_only_functions_over_the_code_limit_are_swept() -> None:
    # A limit between the gate inputs of the smallest and the largest function sweeps the larger only.
    checked = checked_game(ROOT / "games" / "tictactoe.kif")
    net = CompiledReasoner(checked).net
    sizes = {
        name: sum(len(net.args[node - net.first_gate]) for node in net.cone(outputs))
        for name, outputs in function_outputs(net).items()
    }
    limit = min(sizes.values())
    reasoner = CompiledReasoner(checked, code_limit=limit)
    assert reasoner.swept == {name for name, size in sizes.items() if size > limit} != set()
    assert len(reasoner.swept) < len(sizes)
    for name in sizes:
        assert (f"def {name}(" in reasoner.source) == (name not in reasoner.swept)
    assert disagreements(checked, range(3), 20, code_limit=limit) == []


def test_once_a_function_is_swept_so_are_the_others_over_swept_too(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = checked_game(ROOT / "games" / "tictactoe.kif")
    net = CompiledReasoner(checked).net
    sizes = sorted(
        (sum(len(net.args[node - net.first_gate]) for node in net.cone(outputs)), name)
        for name, outputs in function_outputs(net).items()
    )
    (smallest, kept), (middle, _), (largest, _) = sizes
    assert smallest < middle < largest
    monkeypatch.setattr(gdl.engines.compiled, "SWEPT_TOO", smallest)
    assert CompiledReasoner(checked, code_limit=largest).swept == frozenset()
    reasoner = CompiledReasoner(checked, code_limit=largest - 1)
    assert reasoner.swept == {name for _, name in sizes} - {kept}
    assert disagreements(checked, range(3), 20, code_limit=largest - 1) == []


def test_a_sweep_evaluates_constant_outputs() -> None:
    # terminal is constantly false, a goal constantly true, a next constantly false: no gate reads them.
    text = """(role r) (init (a)) (<= (legal r go) (true (a))) (<= (next (b)) (does r go))
        (<= (goal r 100) (true (b))) (goal r 50) (<= terminal (true (b)))"""
    checked = check_text(text).checked
    assert checked is not None
    assert disagreements(checked, range(2), 5, code_limit=-1) == []


def test_loading_takes_a_built_network_and_checks_the_budget_after_it() -> None:
    # engine="auto" builds the network itself, and may give up in code generation or the sweeps' tables.
    checked = checked_game(ROOT / "games" / "tictactoe.kif")
    built = CompiledReasoner(checked)
    for limit in (NO_LIMIT, -1):
        with budget("building the compiled engine", 0.0), pytest.raises(BudgetExceededError):
            CompiledReasoner(checked, code_limit=limit, network=(built.grounding, built.net))
        again = CompiledReasoner(checked, code_limit=limit, network=(built.grounding, built.net))
        assert again.net is built.net and again.phases["instantiate"] == again.phases["network"] == 0.0
        joint = [again.legal(again.initial(), 0)[4], again.legal(again.initial(), 1)[0]]
        assert again.legal(again.initial(), 0) == built.legal(built.initial(), 0)
        after = again.fluents(again.next(again.initial(), joint))
        assert after == built.fluents(built.next(built.initial(), joint)) != built.fluents(built.initial())
