"""The compiled engine and its native and batched playouts agree with the Datalog engine on GDL-II games:
states, legal moves (nature's included), terminal, the players' goals and every role's percepts."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from support.gdl2_games import HIDDEN_BITS, MONTY_HALL, REJECTED_GDL2, gdl2_params
from support.paths import CORPUS

import gdl
from gdl.check import check_text
from gdl.engines import AUTO_MAX_ATOMS, AUTO_MAX_SECONDS
from gdl.engines.batched import BatchedEngine
from gdl.engines.compiled import CompiledReasoner
from gdl.errors import GameDefinitionError, GameTooLargeError
from gdl.game import Game, State

#: GDL-II games whose walks take more than a few seconds with both engines: slow run only.
SLOW = {
    "BlindBreakthrough", "mastermind", "mastermind448", "Mastermind448", "minesweeper1", "stratego",
    "vis_pacman3p", "small_dominion", "SmallDominion2", "twogenerals",
}

#: GDL-II games that do not instantiate within the budgets of ``engine="auto"`` (which then falls back
#: to the Datalog engine), with what is too large.
TOO_LARGE = {
    "small_dominion": "legal has over 300,000 ground rules",
    "SmallDominion2": "legal has over 300,000 ground rules (small_dominion again)",
    "twogenerals": "next has over 14,000 ground rules, more than 5 s to instantiate",
}


def _goals(state: State) -> dict[str, int] | str:
    """The players' goals, or the error that says why a terminal state has none (both engines must agree
    on that too: HoldYourCourseII ends where its player has no goal)."""
    try:
        return state.goals()
    except GameDefinitionError as problem:
        return str(problem)


def walk_differences(datalog: Game, compiled: Game, seed: int, max_steps: int) -> list[str]:
    """Walk both games with the same random joint moves; what the two engines say differently."""
    rng = random.Random(seed)
    ours, theirs = datalog.initial_state(), compiled.initial_state()
    problems: list[str] = []
    for step in range(max_steps):
        where = f"seed {seed} step {step}"
        if ours.fluents() != theirs.fluents():
            return [*problems, f"{where}: states differ"]
        terminal = ours.is_terminal()
        if terminal != theirs.is_terminal():
            return [*problems, f"{where}: terminal differs"]
        if terminal:
            if _goals(ours) != _goals(theirs):
                problems.append(f"{where}: goals differ")
            return problems
        legal = {role: ours.legal_moves(role) for role in datalog.roles}
        if legal != {role: theirs.legal_moves(role) for role in compiled.roles}:
            return [*problems, f"{where}: legal moves differ"]
        joint = {role: rng.choice(moves) for role, moves in legal.items()}
        if ours.percepts(joint) != theirs.percepts(joint):
            problems.append(f"{where}: percepts differ")
        ours, theirs = ours.next(joint), theirs.next(joint)
    return problems


@pytest.mark.parametrize("text", [MONTY_HALL, HIDDEN_BITS], ids=["montyhall", "hiddenbits"])
def test_small_gdl2_games_agree(text: str) -> None:
    datalog, compiled = gdl.parse(text, "datalog"), gdl.parse(text, "compiled")
    for seed in range(20):
        assert walk_differences(datalog, compiled, seed, 10) == []


@pytest.mark.parametrize("path", gdl2_params(CORPUS, SLOW))
def test_compiled_agrees_with_datalog_on_gdl2_games(path: Path) -> None:
    checked = check_text(path.read_text(encoding="utf-8"), str(path)).checked
    if path.stem in REJECTED_GDL2:
        assert checked is None
        return
    assert checked is not None
    if path.stem in TOO_LARGE:
        with pytest.raises(GameTooLargeError):
            CompiledReasoner(checked, AUTO_MAX_ATOMS, AUTO_MAX_SECONDS)
        return
    datalog, compiled = gdl.load(path, "datalog"), gdl.load(path, "compiled")
    for seed in (1, 2, 3):
        assert walk_differences(datalog, compiled, seed, 60) == []


@pytest.mark.parametrize("text", [MONTY_HALL, HIDDEN_BITS], ids=["montyhall", "hiddenbits"])
def test_native_playouts_end_where_the_players_have_goals(text: str) -> None:
    game = gdl.parse(text, "compiled")
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    rng = random.Random(7)
    for _ in range(50):
        data, depth, terminal = reasoner.depth_charge(reasoner.initial(), rng, 100)
        assert terminal and depth > 0
        state = game.state(reasoner.fluents(data))
        assert set(state.goals()) == set(game.players)


def test_native_playouts_draw_nature_uniformly() -> None:
    """Monty Hall's car: each door about a third of 3000 native playouts."""
    game = gdl.parse(MONTY_HALL, "compiled")
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    rng = random.Random(11)
    counts = {"1": 0, "2": 0, "3": 0}
    for _ in range(3000):
        data, _, _ = reasoner.depth_charge(reasoner.initial(), rng, 100)
        car = next(str(f) for f in reasoner.fluents(data) if str(f).startswith("(car"))
        counts[car[5]] += 1
    assert all(850 <= n <= 1150 for n in counts.values()), counts


def test_batched_rollouts_score_the_players_and_draw_nature_uniformly() -> None:
    game = gdl.parse(MONTY_HALL, "compiled")
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    batched = BatchedEngine(reasoner.net, batch=1024, seed=3)
    values = batched.rollouts([reasoner.initial()] * 1024)
    candidate = game.roles.index("candidate")
    # a random candidate wins half the time (switch or stay, each with probability 1/2)
    assert 0.42 <= values[:, candidate].mean() / 100 <= 0.58
    assert (values[:, game.roles.index("random")] == 0).all()
