"""The compiled engine against the Datalog evaluator: random walks compare states, legal moves, terminal
and goals step by step; instantiation budgets and the fallback of ``engine="auto"``."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from support.engines import QUICK, checked_game, corpus_problems, disagreements, reach_game

import gdl
import gdl.engines
from gdl.check import check_text
from gdl.engines.codegen import generate
from gdl.engines.compiled import CompiledReasoner
from gdl.engines.datalog import DatalogReasoner
from gdl.errors import GameTooLargeError, InvalidStateError
from gdl.ground.grounding import term_of
from gdl.ground.instantiate import instantiate

ROOT = Path(__file__).resolve().parent.parent

@pytest.mark.slow
def test_every_corpus_game_that_instantiates_agrees_with_datalog(corpus: Path) -> None:
    assert corpus_problems(corpus, lambda checked: disagreements(checked, range(3), 100)) == []


@pytest.mark.parametrize("name", ["tictactoe.kif", "buttons.kif", "nim.kif", "rps.kif"])
def test_our_games_agree_with_datalog(name: str) -> None:
    assert disagreements(checked_game(ROOT / "games" / name), range(3), 60) == []


@pytest.mark.parametrize("name", QUICK)
def test_quick_corpus_walks_agree_with_datalog(corpus: Path, name: str) -> None:
    assert disagreements(checked_game(corpus / "games" / f"{name}.kif"), range(2), 80) == []


def test_recursive_rules_become_cycle_blocks_and_agree() -> None:
    assert disagreements(reach_game(), range(6), 10) == []


def test_refined_strata_a_relation_negating_itself_with_other_arguments() -> None:
    text = """
    (role robot) (init (count 0)) (succ 0 1) (succ 1 2) (succ 2 3)
    (<= (next (count ?n)) (true (count ?m)) (succ ?m ?n))
    (legal robot go)
    (<= terminal (true (count 3)))
    (<= (goal robot 0) (true (count 3)))
    (<= (goal robot 100) (not (goal robot 0)))
    """
    checked = check_text(text).checked
    assert checked is not None
    assert disagreements(checked, range(1), 5) == []


def test_the_relaxed_fluents_cover_every_fluent_of_random_walks(corpus: Path) -> None:
    checked = checked_game(corpus / "games" / "connectfour.kif")
    relaxed = {term_of(f) for f in instantiate(checked).fluents}
    reference = DatalogReasoner(checked)
    rng = random.Random(7)
    for _ in range(5):
        state = reference.initial()
        while not reference.terminal(state):
            assert reference.fluents(state) <= relaxed
            joint = [rng.choice(reference.legal(state, r)) for r in range(len(reference.roles))]
            state = reference.next(state, joint)


def test_a_game_over_the_atom_budget_is_too_large(corpus: Path) -> None:
    with pytest.raises(GameTooLargeError, match="more than 50 ground atoms"):
        instantiate(checked_game(corpus / "games" / "connectfour.kif"), max_atoms=50)


def test_a_failed_grounding_costs_no_more_than_its_time_budget(corpus: Path) -> None:
    checked = checked_game(corpus / "games" / "chess.kif")
    started = time.process_time()
    with pytest.raises(GameTooLargeError, match=r"within 0\.2 s"):
        instantiate(checked, max_seconds=0.2)
    # The budget is CPU time; checking it every few thousand candidate matches overshoots it little.
    assert time.process_time() - started < 1.0


def test_auto_chooses_compiled_and_falls_back_to_datalog(monkeypatch: pytest.MonkeyPatch) -> None:
    path = ROOT / "games" / "tictactoe.kif"
    assert isinstance(gdl.load(path).reasoner, CompiledReasoner)
    assert isinstance(gdl.load(path, engine="compiled").reasoner, CompiledReasoner)
    monkeypatch.setattr(gdl.engines, "AUTO_MAX_ATOMS", 10)
    assert isinstance(gdl.load(path).reasoner, DatalogReasoner)
    with pytest.raises(GameTooLargeError):
        CompiledReasoner(checked_game(path), max_atoms=10)


def test_the_state_machine_api_on_the_compiled_engine() -> None:
    game = gdl.load(ROOT / "games" / "tictactoe.kif", engine="compiled")
    state = game.initial_state()
    assert [str(m) for m in state.legal_moves("oplayer")] == ["noop"]
    after = state.next({"xplayer": "(mark 2 2)", "oplayer": "noop"})
    assert "(cell 2 2 x)" in {str(f) for f in after.fluents()}
    assert game.state(after.fluents()) == after
    with pytest.raises(InvalidStateError, match="is never true in game 'tictactoe'"):
        game.state(["(cell 9 9 x)"])



def test_every_state_of_a_game_with_deep_rule_chains_agrees(corpus: Path) -> None:
    """ruledepthlinear chains gates deeper than compiled expressions may nest; visit all its states."""
    checked = checked_game(corpus / "games" / "ruledepthlinear.kif")
    compiled, reference = CompiledReasoner(checked), DatalogReasoner(checked)
    frontier, seen = [compiled.initial()], set()
    while frontier:
        state = frontier.pop()
        if state in seen:
            continue
        seen.add(state)
        twin = reference.from_fluents(compiled.fluents(state))
        assert compiled.terminal(state) == reference.terminal(twin)
        for role in range(len(compiled.roles)):
            assert compiled.legal(state, role) == reference.legal(twin, role)
            assert sorted(map(str, compiled.goals(state, role))) == sorted(
                map(str, reference.goals(twin, role))
            )
        if not compiled.terminal(state):
            for move in compiled.legal(state, 0):
                frontier.append(compiled.next(state, [move]))
    assert len(seen) > 50


def test_masks_wider_than_a_literal_are_named_once() -> None:
    # 300 base propositions and moves: the masks past bit 256 are constants of the generated code, named
    # once (their literals made kalaha's code 360 MB), and the engine still walks as the Datalog one does.
    cells = " ".join(f"(init (cell {i}))" for i in range(300))
    text = f"""(role r) {cells}
        (<= (legal r (clear ?i)) (true (cell ?i)))
        (<= (next (cell ?i)) (true (cell ?i)) (not (does r (clear ?i))))
        (<= terminal (not (true (cell 299)))) (<= (goal r 100) terminal) (<= (goal r 0) (not terminal))"""
    checked = check_text(text).checked
    assert checked is not None
    source, constants = generate(CompiledReasoner(checked).net)
    assert constants and all(value.bit_length() > 256 for value in constants.values())
    assert len(set(constants.values())) == len(constants) and all(name in source for name in constants)
    assert disagreements(checked, range(2), 40) == []
