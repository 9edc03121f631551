"""The player server over real HTTP on loopback: the standard exchange, several matches at once, and
survival of every malformed or unexpected request."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.protocol import Crashing, Dying, FirstLegal, Overrunning, Stuck, request, serving
from support.timing import slack

import gdl
from gdl.protocol.server import PlayerServer

GAMES = Path(__file__).resolve().parent.parent / "games"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serving(PlayerServer(FirstLegal, name="tester", margin=0.1)) as url:
        yield url


def post(url: str, text: str | bytes) -> tuple[int, str]:
    status, content_type, body = request(url, text.encode() if isinstance(text, str) else text)
    assert content_type == "text/acl"
    return status, body.decode("utf-8", "replace")


def rules(name: str) -> str:
    return (GAMES / name).read_text(encoding="utf-8")


def test_info_names_the_player_and_its_status(url: str) -> None:
    assert post(url, "(INFO)") == (200, "((name tester) (status available))")
    assert post(url, "( info )") == (200, "((name tester) (status available))")


def test_options_preflight_and_get_get_cors_headers(url: str) -> None:
    status, _, body = request(url, method="OPTIONS")
    assert (status, body) == (200, b"")
    # ggp-base puts the message in the path of a GET request.
    status, content_type, body = request(url, method="GET", path="/(INFO)")
    assert (status, content_type, body) == (200, "text/acl", b"((name tester) (status available))")


@pytest.mark.parametrize(
    ("body", "complaint"),
    [
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"(PLAY nobody NIL)", "unknown match id 'nobody'"),
        (b"(STOP nobody NIL)", "unknown match id 'nobody'"),
        (b"(ABORT nobody)", "unknown match id 'nobody'"),
        (b"(START m1 robot ((role robot) (init)) 10 10)", "fail the checker"),
        (b"(START m1 ghost (BUTTONS) 10 10)", "not a role of the game"),
        (b"(PREVIEW ((<= (legal ?r a))) 10)", "fail the checker"),
        (b"(DANCE)", "unknown message 'DANCE'"),
    ],
)
def test_bad_requests_get_a_clear_error_reply(url: str, body: bytes, complaint: str) -> None:
    status, text = post(url, body.replace(b"BUTTONS", rules("buttons.kif").encode()))
    assert status == 400
    assert text.startswith("error: ") and complaint in text
    # ... and the server still answers.
    assert post(url, "(INFO)")[0] == 200


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=200) | st.text(alphabet="()?;abc PLAYSTOP\n1", max_size=60).map(str.encode))
def test_any_bytes_over_http_give_a_reply_never_a_crash(url: str, body: bytes) -> None:
    status, text = post(url, body)
    assert status in (200, 400)
    assert status == 200 or text.startswith("error: ")
    assert post(url, "(INFO)")[0] == 200


def test_a_whole_match_by_hand(url: str) -> None:
    game = gdl.parse(rules("buttons.kif"))
    text = rules("buttons.kif")
    assert post(url, f"(START hand.1 robot ({text}) 10 5)") == (200, "ready")
    assert post(url, "(START hand.1 robot ((role robot)) 10 5)")[0] == 400  # the id is taken
    state = game.initial_state()
    moves = "NIL"
    while not state.is_terminal():
        status, move = post(url, f"(PLAY hand.1 {moves})")
        assert status == 200
        assert state.is_legal("robot", move)
        state = state.next({"robot": move})
        moves = f"({move})"
    assert post(url, f"(PLAY hand.1 {moves})")[0] == 400  # nothing to play in a terminal state
    assert post(url, f"(STOP hand.1 {moves})") == (200, "done")
    assert post(url, "(PLAY hand.1 NIL)")[0] == 400  # the match is over


def test_moves_the_player_cannot_follow_are_refused(url: str) -> None:
    text = rules("buttons.kif")
    assert post(url, f"(START follow.1 robot ({text}) 10 5)") == (200, "ready")
    assert "2 move(s) for 1 role(s)" in post(url, "(PLAY follow.1 (a b))")[1]
    status, reply = post(url, "(PLAY follow.1 (press))")
    assert status == 400 and "cannot follow" in reply
    status, move = post(url, "(PLAY follow.1 NIL)")
    assert status == 200
    assert post(url, f"(PLAY follow.1 ({move}))")[0] == 200
    status, reply = post(url, "(PLAY follow.1 NIL)")
    assert status == 400 and "NIL moves after 1 joint move(s)" in reply
    assert post(url, "(ABORT follow.1)") == (200, "aborted")


def test_raw_http_1_0_and_garbage_bytes_on_the_socket(url: str) -> None:
    host, port = urlsplit(url).hostname, urlsplit(url).port
    # ggp-base writes HTTP/1.0 requests by hand, with a lower-case header name.
    with socket.create_connection((host, port), timeout=10) as connection:
        connection.sendall(b"POST / HTTP/1.0\r\nContent-type: text/acl\r\nContent-length: 6\r\n\r\n(INFO)")
        reply = b"".join(iter(lambda: connection.recv(4096), b""))
    assert reply.startswith(b"HTTP/1.0 200") and reply.endswith(b"((name tester) (status available))")
    with socket.create_connection((host, port), timeout=10) as connection:
        connection.sendall(b"\x00\xff\x16\x03 not HTTP at all\r\n\r\n")
        assert connection.recv(4096).startswith(b"HTTP/1.0 400")  # from the HTTP layer
    assert post(url, "(INFO)")[0] == 200


def test_info_is_busy_while_capacity_matches_run() -> None:
    text = rules("buttons.kif")
    with serving(PlayerServer(FirstLegal, name="solo", capacity=1)) as url:
        assert post(url, f"(PREVIEW ({text}) 10)") == (200, "ready")
        assert post(url, f"(START one robot ({text}) 10 5)") == (200, "ready")
        assert post(url, "(INFO)") == (200, "((name solo) (status busy))")
        assert post(url, "(ABORT one)") == (200, "aborted")
        assert post(url, "(INFO)") == (200, "((name solo) (status available))")


def test_each_exchange_is_logged_at_debug_level(url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="gdl.protocol")
    post(url, "(INFO)")
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    assert any(line.endswith("<- (INFO)") for line in lines)  # KIF, as gdl host logs it
    assert any("-> ((name tester) (status available))" in line for line in lines)


@pytest.mark.parametrize(
    ("kind", "processes", "turns"),
    [
        (Overrunning, False, 1),
        (Overrunning, True, 1),
        (Crashing, False, 1),
        (Crashing, True, 1),
        # Still busy when the next PLAY comes, or gone: the server's referee finds the legal moves.
        (Stuck, False, 3),
        (Dying, True, 3),
    ],
    ids=["overrunning-thread", "overrunning-process", "crashing-thread", "crashing-process", "stuck", "dead"],
)
def test_a_faulty_player_still_answers_legal_moves_in_time(kind: type, processes: bool, turns: int) -> None:
    text = rules("tictactoe.kif")
    state = gdl.parse(text).initial_state()
    with serving(PlayerServer(kind, margin=0.5, processes=processes)) as url:
        # A generous start clock: on a loaded machine checking and loading the rules take a while.
        assert post(url, f"(START m xplayer ({text}) 30 2)") == (200, "ready")
        moves = "NIL"
        for _ in range(turns):
            sent = time.monotonic()
            status, move = post(url, f"(PLAY m {moves})")
            # within the play clock (less the margin), whatever the player does; late only by the load
            assert time.monotonic() - sent < 1.5 + slack(0.5)
            assert status == 200 and state.is_legal("xplayer", move)
            joint = {"xplayer": move, "oplayer": str(state.legal_moves("oplayer")[0])}
            state = state.next(joint)
            moves = f"({joint['xplayer']} {joint['oplayer']})"
        assert post(url, "(ABORT m)") == (200, "aborted")
