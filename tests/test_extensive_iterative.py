"""Discounted CFR and outcome-sampling Monte Carlo CFR converge on Kuhn poker, and solve_extensive
says which method it used and what it guarantees."""

from __future__ import annotations

from fractions import Fraction

import pytest
from support.paths import GAMES

from gdl.extensive import load_extensive
from gdl.extensive.best_response import plans_exploitability
from gdl.extensive.cfr import solve_cfr
from gdl.extensive.mccfr import solve_mccfr
from gdl.extensive.sequence import SequenceForm
from gdl.extensive.solving import DCFR_CONCEPT, LP_CONCEPT, MCCFR_CONCEPT, solve_extensive

KUHN_VALUE = -1 / 18


@pytest.fixture(scope="module")
def kuhn() -> SequenceForm:
    return SequenceForm.from_game(load_extensive(GAMES / "kuhn.efg"))


def test_dcfr_converges_on_kuhn(kuhn: SequenceForm) -> None:
    found = solve_cfr(kuhn, 1000, report_every=100, variant="dcfr")
    gaps = [gap for _, gap in found.history]
    assert gaps[-1] < 5e-4 < gaps[0]
    assert found.value["1"] == pytest.approx(KUHN_VALUE, abs=1e-3)
    assert plans_exploitability(kuhn, *found.plans).exploitability == pytest.approx(gaps[-1])


def test_mccfr_converges_on_kuhn(kuhn: SequenceForm) -> None:
    found = solve_mccfr(kuhn, 200_000, report_every=50_000, seed=3)
    gaps = [gap for _, gap in found.history]
    assert found.iterations == 200_000 and len(gaps) == 4
    assert gaps[-1] < 0.02 and gaps[-1] < gaps[0]
    assert found.value["1"] == pytest.approx(KUHN_VALUE, abs=0.01)
    assert plans_exploitability(kuhn, *found.plans).exploitability == pytest.approx(gaps[-1])


def test_mccfr_is_repeatable_with_its_seed(kuhn: SequenceForm) -> None:
    runs = [solve_mccfr(kuhn, 5000, report_every=5000, seed=7).plans[0] for _ in range(2)]
    assert (runs[0] == runs[1]).all()


def test_auto_takes_the_lp_for_a_small_game() -> None:
    solution = solve_extensive(load_extensive(GAMES / "kuhn.kif"))
    assert solution.method == "lp" and solution.concept == LP_CONCEPT
    assert solution.solved and solution.exact == {"player1": Fraction(-1, 18), "player2": Fraction(1, 18)}
    assert solution.to_json()["guarantee"].startswith("exact")


@pytest.mark.parametrize(("method", "concept"), [("dcfr", DCFR_CONCEPT), ("mccfr", MCCFR_CONCEPT)])
def test_iterative_methods_say_what_they_guarantee(method: str, concept: str) -> None:
    solution = solve_extensive(load_extensive(GAMES / "kuhn.efg"), method, iterations=2000)
    report = solution.to_json()
    assert (report["method"], report["concept"]) == (method, concept)
    low, high = (Fraction(b) for b in report["bounds"]["1"])
    assert low <= Fraction(-1, 18) <= high
    if not solution.solved:
        assert "exploitability" in report["guarantee"]
        assert "proven by exact best responses" in report["guarantee"]
