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

What a message or a match costs the server's own process is bounded before it is read (see
:mod:`gdl.protocol.messages` for the sizes): the first bytes of a body give its kind and match id, a
body longer than its kind allows gets 413, and the rules stay text for the checker's process. The moves
of a match add up to at most :data:`MAX_HISTORY` characters, a player thinks at most
:data:`LONGEST_CALL` seconds per message, and a match silent for :data:`MAX_IDLE` seconds is forgotten.
Requests a web page could make a browser send (an ``Origin`` header, a POST that is not ``text/acl``)
are refused unless ``cors``.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, NoReturn, TypeVar

from aiohttp import web

from gdl.engines.warm import warm_up
from gdl.errors import LimitExceeded, ProtocolError
from gdl.game import CHANCE_ROLE
from gdl.players.base import Player
from gdl.players.uct import warm_up as warm_up_search
from gdl.protocol.http import HttpFront, RunningServer, _Busy, shorten, start_server
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
    body_limit,
    message_head,
    parse_message,
)
from gdl.protocol.seats import Checked, Checker, ProcessSeat, Seat, Seen, Step, ThreadSeat, as_text
from gdl.protocol.session import (
    Referee,
    Session,
    _Unfollowable,
    allow,
    call_result,
    end_work,
    idle,
    lost,
    note_followed,
    player_failure,
    quietly,
    step_size,
)
from gdl.syntax.model import Term
from gdl.syntax.spelling import spell
from gdl.workers import CHECKER_NICENESS, DEFAULT_LIMITS, Limits, WorkerProcess, prepare_processes

# The server's entry points, with the HTTP side's (:mod:`gdl.protocol.http`) it is started by.
__all__ = ["PlayerServer", "RunningServer", "shorten", "start_server"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Seconds of silence (plus ten play clocks) after which a match counts as abandoned by its manager...
ABANDONED_AFTER = 600.0

#: ... but never more than this, whatever its clock says: a START with a huge clock must not hold a
#: place of ``capacity`` for days.
MAX_IDLE = 1800.0

#: The longest a player may think about one message (seconds); longer clocks are played as this.
LONGEST_CALL = 600.0

#: How often (seconds) the server looks for abandoned matches to forget.
SWEEP_EVERY = 30.0

#: The most text (characters) the moves of one match may add up to: a match of a thousand steps of
#: chess-sized joint moves is under 100 kB.
MAX_HISTORY = 1 << 20

#: Seconds a check of rules runs at the players' priority before it goes below them (the largest game
#: of the corpus checks in a fraction of this).
QUICK_CHECK = 1.0

#: How many PREVIEWs may be checked at once (each also takes a place of ``capacity``).
MAX_PREVIEWS = 2

#: How many rules texts the server keeps the check of (managers start many matches of one game).
KEPT_CHECKS = 8

#: Bodies up to this size are read on the event loop; larger ones (START) in a thread.
INLINE_BODY = 4096


class PlayerServer(HttpFront):
    """Serves fresh players made by ``make_player`` to game managers over HTTP.

    ``margin`` is the time (seconds) kept back from every clock for the network; it is capped at a
    quarter of the clock so that short clocks still leave time to think. While ``capacity`` matches are
    running, INFO reports ``busy`` and a further START is refused (HTTP 503, ``busy: ...``). The work on
    the rules a manager sends, which may be hostile, runs in worker processes under ``limits`` (see
    :mod:`gdl.workers`): checking, the spare referee and, with ``processes``, each match's
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
        super().__init__(cors)
        self.make_player = make_player
        self.processes = processes
        self.limits = limits
        self.seat_kind: Callable[[Callable[[], Player], str, str, str], Seat] = (
            partial(ProcessSeat, limits=limits) if processes else ThreadSeat
        )
        self.name = name
        self.margin = margin
        self.capacity = capacity
        self.engine = engine
        self.matches: dict[str, Session] = {}
        self.executor = ThreadPoolExecutor(workers, thread_name_prefix="gdl-player")
        self.random = random.Random(seed)
        self._background: set[asyncio.Task[None]] = set()
        self._checks: dict[str, asyncio.Future[Checked]] = {}
        #: Match ids whose START is being checked.
        self._starting: set[str] = set()
        #: PREVIEWs being checked.
        self._previews = 0
        #: Checkers at work, ended when the server closes.
        self._checkers: set[WorkerProcess] = set()

    # -- HTTP ------------------------------------------------------------------------------

    async def _open(self, app: web.Application) -> None:
        # Before listening: no clock may pay for starting the fork server or compiling the kernel.
        await self._in_thread(prepare_processes)
        if not self.processes:
            await self._in_thread(warm_up)
            await self._in_thread(warm_up_search)
        self._in_background(self._sweep())

    async def _sweep(self) -> None:
        """Forget abandoned matches now and then, even when no START comes to do it."""
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            self._forget_abandoned(time.monotonic())

    async def _close(self, app: web.Application) -> None:
        for task in self._background:
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        closing = [self._in_thread(end_work, s, "the server is closing") for s in self.matches.values()]
        closing += [self._in_thread(w.kill, "the server is closing") for w in list(self._checkers)]
        await asyncio.gather(*closing)
        self.matches.clear()
        self.executor.shutdown(wait=False, cancel_futures=True)

    def _admit(self, head: bytes) -> int:
        """The largest body the message that starts with ``head`` may have; refuses at once a PLAY, STOP
        or ABORT for an unknown match and a START beyond capacity."""
        kind, argument = message_head(head)
        if kind in ("play", "stop", "abort") and argument is not None:
            self._session(argument, kind.upper())
        if kind == "start":
            self._admit_start(argument)
        return body_limit(kind)

    def _admit_start(self, match_id: str | None) -> None:
        self._forget_abandoned(time.monotonic())
        if match_id in self.matches or match_id in self._starting:
            raise ProtocolError(f"START for match id {match_id!r}, which is already running")
        self._refuse_if_full("START")

    def _load(self) -> int:
        """How many places of ``capacity`` are taken: matches, STARTs and PREVIEWs being checked."""
        return len(self.matches) + len(self._starting) + self._previews

    def _refuse_if_full(self, what: str) -> None:
        if self._load() >= self.capacity:
            raise _Busy(f"{what} refused: already at {self.capacity} match(es), the capacity of this player")

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
                status = "busy" if self._load() >= self.capacity else "available"
                return f"((name {self.name}) (status {status}))"
            case Preview(rules, clock):
                self._refuse_if_full("PREVIEW")
                if self._previews >= MAX_PREVIEWS:
                    raise _Busy(f"PREVIEW refused: already checking {MAX_PREVIEWS} PREVIEW(s)")
                self._previews += 1
                try:
                    await self._check(rules, received + min(clock, LONGEST_CALL))
                finally:
                    self._previews -= 1
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
        clock = min(clock, LONGEST_CALL)
        return received + clock - min(self.margin, clock / 4)

    async def _check(self, rules: str, deadline: float) -> Checked:
        """The roles of a game and its spelling of names, once its rules pass the checker by ``deadline``
        (in a worker process under the limits, killed past it). Managers start many matches of one game
        at once, so a success is kept by rules text (a failure may be the clock's: it is not kept)."""
        future = self._checks.pop(rules, None)
        if future is None:
            worker = WorkerProcess(Checker(), self.limits, "checker", CHECKER_NICENESS)
            future = asyncio.ensure_future(self._check_in(worker, rules, deadline))
            future.add_done_callback(partial(self._forget_failure, rules))
        self._checks[rules] = future  # the most recently used last
        while len(self._checks) > KEPT_CHECKS:
            del self._checks[next(iter(self._checks))]
        return await asyncio.shield(future)

    def _forget_failure(self, rules: str, future: asyncio.Future[Checked]) -> None:
        if (future.cancelled() or future.exception() is not None) and self._checks.get(rules) is future:
            del self._checks[rules]

    async def _check_in(self, worker: WorkerProcess, rules: str, deadline: float) -> Checked:
        allowed = max(0.0, deadline - time.monotonic())
        self._checkers.add(worker)
        try:
            await self._in_thread(worker.start)
            checking = self._call(worker.call, "check", allowed, rules)
            try:
                # Playable rules check in a moment; rules still checking after it may be built to
                # explode, and their checker goes below the players of live matches.
                done, _ = await asyncio.wait({checking}, timeout=min(QUICK_CHECK, allowed))
                if not done:
                    idle(worker)
                remaining = max(0.0, deadline - time.monotonic())
                checked: Checked = await asyncio.wait_for(asyncio.shield(checking), remaining)
            except TimeoutError:
                reason = f"checking the rules took longer than the clock ({allowed:.1f} s)"
                await self._in_thread(worker.kill, reason)
                await asyncio.gather(checking, return_exceptions=True)
                raise LimitExceeded(worker.failure or "checking the rules took too long") from None
            return checked
        finally:
            self._checkers.discard(worker)
            await self._in_thread(worker.close)

    def _session(self, match_id: str, what: str) -> Session:
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
            if now - session.last_seen > min(ABANDONED_AFTER + 10 * session.play_clock, MAX_IDLE):
                logger.warning("forgetting match %s: silent for %.0f s", match_id, now - session.last_seen)
                self._drop(match_id, "abandoned by its manager")

    async def _start(self, start: Start, received: float) -> str:
        self._admit_start(start.match_id)
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
        play_clock = min(start.play_clock, LONGEST_CALL)
        session = Session(start.rules, roles, start.role, seat, play_clock, spellings, clock_end=received)
        self.matches[start.match_id] = session
        allow(session, received, start.start_clock)
        if self.processes:  # a process may die: the referee is ready before the first PLAY
            self._referee(session, max(0.0, deadline - time.monotonic()))
            self._keep_referee_up(session)
        starting = session.busy = self._call(
            seat.start,
            max(0.0, deadline - time.monotonic()),
            self._deadline(0.0, play_clock),
        )
        # Answer at the deadline even if the player is still preparing; PLAY waits for it.
        if not await self._settle(session, deadline, "start"):
            self._prepare_referee(session)  # in case the player is still busy at the first PLAY
        elif not starting.cancelled() and (problem := starting.exception()) is not None:
            # The player could not load the game (too large, or a limit broken): nothing to play with.
            session.failure = f"the player could not start: {problem}"
        return "ready"

    def _referee(self, session: Session, load_seconds: float | None = None) -> Referee:
        """The match's referee, made now if need be (loading the game within ``load_seconds``, by
        default a play clock)."""
        if session.referee is None:
            clock = session.play_clock
            load = clock if load_seconds is None else load_seconds
            session.referee = Referee(session.rules, session.role, self.engine, self.limits, load, clock)
        return session.referee

    def _prepare_referee(self, session: Session) -> None:
        """Have the referee load the game now, so that it is ready should the player stay busy."""
        self._referee(session)
        self._keep_referee_up(session)

    def _keep_referee_up(self, session: Session) -> None:
        """Have the referee follow the match to its last step in the background, if it is not already
        doing so; once it has, it goes on to the steps that came meanwhile."""
        referee = session.referee
        if referee is None or referee.failure is not None:
            return
        if referee.known is not None and referee.known[0] == len(session.history):
            return
        if referee.pending is None or referee.pending.done():
            self._referee_call(session, referee).add_done_callback(partial(self._referee_followed, session))

    def _referee_call(self, session: Session, referee: Referee) -> asyncio.Future[tuple[Term, ...]]:
        """Have the referee follow the match to its last step (its pending call)."""
        referee.pending = self._call(referee.legal, tuple(session.history))
        referee.pending_to = len(session.history)
        return referee.pending

    def _referee_followed(self, session: Session, pending: asyncio.Future[Any]) -> None:
        if pending.cancelled():
            return
        if (problem := pending.exception()) is not None:
            # Steps it cannot follow are refused (and dropped) by the PLAY that brought them.
            logger.warning("the referee of player %s: %s", session.role, problem)
            return
        self._keep_referee_up(session)

    async def _settle(self, session: Session, deadline: float, what: str) -> bool:
        """Wait until the player's last call has returned or the deadline has come; whether it returned."""
        if session.busy is None:
            return True
        try:
            await asyncio.wait_for(asyncio.shield(session.busy), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            logger.warning("player %s overran its deadline in %s", session.role, what)
            # Should nobody wait for it again (the match ends first), its failure is not news.
            session.busy.add_done_callback(quietly)
            if what in ("start", "following the moves"):
                # Still loading or reasoning about the rules past its clock: work on rules that may be
                # hostile, which must not take the CPU from the players of live matches.
                idle(getattr(session.seat, "worker", None))
            return False
        except ValueError as problem:  # bad input, or a failure reported by a player process
            logger.warning("player %s failed in %s: %s", session.role, what, problem)
        except Exception:
            logger.exception("player %s failed in %s", session.role, what)
        session.busy = None
        return True

    def _note(self, session: Session, step: Step | None, what: str, turn: int | None = None) -> None:
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
        [kept] = as_text([step])
        session.history_size += step_size(kept)
        if session.history_size > MAX_HISTORY:
            self._end_match(session, f"its moves add up to more than {MAX_HISTORY} characters")
        session.history.append(kept)

    async def _follow(self, session: Session, deadline: float) -> tuple[Term, ...] | None:
        """Have the seat follow the match; its legal moves, or None when the seat is busy or failed (the
        referee then tells whether the moves were illegal or the player is broken)."""
        if not await self._settle(session, deadline, "a previous call"):
            return None
        note_followed(session)  # a follow that overran an earlier turn may have finished since
        following = session.busy = session.following = self._call(
            session.seat.follow, session.history[session.heard :]
        )
        session.following_to = len(session.history)
        if not await self._settle(session, deadline, "following the moves") or following.exception():
            return None
        note_followed(session)
        legal: tuple[Term, ...] = following.result()
        return legal

    async def _referee_legal(self, session: Session, deadline: float) -> tuple[Term, ...] | None:
        """The legal moves by the server's own follower of the match, if it finds them by ``deadline``."""
        referee = self._referee(session)
        wanted = len(session.history)
        while referee.known is None or referee.known[0] != wanted:
            if referee.pending is None or referee.pending.done():
                self._referee_call(session, referee).add_done_callback(quietly)
            pending = referee.pending
            assert pending is not None
            # A call left over from an earlier turn is waited for; once it is done, this turn's is made
            # (here, or by the callback of the earlier call: which comes first is a race).
            current = referee.pending_to == wanted
            try:
                await asyncio.wait_for(asyncio.shield(pending), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                return None
            except Exception as problem:
                if current or referee.failure is not None:
                    raise _Unfollowable(str(problem)) from None
                # A call for steps that were refused since: these steps get a call of their own.
                continue
            if current:
                break
        return referee.known[1] if referee.known is not None and referee.known[0] == wanted else None

    async def _play(
        self, session: Session, moves: Step | None, received: float, turn: int | None = None
    ) -> str:
        session.last_seen = received
        async with session.lock:
            self._end_if_lost(session)
            self._note(session, moves, "PLAY", turn)
            # Only a PLAY the match takes counts: a flood of refused ones must not feed a stuck player.
            allow(session, received, session.play_clock)
            self._keep_referee_up(session)
            deadline = self._deadline(received, session.play_clock)
            referee = None
            player_failed = player_failure(session) is not None
            if player_failed or (session.busy is not None and not session.busy.done()):
                # The player is gone, or still on an earlier call: ask the referee at once.
                referee = asyncio.ensure_future(self._referee_legal(session, deadline))
                referee.add_done_callback(quietly)
            try:
                legal = None if player_failed else await self._follow(session, deadline)
                if legal is None:
                    legal = await (referee or self._referee_legal(session, deadline))
                elif referee is not None:
                    referee.cancel()
            except _Unfollowable as problem:
                self._end_if_lost(session, needed=True)
                # Refuse the message: the match goes on as if it had not come.
                if moves is not None:
                    session.history_size -= step_size(session.history.pop())
                raise ProtocolError(f"PLAY with moves this player cannot follow: {problem}") from None
            if legal is None:
                self._end_if_lost(session, needed=True)
                raise ProtocolError("the player is busy and the legal moves were not found in time")
            if not legal:
                raise ProtocolError("PLAY in a terminal state: the game is over")
            session.turn += 1
            move: Term | None = None
            if session.busy is None and player_failure(session) is None:
                # The seat has followed the match: its player may choose.
                choosing = session.busy = self._call(session.seat.play, deadline)
                if await self._settle(session, deadline, f"play (turn {session.turn})"):
                    move = call_result(choosing)
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
                    "answering turn %d for %s with %s %s",
                    session.turn, session.role, "the random move" if len(legal) > 1 else "its only move",
                    spell(move, session.spellings),
                )
            # The move as the rules spell it: managers may compare names case-sensitively.
            return spell(move, session.spellings)

    def _end_if_lost(self, session: Session, needed: bool = False) -> None:
        """End a match in which the server can no longer tell the legal moves, with a clear error: its
        referee broke its limits or could not load the game, and its player failed too or (``needed``)
        did not say them in time. The game is then too large or hostile, and going on would only waste
        the machine; while either of them can follow the match, it goes on."""
        failure = lost(session, needed)
        if failure is not None:
            self._end_match(session, failure)

    def _end_match(self, session: Session, failure: str) -> NoReturn:
        """End the match of ``session``: it is forgotten, and the message gets a clear error."""
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
        allow(session, time.monotonic(), session.play_clock)
        # The player is told in the background: nobody waits for its last words.
        self._in_background(self._stop_player(session, completed=reply == "done"))
        return reply

    async def _stop_player(self, session: Session, completed: bool | None, reason: str = "") -> None:
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
            await self._in_thread(end_work, session, reason or "the match is over")
