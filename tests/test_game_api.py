"""The state-machine API takes the obvious argument forms and documents what it exports."""

from __future__ import annotations

import copy
import inspect
import pickle
from pathlib import Path

import pytest

import gdl
from gdl.errors import KifSyntaxError
from gdl.syntax.model import NO_SPELLINGS, Program

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


def test_a_program_without_spellings_deep_copies_and_pickles_as_one_without() -> None:
    program = Program((), "<string>")
    for copied in (copy.deepcopy(program), pickle.loads(pickle.dumps(program))):
        assert copied == program and copied.spellings is NO_SPELLINGS and dict(copied.spellings) == {}


@pytest.mark.parametrize("engine", ["datalog", "compiled"])
def test_a_game_deep_copies_with_either_engine(engine: str) -> None:
    # Gymnasium's registry deep-copies the game it is given.
    game = gdl.load(GAMES / "buttons.kif", engine=engine)
    copied = copy.deepcopy(game)
    assert [str(role) for role in copied.roles] == [str(role) for role in game.roles]
    assert sorted(map(str, copied.initial_state().legal_moves(copied.roles[0]))) == sorted(
        map(str, game.initial_state().legal_moves(game.roles[0]))
    )
