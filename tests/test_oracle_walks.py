"""Random walks through every corpus game, compared step by step with clingo (see tests/support/oracle.py)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from support.corpus import SLOW_GAMES
from support.gdl2_games import REJECTED_GDL2, gdl2_params
from support.oracle import WalkOracle
from support.paths import CORPUS

import gdl
from gdl.check import check_text
from gdl.diagnostics import Level
from gdl.engines.datalog import DatalogReasoner
from gdl.syntax.model import Term

#: Games checked by the default (fast) run: small ones, covering recursion, or, function terms.
QUICK = (
    "tictactoe", "ggpbase_test_case_5a", "ggpbase_test_case_5c", "ggpbase_test_case_5d",
    "ggpbase_test_case_5e", "buttons", "hanoi", "nim1", "coins", "queens08lg", "blocks",
    "ggpbase_test_distinct_beginning_rule", "eightpuzzle", "fire_sheep",
)

#: States evaluated by one clingo run (one grounding of the whole chunk).
#: Each run grounds the static rules again, so chunks are as large as memory allows.
CHUNK = 50
#: The chunk size for games where each state's relations are large (see HEAVY).
HEAVY_CHUNK = 1


def disagreements(path: Path, seed: int, max_steps: int) -> list[str]:
    """Walk the game at random with our reasoner, then let clingo judge every step of the walk."""
    game = gdl.load(path, engine="datalog")
    reasoner = game.reasoner
    assert isinstance(reasoner, DatalogReasoner)
    oracle = WalkOracle(game.checked.program.rules)
    roles, initial = oracle.static()
    problems = []
    if tuple(roles) != game.roles:
        problems.append(f"roles: ours {game.roles}, clingo {roles}")
    state = reasoner.initial()
    if {str(f) for f in reasoner.fluents(state)} != initial:
        problems.append("initial state differs")
    rng = random.Random(seed)
    states: list[frozenset[Term]] = []
    moves: list[dict[str, Term]] = []
    ours = []
    seen: list[tuple[frozenset[Term], ...]] = []
    for _ in range(max_steps + 1):
        states.append(reasoner.fluents(state))
        legal = [reasoner.legal(state, i) for i in range(len(roles))]
        terminal = reasoner.terminal(state)
        goals = [reasoner.goals(state, i) for i in range(len(roles))]
        ours.append((legal, terminal, goals))
        if terminal or not all(legal) or len(states) > max_steps:
            break
        joint = [rng.choice(moves_of_role) for moves_of_role in legal]
        moves.append(dict(zip(game.roles, joint, strict=True)))
        seen.append(reasoner.sees(state, joint))
        state = reasoner.next(state, joint)
    steps = []
    chunk = HEAVY_CHUNK if path.stem in HEAVY else CHUNK
    for start in range(0, len(states), chunk):
        steps += oracle.evaluate(states[start : start + chunk], moves[start : start + chunk])
    for i, ((legal, terminal, goals), step) in enumerate(zip(ours, steps, strict=True)):
        where = f"{path.stem} seed {seed} step {i}"
        for r, role in enumerate(game.roles):
            if [str(m) for m in legal[r]] != step.legal.get(role, []):
                problems.append(f"{where}: legal moves of {role} differ")
            if role in game.players and [str(g) for g in goals[r]] != step.goals.get(role, []):
                problems.append(f"{where}: goals of {role} differ")
            if i < len(seen) and sorted(map(str, seen[i][r])) != step.sees.get(role, []):
                problems.append(f"{where}: percepts of {role} differ")
        if terminal != step.terminal:
            problems.append(f"{where}: terminal differs (ours {terminal})")
        if i + 1 < len(states) and {str(f) for f in states[i + 1]} != step.next:
            problems.append(f"{where}: next state differs")
    return problems


@pytest.mark.parametrize("name", QUICK)
def test_quick_walks_agree_with_clingo(corpus: Path, name: str) -> None:
    path = corpus / "games" / f"{name}.kif"
    assert disagreements(path, seed=1, max_steps=40) == []


#: Games where a step costs seconds, for clingo or for us (both materialise relations such as chess's
#: threatened_with_capture/7 in full), walked for fewer steps in the slow run.
HEAVY = {
    "amazons": 8, "chess": 8, "chinesecheckers4": 8, "chinesecheckers6": 8, "crisscross": 8,
    "merrills": 200, "mummymaze1p": 20,
}
@pytest.mark.slow
@pytest.mark.parametrize("path", SLOW_GAMES)
def test_every_corpus_game_agrees_with_clingo(path: Path) -> None:
    assert disagreements(path, seed=1, max_steps=HEAVY.get(path.stem, 200)) == []


@pytest.mark.parametrize("path", gdl2_params(CORPUS))
def test_gdl2_walks_agree_with_clingo(path: Path) -> None:
    """Every GDL-II game: rejected for a listed defect, or walked in agreement with clingo, percepts
    included, for three seeds."""
    result = check_text(path.read_text(encoding="utf-8"), str(path))
    codes = {d.code for d in result.diagnostics if d.level is Level.ERROR}
    if path.stem in REJECTED_GDL2:
        assert REJECTED_GDL2[path.stem] <= codes
        return
    assert result.ok, codes
    for seed in (1, 2, 3):
        assert disagreements(path, seed=seed, max_steps=60) == []
