"""The Datalog reasoner's shortcuts answer as the game does: static strata left out for their size, and
its own depth charge."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gdl.engines.datalog
from gdl.check import check_text
from gdl.engines.base import random_walk
from gdl.engines.datalog import DatalogReasoner

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", ["tictactoe.kif", "nim.kif", "buttons.kif"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(large=st.integers(0, 40), seed=st.integers(0, 2**16))
def test_any_static_relation_left_to_demand_gives_the_same_walk(
    monkeypatch: pytest.MonkeyPatch, name: str, large: int, seed: int
) -> None:
    checked = check_text((ROOT / "games" / name).read_text(encoding="utf-8"), name).checked
    assert checked is not None
    whole = DatalogReasoner(checked, demand=False)
    monkeypatch.setattr(gdl.engines.datalog, "LARGE_STATIC", large)
    demand = DatalogReasoner(checked, demand=True)
    rng = random.Random(seed)
    a, b = whole.initial(), demand.initial()
    assert whole.fluents(a) == demand.fluents(b)
    for _ in range(30):
        assert whole.terminal(a) == demand.terminal(b)
        legal = [whole.legal(a, role) for role in range(len(whole.roles))]
        assert legal == [demand.legal(b, role) for role in range(len(whole.roles))]
        if whole.terminal(a):
            break
        moves = [rng.choice(options) for options in legal]
        a, b = whole.next(a, moves), demand.next(b, moves)
        assert whole.fluents(a) == demand.fluents(b)
    assert [whole.goals(a, r) for r in range(len(whole.roles))] == [
        demand.goals(b, r) for r in range(len(whole.roles))
    ]


@pytest.mark.slow
def test_mummymaze1p_reaches_its_first_legal_moves_without_its_large_relation(corpus: Path) -> None:
    path = corpus / "games" / "mummymaze1p.kif"
    checked = check_text(path.read_text(encoding="utf-8"), str(path)).checked
    assert checked is not None
    demand = DatalogReasoner(checked)
    assert "direction-from/5" not in demand._strata.static.relations
    whole = DatalogReasoner(checked, demand=False)
    a, b = whole.initial(), demand.initial()
    rng = random.Random(3)
    for _ in range(12):
        legal = [whole.legal(a, role) for role in range(len(whole.roles))]
        assert legal == [demand.legal(b, role) for role in range(len(whole.roles))]
        assert whole.terminal(a) == demand.terminal(b)
        if whole.terminal(a):
            break
        moves = [rng.choice(options) for options in legal]
        a, b = whole.next(a, moves), demand.next(b, moves)
        assert whole.fluents(a) == demand.fluents(b)


@pytest.mark.parametrize("name", ["tictactoe.kif", "nim.kif", "buttons.kif", "rps.kif"])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), max_depth=st.integers(0, 12))
def test_the_own_depth_charge_plays_the_protocol_walk(name: str, seed: int, max_depth: int) -> None:
    checked = check_text((ROOT / "games" / name).read_text(encoding="utf-8"), name).checked
    assert checked is not None
    reasoner = DatalogReasoner(checked)
    start = reasoner.initial()
    expected = random_walk(reasoner, start, random.Random(seed), max_depth)
    assert reasoner.depth_charge(start, random.Random(seed), max_depth) == expected
