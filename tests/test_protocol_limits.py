"""Isolation and limits of the player server: work on untrusted rules runs in worker processes
under CPU-time and memory limits and is killed, not abandoned; capacity, POST and CORS."""

from __future__ import annotations

import contextlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from urllib.parse import quote

import pytest
from support.hostile import HOSTILE, long_rule, many_ors, self_negation
from support.protocol import FirstLegal, request, serving
from support.timing import slack

import gdl
from gdl.errors import BudgetExceededError, GameTooLargeError, LimitExceeded
from gdl.players import make_player
from gdl.protocol.server import PlayerServer
from gdl.workers import Limits, WorkerProcess, run_limited

GAMES = Path(__file__).resolve().parent.parent / "games"
TICTACTOE = (GAMES / "tictactoe.kif").read_text()
SMALL = Limits(memory=1 << 30, cpu_slack=1.0)


class Hog:
    """Work that never ends, or that wants all the memory there is."""

    def spin(self) -> None:
        while True:
            pass

    def hoard(self) -> int:
        chunks = []
        while True:
            chunks.append(bytearray(64 << 20))

    def answer(self) -> int:
        return 42

    def hoard_and_reply(self) -> list[bytearray]:
        """Memory filled, then all of it as the reply, which cannot be pickled in what is left."""
        chunks = []
        with contextlib.suppress(MemoryError):
            while True:
                chunks.append(bytearray(16 << 20))
        return chunks


def test_a_worker_out_of_cpu_time_is_ended_with_a_clear_error() -> None:
    with pytest.raises(LimitExceeded, match="ran out of CPU time"):
        run_limited(Hog(), "spin", 0.0, SMALL)


def test_a_worker_out_of_memory_is_ended_with_a_clear_error() -> None:
    with pytest.raises(LimitExceeded, match="ran out of memory"):
        run_limited(Hog(), "hoard", 10.0, Limits(memory=512 << 20))


def test_a_reply_too_large_for_the_memory_left_is_a_clear_error() -> None:
    with pytest.raises(LimitExceeded, match="ran out of memory"):
        # A worker's imports take some hundreds of MB of address space before it hoards anything.
        run_limited(Hog(), "hoard_and_reply", 10.0, Limits(memory=2 << 30))


class SlowToRebuild:
    """A target whose unpickling in the worker takes CPU time, as importing its modules may."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __setstate__(self, state: dict[str, float]) -> None:
        self.__dict__.update(state)
        while time.process_time() < self.seconds:
            pass

    def answer(self) -> int:
        return 42


def test_a_worker_rebuilding_its_target_is_not_limited_until_its_first_call() -> None:
    # Beyond the slack (one second), but only before the call: the call's allowance is its own.
    worker = WorkerProcess(SlowToRebuild(1.6), SMALL, "rebuilder")
    worker.start()
    try:
        assert worker.call("answer", 0.0) == 42
    finally:
        worker.close()


def test_a_killed_worker_s_caller_gets_a_clear_error_at_once() -> None:
    worker = WorkerProcess(Hog(), SMALL, "spinner")
    worker.start()
    assert worker.call("answer", 1.0) == 42
    threading.Timer(0.5, worker.kill, ("the match was aborted",)).start()
    begun = time.monotonic()
    with pytest.raises(LimitExceeded, match="the match was aborted"):
        worker.call("spin", 60.0)
    assert time.monotonic() - begun < 0.5 + slack(5)
    assert worker.process is not None and not worker.process.is_alive()
    worker.close()


@pytest.mark.parametrize(
    ("rules", "complaint"),
    [
        (many_ors(), "multiplies out"),
        (long_rule(), "budget"),
        (self_negation(), "budget"),
    ],
    ids=["many-ors", "long-rule", "self-negation"],
)
def test_gdl_load_has_a_total_budget(rules: str, complaint: str) -> None:
    begun = time.process_time()
    with pytest.raises(GameTooLargeError, match=complaint):
        gdl.parse(rules, max_seconds=3.0)
    assert time.process_time() - begun < 3.0 + 2.0


def test_a_spent_total_budget_is_not_retried_by_another_engine() -> None:
    with pytest.raises(BudgetExceededError) as raised:
        gdl.parse(self_negation(), max_seconds=1.0)
    assert raised.value.total


def post(url: str, text: str, method: str = "POST") -> tuple[int, str]:
    path = "/" if method == "POST" else "/" + quote(text)
    status, _, body = request(url, text.encode() if method == "POST" else b"", method=method, path=path)
    return status, body.decode()


def test_hostile_starts_are_refused_or_ended_and_an_honest_match_does_not_notice() -> None:
    server = PlayerServer(
        partial(make_player, "legal"), margin=0.2, capacity=10, processes=True, limits=SMALL
    )
    with serving(server) as url:
        # A generous clock: the CI runs tests in parallel on a shared machine. The load test (slow) holds
        # twenty honest matches to 2 s clocks.
        assert post(url, f"(START honest xplayer ({TICTACTOE}) 10 4)") == (200, "ready")
        outcomes: dict[str, tuple[int, str]] = {}

        def hostile(name: str) -> None:
            status, reply = post(url, f"(START {name} robot ({HOSTILE[name]}) 3 1)")
            # Accepted: a PLAY must end it with a clear error, at the latest once the CPU limits
            # (clock and slack, counted in CPU time: longer on a busy machine) have ended its workers.
            until = time.monotonic() + 120
            while time.monotonic() < until and (status == 200 or "not found in time" in reply):
                status, reply = post(url, f"(PLAY {name} NIL)")
            outcomes[name] = (status, reply)

        with ThreadPoolExecutor(len(HOSTILE)) as pool:
            hostile_runs = [pool.submit(hostile, name) for name in HOSTILE]
            state = gdl.parse(TICTACTOE).initial_state()
            moves = "NIL"
            while not state.is_terminal():
                sent = time.monotonic()
                status, move = post(url, f"(PLAY honest {moves})")
                assert status == 200 and time.monotonic() - sent < 4.0 + slack(1.0)
                joint = {"xplayer": move, "oplayer": str(state.legal_moves("oplayer")[0])}
                state = state.next(joint)
                moves = f"({joint['xplayer']} {joint['oplayer']})"
            for run in hostile_runs:
                run.result()
        assert post(url, f"(STOP honest {moves})") == (200, "done")
    for name, (status, reply) in outcomes.items():
        assert status == 400 and reply.startswith("error: "), (name, reply)
        said = ("CPU time", "memory", "budget", "multiplies out", "took longer", "more than",
                "control character")
        assert any(word in reply for word in said), reply


def test_starts_beyond_capacity_are_refused() -> None:
    with serving(PlayerServer(FirstLegal, capacity=1)) as url:
        assert post(url, f"(START one xplayer ({TICTACTOE}) 10 5)") == (200, "ready")
        status, reply = post(url, f"(START two xplayer ({TICTACTOE}) 10 5)")
        assert status == 503 and reply.startswith("busy: ") and "capacity" in reply
        assert post(url, "(ABORT one)") == (200, "aborted")
        assert post(url, f"(START two xplayer ({TICTACTOE}) 10 5)") == (200, "ready")


def test_concurrent_starts_for_one_match_id_are_accepted_once() -> None:
    with serving(PlayerServer(FirstLegal, capacity=10)) as url, ThreadPoolExecutor(5) as pool:
        replies = list(pool.map(lambda _: post(url, f"(START same xplayer ({TICTACTOE}) 10 5)"), range(5)))
    assert [status for status, _ in replies].count(200) == 1, replies


def test_state_changing_messages_only_by_post_and_cors_only_when_asked() -> None:
    with serving(PlayerServer(FirstLegal, capacity=2)) as url:
        one_line = " ".join(map(str, gdl.parse(TICTACTOE).checked.program.rules))
        status, reply = post(url, f"(START web xplayer ({one_line}) 10 5)", method="GET")
        assert status == 400 and "must be sent by POST" in reply
        assert post(url, "(INFO)", method="GET")[0] == 200
        status, _, _ = request(url, method="OPTIONS")
        assert status == 200
    import http.client
    from urllib.parse import urlsplit

    def origin_header(server: PlayerServer) -> str | None:
        with serving(server) as url:
            parts = urlsplit(url)
            connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
            connection.request("POST", "/", body=b"(INFO)")
            return connection.getresponse().getheader("Access-Control-Allow-Origin")

    assert origin_header(PlayerServer(FirstLegal)) is None
    assert origin_header(PlayerServer(FirstLegal, cors=True)) == "*"


def test_abort_kills_the_player_process() -> None:
    server = PlayerServer(partial(make_player, "mcts"), capacity=2, processes=True)
    with serving(server) as url:
        assert post(url, f"(START gone xplayer ({TICTACTOE}) 10 30)") == (200, "ready")
        process = server.matches["gone"].seat.worker.process  # type: ignore[attr-defined]
        assert process is not None and process.is_alive()
        assert post(url, "(ABORT gone)") == (200, "aborted")
        process.join(slack(5))  # killed at once: the wait ends as it dies, however long it may last
        assert not process.is_alive()
