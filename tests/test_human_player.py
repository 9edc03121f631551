"""The human player in a game whose moves are numbers: listed in natural order, a typed move wins over
a list position, and Ctrl-D (end of input) leaves the match instead of playing a random move."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest

import gdl
from gdl.errors import PlayerLeft
from gdl.match import Match
from gdl.players.human import HumanPlayer

#: One player says a number from 1 to 12; the game ends after one move, worth the number said.
NUMBERS = """
(role p)
(n 1) (n 2) (n 3) (n 4) (n 5) (n 6) (n 7) (n 8) (n 9) (n 10) (n 11) (n 12)
(init start)
(<= (legal p ?n) (true start) (n ?n))
(<= (next (said ?n)) (does p ?n))
(<= terminal (true (said ?n)))
(<= (goal p ?n) (true (said ?n)))
(<= (goal p 0) (true start))
"""


@pytest.fixture(scope="module")
def numbers() -> gdl.Game:
    return gdl.parse(NUMBERS)


def _play(game: gdl.Game, typed: str) -> tuple[str, str]:
    out = io.StringIO()
    human = HumanPlayer(input=io.StringIO(typed), output=out)
    human.start(game, game.roles[0], 1, 1)
    return str(human.play(game.initial_state(), time.monotonic() + 1)), out.getvalue()


def test_moves_are_listed_in_natural_order(numbers: gdl.Game) -> None:
    _, shown = _play(numbers, "5\n")
    listed = re.findall(r"^\s+(\d+)\. (\S+)$", shown, re.MULTILINE)
    assert listed == [(str(i), str(i)) for i in range(1, 13)]


@pytest.mark.parametrize(("typed", "move"), [("2", "2"), ("10", "10"), (" 12 ", "12"), ("(3)", "3")])
def test_a_typed_move_is_that_move(numbers: gdl.Game, typed: str, move: str) -> None:
    assert _play(numbers, typed + "\n")[0] == move


def test_a_number_that_is_no_move_is_a_list_position() -> None:
    # in tic-tac-toe no move is a number: 2 is the second move listed
    tictactoe = gdl.load(Path(__file__).resolve().parent.parent / "games/tictactoe.kif")
    assert _play(tictactoe, "2\n")[0] == "(mark 1 2)"


def test_what_is_neither_is_asked_again(numbers: gdl.Game) -> None:
    move, shown = _play(numbers, "13\nseven\n7\n")
    assert move == "7" and shown.count("not a legal move") == 2


def test_ctrl_d_leaves_the_match(numbers: gdl.Game) -> None:
    human = HumanPlayer(input=io.StringIO(""), output=io.StringIO())
    human.start(numbers, "p", 1, 1)
    with pytest.raises(PlayerLeft, match="p left the match"):
        human.play(numbers.initial_state(), time.monotonic() + 1)
    record = Match(numbers, {"p": human}, 1, 1).run()
    assert record.aborted and record.abort_reason == "p left the match (end of input)"
    assert record.moves == [] and not record.completed


def test_a_match_against_a_person_plays_the_typed_number(numbers: gdl.Game) -> None:
    record = Match(numbers, {"p": HumanPlayer(io.StringIO("2\n"), io.StringIO())}, 1, 1).run()
    assert record.completed and record.moves == [{"p": "2"}] and record.goals == {"p": 2}



def test_a_person_is_not_asked_for_a_forced_move_even_where_programs_are() -> None:
    # As a game manager runs a match (every program asked every step): a person's only move is made
    # for them, so the moves typed are the choices.
    tictactoe = gdl.load(str(Path(__file__).resolve().parent.parent / "games/tictactoe.kif"))
    out = io.StringIO()
    human = HumanPlayer(io.StringIO("(mark 1 1)\n(mark 2 2)\n(mark 3 3)\n"), out)
    record = Match(tictactoe, {"xplayer": human, "oplayer": "legal"}, 5, 5, ask_forced=True).run()
    assert record.completed and record.goals["xplayer"] == 100
    assert [str(step["xplayer"]) for step in record.moves][::2] == ["(mark 1 1)", "(mark 2 2)", "(mark 3 3)"]
