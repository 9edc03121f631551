"""``game.state(...)`` refuses a state the game cannot be in with :class:`InvalidStateError`, and every
engine draws the line in the same place: at the fluents that can ever hold."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.paths import GAMES

import gdl
from gdl.engines import ENGINES
from gdl.errors import InvalidStateError

GAMES_BY_ENGINE = {engine: gdl.load(GAMES / "tictactoe.kif", engine) for engine in ENGINES}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("fluent", ["(cell 1 1 q)", "(cell 9 9 x)", "(control nobody)", "(score 3)"])
def test_a_fluent_that_never_holds_is_refused_by_every_engine(engine: str, fluent: str) -> None:
    game = GAMES_BY_ENGINE[engine]
    message = re.escape(f"fluent {fluent!r} is never true in game 'tictactoe'")
    with pytest.raises(InvalidStateError, match=message):
        game.state(f"(cell 2 2 x) {fluent} (control oplayer)")


def fluent_texts() -> st.SearchStrategy[list[str]]:
    cell = st.builds(
        "(cell {} {} {})".format, st.integers(0, 4), st.integers(0, 4), st.sampled_from("xobq")
    )
    control = st.builds("(control {})".format, st.sampled_from(["xplayer", "oplayer", "nobody"]))
    return st.lists(st.one_of(cell, control), max_size=6)


@given(fluent_texts())
def test_every_engine_accepts_and_refuses_the_same_states(fluents: list[str]) -> None:
    # Tic-tac-toe's fluents that can hold: a cell of the 3x3 board with x, o or b, and either player's turn.
    turns = ("(control xplayer)", "(control oplayer)")
    valid = all(f in turns or (f[6] in "123" and f[8] in "123" and f[10] in "xob") for f in fluents)
    for engine, game in GAMES_BY_ENGINE.items():
        if valid:
            state = game.state(fluents)
            assert {str(f) for f in state.fluents()} == set(fluents), engine
        else:
            with pytest.raises(InvalidStateError):
                game.state(fluents)
