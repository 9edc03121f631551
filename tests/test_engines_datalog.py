"""The Datalog reasoner refuses a game whose relations computed once per game grow past a limit."""

from __future__ import annotations

import pytest

import gdl
import gdl.engines.datalog
from gdl.errors import GameTooLargeError

#: A static relation of 30 x 30 x 30 = 27,000 facts in a one-move game.
CUBE = " ".join(f"(n {i})" for i in range(30)) + """
    (<= (triple ?x ?y ?z) (n ?x) (n ?y) (n ?z))
    (role r) (init s) (<= (legal r go) (true s) (triple 1 2 3)) (<= (next done) (does r go))
    (<= terminal (true done)) (<= (goal r 100) (true done)) (<= (goal r 0) (true s))
"""


def test_a_static_relation_past_the_limit_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gdl.engines.datalog, "STATIC_FACT_LIMIT", 10_000)
    expected = r"cannot evaluate 'cube\.kif': more than 10000 facts of 'triple/3'"
    with pytest.raises(GameTooLargeError, match=expected):
        gdl.parse(CUBE, engine="datalog", file="cube.kif")


def test_under_the_limit_the_game_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gdl.engines.datalog, "STATIC_FACT_LIMIT", 30_000)
    state = gdl.parse(CUBE, engine="datalog", file="cube.kif").initial_state()
    assert state.next({"r": "go"}).goals() == {"r": 100}
