"""The player server never ends an honest player by its own limits, and a live match keeps its answers:
the player's CPU-time allowance grows with the clocks of its match, and when its process dies anyway the
server's referee, kept up to date as the moves arrive, still answers every PLAY in time."""

from __future__ import annotations

import os
import resource
import signal
import time
from pathlib import Path

import pytest
from support.protocol import Borrowing, FirstLegal, request, serve_process, serving

import gdl
from gdl.protocol.manager import Network, host
from gdl.protocol.server import PlayerServer
from gdl.workers import RAISES_LIMITS_OF_OTHERS

TICTACTOE = (Path(__file__).resolve().parent.parent / "games" / "tictactoe.kif").read_text()

#: A generous start clock: on a loaded machine checking and loading the rules take a while.
START_CLOCK = 30


def post(url: str, text: str) -> tuple[int, str]:
    status, _, body = request(url, text.encode())
    return status, body.decode()


def player_process(server: PlayerServer, match_id: str) -> int:
    process = server.matches[match_id].seat.worker.process  # type: ignore[attr-defined]
    assert process is not None and process.pid is not None
    pid: int = process.pid
    return pid


@pytest.mark.skipif(not RAISES_LIMITS_OF_OTHERS, reason="reads another process's limits (Linux)")
def test_the_player_s_cpu_time_allowance_grows_with_the_clocks() -> None:
    server = PlayerServer(FirstLegal, processes=True)
    with serving(server) as url:
        assert post(url, f"(START m xplayer ({TICTACTOE}) {START_CLOCK} 2)") == (200, "ready")
        pid = player_process(server, "m")
        allowances = [resource.prlimit(pid, resource.RLIMIT_CPU)[0]]
        state = gdl.parse(TICTACTOE).initial_state()
        moves = "NIL"
        for _ in range(3):
            status, move = post(url, f"(PLAY m {moves})")
            assert status == 200 and state.is_legal("xplayer", move)
            allowances.append(resource.prlimit(pid, resource.RLIMIT_CPU)[0])
            joint = {"xplayer": move, "oplayer": str(state.legal_moves("oplayer")[0])}
            state = state.next(joint)
            moves = f"({joint['xplayer']} {joint['oplayer']})"
        assert post(url, "(ABORT m)") == (200, "aborted")
    # The PLAYs came at once: the start clock and every play clock so far are all the player's, and one
    # more play clock, until the next message.
    for plays, allowance in enumerate(allowances):
        assert allowance >= START_CLOCK + 2 * plays + 2, allowances
    assert allowances == sorted(set(allowances))


@pytest.mark.skipif(not RAISES_LIMITS_OF_OTHERS, reason="reads another process's limits (Linux)")
def test_refused_plays_add_nothing_to_the_allowance() -> None:
    server = PlayerServer(FirstLegal, processes=True)
    with serving(server) as url:
        assert post(url, f"(START m xplayer ({TICTACTOE}) {START_CLOCK} 2)") == (200, "ready")
        pid = player_process(server, "m")
        allowance = resource.prlimit(pid, resource.RLIMIT_CPU)[0]
        for _ in range(5):
            status, reply = post(url, "(PLAY m (a b c))")
            assert status == 400 and "3 move(s) for 2 role(s)" in reply
        assert resource.prlimit(pid, resource.RLIMIT_CPU)[0] == allowance
        assert post(url, "(ABORT m)") == (200, "aborted")


@pytest.mark.slow  # its player needs 5.5 CPU seconds at the lowest priority: long on a loaded machine
def test_a_player_may_spend_on_one_turn_the_time_its_start_left_unused() -> None:
    server = PlayerServer(Borrowing, margin=0.5, processes=True)
    with serving(server) as url:
        assert post(url, f"(START m xplayer ({TICTACTOE}) {START_CLOCK} 2)") == (200, "ready")
        state = gdl.parse(TICTACTOE).initial_state()
        # Past the clock: the server answers for the player, which goes on thinking.
        state, moves = play(url, "m", state, "NIL")
        session = server.matches["m"]
        until = time.monotonic() + 600
        while session.busy is not None and not session.busy.done() and time.monotonic() < until:
            time.sleep(0.2)
        assert session.busy is None or session.busy.done()
        assert session.seat.failure is None  # type: ignore[attr-defined]
        while not state.is_terminal():
            state, moves = play(url, "m", state, moves)
        assert session.seat.failure is None  # type: ignore[attr-defined]
        assert post(url, f"(STOP m {moves})") == (200, "done")


def play(url: str, match_id: str, state: gdl.State, moves: str) -> tuple[gdl.State, str]:
    """One PLAY for xplayer, answered within its clock of 2 s with a legal move; oplayer plays its first
    legal move. The state and the moves of the next PLAY."""
    sent = time.monotonic()
    status, move = post(url, f"(PLAY {match_id} {moves})")
    assert time.monotonic() - sent < 2.0
    assert status == 200 and state.is_legal("xplayer", move), move
    joint = {"xplayer": move, "oplayer": str(state.legal_moves("oplayer")[0])}
    return state.next(joint), f"({joint['xplayer']} {joint['oplayer']})"


@pytest.mark.parametrize("ending", [signal.SIGKILL, signal.SIGXCPU], ids=["killed", "out-of-cpu-time"])
def test_a_match_whose_player_process_died_stays_known_and_answered_in_time(ending: int) -> None:
    server = PlayerServer(FirstLegal, margin=0.5, processes=True)
    with serving(server) as url:
        assert post(url, f"(START m xplayer ({TICTACTOE}) {START_CLOCK} 2)") == (200, "ready")
        state = gdl.parse(TICTACTOE).initial_state()
        state, moves = play(url, "m", state, "NIL")
        process = server.matches["m"].seat.worker.process  # type: ignore[attr-defined]
        assert process is not None and process.pid is not None
        os.kill(process.pid, ending)
        process.join(10)
        assert not process.is_alive()
        plays = 1
        while not state.is_terminal():
            state, moves = play(url, "m", state, moves)
            plays += 1
        assert plays >= 5  # every PLAY after the first came after the player's death
        assert post(url, f"(STOP m {moves})") == (200, "done")
        assert "m" not in server.matches


@pytest.mark.slow
def test_a_long_match_with_players_thinking_the_whole_clock_charges_them_no_error(corpus: Path) -> None:
    # Two gdl serve with the default player (mcts, which searches until the deadline) and limits.
    game = gdl.load(corpus / "games" / "breakthrough.kif")
    with serve_process() as white, serve_process() as black, Network() as network:
        record = host(game, {"white": white, "black": black}, 20.0, 5.0, network=network, seed=1)
    assert len(record.moves) >= 40, "a match of fewer than 40 moves says little about a long one"
    assert record.start_errors == {}
    assert [step for step in record.errors if any(step.values())] == []
    assert record.completed
