"""The GGP message parser: every standard message, case-insensitivity, clear errors for anything else."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gdl.errors import ProtocolError
from gdl.protocol.messages import (
    Abort,
    Info,
    Play,
    Preview,
    Start,
    Stop,
    format_message,
    parse_message,
    parse_move,
)
from gdl.syntax.model import Constant, Function
from gdl.syntax.reader import read

RULES = "(role xplayer) (role oplayer)\n(init (control xplayer))"


def test_start_keeps_the_rules_text_as_written() -> None:
    message = parse_message(f"(START Base.ttt.1 XPLAYER ({RULES}) 30 15)".encode())
    assert message == Start("Base.ttt.1", "xplayer", RULES, 30.0, 15.0)
    # The rules are cut out of the message by span, so they read back into the same clauses.
    assert read(message.rules).program == read(RULES).program


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(PLAY m1 NIL)", Play("m1", None)),
        ("(play m1 nil)", Play("m1", None)),
        (
            "( Play m1 ( (MARK 1 1) noop ) )",
            Play("m1", (Function("mark", (Constant("1"),) * 2), Constant("noop"))),
        ),
        (
            "(STOP m1 (noop (mark 3 3)))",
            Stop("m1", (Constant("noop"), Function("mark", (Constant("3"),) * 2))),
        ),
        ("(stop m1 NIL)", Stop("m1", None)),
        ("(ABORT m1)", Abort("m1")),
        ("(info)", Info()),
        ("  (INFO)\r\n", Info()),
        ("(PREVIEW ((role a)) 12.5)", Preview("(role a)", 12.5)),
    ],
)
def test_standard_messages(text: str, expected: object) -> None:
    assert parse_message(text) == expected


@pytest.mark.parametrize(
    "message",
    [
        Start("m.2", "white", RULES, 10.0, 2.5),
        Play("m.2", None),
        Play("m.2", (Function("move", (Constant("a"), Constant("b"))), Constant("noop"))),
        Stop("m.2", (Constant("noop"),)),
        Stop("m.2", None),
        Abort("m.2"),
        Info(),
        Preview(RULES, 3.0),
    ],
)
def test_format_then_parse_is_the_identity(message: object) -> None:
    assert parse_message(format_message(message)) == message  # type: ignore[arg-type]


def test_a_trailing_comment_in_the_rules_does_not_swallow_the_closing_parenthesis() -> None:
    message = Start("m", "xplayer", RULES + " ; the end", 1.0, 1.0)
    parsed = parse_message(format_message(message))
    assert isinstance(parsed, Start)
    assert read(parsed.rules).program == read(RULES).program


@pytest.mark.parametrize(
    ("data", "complaint"),
    [
        (b"\xff\xfe(INFO)", "not UTF-8"),
        (b"", "one KIF list"),
        (b"INFO", "one KIF list"),
        (b"(INFO) (INFO)", "one KIF list"),
        (b"(INFO", "not KIF"),
        (b"()", "starts with its name"),
        (b"((play) m NIL)", "starts with its name"),
        (b"(HELLO m)", "unknown message 'HELLO'"),
        (b"(PLAY m1)", "PLAY takes 2 argument(s)"),
        (b"(START m r (role r) 1)", "START takes 5 argument(s)"),
        (b"(START (m) r ((role r)) 1 1)", "match id must be a word"),
        (b"(START m ?r ((role r)) 1 1)", "role must be a word"),
        (b"(START m r rules 1 1)", "rules must be a list"),
        (b"(START m r ((role r)) soon 1)", "start clock must be a number"),
        (b"(START m r ((role r)) 1 -1)", "play clock must be between"),
        (b"(START m r ((role r)) 1 nan)", "play clock must be between"),
        (b"(START m r ((role r)) 1 1e999)", "play clock must be between"),
        (b"(PLAY m ((mark ?x 1)))", "may not contain variables"),
        (b"(PLAY m (()))", "not a move"),
        (b"(PLAY m ())", "NIL or a list of moves"),
        (b"(PLAY m noop)", "NIL or a list of moves"),
        (b"(PLAY m (" + b"(f " * 3000 + b"x" + b")" * 3000 + b"))", "nested too deeply"),
    ],
)
def test_malformed_messages_are_clear_protocol_errors(data: bytes, complaint: str) -> None:
    with pytest.raises(ProtocolError, match=complaint.replace("(", r"\(").replace(")", r"\)")):
        parse_message(data)


def test_error_messages_quote_only_the_start_of_a_huge_input() -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_message(b"x" * 100_000)
    assert len(str(caught.value)) < 200


def test_replies_are_read_as_ground_moves() -> None:
    assert parse_move(" ( MARK 1 2 )\n") == Function("mark", (Constant("1"), Constant("2")))
    assert parse_move("noop") == Constant("noop")
    for bad in ("", "(mark ?x 1)", "a b", "(", "error: busy"):
        with pytest.raises(ProtocolError):
            parse_move(bad)


@given(st.binary(max_size=300))
def test_any_bytes_give_a_message_or_a_protocol_error(data: bytes) -> None:
    try:
        parse_message(data)
    except ProtocolError as problem:
        assert str(problem)


KIFISH = st.lists(
    st.sampled_from(["(", ")", " ", "play", "START", "nil", "?x", "m1", "1", "noop", ";", "\n", "é", "\x00"]),
    max_size=40,
).map("".join)


@given(KIFISH)
def test_any_kif_like_text_gives_a_message_or_a_protocol_error(text: str) -> None:
    try:
        message = parse_message(text)
    except ProtocolError as problem:
        assert str(problem)
    else:
        assert parse_message(format_message(message)) == message
