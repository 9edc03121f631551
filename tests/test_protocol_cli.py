"""``gdl serve`` and ``gdl host`` from the command line: a served player, a hosted match, bad input."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.protocol import request, serve_process

import gdl
from gdl.cli import main

GAMES = Path(__file__).resolve().parent.parent / "games"
TICTACTOE = str(GAMES / "tictactoe.kif")


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    with serve_process("--player", "random:seed=5", "--name", "cli-test", "--capacity", "4") as url:
        yield url


def test_serve_answers_info(served: str) -> None:
    status, content_type, body = request(served, b"(INFO)")
    assert (status, content_type, body) == (200, "text/acl", b"((name cli-test) (status available))")


def test_host_plays_a_match_and_writes_the_record(
    served: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record_file = tmp_path / "match.json"
    argv = ["host", TICTACTOE, "-p", f"xplayer={served}", "-p", "oplayer=random:seed=1"]
    status = main([*argv, "--start-clock", "5", "--play-clock", "1", "-o", str(record_file), "-q"])
    assert status == 0
    assert "goals: xplayer" in capsys.readouterr().out
    record = json.loads(record_file.read_text())
    assert record["isCompleted"] is True and record["playerNamesFromHost"] == [served, "random"]
    assert all(error == "" for step in record["errors"] for error in step)
    # The record replays under the rules to the goals it states.
    game = gdl.load(TICTACTOE)
    state = game.initial_state()
    for moves in record["moves"]:
        state = state.next(dict(zip(game.roles, moves, strict=True)))
    assert state.is_terminal()
    assert [state.goals()[role] for role in game.roles] == record["goalValues"]


def test_host_rounds_a_fractional_clock_and_says_so(
    served: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["host", TICTACTOE, "-p", f"xplayer={served}", "-p", "oplayer=random:seed=1", "-q"]
    assert main([*argv, "--start-clock", "5", "--play-clock", "1.4"]) == 0
    assert "--play-clock 1.4 rounded to 1 s" in capsys.readouterr().err


def test_host_says_so_when_a_player_never_answers(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as silent:  # listens, never accepts nor answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        argv = ["host", TICTACTOE, "-p", f"xplayer={url}", "-p", "oplayer=random:seed=1", "-q"]
        status = main([*argv, "--start-clock", "1", "--play-clock", "1", "--grace", "0.1"])
    assert status == 1
    assert "never answered with a legal move" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("players", "complaint"),
    [
        (["random", "random", "random"], "3 players given for 2 role(s)"),
        (["xplayer=random", "ghost=random"], "unknown role: 'ghost'"),
        (["xplayer=random", "xplayer=random"], "given two players"),
        (["xplayer=random", "oplayer"], "unknown player kind: 'oplayer'"),
        (["xplayer=random", "oplayer=wizard"], "unknown player kind"),
    ],
)
def test_host_refuses_bad_players(
    players: list[str], complaint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["host", TICTACTOE, *(item for player in players for item in ("-p", player))]
    assert main(argv) == 2
    assert complaint in capsys.readouterr().err


def test_host_takes_players_in_role_order_and_random_for_the_others(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["host", TICTACTOE, "-p", "legal", "--seed", "1", "-q"]) == 0
    captured = capsys.readouterr()
    assert "tictactoe: xplayer = legal, oplayer = random" in captured.out
    assert "no --player for oplayer: a random player plays it" in captured.err


def test_a_player_that_refuses_start_is_sent_nothing_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "serve.log"
    saved = str(tmp_path / "m.json")
    # One match at a time: the START that comes second is answered busy.
    with serve_process("--player", "random", "-v", log=log) as url:
        argv = ["host", TICTACTOE, "-p", f"xplayer={url}", "-p", f"oplayer={url}", "-q", "-o", saved]
        status = main([*argv, "--start-clock", "5", "--play-clock", "1"])
    assert status == 1
    err = capsys.readouterr().err
    (role,) = re.findall(r"the player of (\w+) \(", err)  # the other role plays on
    assert "(first error: HTTP 503: busy: " in err
    record = json.loads((tmp_path / "m.json").read_text())
    refused = [step[record["roles"].index(role)] for step in record["errors"]]
    assert refused and set(refused) == {"CE"}  # ggp-base's code: a connection error
    assert log.read_text().count("(PLAY gdl.tictactoe") == len(record["moves"])  # the other role's only


def test_host_refuses_a_broken_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.kif"
    broken.write_text("(role robot) (<= (legal robot ?m))\n")
    assert main(["host", str(broken), "-p", "robot=random"]) == 2
    assert "has errors" in capsys.readouterr().err


def test_serve_refuses_a_bad_player_and_a_taken_port(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--player", "wizard"]) == 2
    assert "unknown player kind" in capsys.readouterr().err
    assert main(["serve", "--player", "random", "--margin", "-1"]) == 2
    assert "--margin must not be negative" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--host", "127.0.0.1", "--port", str(port), "--player", "random"]) == 2
    assert "cannot listen" in capsys.readouterr().err
