"""Monte Carlo CFR sampled through the engine (no stored tree) and its statistical lower bound of the
exploitability, checked against the exact exploitability of the same strategy on the stored tree."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import run
from support.paths import GAMES
from test_extensive_generate import gdl2_games

import gdl
from gdl.errors import ArraysUnsupportedError, GdlError, GdlSourceError
from gdl.extensive.best_response import plans_exploitability
from gdl.extensive.from_gdl import load_gdl2
from gdl.extensive.generate import GameTree, generate_tree
from gdl.extensive.sampled_bound import exploitability_lower_bound
from gdl.extensive.sampling import Sampler, sample_mccfr
from gdl.extensive.sequence import SequenceForm
from gdl.game import Game


def _stored(name: str) -> tuple[Game, GameTree, SequenceForm]:
    path = GAMES / f"{name}.kif"
    game = load_gdl2(path.read_text(), str(path))
    tree = generate_tree(game)
    return game, tree, SequenceForm.from_tree(tree)


@pytest.fixture(scope="module")
def kuhn() -> tuple[Game, GameTree, SequenceForm]:
    return _stored("kuhn")


def _exact(sampler: Sampler, tree: GameTree, form: SequenceForm) -> float:
    return plans_exploitability(form, *sampler.average_plans(tree, form)).exploitability


def _falls_and_stays_above_its_bound(
    stored: tuple[Game, GameTree, SequenceForm], checkpoints: tuple[int, ...], plays: int
) -> list[float]:
    game, tree, form = stored
    sampler = Sampler(game, seed=5)
    exact, done = [], 0
    for iterations in checkpoints:
        run_ = sample_mccfr(sampler, iterations - done, start=done)
        assert (run_.iterations, run_.stopped) == (iterations - done, "iterations")
        done = iterations
        exact.append(_exact(sampler, tree, form))
        bound = exploitability_lower_bound(sampler, plays)
        assert bound.evaluation_plays == plays and bound.learning_plays == plays
        assert 0 <= bound.lower <= exact[-1], (iterations, bound, exact[-1])
        # The responders learnt are no better than best responses.
        assert bound.estimate <= exact[-1] + 5 * (bound.estimate - bound.lower) + 1e-9
    assert exact == sorted(exact, reverse=True) and exact[-1] < exact[0] / 2, exact
    return exact


Stored = tuple[Game, GameTree, SequenceForm]


def test_sampled_mccfr_on_kuhn_falls_and_its_lower_bound_holds(kuhn: Stored) -> None:
    exact = _falls_and_stays_above_its_bound(kuhn, (1_000, 10_000, 100_000), 50_000)
    assert exact[-1] < 0.03


def test_sampled_mccfr_touches_every_information_set_of_kuhn(kuhn: Stored) -> None:
    game, tree, _ = kuhn
    sampler = Sampler(game, seed=1)
    sample_mccfr(sampler, 5_000)
    players = dict(zip(tree.players, (int((tree.set_player == k).sum()) for k in range(2)), strict=True))
    assert sampler.infosets() == players == {"player1": 6, "player2": 6}
    assert sampler.constant == 100


def test_sampled_mccfr_on_leduc_falls_and_its_lower_bound_holds() -> None:
    exact = _falls_and_stays_above_its_bound(_stored("leduc"), (2_000, 40_000), 20_000)
    assert exact[-1] < 1.5


@pytest.mark.slow
def test_sampled_mccfr_on_leduc_for_long() -> None:
    exact = _falls_and_stays_above_its_bound(_stored("leduc"), (1_000, 10_000, 100_000, 1_000_000), 200_000)
    assert exact[-1] < 0.3


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**20), iterations=st.integers(1, 3_000))
def test_the_lower_bound_never_exceeds_the_exact_exploitability(
    kuhn: tuple[Game, GameTree, SequenceForm], seed: int, iterations: int
) -> None:
    game, tree, form = kuhn
    sampler = Sampler(game, seed=seed)
    sample_mccfr(sampler, iterations)
    bound = exploitability_lower_bound(sampler, 20_000)
    assert bound.lower <= _exact(sampler, tree, form)


def test_gdl_solve_samples_a_game_too_large_to_store(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GDL_MEMORY_MB", "1")  # spoof's arrays do not fit; its sampled tables do
    command = ("solve", str(GAMES / "spoof.kif"), "--method", "mccfr", "--iterations", "3000")
    status, out, _ = run(capsys, *command, "--json")
    report = json.loads(out)
    assert status == 1 and report["solved"] is False
    assert (report["method"], report["tree"], report["iterations"]) == ("mccfr", "sampled", 3000)
    assert report["exploitability_bound"]["kind"] == "statistical lower bound"
    assert report["exploitability_bound"]["confidence"] == 0.95
    assert report["size"]["nodes"] == 16_381 and "sampled instead of stored" in report["reason"]
    assert 0 < report["infosets"]["flipper"] <= 364 and 0 < report["infosets"]["hider"] <= 2047
    assert 0 <= report["exploitability_bound"]["lower_bound"] <= 50  # goals 0..100: payoffs within 50 of 0
    status, out, _ = run(capsys, *command)
    assert status == 1 and "exploitability at least" in out and "not a proof" in out
    assert "information sets touched: flipper" in out
    # --method auto samples it too, until the tables fill the half megabyte.
    status, out, _ = run(capsys, "solve", str(GAMES / "spoof.kif"), "--json", "--time-limit", "3")
    report = json.loads(out)
    assert status == 1 and report["tree"] == "sampled" and report["stopped"] == "memory"
    assert "exploitability" not in report  # no exploitability measured: a bound of it only


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gdl2_games())
def test_random_gdl2_games_sample_the_information_sets_of_their_tree(text: str) -> None:
    try:
        game = gdl.parse(text, file="random.kif")
    except GdlError:
        return  # a drawn game that breaks GDL: nothing to sample
    sampler = Sampler(game, seed=2)
    try:
        tree = generate_tree(game)
    except ArraysUnsupportedError:  # the drawn goals are not constant-sum, or the game is odd
        if len(game.players) == 2:
            with pytest.raises(GdlSourceError, match=r"do not sum to the same|no goal value|forgets"):
                sample_mccfr(sampler, 20_000)
        return
    sample_mccfr(sampler, 20_000)
    found = sampler.tree_sets(tree)
    # Every information set sampled is one of the tree's, numbered once (not every one of the tree's
    # need be sampled: the player not updated follows its current strategy, which may skip actions).
    assert sorted(found[found >= 0]) == list(range(sampler.sets))
    assert (sampler.sets > 0) == (len(found) > 0)
    if (tree.set_player == 0).any() and (tree.set_player == 1).any():  # a sequence form of two sides
        form = SequenceForm.from_tree(tree)
        assert _exact(sampler, tree, form) >= -1e-12


@pytest.mark.slow
def test_gdl_solve_samples_kriegtictactoe_within_its_time_limit(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "solve", str(GAMES / "kriegtictactoe.kif"), "--json", "--time-limit", "20")
    report = json.loads(out)
    assert status == 1 and report["size"]["nodes"] == 16_363_068_211
    assert report["method"] == "mccfr" and report["tree"] == "sampled" and report["stopped"] == "time"
    assert report["iterations"] > 10_000 and report["seconds"] < 25
    assert report["exploitability_bound"]["kind"] == "statistical lower bound"
    assert report["exploitability_bound"]["lower_bound"] >= 0
