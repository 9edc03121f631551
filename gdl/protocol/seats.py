"""Seats: where the player of one match runs for the player server, in a thread or in its own process.

A seat holds a player with its own copy of the game and follows the match from the joint moves the
manager reports. Its methods block; the server calls them from worker threads and waits only until
the deadline. A thread seat is cheap to set up, but Python threads share one interpreter lock, so
players searching in many threads at once slow each other and the server's event loop down. A process
seat runs the player in a child process of its own: searches then use every core, and the server stays
responsive whatever the players do. Deadlines are :func:`time.monotonic` instants, which all processes
of a machine share.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.connection
import os
import signal
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from gdl.errors import ProtocolError
from gdl.game import MoveLike, State, parse
from gdl.players.base import Player
from gdl.protocol.messages import parse_move
from gdl.syntax.model import Term

#: How much lower than the server's the scheduling priority of player processes is (Unix niceness).
PLAYER_NICENESS = 19

#: Modules every player process needs, imported once by the process that forks them.
_PRELOAD = ["gdl.game", "gdl.players", "gdl.engines.compiled", "gdl.engines.datalog", "gdl.protocol.seats"]


class Seat(Protocol):
    """The player of one match."""

    def start(self, start_clock: float, play_clock: float) -> None:
        """Read the rules, make the player and let it prepare."""
        ...

    def follow(self, moves: Sequence[tuple[Term, ...]]) -> tuple[Term, ...]:
        """Play the joint moves made since the last call; the legal moves now (none when terminal)."""
        ...

    def play(self, deadline: float) -> Term:
        """Choose a move by ``deadline``."""
        ...

    def finish(self, moves: Sequence[tuple[Term, ...]], completed: bool) -> None:
        """Follow the last joint moves and tell the player the match is over (or aborted)."""
        ...

    def close(self) -> None:
        """Free what the seat holds; the player may be in the middle of a call."""
        ...


class Follower:
    """A match followed from its joint moves: the game, the current state, the legal moves of a role."""

    def __init__(self, rules: str, role: str, engine: str) -> None:
        self.rules = rules
        self.role = role
        self.engine = engine

    def open(self) -> None:
        self.game = parse(self.rules, self.engine)
        self.state: State = self.game.initial_state()

    def follow(self, moves: Sequence[tuple[MoveLike, ...]]) -> tuple[Term, ...]:
        state = self.state
        for joint in moves:
            state = state.next(dict(zip(self.game.roles, joint, strict=True)))
        self.state = state  # only once every joint move was legal
        return () if state.is_terminal() else tuple(state.legal_moves(self.role))


class ThreadSeat(Follower):
    """A seat whose player runs in the calling thread."""

    def __init__(self, make_player: Callable[[], Player], rules: str, role: str, engine: str) -> None:
        super().__init__(rules, role, engine)
        self.make_player = make_player

    def start(self, start_clock: float, play_clock: float) -> None:
        self.open()
        self.player = self.make_player()
        self.player.start(self.game, self.role, start_clock, play_clock)

    def play(self, deadline: float) -> Term:
        return self.player.play(self.state, deadline)

    def finish(self, moves: Sequence[tuple[MoveLike, ...]], completed: bool) -> None:
        self.follow(moves)
        if completed:
            self.player.stop(self.state)
        else:
            self.player.abort(self.state)

    def close(self) -> None:
        """Nothing to free: the thread belongs to the server's pool."""


def _serve_seat(connection: multiprocessing.connection.Connection, seat: ThreadSeat) -> None:
    """The body of a player process: run the calls that arrive on ``connection`` on ``seat``."""
    # Below the server's priority: however hard the players search, the server answers in time.
    if hasattr(os, "nice"):
        os.nice(PLAYER_NICENESS)
    # Ctrl-C at the terminal reaches every process of the group; the server ends its players itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A full collection walks every object, a search tree included, and in a busy machine such a pause
    # can outlast a deadline. So the collector is off while the player thinks; after each reply the
    # survivors are frozen (left out of later collections, still freed by reference counting).
    gc.disable()
    while True:
        try:
            method, *args = connection.recv()
        except (EOFError, OSError):
            return  # the server has gone
        try:
            reply = ("ok", _as_reply(getattr(seat, method)(*args)))
        except Exception as problem:  # reported to the server, which plays a random move instead
            reply = ("error", f"{type(problem).__name__}: {problem}")
        try:
            connection.send(reply)
        except OSError:
            return  # the server gave up on this player (the match ended while it was thinking)
        if method == "finish":
            return
        gc.collect(1)
        gc.freeze()


def prepare_processes() -> None:
    """Start the fork server now (it imports gdl once), so that the first START does not wait for it."""
    process = _context().Process(target=int)
    process.start()
    process.join()


def _as_reply(result: Term | tuple[Term, ...] | None) -> str | tuple[str, ...] | None:
    if isinstance(result, tuple):
        return tuple(map(str, result))
    return None if result is None else str(result)


def _as_text(moves: Sequence[tuple[Term, ...]]) -> list[tuple[str, ...]]:
    """Moves cross to and from player processes as KIF text: cheaper to send than terms with spans."""
    return [tuple(map(str, joint)) for joint in moves]


def _context() -> multiprocessing.context.ForkServerContext | multiprocessing.context.SpawnContext:
    # A fork server forks each player from a small clean process: the server's own threads (event loop,
    # workers) must not be copied into a child mid-operation, as a plain fork would.
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    return context


class ProcessSeat:
    """A seat whose player runs in a child process; ``make_player`` must be picklable.

    The process is made by :meth:`start`, so that making the seat itself costs nothing.
    """

    def __init__(self, make_player: Callable[[], Player], rules: str, role: str, engine: str) -> None:
        self.seat = ThreadSeat(make_player, rules, role, engine)
        self.connection: multiprocessing.connection.Connection | None = None
        self.process: multiprocessing.process.BaseProcess | None = None

    def _call(self, method: str, *args: Any) -> Any:
        if self.connection is None or self.process is None:
            raise ProtocolError("the player process was never started")
        try:
            self.connection.send((method, *args))
            status, result = self.connection.recv()
        except (EOFError, OSError):
            raise ProtocolError(f"the player process ended (exit code {self.process.exitcode})") from None
        if status == "error":
            raise ProtocolError(f"the player failed: {result}")
        return result

    def start(self, start_clock: float, play_clock: float) -> None:
        context = _context()
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve_seat, args=(child, self.seat), daemon=True)
        self.process.start()
        child.close()
        self._call("start", start_clock, play_clock)

    def follow(self, moves: Sequence[tuple[Term, ...]]) -> tuple[Term, ...]:
        return tuple(map(parse_move, self._call("follow", _as_text(moves))))

    def play(self, deadline: float) -> Term:
        return parse_move(self._call("play", deadline))

    def finish(self, moves: Sequence[tuple[Term, ...]], completed: bool) -> None:
        self._call("finish", _as_text(moves), completed)

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
        if self.process is not None:
            self.process.join(1.0)
            if self.process.is_alive():
                self.process.terminate()
                self.process.join(1.0)
