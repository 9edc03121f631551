"""A match as the player server plays it (:mod:`gdl.protocol.server`): its session (rules, seat,
clocks, the history of its steps) and its referee, the server's own follower of the match in a worker
process, which tells the legal moves when the player cannot; and what the server does to a session
outside its event loop's handlers (count its clocks, end its work)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gdl.errors import ProtocolError
from gdl.protocol.seats import ProcessFollower, Seat, Seen, Step
from gdl.syntax.model import Term
from gdl.workers import Limits, WorkerProcess


class _Unfollowable(Exception):
    """The seat or the referee cannot play the joint moves the manager reports (they are illegal)."""



class Referee:
    """The server's own follower of a match, without a player, in a worker process: it says what is
    legal when the player cannot (its process died, or it is still busy), so that the server can still
    answer. A process seat's referee loads the game at START and follows each step as it arrives, so that
    the legal moves are ready before the player can fail; a thread seat's is made only once its player
    has overrun a turn. Each of its calls has a CPU-time allowance of its own: ``load_seconds`` to load
    the game, ``clock`` to follow."""

    def __init__(
        self, rules: str, role: str, engine: str, limits: Limits, load_seconds: float, clock: float
    ) -> None:
        self.follower = ProcessFollower(rules, role, engine, limits)
        self.load_seconds = load_seconds
        self.clock = clock
        self.opened = False
        self.load_failure: str | None = None
        #: How many steps of the match it has followed and the legal moves after them; None before.
        self.known: tuple[int, tuple[Term, ...]] | None = None
        self.pending: asyncio.Future[tuple[Term, ...]] | None = None
        #: How many steps of the match the pending call follows to.
        self.pending_to = 0

    @property
    def failure(self) -> str | None:
        """Why the referee cannot follow the match: it broke a limit, or could not load the game."""
        return self.follower.worker.failure or self.load_failure

    def legal(self, history: tuple[Step, ...]) -> tuple[Term, ...]:
        """The legal moves after ``history``; called in a worker thread, one call at a time."""
        if not self.opened:
            try:
                self.follower.open(self.load_seconds, self.clock)
            except ProtocolError as problem:
                self.load_failure = str(problem)
                raise
            self.opened = True
        legal = self.follower.follow(history[self.known[0] if self.known else 0 :])
        self.known = (len(history), legal)
        return legal


@dataclass
class Session:
    """One match as this server plays it."""

    rules: str
    roles: tuple[str, ...]
    role: str
    seat: Seat
    play_clock: float
    #: The rules' spelling of names, for the moves the server answers with.
    spellings: Mapping[str, str]
    turn: int = 0
    #: The CPU seconds the player's clocks allowed it so far (see :func:`allow`), and when the latest
    #: clock ends (a monotonic instant).
    allowed: float = 0.0
    clock_end: float = field(default_factory=time.monotonic)
    last_seen: float = field(default_factory=time.monotonic)
    #: Every step of the match so far (joint moves, or GDL-II moves and percepts) as text, a hundred
    #: times smaller than terms with their spans, and how many of them the seat has followed.
    history: list[Step] = field(default_factory=list)
    heard: int = 0
    #: The length of the history's moves, as text (bounded by MAX_HISTORY).
    history_size: int = 0
    #: The player's last call, which may still run after the server has answered.
    busy: asyncio.Future[Any] | None = None
    referee: Referee | None = None
    #: Why the match cannot go on for this player (it broke a limit, or could not load the game).
    failure: str | None = None
    #: The seat's last call to follow the match, and the length of the history it follows to.
    following: asyncio.Future[Any] | None = None
    following_to: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)



def idle(worker: WorkerProcess | None) -> None:
    """Put a worker process in the idle scheduling class (Linux): it runs only on CPU time that no
    other process wants. A process may always lower its own kind's priority, never raise it."""
    process = worker.process if worker is not None else None
    if process is None or process.pid is None or not hasattr(os, "sched_setscheduler"):
        return
    with contextlib.suppress(OSError):  # the process may have ended
        os.sched_setscheduler(process.pid, os.SCHED_IDLE, os.sched_param(0))


def step_size(step: Step) -> int:
    """The length of a step's moves as text."""
    moves = (step.move, *step.percepts) if isinstance(step, Seen) else step
    return sum(len(str(move)) for move in moves)


def quietly(task: asyncio.Future[Any]) -> None:
    """Retrieve the outcome of a task nobody awaits, so that asyncio does not report it as lost."""
    if not task.cancelled():
        task.exception()


def end_work(session: Session, reason: str) -> None:
    """Kill the player's work (a process seat's process) and free the seat; blocks briefly."""
    session.seat.kill(reason)
    session.seat.close()
    if session.referee is not None:
        session.referee.follower.kill(reason)
        session.referee.follower.close()


def note_followed(session: Session) -> None:
    """Count the joint moves of the seat's last follow as heard once it has succeeded, even after its
    turn: sent again, they would be played twice (a follow that overran made the seat refuse the next)."""
    following = session.following
    if following is not None and following.done():
        if not following.cancelled() and following.exception() is None:
            session.heard = max(session.heard, session.following_to)
        session.following = None


def allow(session: Session, received: float, clock: float) -> None:
    """Count the ``clock`` of a message ``received`` now in the CPU time the match's player may use in
    all: its start clock, every play clock so far and the time between the end of one clock and the next
    message (it may think then too), and one play clock more, for the time until the next message (the
    worker adds its slack). One thread never uses it all: only a player that really overruns is ended."""
    session.allowed += max(0.0, received - session.clock_end) + clock
    session.clock_end = max(session.clock_end, received + clock)
    session.seat.allow(session.allowed + session.play_clock)


def player_failure(session: Session) -> str | None:
    """Why the match's player cannot play on (it could not start, broke a limit or died), if so."""
    return session.failure or getattr(session.seat, "failure", None)


def lost(session: Session, needed: bool) -> str | None:
    """Why the server can no longer tell the legal moves of a match, if it cannot (see
    :meth:`gdl.protocol.server.PlayerServer._end_if_lost`)."""
    referee = None if session.referee is None else session.referee.failure
    player = player_failure(session)
    if referee is None or (player is None and not needed):
        return None
    return referee if player is None else f"{player}; {referee}"


def call_result(future: asyncio.Future[Any]) -> Term | None:
    """The move a finished player call returned, or None when it raised (already logged)."""
    if future.cancelled() or future.exception() is not None:
        return None
    result: Term = future.result()
    return result


