"""``engine="auto"``: one budget of CPU time covers every phase of building the compiled engine, a phase
that would not fit is not started, and the Datalog evaluator plays what does not fit. No test here is
timed: phases are made dear by their cost rates or stopped by the budget's own checkpoints."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

import gdl
import gdl.engines
import gdl.engines.compiled
import gdl.ground.propnet
from gdl.budget import budget, checkpoint
from gdl.engines.compiled import CompiledReasoner
from gdl.engines.datalog import DatalogReasoner
from gdl.errors import BudgetExceededError
from gdl.ground.grounding import Grounding
from gdl.ground.propnet import PropNet

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "games" / "tictactoe.kif"


def never(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a phase that cannot fit the budget was started")


def test_auto_chooses_the_compiled_engine_when_it_fits() -> None:
    assert isinstance(gdl.load(GAME).reasoner, CompiledReasoner)


def test_a_network_that_would_not_fit_is_not_built(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(gdl.engines, "NETWORK_SECONDS_PER_LITERAL", 1.0)
    monkeypatch.setattr(gdl.ground.propnet, "build", never)
    with caplog.at_level(logging.INFO, logger="gdl.engines"):
        game = gdl.load(GAME)
    assert isinstance(game.reasoner, DatalogReasoner)
    assert "the network would take about" in caplog.text
    assert [str(move) for move in game.initial_state().legal_moves("oplayer")] == ["noop"]


def test_compiled_functions_that_would_not_fit_are_not_made(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    built: list[PropNet] = []
    build = gdl.ground.propnet.build

    def counted(grounding: Grounding) -> PropNet:
        built.append(build(grounding))
        return built[-1]

    monkeypatch.setattr(gdl.engines, "CODE_SECONDS_PER_INPUT", 1.0)
    monkeypatch.setattr(gdl.ground.propnet, "build", counted)
    monkeypatch.setattr(gdl.engines.compiled, "CompiledReasoner", never)
    with caplog.at_level(logging.INFO, logger="gdl.engines"):
        assert isinstance(gdl.load(GAME).reasoner, DatalogReasoner)
    assert len(built) == 1
    assert "the compiled functions would take about" in caplog.text


@pytest.mark.parametrize("phase", ["network", "code"])
def test_the_budget_stops_a_phase_that_runs_over(
    phase: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A phase that passes its estimate is stopped at its next checkpoint by auto's one budget."""
    stopped: list[str] = []

    def endless(*args: Any, **kwargs: Any) -> Any:
        try:
            while True:
                checkpoint()
        except BudgetExceededError as problem:
            stopped.append(str(problem))
            raise

    monkeypatch.setattr(gdl.engines, "AUTO_MAX_SECONDS", 0.5)
    if phase == "network":
        monkeypatch.setattr(gdl.ground.propnet, "build", endless)
    else:
        monkeypatch.setattr(gdl.engines.compiled, "CompiledReasoner", endless)
    with caplog.at_level(logging.INFO, logger="gdl.engines"):
        assert isinstance(gdl.load(GAME).reasoner, DatalogReasoner)
    assert stopped == ["building the compiled engine took more than its budget of 0.5 s of CPU time"]
    assert "gave up after" in caplog.text


def test_auto_does_not_outlive_the_budget_of_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    """When loading as a whole is out of time, auto does not go on to the Datalog evaluator."""
    def endless(*args: Any, **kwargs: Any) -> Any:
        while True:
            checkpoint()

    monkeypatch.setattr(gdl.ground.propnet, "build", endless)
    checked = gdl.load(GAME, engine="datalog").checked
    spent = pytest.raises(BudgetExceededError, match="loading took more than")
    with spent, budget("loading", 0.3, total=True):
        gdl.engines.make_reasoner(checked)


def test_a_large_static_relation_skips_the_trial_of_the_game_as_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The game as written would index the large relation whole just to be timed; the demand-driven
    rewriting asks it for a few facts, so it is chosen without a trial."""
    import gdl.engines.datalog

    text = """
    (role p) (init (at 1)) (succ 1 2) (succ 2 3) (succ 3 4)
    (<= (near ?x ?y) (succ ?x ?y)) (<= (near ?x ?y) (succ ?y ?x))
    (<= (legal p (go ?y)) (true (at ?x)) (near ?x ?y))
    (<= (next (at ?y)) (does p (go ?y)))
    (<= terminal (true (at 4))) (<= (goal p 100) (true (at 4))) (<= (goal p 0) (not (true (at 4))))
    """
    monkeypatch.setattr(gdl.engines.datalog, "LARGE_STATIC", 3)
    monkeypatch.setattr(gdl.engines.datalog, "_faster", never)
    game = gdl.parse(text, engine="datalog")
    assert isinstance(game.reasoner, DatalogReasoner) and game.reasoner.demand_driven
    assert [str(move) for move in game.initial_state().legal_moves("p")] == ["(go 2)"]
