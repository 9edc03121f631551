"""Helpers for the protocol tests: player servers on loopback in a background thread, raw HTTP, and
misbehaving players (late, garbage, hanging up) for the game manager to cope with."""

from __future__ import annotations

import asyncio
import http.client
import itertools
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from aiohttp import web

from gdl.game import Game, State
from gdl.players.base import Player
from gdl.protocol.messages import Play, Start, parse_message
from gdl.protocol.server import PlayerServer, start_server
from gdl.syntax.model import Term
from support.timing import slack

T = TypeVar("T")


class FirstLegal(Player):
    """Plays the first legal move at once."""

    name = "first"

    def play(self, state: State, deadline: float) -> Term:
        return state.legal_moves(self.role)[0]


class Overrunning(Player):
    """Thinks past every deadline."""

    name = "overrunning"

    def play(self, state: State, deadline: float) -> Term:
        time.sleep(max(0.0, deadline - time.monotonic()) + 0.3)
        return state.legal_moves(self.role)[0]


class Stuck(Player):
    """Thinks two seconds past every deadline: still busy when the next PLAY comes."""

    name = "stuck"

    def play(self, state: State, deadline: float) -> Term:
        time.sleep(max(0.0, deadline - time.monotonic()) + 2.0)
        return state.legal_moves(self.role)[0]


class SlowStart(Player):
    """Prepares for a minute, far past any start clock of the tests."""

    name = "slow-start"

    def start(self, game: Game, role: str, start_clock: float, play_clock: float) -> None:
        super().start(game, role, start_clock, play_clock)
        time.sleep(60.0)

    def play(self, state: State, deadline: float) -> Term:
        return state.legal_moves(self.role)[0]


class Dying(Player):
    """Ends its whole process when asked for a move."""

    name = "dying"

    def play(self, state: State, deadline: float) -> Term:
        os._exit(3)


class Crashing(Player):
    """Raises instead of choosing a move."""

    name = "crashing"

    def play(self, state: State, deadline: float) -> Term:
        raise RuntimeError("this player always fails")


class Borrowing(Player):
    """Answers at once, except on its first PLAY, where it computes for :data:`BORROWED` CPU seconds:
    more than that PLAY's clock, less than what the start clock it left unused gave it."""

    name = "borrowing"

    def play(self, state: State, deadline: float) -> Term:
        if not getattr(self, "borrowed", False):
            self.borrowed = True
            begun = time.process_time()
            while time.process_time() - begun < BORROWED:
                pass
        return state.legal_moves(self.role)[0]


#: The CPU seconds :class:`Borrowing` spends on its first PLAY.
BORROWED = 5.5


#: Seconds a player server may take to start or close: the tests assert behaviour, not speed.
SETTING_UP = 600.0


class Background:
    """An event loop in a daemon thread, for servers that synchronous tests talk to."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Awaitable[T], timeout: float | None = None) -> T:
        """The coroutine's result; a server that starts (forks its workers, loads the kernels) in a
        second or two on an idle machine gets that, stretched by the load (support.timing)."""

        async def wrapped() -> T:
            return await coroutine

        return asyncio.run_coroutine_threadsafe(wrapped(), self.loop).result(timeout or slack(15))

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@contextmanager
def serving(server: PlayerServer) -> Iterator[str]:
    """Run a player server on a free loopback port in a background thread; yields its URL."""
    background = Background()
    # Starting imports gdl in the workers' fork server: on a loaded machine that takes a while.
    running = background.run(start_server(server, "127.0.0.1", 0), SETTING_UP)
    try:
        yield running.url
    finally:
        background.run(running.close(), SETTING_UP)
        background.close()


@contextmanager
def serve_process(*options: str, log: Path | None = None) -> Iterator[str]:
    """Run ``gdl serve`` on a free loopback port in its own process; yields its URL. Its log lines go
    to ``log`` when given."""
    gdl = [sys.executable, "-c", "import sys; from gdl.cli import main; sys.exit(main())"]
    command = [*gdl, "serve", "--host", "127.0.0.1", "--port", "0", *options]
    errors = log.open("w") if log else subprocess.DEVNULL
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True)
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], slack(30))
        line = process.stdout.readline() if ready else ""
        assert " listening on " in line, f"gdl serve did not start: {line!r}"
        yield line.rsplit(" ", 1)[-1].strip()
    finally:
        process.terminate()
        process.wait(slack(10))
        if log:
            errors.close()  # type: ignore[union-attr]


def session_processes(session: int) -> list[int]:
    """The processes of a session (Linux: read from /proc), e.g. a server started in a session of its
    own with all it started."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.getsid(int(entry.name)) == session:
                    found.append(int(entry.name))
            except OSError:  # ended meanwhile
                continue
    return found


def request(url: str, body: bytes = b"", method: str = "POST", path: str = "/") -> tuple[int, str, bytes]:
    """One raw HTTP request; the status, the content type and the body of the reply."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=slack(15))
    try:
        connection.request(method, path, body=body, headers={"Content-Type": "text/acl"})
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        connection.close()


# -- misbehaving players, written directly on aiohttp: the player server itself never misbehaves ----

Answer = Callable[[Any], Awaitable[bytes]]


async def start_scripted(answer: Answer) -> tuple[web.AppRunner, str]:
    """A player whose reply to each parsed message is ``await answer(message)``."""

    async def handle(request: web.Request) -> web.Response:
        message = parse_message(await request.read())
        return web.Response(body=await answer(message), headers={"Content-Type": "text/acl"})

    app = web.Application()
    app.router.add_post("/", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}/"


@contextmanager
def scripted(background: Background, answer: Answer) -> Iterator[str]:
    """A scripted player (see :func:`start_scripted`) on the loop of ``background``; yields its URL."""
    runner, url = background.run(start_scripted(answer))
    try:
        yield url
    finally:
        background.run(runner.cleanup())


def late(delay: float) -> Answer:
    """Answers START at once and every PLAY only after ``delay`` seconds."""

    async def answer(message: Any) -> bytes:
        if isinstance(message, Play):
            await asyncio.sleep(delay)
            return b"noop"
        return b"ready" if isinstance(message, Start) else b"done"

    return answer


#: Replies that are no legal move: not UTF-8, not KIF, not ground, not a move of the game, an error.
GARBAGE = (b"\xff\xfe((garbage", b"((", b"(mark ?x 1)", b"(mark 9 9)", b"error: sorry", b"")


_garbage_turns = itertools.count()


async def garbage(message: Any) -> bytes:
    """Answers each PLAY with the next of the :data:`GARBAGE` replies."""
    if isinstance(message, Play):
        return GARBAGE[next(_garbage_turns) % len(GARBAGE)]
    return b"ready" if isinstance(message, Start) else b"done"


async def start_hanging_up() -> tuple[asyncio.Server, str]:
    """A 'player' that reads the request and closes the connection without a word."""

    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1024)
        writer.close()

    server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/"
