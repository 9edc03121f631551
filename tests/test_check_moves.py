"""``does`` of moves that some ``legal`` rule can produce; goal values from 0 to 100."""

from __future__ import annotations

import pytest
from support.check import GAME, diagnose, located, span_of

from gdl.diagnostics import Diagnostic, Level


def _only(extra: str, code: str) -> list[Diagnostic]:
    return [d for d in diagnose(extra) if d.code == code]


def test_a_does_of_a_move_no_legal_rule_gives_is_a_warning_at_the_move() -> None:
    extra = "(<= (next r) (does robot goo))\n(<= terminal (true r))\n"
    (found,) = _only(extra, "impossible-move")
    assert found.level is Level.WARNING
    assert found.message == "no 'legal' rule gives the move 'goo' to 'robot'"
    assert span_of(found) == located(GAME + extra, "goo", len(GAME))
    assert "always false" in found.notes[0]


@pytest.mark.parametrize(
    "extra",
    [
        "(<= (next r) (does robot go))\n(<= terminal (true r))\n",  # the move itself
        "(<= (next r) (does ?who go))\n(<= terminal (true r))\n",  # any role
        "(<= (legal robot (step ?n)) (true (at ?n)))\n(<= (next (at ?n)) (does robot (step ?n)))\n"
        "(<= (next r) (does robot (step 1)))\n(<= terminal (true r))\n",  # an instance of a pattern
        "(<= (next r) (does robot ?m))\n(<= terminal (true r))\n",  # a variable move
    ],
)
def test_moves_a_legal_rule_can_give_pass(extra: str) -> None:
    assert _only(extra, "impossible-move") == []


def test_a_move_of_another_role_or_shape_is_caught() -> None:
    extra = "(<= (legal robot (step ?n)) (true (at ?n)))\n(<= (next (at ?n)) (does robot (step ?n ?n)))\n"
    (found,) = _only(extra, "impossible-move")
    assert "'(step ?n ?n)'" in found.message
    extra = "(role other)\n(legal other wait)\n(goal other 0)\n(<= (next r) (not (does other go)))\n"
    (found,) = _only(extra, "impossible-move")
    assert "'go' to 'other'" in found.message and "always true" in found.notes[0]


@pytest.mark.parametrize("value", ["150", "-1", "high", "7.5"])
def test_a_goal_value_outside_0_to_100_is_a_warning(value: str) -> None:
    extra = f"(<= (goal robot {value}) (true p))\n"
    (found,) = _only(extra, "goal-value")
    assert found.level is Level.WARNING and f"'{value}' is not a whole number from 0 to 100" in found.message
    assert span_of(found) == located(GAME + extra, value, len(GAME))


def test_goal_values_from_0_to_100_pass() -> None:
    assert _only("(<= (goal robot 0) (true p))\n(<= (goal robot ?x) (true (score ?x)))\n", "goal-value") == []
