"""The state-machine API takes the obvious argument forms and documents what it exports."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import gdl
from gdl.errors import KifSyntaxError

GAMES = Path(__file__).resolve().parent.parent / "games"


@pytest.fixture(scope="module")
def tictactoe() -> gdl.Game:
    return gdl.load(GAMES / "tictactoe.kif")


def test_a_state_from_one_text_of_fluents(tictactoe: gdl.Game) -> None:
    state = tictactoe.state("(cell 1 1 x) (control oplayer)")
    assert state == tictactoe.state(["(cell 1 1 x)", "(control oplayer)"])
    assert {str(f) for f in state.fluents()} == {"(cell 1 1 x)", "(control oplayer)"}
    with pytest.raises(KifSyntaxError, match="not terms: '\\(cell 1 1'"):
        tictactoe.state("(cell 1 1")


def test_a_joint_move_in_role_order(tictactoe: gdl.Game) -> None:
    start = tictactoe.initial_state()
    assert start.next(["(mark 1 1)", "noop"]) == start.next({"xplayer": "(mark 1 1)", "oplayer": "noop"})
    with pytest.raises(ValueError, match="one move per role \\(xplayer, oplayer\\)"):
        start.next(["noop"])


def test_joint_moves_enumerate_every_legal_combination(tictactoe: gdl.Game) -> None:
    start = tictactoe.initial_state()
    joints = start.joint_moves()
    assert joints[:2] == [{"xplayer": m, "oplayer": n} for m, n in zip(
        start.legal_moves("xplayer")[:2], start.legal_moves("oplayer") * 2, strict=True
    )]
    assert len(joints) == 9 and all(str(j["oplayer"]) == "noop" for j in joints)
    for joint in joints:
        start.next(joint)  # each one is legal
    end = start
    for move in ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)", "(mark 1 3)"]:
        mover = next(role for role in tictactoe.roles if str(end.legal_moves(role)[0]) != "noop")
        end = end.next({role: move if role == mover else "noop" for role in tictactoe.roles})
    assert end.is_terminal() and end.joint_moves() == []


def test_everything_exported_is_documented() -> None:
    for name in gdl.__all__:
        exported = getattr(gdl, name)
        assert inspect.getdoc(exported), name
        if inspect.isclass(exported) and exported.__module__ == "gdl.game":
            for member, value in vars(exported).items():
                if not member.startswith("_") and callable(value):
                    assert inspect.getdoc(value), f"{name}.{member}"
    assert gdl.__version__ and gdl.__version__[0].isdigit()
