"""The gates only the goals read are left out of the native kernel's propagation and evaluated once at
the end of a playout: the goals read then are still the Datalog evaluator's (the kernel walks of
tests/test_engines_native.py compare them at every terminal state; here games whose goals have gates of
their own), and hanoi's steps no longer propagate its tower counts."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.engines import checked_game, replay_disagreements

from gdl.engines.compiled import CompiledReasoner
from gdl.engines.native_layout import GOAL_ENTRIES, OP, SIZES, WORK


@pytest.mark.parametrize("name", ["hanoi", "connectfour", "eightpuzzle", "cubicup_3player"])
def test_goals_evaluated_at_the_end_agree_with_datalog(corpus: Path, name: str) -> None:
    checked = checked_game(corpus / "games" / f"{name}.kif")
    kernel = CompiledReasoner(checked).kernel
    # These games have gates only their goals read.
    assert kernel.section(SIZES)[GOAL_ENTRIES] < len(kernel.section(OP))
    assert replay_disagreements(checked, range(6), 200) == []


def test_hanoi_steps_do_not_propagate_the_tower_counts(corpus: Path) -> None:
    # The goals count the tower on the third pillar (46 gates only they read): a step propagated 117
    # fanout entries with them, 88 without.
    compiled = CompiledReasoner(checked_game(corpus / "games" / "hanoi.kif"))
    sizes = compiled.kernel.section(SIZES)
    sizes[WORK] = 0
    steps = sum(compiled.kernel.playout(compiled.initial(), seed, 100).depth for seed in range(20))
    assert sizes[WORK] / steps < 100
