"""The kernels of a network with its reachable constants folded (:mod:`gdl.engines.folding`): from a
state that agrees with the constants the folded kernel plays, from any other the whole network's; walks
from both kinds of state are replayed through the Datalog evaluator."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from pytest import MonkeyPatch
from support.engines import checked_game, replay_disagreements

import gdl.engines.folding
import gdl.ground.simplify
from gdl.engines.compiled import CompiledReasoner
from gdl.ground.grounding import value_text


def test_hanoi_folds_its_first_disc_always_clear_and_plays_the_whole_network_where_it_is_not(
    corpus: Path,
) -> None:
    checked = checked_game(corpus / "games" / "hanoi.kif")
    compiled = CompiledReasoner(checked)
    kernels, initial = compiled.kernels, compiled.initial()
    (clear,) = [b for b in range(len(compiled.net.fluents)) if kernels.mask >> b & 1]
    assert value_text(compiled.net.fluents[clear]) == "(clear disc1)"
    assert kernels.folded.nodes < kernels.of(initial ^ 1 << clear).nodes
    assert kernels.of(initial) is kernels.folded is compiled.kernel
    rng = random.Random(3)
    reached = [compiled.depth_charge(initial, rng, depth)[0] for depth in (0, 1, 4, 9)]
    assert all(kernels.of(state) is kernels.folded for state in reached)
    # With the first disc not clear, it cannot move: the folded kernel (which takes it as clear) would
    # offer its moves, the kernel played does not.
    unreachable = [state & ~(1 << clear) for state in reached]
    for state in unreachable:
        _, folded_rows = kernels.folded.trace(state, 0, 1)
        _, whole_rows = kernels.of(state).trace(state, 0, 1)
        assert (folded_rows[0] != whole_rows[0]).any()
    assert replay_disagreements(checked, range(16), 40, (*reached, *unreachable)) == []


def test_walks_from_arbitrary_states_agree_with_datalog(corpus: Path) -> None:
    # Any bits at all, the folded base propositions included: the kernel chosen by the state is sound.
    checked = checked_game(corpus / "games" / "hanoi.kif")
    bases = len(CompiledReasoner(checked).net.fluents)

    @settings(max_examples=10, deadline=None)
    @given(st.integers(0, 2**31))
    def check(seed: int) -> None:
        rng = random.Random(seed)
        starts = tuple(rng.getrandbits(bases) for _ in range(3))
        assert replay_disagreements(checked, range(3), 20, starts) == []

    check()


def test_a_network_over_the_size_limit_is_run_as_built(corpus: Path, monkeypatch: MonkeyPatch) -> None:
    # Above the limit neither analysis runs (they cost seconds on networks of 100,000 nodes), and the
    # one kernel plays every state.
    monkeypatch.setattr(gdl.ground.simplify, "KERNEL_MAX_NODES", 0)
    monkeypatch.setattr(gdl.engines.folding, "KERNEL_MAX_NODES", 0)
    checked = checked_game(corpus / "games" / "hanoi.kif")
    compiled = CompiledReasoner(checked)
    kernels, initial = compiled.kernels, compiled.initial()
    assert kernels.mask == 0 and kernels.of(initial ^ 1) is kernels.folded
    assert gdl.ground.simplify.for_kernels(compiled.net) is compiled.net
    rng = random.Random(5)
    starts = (initial, *(rng.getrandbits(len(compiled.net.fluents)) for _ in range(3)))
    assert replay_disagreements(checked, range(3), 20, starts) == []
