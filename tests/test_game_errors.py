"""Run-time errors of games: each raises its specific exception, naming the role and the state."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support.games import STUCK

import gdl
from gdl.errors import (
    GameDefinitionError,
    IllegalMoveError,
    InvalidStateError,
    KifSyntaxError,
    UnknownRoleError,
)
from gdl.game import REPR_LIMIT

GAMES = Path(__file__).resolve().parent.parent / "games"

#: A one-role game whose score is read from the state, so no static check can see a bad value.
SCORED = """
(role solo)
(init (score {initial}))
(init (step 0))
(<= (legal solo wait) (true (step 0)))
(<= (next (step 1)) (true (step 0)))
(<= (next (score ?s)) (true (score ?s)))
(<= terminal (true (step 1)))
(<= (goal solo ?s) (true (score ?s)))
"""


def _end(text: str) -> gdl.State:
    game = gdl.parse(text, engine="datalog")
    return game.initial_state().next({"solo": "wait"})


@pytest.mark.parametrize("value", ["150", "-1", "win", "1" + "0" * 5000, "\u00b2", "\u0663"])
def test_goal_outside_0_to_100(value: str) -> None:
    expected = rf"goal value '{value}' of role 'solo' is not in 0..100 in <State"
    with pytest.raises(GameDefinitionError, match=expected):
        _end(SCORED.format(initial=value)).goals()


def test_goal_in_range_is_an_int() -> None:
    assert _end(SCORED.format(initial="100")).goals() == {"solo": 100}


def test_zero_goal_values() -> None:
    text = SCORED.format(initial="50").replace("(<= (goal solo ?s) (true (score ?s)))",
                                                "(<= (goal solo ?s) (true (score ?s)) (true (step 0)))")
    with pytest.raises(GameDefinitionError, match=r"role 'solo' has 0 goal values \(none\) in <State"):
        _end(text).goals()


def test_several_goal_values() -> None:
    text = SCORED.format(initial="50") + "(<= (goal solo 0) (true (step 1)))"
    with pytest.raises(GameDefinitionError, match=r"role 'solo' has 2 goal values \(0, 50\) in <State"):
        _end(text).goals()


def test_no_legal_move_in_a_non_terminal_state() -> None:
    state = gdl.parse(STUCK, engine="datalog").initial_state()
    assert [str(move) for move in state.legal_moves("free")] == ["(go a)"]
    expected = r"'blocked' has no legal move in non-terminal state <State \(cell a\)>"
    with pytest.raises(GameDefinitionError, match=expected):
        state.legal_moves("blocked")


@pytest.fixture
def tictactoe() -> gdl.Game:
    return gdl.load("games/tictactoe.kif", engine="datalog")


def test_joint_move_missing_a_role(tictactoe: gdl.Game) -> None:
    state = tictactoe.initial_state()
    with pytest.raises(GameDefinitionError, match=r"no move for role\(s\) oplayer in <State"):
        state.next({"xplayer": "(mark 1 1)"})
    with pytest.raises(KifSyntaxError, match=r"move of xplayer is not a term: '\(mark 1'"):
        state.next({"xplayer": "(mark 1"})  # the syntax error first: a missing role does not hide it


def test_illegal_move(tictactoe: gdl.Game) -> None:
    state = tictactoe.initial_state()
    with pytest.raises(IllegalMoveError, match=r"illegal move: '\(mark 1 1\)' for oplayer in <State"):
        state.next({"xplayer": "(mark 1 1)", "oplayer": "(mark 1 1)"})
    with pytest.raises(KifSyntaxError, match=r"move of xplayer is not a term: '\(mark 1'"):
        state.next({"xplayer": "(mark 1", "oplayer": "noop"})


def test_unknown_role(tictactoe: gdl.Game) -> None:
    state = tictactoe.initial_state()
    with pytest.raises(UnknownRoleError, match="unknown role: 'zplayer'"):
        state.legal_moves("zplayer")
    with pytest.raises(UnknownRoleError):
        state.next({"xplayer": "(mark 1 1)", "oplayer": "noop", "zplayer": "noop"})


def test_move_after_the_end() -> None:
    state = _end(SCORED.format(initial="10"))
    assert state.is_terminal()
    with pytest.raises(IllegalMoveError, match="terminal state"):
        state.next({"solo": "wait"})


def test_moves_as_text_or_terms_and_canonical_text(tictactoe: gdl.Game) -> None:
    state = tictactoe.initial_state()
    move = state.legal_moves("xplayer")[0]
    assert str(move) == "(mark 1 1)"
    by_term = state.next({"xplayer": move, "oplayer": "noop"})
    by_text = state.next({"xplayer": "(MARK   1 1)", "oplayer": "NOOP"})
    assert by_term == by_text and hash(by_term) == hash(by_text)
    assert "(cell 1 1 x)" in {str(f) for f in by_text.fluents()}


def test_errors_are_value_errors() -> None:
    for error in (GameDefinitionError, IllegalMoveError, KifSyntaxError, UnknownRoleError):
        assert issubclass(error, ValueError)


#: Bad calls on the initial state of tic-tac-toe: the exception, and the bad input its message quotes.
BAD_CALLS = [
    (lambda s: s.legal_moves("white"), UnknownRoleError, "'white'"),
    (lambda s: s.is_legal("white", "noop"), UnknownRoleError, "'white'"),
    (lambda s: s.next({"white": "noop", "xplayer": "noop", "oplayer": "noop"}), UnknownRoleError, "'white'"),
    (lambda s: s.next({"xplayer": "(mark 4 4)", "oplayer": "noop"}), IllegalMoveError, "'(mark 4 4)'"),
    (lambda s: s.next({"xplayer": "noop", "oplayer": "noop"}), IllegalMoveError, "'noop'"),
    (lambda s: s.next({"xplayer": "(mark 1", "oplayer": "noop"}), KifSyntaxError, "'(mark 1'"),
    (lambda s: s.next({"xplayer": "a b", "oplayer": "noop"}), KifSyntaxError, "'a b'"),
    (lambda s: s.next({"xplayer": "", "oplayer": "noop"}), KifSyntaxError, "''"),
    (lambda s: s.is_legal("xplayer", "(mark 1 1"), KifSyntaxError, "'(mark 1 1'"),
    (lambda s: s.next({"xplayer": "(mark 1 1)"}), GameDefinitionError, "oplayer"),
    (lambda s: s.game.state(["(stones 3)", "(control first)"]), InvalidStateError, "'(stones 3)'"),
    (lambda s: s.game.state(["(control first)"]), InvalidStateError, "'(control first)'"),
    (lambda s: s.game.state(["(cell ?x 1 b)"]), InvalidStateError, "'(cell ?x 1 b)'"),
    (lambda s: s.game.state(["(cell 1 1"]), KifSyntaxError, "'(cell 1 1'"),
]


@pytest.mark.parametrize(("call", "error", "quoted"), BAD_CALLS)
def test_bad_input_raises_its_domain_error_quoting_it_and_leaves_the_state_alone(
    tictactoe: gdl.Game, call: Callable[[gdl.State], object], error: type[ValueError], quoted: str
) -> None:
    state = tictactoe.initial_state()
    fluents, key = state.fluents(), hash(state)
    with pytest.raises(error) as caught:
        call(state)
    message = str(caught.value)
    assert type(caught.value) is error
    assert quoted in message and message[0].islower() and "\n" not in message
    assert state.fluents() == fluents and hash(state) == key and state == tictactoe.initial_state()
    assert not state.is_terminal() and len(state.legal_moves("xplayer")) == 9


def test_a_terminal_state_has_no_legal_move_and_no_successor() -> None:
    state = _end(SCORED.format(initial="10"))
    assert not state.is_legal("solo", "wait")
    with pytest.raises(IllegalMoveError, match=r"^no move is legal in terminal state <State"):
        state.next({"solo": "wait"})
    assert state.goals() == {"solo": 10}


def test_goals_of_a_non_terminal_state_are_given_where_the_rules_define_them(tictactoe: gdl.Game) -> None:
    # GDL requires goals only in terminal states; players use them earlier as a guess (minimax does).
    assert tictactoe.initial_state().goals() == {"xplayer": 0, "oplayer": 0}  # "before the end ... 0"
    late_goal = "(true (score ?s)) (true (step 1)))"
    start = gdl.parse(SCORED.format(initial="50").replace("(true (score ?s)))", late_goal))
    with pytest.raises(GameDefinitionError, match="role 'solo' has 0 goal values"):
        start.initial_state().goals()


def test_a_game_is_parsed_from_text_only() -> None:
    with pytest.raises(TypeError, match="game text must be a str, not bytes"):
        gdl.parse(b"(role x)")  # type: ignore[arg-type]


def test_a_missing_game_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        gdl.load(tmp_path / "none.kif")


def test_a_large_state_is_cut_short_in_messages() -> None:
    game = gdl.load(GAMES / "tictactoe.kif")
    state = game.initial_state()
    assert "..." not in repr(state)  # ten fluents fit
    assert repr(state).startswith("<State (cell 1 1 b) (cell 1 2 b)")
    fluents = " ".join(f"(init (f {i}))" for i in range(200))
    many = gdl.parse(f"(role r) {fluents} (legal r a) (goal r 0) terminal")
    text = repr(many.initial_state())
    assert len(text) < REPR_LIMIT + 60 and text.endswith("more fluents)>")
    shown = text.removeprefix("<State ").split(" ... ")[0].split(") (")
    assert text.endswith(f"(+{200 - len(shown)} more fluents)>")
