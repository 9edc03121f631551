"""GDL-II over HTTP: the manager sends each player only its turn, own last move and percepts, as the
Dresden GameController does; the player server plays from that view; ``gdl serve`` and ``gdl host``."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from support.protocol import Background, request, scripted, serve_process, serving
from support.recording_player import Recording, check_calls
from support.timing import slack

import gdl
from gdl.cli import main
from gdl.protocol.manager import Network, host
from gdl.protocol.messages import Abort, Message, PlayII, Start, StopII, format_message
from gdl.protocol.seats import Follower, Seen
from gdl.protocol.server import PlayerServer
from gdl.syntax.model import Term
from gdl.views import View

GAMES = Path(__file__).resolve().parent.parent / "games"
#: The players here answer at once: a generous clock costs nothing and keeps a loaded machine from making
#: them late (a late player is skipped a turn, and its calls would no longer be one per step).
PLAY_CLOCK = 10.0


@pytest.fixture(scope="module")
def network() -> Iterator[Network]:
    with Network() as network:
        yield network


@pytest.fixture(scope="module")
def background() -> Iterator[Background]:
    loop = Background()
    yield loop
    loop.close()


def game(name: str) -> gdl.Game:
    return gdl.load(GAMES / f"{name}.kif")


@pytest.mark.parametrize("name", ["montyhall", "spoof", "kriegtictactoe"])
def test_served_players_are_handed_exactly_their_views_through_the_protocol(
    name: str, network: Network
) -> None:
    """The recording players sit behind a player server; the manager's record says what they should have
    been handed. Each sees its own moves, its percepts and its legal moves, and nothing else."""
    played = game(name)
    made: list[Recording] = []

    def make() -> Recording:
        made.append(Recording(len(made)))
        return made[-1]

    with serving(PlayerServer(make, margin=0.1, capacity=10)) as url:
        record = host(played, {r: url for r in played.players}, 10.0, PLAY_CLOCK, network=network, seed=3)
        # The server may still be telling its players of the STOP it answered: give it time, not a race.
        waited = time.monotonic() + 30
        while time.monotonic() < waited and not all(p.calls and p.calls[-1][0] == "stop_view" for p in made):
            time.sleep(0.05)
    assert record.completed, record.abort_reason
    assert all(record.error_count(r) == 0 for r in played.players)
    assert len(made) == len(played.players)
    for player in made:
        check_calls(player, record, player.role, played)


class Recorder:
    """A scripted remote player: answers every PLAY with ``answer`` and keeps every message."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.messages: list[Message] = []

    async def __call__(self, message: Any) -> bytes:
        self.messages.append(message)
        return b"ready" if isinstance(message, Start) else self.answer


def test_the_messages_carry_the_turn_the_move_played_for_the_player_and_its_percepts(
    background: Background, network: Network
) -> None:
    monty = game("montyhall")
    # "stay" is legal only at the last step: elsewhere the manager picks a legal move for the player,
    # and the next message must say which.
    recorder = Recorder(b"stay")
    with scripted(background, recorder) as url:
        record = host(monty, {"candidate": url}, 10.0, PLAY_CLOCK, network=network, seed=5)
    assert record.completed
    start, *plays, stop = recorder.messages
    assert isinstance(start, Start) and start.role == "candidate"
    assert [type(m) for m in plays] == [PlayII] * 4 and isinstance(stop, StopII)
    assert plays[0] == PlayII(record.match_id, 0, None, None)
    for turn, message in enumerate([*plays[1:], stop], 1):
        assert isinstance(message, PlayII | StopII) and message.turn == turn
        assert str(message.move) == record.moves[turn - 1]["candidate"]
        assert sorted(map(str, message.percepts or ())) == record.percepts[turn - 1]["candidate"]
    # Nature's moves (where the car is, which door is opened) never travel except as the percept.
    sent = " ".join(format_message(m) for m in recorder.messages[1:])
    assert "hide_car" not in sent and "open_door" not in sent and "(opened" in sent
    assert record.moves[3]["candidate"] == "stay" and record.error_count("candidate") == 3


def test_an_aborted_gdl2_match_sends_abort(background: Background, network: Network) -> None:
    recorder = Recorder(b"noop")
    with scripted(background, recorder) as url:
        record = host(game("montyhall"), {"candidate": url}, 10.0, PLAY_CLOCK, network=network, max_steps=2)
    assert record.aborted and isinstance(recorder.messages[-1], Abort)


@pytest.fixture(scope="module")
def monty_server() -> Iterator[str]:
    server = PlayerServer(lambda: gdl.players.make_player("hyperplay:iterations=10", 1), margin=0.1)
    with serving(server) as url:
        yield url


def _post(url: str, text: str) -> tuple[int, str]:
    status, _, body = request(url, text.encode())
    return status, body.decode()


def test_the_player_server_follows_a_gdl2_match_from_its_percepts(monty_server: str) -> None:
    rules = (GAMES / "montyhall.kif").read_text()
    assert _post(monty_server, f"(START m1 candidate ({rules}) 30 10)") == (200, "ready")
    assert _post(monty_server, "(PLAY m1 0 NIL NIL)") == (200, "noop")
    status, chosen = _post(monty_server, "(PLAY m1 1 noop ())")
    assert status == 200 and chosen in ("(choose 1)", "(choose 2)", "(choose 3)")
    door = chosen[-2]
    other = next(d for d in "123" if d != door)
    assert _post(monty_server, f"(PLAY m1 2 {chosen} ())") == (200, "noop")
    # The host opened a door: the player knows the car is behind the third one with probability 2/3.
    assert _post(monty_server, f"(PLAY m1 3 noop ((opened {other})))") == (200, "switch")
    assert _post(monty_server, "(STOP m1 4 switch ())") == (200, "done")


@pytest.mark.parametrize(
    ("messages", "complaint"),
    [
        (["(PLAY m2 2 noop ())"], "turn 2 after 0 turn(s)"),
        (["(PLAY m2 0 NIL NIL)", "(PLAY m2 3 noop ())"], "turn 3 after 0 turn(s)"),
        (["(PLAY m2 0 NIL NIL)", "(PLAY m2 1 noop ((opened 1)))"], "cannot follow"),
        (["(PLAY m2 0 NIL NIL)", "(PLAY m2 1 (choose 1) ())"], "cannot follow"),
    ],
)
def test_percepts_or_turns_that_cannot_be_are_refused(
    monty_server: str, messages: list[str], complaint: str
) -> None:
    rules = (GAMES / "montyhall.kif").read_text()
    assert _post(monty_server, f"(START m2 candidate ({rules}) 30 10)") == (200, "ready")
    try:
        *fine, bad = messages
        for message in fine:
            assert _post(monty_server, message)[0] == 200
        status, body = _post(monty_server, bad)
        assert status == 400 and complaint in body, body
        # The match goes on as if the bad message had not come.
        assert _post(monty_server, f"(PLAY m2 {len(fine)} {'noop ()' if fine else 'NIL NIL'})")[0] == 200
    finally:
        _post(monty_server, "(ABORT m2)")


def test_nature_is_not_served(monty_server: str) -> None:
    rules = (GAMES / "montyhall.kif").read_text()
    status, body = _post(monty_server, f"(START m3 random ({rules}) 30 10)")
    assert status == 400 and "nature" in body


def test_gdl_serve_and_gdl_host_play_a_gdl2_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record_file = tmp_path / "monty.json"
    with serve_process("--player", "hyperplay:iterations=10", "--seed", "2") as url:
        argv = ["host", str(GAMES / "montyhall.kif"), "-p", f"candidate={url}", "--seed", "4"]
        # Generous clocks for a loaded machine: the player answers at once anyway.
        assert main([*argv, "--start-clock", "30", "--play-clock", "10", "-o", str(record_file), "-q"]) == 0
    assert "goals: candidate" in capsys.readouterr().out
    data = json.loads(record_file.read_text())
    assert data["isCompleted"] and data["roles"] == ["candidate", "random"]
    assert data["moves"][3][0] == "switch" and all(e == "" for step in data["errors"] for e in step)
    assert data["percepts"][2][0][0].startswith("( opened ")


@pytest.mark.parametrize(
    ("players", "complaint"),
    [
        (["candidate=random", "random=random"], "'random' is nature"),
        (["random", "random"], "2 players given for 1 role(s)"),
    ],
)
def test_host_refuses_a_player_for_nature(
    players: list[str], complaint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["host", str(GAMES / "montyhall.kif")] + [a for p in players for a in ("-p", p)]
    assert main(argv) == 2
    assert complaint in capsys.readouterr().err


class StuckInView(Recording):
    """Thinks two seconds past every deadline: still busy when the next PLAY comes."""

    def play_view(self, view: View, deadline: float) -> Term:
        time.sleep(max(0.0, deadline - time.monotonic()) + 2.0)
        return view.legal[0]


@pytest.mark.parametrize("processes", [False, True], ids=["thread", "process"])
def test_a_stuck_gdl2_player_still_answers_legal_moves_in_time(processes: bool) -> None:
    """The server's referee follows the match from the percepts while the player is busy."""
    krieg = game("kriegtictactoe")
    rules = (GAMES / "kriegtictactoe.kif").read_text()
    state = krieg.initial_state()
    # A wide margin: on a loaded machine the server needs it to answer within the clock.
    with serving(PlayerServer(partial(StuckInView, 0), margin=1.0, processes=processes)) as url:
        assert _post(url, f"(START m xplayer ({rules}) 5 2)") == (200, "ready")
        last = "NIL NIL"
        for turn in range(4):
            sent = time.monotonic()
            status, move = _post(url, f"(PLAY m {turn} {last})")
            # within the play clock (less the margin), whatever the player does; late only by the load
            assert time.monotonic() - sent < 1.0 + slack(1.0)
            assert status == 200 and state.is_legal("xplayer", move), move
            joint = {"xplayer": move, "oplayer": str(state.legal_moves("oplayer")[0])}
            seen = " ".join(map(str, state.percepts(joint)["xplayer"]))
            state = state.next(joint)
            last = f"{move} ({seen})"
        assert _post(url, "(ABORT m)") == (200, "aborted")


@pytest.mark.parametrize("name", ["spoof", "kriegtictactoe", "kuhn", "leduc"])
def test_a_seat_knows_its_legal_moves_from_its_percepts_alone(name: str) -> None:
    rules = (GAMES / f"{name}.kif").read_text()
    played = game(name)
    for seed in range(3):
        rng = random.Random(seed)
        for role in played.players:
            follower = Follower(rules, role, "auto")
            follower.open()
            state = played.initial_state()
            while not state.is_terminal():
                joint = {r: rng.choice(state.legal_moves(r)) for r in played.roles}
                seen = tuple(state.percepts(joint)[role])
                state = state.next(joint)
                legal = follower.follow([Seen(joint[role], seen)])
                if not state.is_terminal():
                    assert list(legal) == state.legal_moves(role)
            assert follower.state is None and follower.view is not None
