"""Complete matches through the game manager against players on loopback, well-behaved or not.

The oracle for every match is the game itself: replaying the recorded moves from the initial state
must give legal moves all the way, the recorded states, a terminal state and the recorded goals.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from support.protocol import (
    Background,
    FirstLegal,
    garbage,
    late,
    scripted,
    serving,
    start_hanging_up,
)
from support.timing import clock

import gdl
from gdl.match import MatchRecord
from gdl.players import make_player
from gdl.protocol.manager import Network, host
from gdl.protocol.messages import Abort, Play, Start, Stop
from gdl.protocol.server import PlayerServer
from gdl.syntax.reader import read

GAMES = Path(__file__).resolve().parent.parent / "games"
#: Well-behaved players answer at once, so a generous clock costs nothing and keeps a busy machine from
#: making them late (stretched by the load measured: support.timing); the late player has a short one.
PLAY_CLOCK = clock(2)
START_CLOCK = clock(3)  # a player in a process of its own starts it within the start clock
SHORT_CLOCK = 1.0
GRACE = 0.2


@pytest.fixture(scope="module")
def tictactoe() -> gdl.Game:
    return gdl.load(GAMES / "tictactoe.kif")


@pytest.fixture(scope="module")
def background() -> Iterator[Background]:
    loop = Background()
    yield loop
    loop.close()


@pytest.fixture(scope="module")
def network() -> Iterator[Network]:
    with Network() as network:
        yield network


@pytest.fixture(scope="module")
def good_url() -> Iterator[str]:
    with serving(PlayerServer(FirstLegal, margin=0.1, capacity=10)) as url:
        yield url


def replay(game: gdl.Game, record: MatchRecord) -> None:
    """Check the record against the rules: legal moves, the states they lead to, the goals."""
    state = game.initial_state()
    assert record.states[0].fluents() == state.fluents()
    for step, moves in enumerate(record.moves):
        assert all(state.is_legal(role, moves[role]) for role in game.roles)
        state = state.next(moves)
        assert record.states[step + 1].fluents() == state.fluents()
    assert state.is_terminal() and record.completed and not record.aborted
    assert record.goals == state.goals()


def run(
    game: gdl.Game, players: dict[str, str], network: Network, play_clock: float = PLAY_CLOCK, **options: Any
) -> MatchRecord:
    return host(game, players, START_CLOCK, play_clock, network=network, grace=GRACE, seed=7, **options)


def test_two_remote_players_play_a_complete_match(
    tictactoe: gdl.Game, good_url: str, network: Network
) -> None:
    record = run(tictactoe, {"xplayer": good_url, "oplayer": good_url}, network)
    replay(tictactoe, record)
    assert record.error_count("xplayer") == record.error_count("oplayer") == 0
    # Both play the first legal move, so the game is fully determined: x fills the top row first.
    assert record.moves[0]["xplayer"] == "(mark 1 1)"
    json = record.to_json()
    assert json["matchId"] == record.match_id and json["isCompleted"] is True
    assert json["playerNamesFromHost"] == [good_url, good_url]


def test_a_remote_and_a_local_player(tictactoe: gdl.Game, good_url: str, network: Network) -> None:
    record = run(tictactoe, {"xplayer": "random:seed=3", "oplayer": good_url}, network)
    replay(tictactoe, record)
    assert record.error_count("xplayer") == record.error_count("oplayer") == 0


def test_late_and_garbage_replies_are_replaced_and_recorded(
    tictactoe: gdl.Game, background: Background, network: Network
) -> None:
    with (
        scripted(background, late(SHORT_CLOCK + GRACE + 0.3)) as late_url,
        scripted(background, garbage) as garbage_url,
    ):
        record = run(tictactoe, {"xplayer": late_url, "oplayer": garbage_url}, network, SHORT_CLOCK)
    replay(tictactoe, record)
    assert record.start_errors == {}
    # Late by the runner's clock or by the proxy's timeout, whichever notices first.
    assert all("within" in step["xplayer"] for step in record.errors)
    assert all(step["oplayer"] for step in record.errors)
    # ggp-base's codes, START first: a late reply is TO, one that is no move or an illegal one is IL.
    codes = record.to_json()["errors"]
    assert codes[0] == ["", ""] and len(codes) == len(record.moves) + 1
    assert all(x == "TO" for x, _ in codes[1:])
    assert all(o.startswith("IL ") or o == "CE" for _, o in codes[1:]), codes
    assert "IL ( mark 9 9 )" in {o for _, o in codes[1:]} and "IL null" in {o for _, o in codes[1:]}


def test_a_player_that_hangs_up(
    tictactoe: gdl.Game, background: Background, good_url: str, network: Network
) -> None:
    server, url = background.run(start_hanging_up())
    try:
        record = run(tictactoe, {"xplayer": good_url, "oplayer": url}, network)
    finally:
        server.close()
    replay(tictactoe, record)
    assert "connection failed" in record.start_errors["oplayer"]
    # It never took the match: it is sent no PLAY nor STOP, and each step says why.
    assert all(step["oplayer"].startswith("not sent: the player did not take the match (connection failed")
               for step in record.errors)
    assert record.error_count("xplayer") == 0
    assert not record.stop_errors.get("oplayer")
    assert all(step[1] == "CE" for step in record.to_json()["errors"])


def test_host_refuses_fractional_clocks(tictactoe: gdl.Game, good_url: str, network: Network) -> None:
    with pytest.raises(ValueError, match="whole seconds"):
        run(tictactoe, {"xplayer": good_url, "oplayer": good_url}, network, play_clock=1.5)


def test_a_huge_reply_is_refused_unread(
    tictactoe: gdl.Game, background: Background, network: Network
) -> None:
    async def huge(message: Any) -> bytes:
        return b"ready" if isinstance(message, Start) else b"(" + b"x " * (3 << 20) + b")"

    with scripted(background, huge) as url:
        record = run(tictactoe, {"xplayer": url, "oplayer": "random:seed=1"}, network, max_steps=1)
    assert "longer than" in record.errors[0]["xplayer"]


def test_a_game_file_name_with_spaces_and_parentheses(
    tictactoe: gdl.Game, good_url: str, network: Network, tmp_path: Path
) -> None:
    odd = tmp_path / "tic tac (toe).kif"
    odd.write_text((GAMES / "tictactoe.kif").read_text())
    game = gdl.load(odd)
    record = run(game, {"xplayer": good_url, "oplayer": good_url}, network)
    replay(game, record)
    assert record.error_count("xplayer") == record.error_count("oplayer") == 0
    assert " " not in record.match_id and "(" not in record.match_id


class Recorder:
    """A scripted player that keeps every message and answers only START (garbage to PLAY)."""

    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def __call__(self, message: Any) -> bytes:
        self.messages.append(message)
        return b"ready" if isinstance(message, Start) else b"?"


def test_the_player_hears_start_every_joint_move_and_stop(
    tictactoe: gdl.Game, background: Background, good_url: str, network: Network
) -> None:
    recorder = Recorder()
    with scripted(background, recorder) as url:
        record = run(tictactoe, {"xplayer": good_url, "oplayer": url}, network)
    start, *plays, stop = recorder.messages
    assert isinstance(start, Start) and (start.role, start.play_clock) == ("oplayer", PLAY_CLOCK)
    assert read(start.rules).program.rules == tictactoe.checked.program.rules  # the same clauses
    assert [type(m) for m in plays] == [Play] * len(record.moves)
    played = [tuple(str(m) for m in play.moves) if play.moves else None for play in plays]
    expected = [None, *[(step["xplayer"], step["oplayer"]) for step in record.moves[:-1]]]
    assert played == expected
    assert isinstance(stop, Stop) and tuple(map(str, stop.moves or ())) == tuple(record.moves[-1].values())
    assert {m.match_id for m in recorder.messages} == {record.match_id}


def test_an_aborted_match_sends_abort(
    tictactoe: gdl.Game, background: Background, good_url: str, network: Network
) -> None:
    recorder = Recorder()
    with scripted(background, recorder) as url:
        record = run(tictactoe, {"xplayer": url, "oplayer": good_url}, network, max_steps=2)
    assert record.aborted and not record.completed and len(record.moves) == 2
    assert isinstance(recorder.messages[-1], Abort)


def test_players_must_match_the_roles(tictactoe: gdl.Game, good_url: str, network: Network) -> None:
    with pytest.raises(gdl.UnknownRoleError):
        run(tictactoe, {"xplayer": good_url}, network)


def test_concurrent_matches_share_one_player_server(
    tictactoe: gdl.Game, good_url: str, network: Network
) -> None:
    async def all_matches() -> list[MatchRecord]:
        players = {"xplayer": good_url, "oplayer": good_url}
        return await asyncio.gather(*(asyncio.to_thread(run, tictactoe, players, network) for _ in range(4)))

    records = asyncio.run(all_matches())
    assert len({r.match_id for r in records}) == 4
    for record in records:
        replay(tictactoe, record)
        assert record.error_count("xplayer") == record.error_count("oplayer") == 0


def test_players_in_their_own_processes(tictactoe: gdl.Game, network: Network) -> None:
    with serving(PlayerServer(partial(make_player, "mcts:iterations=50", 1), processes=True)) as url:
        record = run(tictactoe, {"xplayer": url, "oplayer": "random:seed=2"}, network)
    replay(tictactoe, record)
    assert record.error_count("xplayer") == 0
