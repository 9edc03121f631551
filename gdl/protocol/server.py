"""The player server: answers a game manager's messages for any number of matches at once.

Each START creates a fresh player for its match, in a seat (:mod:`gdl.protocol.seats`): a thread or a
process of its own, with its own copy of the game. All reasoning about the game happens there, never
on the server's event loop, which only reads messages and waits: it waits for the player until the
deadline (the clock minus a safety margin for the network) and, should the player overrun or fail,
answers with a random legal move instead, so that no clock is missed.

A request that makes no sense (garbage bytes, an unknown match id, a PLAY before START, a game that
fails the checker) gets an HTTP 400 reply ``error: ...`` and a log line; the server keeps running.

GDL-II matches are played as the Dresden GameController plays them: PLAY and STOP then carry the turn,
the player's own last move and its percepts (:class:`gdl.protocol.messages.PlayII`); a turn out of
order, or percepts that no play of the game can produce, are refused like illegal moves. In a GDL-II
game the player is handed only its view, whichever form the manager's messages take.
"""

from __future__ import annotations

import asyncio
import logging
import random
import socket
import time
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar
from urllib.parse import unquote

from aiohttp import web

from gdl.engines.warm import warm_up
from gdl.errors import LimitExceeded, ProtocolError
from gdl.game import CHANCE_ROLE
from gdl.players.base import Player
from gdl.protocol.messages import (
    Abort,
    Info,
    Message,
    Play,
    PlayII,
    Preview,
    Start,
    Stop,
    StopII,
    parse_message,
)
from gdl.protocol.seats import Checked, Checker, ProcessFollower, ProcessSeat, Seat, Seen, Step, ThreadSeat
from gdl.protocol.workers import CHECKER_NICENESS, DEFAULT_LIMITS, Limits, WorkerProcess, prepare_processes
from gdl.syntax.model import Term
from gdl.syntax.spelling import spell

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Replies use the content type of the GGP protocol.
HEADERS = {"Content-Type": "text/acl"}

#: The CORS headers that ggp-base sends, so that browser-based game managers may talk to the player;
#: only with ``cors=True`` (``--cors``), since they also let any web page the operator visits start
#: matches.
CORS_HEADERS = {
    **HEADERS,
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "POST, GET, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Allow-Age": "86400",
    "Access-Control-Max-Age": "86400",
}

#: Request bodies above this size are refused; the largest known game is under 50 kB.
MAX_BODY = 4 * 1024 * 1024

#: Seconds of silence (plus ten play clocks) after which a match counts as abandoned by its manager.
ABANDONED_AFTER = 600.0

#: How many rules texts the server keeps the check of (managers start many matches of one game).
KEPT_CHECKS = 8

#: Bodies up to this size are read on the event loop; larger ones (START) in a thread.
INLINE_BODY = 4096


def shorten(text: str, limit: int = 200) -> str:
    """A message cut short for a log line or a record, control characters escaped (a reply from the
    network must not reach a terminal raw: escape sequences can rewrite what it shows)."""
    text = " ".join(text.split())
    text = text if len(text) <= limit else text[:limit] + "..."
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class _Unfollowable(Exception):
    """The seat or the referee cannot play the joint moves the manager reports (they are illegal)."""


class _Busy(ProtocolError):
    """A START beyond the server's capacity."""


class _Referee:
    """The server's own follower of a match, without a player, in a worker process. It is made only
    when the seat is too busy to say what is legal (its player overran a whole turn), so that the server
    can still answer."""

    def __init__(self, rules: str, role: str, engine: str, limits: Limits, clock: float) -> None:
        self.follower = ProcessFollower(rules, role, engine, limits)
        self.clock = clock
        self.opened = False
        self.followed = 0
        self.pending: asyncio.Future[tuple[Term, ...]] | None = None

    def legal(self, history: tuple[Step, ...]) -> tuple[Term, ...]:
        """The legal moves after ``history``; called in a worker thread, one call at a time."""
        if not self.opened:
            self.follower.open(self.clock)
            self.opened = True
        legal = self.follower.follow(history[self.followed :])
        self.followed = len(history)
        return legal


@dataclass
class _Session:
    """One match as this server plays it."""

    rules: str
    roles: tuple[str, ...]
    role: str
    seat: Seat
    play_clock: float
    #: The rules' spelling of names, for the moves the server answers with.
    spellings: Mapping[str, str]
    turn: int = 0
    last_seen: float = field(default_factory=time.monotonic)
    #: Every step of the match so far (joint moves, or GDL-II moves and percepts), and how many of them
    #: the seat has followed.
    history: list[Step] = field(default_factory=list)
    heard: int = 0
    #: The player's last call, which may still run after the server has answered.
    busy: asyncio.Future[Any] | None = None
    referee: _Referee | None = None
    #: Why the match cannot go on for this player (it broke a limit, or could not load the game).
    failure: str | None = None
    #: The seat's last call to follow the match, and the length of the history it follows to.
    following: asyncio.Future[Any] | None = None
    following_to: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class PlayerServer:
    """Serves fresh players made by ``make_player`` to game managers over HTTP.

    ``margin`` is the time (seconds) kept back from every clock for the network; it is capped at a
    quarter of the clock so that short clocks still leave time to think. While ``capacity`` matches are
    running, INFO reports ``busy`` and a further START is refused (HTTP 503, ``busy: ...``). The work on
    the rules a manager sends, which may be hostile, runs in worker processes under ``limits`` (see
    :mod:`gdl.protocol.workers`): checking, the spare referee and, with ``processes``, each match's
    player (see :mod:`gdl.protocol.seats`); ``make_player`` must then be picklable, e.g.
    ``functools.partial(make_player, "mcts")``, and, as in any program that starts processes by
    multiprocessing, a script must keep its top-level code under ``if __name__ == "__main__":``.
    Players in threads (``processes=False``) are for trusted games only. ``cors`` adds the CORS headers
    browser-based managers need.
    """

    def __init__(
        self,
        make_player: Callable[[], Player],
        name: str = "gdl",
        margin: float = 0.5,
        capacity: int = 1,
        workers: int = 256,
        engine: str = "auto",
        seed: int | None = None,
        processes: bool = False,
        limits: Limits = DEFAULT_LIMITS,
        cors: bool = False,
    ) -> None:
        self.make_player = make_player
        self.processes = processes
        self.limits = limits
        self.headers = CORS_HEADERS if cors else HEADERS
        self.seat_kind: Callable[[Callable[[], Player], str, str, str], Seat] = (
            partial(ProcessSeat, limits=limits) if processes else ThreadSeat
        )
        self.name = name
        self.margin = margin
        self.capacity = capacity
        self.engine = engine
        self.matches: dict[str, _Session] = {}
        self.executor = ThreadPoolExecutor(workers, thread_name_prefix="gdl-player")
        self.random = random.Random(seed)
        self._background: set[asyncio.Task[None]] = set()
        self._checks: dict[str, asyncio.Future[Checked]] = {}
        #: Match ids whose START is being checked.
        self._starting: set[str] = set()

    # -- HTTP ------------------------------------------------------------------------------

    def application(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY)
        # Any path: ggp-base puts whole messages, line breaks included, in the path of a GET.
        app.router.add_route("*", r"/{path:[\s\S]*}", self.handle)
        app.on_startup.append(self._open)
        app.on_cleanup.append(self._close)
        return app

    async def _open(self, app: web.Application) -> None:
        # Before listening: no clock may pay for starting the fork server or compiling the kernel.
        await self._in_thread(prepare_processes)
        if not self.processes:
            await self._in_thread(warm_up)

    async def _close(self, app: web.Application) -> None:
        for task in self._background:
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        closing = [self._in_thread(_end, s, "the server is closing") for s in self.matches.values()]
        await asyncio.gather(*closing)
        self.matches.clear()
        self.executor.shutdown(wait=False, cancel_futures=True)

    async def handle(self, request: web.Request) -> web.Response:
        received = time.monotonic()
        peer = request.remote or "?"
        headers = self.headers
        if request.method == "OPTIONS":
            return web.Response(body=b"", headers=headers)
        try:
            if request.method == "POST":
                body: bytes | str = await request.read()
            elif request.method == "GET":
                # ggp-base puts the message in the path of a GET; a bare GET asks who is there.
                body = unquote(request.raw_path.lstrip("/").lstrip("?")) or "(INFO)"
            else:
                raise ProtocolError(f"HTTP method {request.method} is not part of the GGP protocol")
            if logger.isEnabledFor(logging.DEBUG):  # the message as it came: KIF, as gdl host logs it
                text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
                logger.debug("%s <- %s", peer, shorten(text))
            message = await self._parse(body)
            if request.method == "GET" and not isinstance(message, Info):
                # A web page can make a browser send a GET: only questions, never a change of state.
                raise ProtocolError(f"{type(message).__name__.upper()} must be sent by POST, not GET")
            reply = await self.reply(message, received)
        except _Busy as problem:
            logger.warning("%s: refused: %s", peer, problem)
            return web.Response(body=f"busy: {problem}".encode(), status=503, headers=headers)
        except ProtocolError as problem:
            logger.warning("%s: bad request: %s", peer, problem)
            return web.Response(body=f"error: {problem}".encode(), status=400, headers=headers)
        except Exception as problem:  # a server must outlive any request
            logger.exception("%s: request failed", peer)
            text = f"error: internal error: {type(problem).__name__}: {problem}"
            return web.Response(body=text.encode(), status=500, headers=headers)
        logger.debug("%s -> %s (%.3f s)", peer, shorten(reply), time.monotonic() - received)
        return web.Response(body=reply.encode(), headers=headers)

    async def _parse(self, body: bytes | str) -> Message:
        if len(body) <= INLINE_BODY:
            return parse_message(body)
        return await self._in_thread(parse_message, body)

    def _call(self, function: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        return asyncio.get_running_loop().run_in_executor(self.executor, function, *args)

    async def _in_thread(self, function: Callable[..., T], *args: Any) -> T:
        return await self._call(function, *args)

    def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- messages --------------------------------------------------------------------------

    async def reply(self, message: Message, received: float) -> str:
        """The reply to one message received at ``received`` (a monotonic instant)."""
        match message:
            case Info():
                status = "busy" if len(self.matches) >= self.capacity else "available"
                return f"((name {self.name}) (status {status}))"
            case Preview(rules, clock):
                await self._check(rules, received + clock)
                return "ready"
            case Start():
                return await self._start(message, received)
            case Play(match_id, moves):
                return await self._play(self._session(match_id, "PLAY"), moves, received)
            case PlayII(match_id, turn, move, percepts):
                step = None if move is None else Seen(move, percepts or ())
                return await self._play(self._session(match_id, "PLAY"), step, received, turn)
            case Stop(match_id, moves):
                return await self._finish(match_id, moves, "done")
            case StopII(match_id, turn, move, percepts):
                step = None if move is None else Seen(move, percepts or ())
                return await self._finish(match_id, step, "done", turn)
            case Abort(match_id):
                return await self._finish(match_id, None, "aborted")

    def _deadline(self, received: float, clock: float) -> float:
        return received + clock - min(self.margin, clock / 4)

    async def _check(self, rules: str, deadline: float) -> Checked:
        """The roles of a game and its spelling of names, once its rules pass the checker by ``deadline``
        (in a worker process under the limits, killed past it). Managers start many matches of one game
        at once, so the outcome is kept by rules text."""
        future = self._checks.pop(rules, None)
        if future is None:
            worker = WorkerProcess(Checker(), self.limits, "checker", CHECKER_NICENESS)
            future = asyncio.ensure_future(self._check_in(worker, rules, deadline))
        self._checks[rules] = future  # the most recently used last
        while len(self._checks) > KEPT_CHECKS:
            del self._checks[next(iter(self._checks))]
        return await asyncio.shield(future)

    async def _check_in(self, worker: WorkerProcess, rules: str, deadline: float) -> Checked:
        allowed = max(0.0, deadline - time.monotonic())
        try:
            await self._in_thread(worker.start)
            checking = self._call(worker.call, "check", allowed, rules)
            try:
                checked: Checked = await asyncio.wait_for(asyncio.shield(checking), allowed)
            except TimeoutError:
                reason = f"checking the rules took longer than the clock ({allowed:.1f} s)"
                await self._in_thread(worker.kill, reason)
                await asyncio.gather(checking, return_exceptions=True)
                raise LimitExceeded(worker.failure or "checking the rules took too long") from None
            return checked
        finally:
            await self._in_thread(worker.close)

    def _session(self, match_id: str, what: str) -> _Session:
        try:
            return self.matches[match_id]
        except KeyError:
            raise ProtocolError(f"{what} for unknown match id {match_id!r} (no START seen for it)") from None

    def _drop(self, match_id: str, reason: str) -> None:
        session = self.matches.pop(match_id)
        self._in_background(self._stop_player(session, None, reason))

    def _forget_abandoned(self, now: float) -> None:
        """Drop matches whose manager has been silent far longer than a turn: it will not STOP them."""
        for match_id, session in list(self.matches.items()):
            if now - session.last_seen > ABANDONED_AFTER + 10 * session.play_clock:
                logger.warning("forgetting match %s: silent for %.0f s", match_id, now - session.last_seen)
                self._drop(match_id, "abandoned by its manager")

    async def _start(self, start: Start, received: float) -> str:
        self._forget_abandoned(received)
        if start.match_id in self.matches or start.match_id in self._starting:
            raise ProtocolError(f"START for match id {start.match_id!r}, which is already running")
        if len(self.matches) + len(self._starting) >= self.capacity:
            raise _Busy(f"already playing {self.capacity} match(es), the capacity of this player")
        deadline = self._deadline(received, start.start_clock)
        # The id is taken while the rules are checked: a second START for it is refused, not raced.
        self._starting.add(start.match_id)
        try:
            roles, spellings = await self._check(start.rules, deadline)
        finally:
            self._starting.discard(start.match_id)
        if start.role not in roles:
            shown = ", ".join(spell(role, spellings) for role in roles)
            raise ProtocolError(f"START with role {start.role!r}, not a role of the game ({shown})")
        if start.role == CHANCE_ROLE:
            raise ProtocolError(f"START with role {start.role!r}: nature is played by the manager")
        seat = self.seat_kind(self.make_player, start.rules, start.role, self.engine)
        session = _Session(start.rules, roles, start.role, seat, start.play_clock, spellings)
        self.matches[start.match_id] = session
        starting = session.busy = self._call(
            seat.start,
            max(0.0, deadline - time.monotonic()),
            start.play_clock - min(self.margin, start.play_clock / 4),
        )
        # Answer at the deadline even if the player is still preparing; PLAY waits for it.
        if not await self._settle(session, deadline, "start"):
            self._prepare_referee(session)  # in case the player is still busy at the first PLAY
        elif not starting.cancelled() and (problem := starting.exception()) is not None:
            # The player could not load the game (too large, or a limit broken): nothing to play with.
            session.failure = f"the player could not start: {problem}"
        return "ready"

    def _referee(self, session: _Session) -> _Referee:
        if session.referee is None:
            session.referee = _Referee(
                session.rules, session.role, self.engine, self.limits, session.play_clock
            )
        return session.referee

    def _prepare_referee(self, session: _Session) -> None:
        """Have the referee load the game now, so that it is ready should the player stay busy."""
        referee = self._referee(session)
        if referee.pending is None:
            referee.pending = self._call(referee.legal, tuple(session.history))
            referee.pending.add_done_callback(_quietly)

    async def _settle(self, session: _Session, deadline: float, what: str) -> bool:
        """Wait until the player's last call has returned or the deadline has come; whether it returned."""
        if session.busy is None:
            return True
        try:
            await asyncio.wait_for(asyncio.shield(session.busy), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            logger.warning("player %s overran its deadline in %s", session.role, what)
            return False
        except ValueError as problem:  # bad input, or a failure reported by a player process
            logger.warning("player %s failed in %s: %s", session.role, what, problem)
        except Exception:
            logger.exception("player %s failed in %s", session.role, what)
        session.busy = None
        return True

    def _note(self, session: _Session, step: Step | None, what: str, turn: int | None = None) -> None:
        """Add the previous step (a joint move, or GDL-II's own move and percepts), as the manager reports
        it, to the history of the match; ``turn`` is the GDL-II turn the message says it is."""
        if turn is not None and turn != len(session.history) + (step is not None):
            raise ProtocolError(
                f"{what} for turn {turn} after {len(session.history)} turn(s): the turns of a match "
                "count up by one from 0"
            )
        if step is None:
            if session.history:
                raise ProtocolError(f"{what} with NIL moves after {len(session.history)} joint move(s)")
            return
        if isinstance(step, tuple) and len(step) != len(session.roles):
            raise ProtocolError(f"{what} with {len(step)} move(s) for {len(session.roles)} role(s)")
        session.history.append(step)

    async def _follow(self, session: _Session, deadline: float) -> tuple[Term, ...] | None:
        """Have the seat follow the match; its legal moves, or None when the seat is busy or failed (the
        referee then tells whether the moves were illegal or the player is broken)."""
        if not await self._settle(session, deadline, "a previous call"):
            return None
        _note_followed(session)  # a follow that overran an earlier turn may have finished since
        following = session.busy = session.following = self._call(
            session.seat.follow, session.history[session.heard :]
        )
        session.following_to = len(session.history)
        if not await self._settle(session, deadline, "following the moves") or following.exception():
            return None
        _note_followed(session)
        legal: tuple[Term, ...] = following.result()
        return legal

    async def _referee_legal(self, session: _Session, deadline: float) -> tuple[Term, ...] | None:
        """The legal moves by the server's own follower of the match, if it finds them by ``deadline``."""
        referee = self._referee(session)
        for _ in range(2):  # a call left over from an earlier turn, then the call for this turn
            if referee.pending is None or referee.pending.done():
                referee.pending = self._call(referee.legal, tuple(session.history))
                referee.pending.add_done_callback(_quietly)
            pending = referee.pending
            try:
                legal = await asyncio.wait_for(asyncio.shield(pending), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                return None
            except Exception as problem:
                raise _Unfollowable(str(problem)) from None
            if referee.followed == len(session.history):
                return legal
        return None

    async def _play(
        self, session: _Session, moves: Step | None, received: float, turn: int | None = None
    ) -> str:
        session.last_seen = received
        async with session.lock:
            self._end_if_broken(session)
            self._note(session, moves, "PLAY", turn)
            deadline = self._deadline(received, session.play_clock)
            referee = None
            if session.busy is not None and not session.busy.done():
                # The player is still on an earlier call: ask the referee at once, in case it stays busy.
                referee = asyncio.ensure_future(self._referee_legal(session, deadline))
                referee.add_done_callback(_quietly)
            try:
                legal = await self._follow(session, deadline)
                if legal is None:
                    legal = await (referee or self._referee_legal(session, deadline))
                elif referee is not None:
                    referee.cancel()
            except _Unfollowable as problem:
                self._end_if_broken(session)
                # Refuse the message: the match goes on as if it had not come.
                if moves is not None:
                    session.history.pop()
                raise ProtocolError(f"PLAY with moves this player cannot follow: {problem}") from None
            if legal is None:
                self._end_if_broken(session)
                raise ProtocolError("the player is busy and the legal moves were not found in time")
            if not legal:
                raise ProtocolError("PLAY in a terminal state: the game is over")
            session.turn += 1
            move: Term | None = None
            if session.busy is None:  # the seat has followed the match: its player may choose
                choosing = session.busy = self._call(session.seat.play, deadline)
                if await self._settle(session, deadline, f"play (turn {session.turn})"):
                    move = _result(choosing)
                else:
                    # Still thinking: the next PLAY may find it busy, so the referee loads the game now.
                    self._prepare_referee(session)
            if move not in legal:
                if move is not None:
                    logger.warning(
                        "player %s chose the illegal move %s", session.role, spell(move, session.spellings)
                    )
                move = self.random.choice(legal)
                logger.warning(
                    "answering turn %d for %s with the random move %s",
                    session.turn, session.role, spell(move, session.spellings),
                )
            # The move as the rules spell it: managers may compare names case-sensitively.
            return spell(move, session.spellings)

    def _end_if_broken(self, session: _Session) -> None:
        """End a match whose player or referee broke its limits, with a clear error: the game is too
        large or hostile, and going on would only waste the machine."""
        failure = _failure(session)
        if failure is None:
            return
        for match_id, running in list(self.matches.items()):
            if running is session:
                self._drop(match_id, failure)
        raise ProtocolError(f"the match is over for this player: {failure}")

    async def _finish(
        self, match_id: str, moves: Step | None, reply: str, turn: int | None = None
    ) -> str:
        what = "STOP" if reply == "done" else "ABORT"
        session = self._session(match_id, what)
        try:
            if moves is not None:
                self._note(session, moves, what, turn)
        except ProtocolError as problem:
            logger.warning("%s: %s", match_id, problem)
        del self.matches[match_id]
        # The player is told in the background: nobody waits for its last words.
        self._in_background(self._stop_player(session, completed=reply == "done"))
        return reply

    async def _stop_player(self, session: _Session, completed: bool | None, reason: str = "") -> None:
        """Tell the player the match is over (``completed`` None: say nothing) and end its work: the
        referee at once, the player once it has heard (a process still busy then is killed)."""
        try:
            if session.referee is not None:
                await self._in_thread(session.referee.follower.kill, "the match is over")
                await self._in_thread(session.referee.follower.close)
            if completed is not None and await self._settle(
                session, time.monotonic() + session.play_clock, "its last call"
            ):
                await self._in_thread(session.seat.finish, session.history[session.heard :], completed)
        except Exception as problem:
            logger.warning("player %s failed to stop: %s", session.role, problem)
        finally:
            await self._in_thread(_end, session, reason or "the match is over")


def _quietly(task: asyncio.Future[Any]) -> None:
    """Retrieve the outcome of a task nobody awaits, so that asyncio does not report it as lost."""
    if not task.cancelled():
        task.exception()


def _end(session: _Session, reason: str) -> None:
    """Kill the player's work (a process seat's process) and free the seat; blocks briefly."""
    session.seat.kill(reason)
    session.seat.close()
    if session.referee is not None:
        session.referee.follower.kill(reason)
        session.referee.follower.close()


def _note_followed(session: _Session) -> None:
    """Count the joint moves of the seat's last follow as heard once it has succeeded, even after its
    turn: sent again, they would be played twice (a follow that overran made the seat refuse the next)."""
    following = session.following
    if following is not None and following.done():
        if not following.cancelled() and following.exception() is None:
            session.heard = max(session.heard, session.following_to)
        session.following = None


def _failure(session: _Session) -> str | None:
    """Why the match's player or referee was ended for breaking its limits, if it was."""
    failures = [session.failure, getattr(session.seat, "failure", None)]
    if session.referee is not None:
        failures.append(session.referee.follower.worker.failure)
    return next((failure for failure in failures if failure), None)


def _result(future: asyncio.Future[Any]) -> Term | None:
    """The move a finished player call returned, or None when it raised (already logged)."""
    if future.cancelled() or future.exception() is not None:
        return None
    result: Term = future.result()
    return result


@dataclass
class RunningServer:
    """A player server listening on a socket; ``url`` is where game managers reach it."""

    runner: web.AppRunner
    url: str
    port: int

    async def close(self) -> None:
        await self.runner.cleanup()


async def start_server(server: PlayerServer, host: str = "127.0.0.1", port: int = 0) -> RunningServer:
    """Start listening (port 0 picks a free port) and return at once."""
    sock = socket.create_server((host, port), reuse_port=False)
    runner = web.AppRunner(server.application(), access_log=None)
    await runner.setup()
    await web.SockSite(runner, sock).start()
    bound = sock.getsockname()[1]
    shown = "127.0.0.1" if host in ("", "0.0.0.0") else host
    return RunningServer(runner, f"http://{shown}:{bound}", bound)
