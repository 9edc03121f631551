"""gdl.env on games that do not instantiate: numbered by the relaxed domains, legal moves by the mask."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, parallel_api_test

import gdl
import gdl.env
from gdl.engines import AUTO_MAX_ATOMS, AUTO_MAX_SECONDS
from gdl.errors import GameTooLargeError
from gdl.ground.instantiate import instantiate

UNGROUNDED = Path(__file__).resolve().parent / "games" / "too_many_rules.kif"


def _api_tests(game: gdl.Game, cycles: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # dict observations, agents named by role
        api_test(gdl.env.env(game), num_cycles=cycles)
        parallel_api_test(gdl.env.parallel_env(game), num_cycles=cycles)


def test_a_game_that_does_not_instantiate_is_an_environment_over_its_relaxed_moves() -> None:
    game = gdl.load(UNGROUNDED)
    with pytest.raises(GameTooLargeError):
        instantiate(game.checked, AUTO_MAX_ATOMS, AUTO_MAX_SECONDS)
    aec = gdl.env.env(game)
    assert aec.action_space("a").n == 61  # (pick 0) .. (pick 59) and noop
    aec.reset(seed=1)
    observed = aec.observe("a")
    legal = {str(m) for m in game.initial_state().legal_moves("a")}
    masked = {str(aec.encoding.moves["a"][i]) for i in observed["action_mask"].nonzero()[0]}
    assert masked == legal and len(legal) == 60
    _api_tests(game, 10)


def test_pettingzoo_api_test_on_a_corpus_game_that_does_not_ground(corpus: Path) -> None:
    game = gdl.load(corpus / "games" / "sudoku.kif")
    with pytest.raises(GameTooLargeError):
        instantiate(game.checked, AUTO_MAX_ATOMS, AUTO_MAX_SECONDS)
    _api_tests(game, 5)
