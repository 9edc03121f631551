"""Seats: where the player of one match runs for the player server, in a thread or in its own process.

A seat holds a player with its own copy of the game and follows the match from the joint moves the
manager reports. Its methods block; the server calls them from worker threads and waits only until
the deadline. A thread seat is cheap to set up, but Python threads share one interpreter lock, so
players searching in many threads at once slow each other and the server's event loop down. A process
seat runs the player in a worker process of its own (:mod:`gdl.workers`), under CPU-time and
memory limits: searches then use every core, the server stays responsive whatever the players do, and
hostile rules cannot hurt it. Thread seats are for trusted games. Deadlines are :func:`time.monotonic`
instants, which all processes of a machine share.

In a GDL-II game (``sees`` rules: :func:`gdl.views.plays_with_views`) the player is handed only its
view. A GDL-II manager reports each step as the player knows it (:class:`Seen`: its own move and its
percepts), and the seat keeps the player's belief (:class:`gdl.belief.Belief`) to know its legal moves;
a GDL-I manager reports joint moves, from which the seat works out the same view.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from gdl.belief import Belief
from gdl.check import check_text
from gdl.errors import InconsistentViewError, ProtocolError
from gdl.game import MoveLike, State, as_term, parse
from gdl.ground.grounding import sorted_roles
from gdl.players.base import Player
from gdl.players.tracking import legal_moves
from gdl.protocol.messages import MAX_MOVE, parse_move
from gdl.syntax.model import Term
from gdl.views import View, plays_with_views, told
from gdl.workers import DEFAULT_LIMITS, REFEREE_NICENESS, Limits, WorkerProcess, preload

preload(__name__)

#: The bound on the belief a seat keeps of a GDL-II match, to know the player's legal moves. Losing track
#: of the match would refuse every later PLAY, so the bound is generous (the corpus's Mastermind448 loses
#: track with 100 states); the price is time: about 2 s a step on the corpus's Krieg-tictactoe.
SEAT_BELIEF_STATES = 1000


#: The most text (characters) the legal moves of one state may add up to, as sent to the server.
MAX_LEGAL_TEXT = 1 << 20


@dataclass(frozen=True)
class Seen:
    """GDL-II: one step as the player knows it, its own ``move`` and the ``percepts`` it got after it."""

    move: MoveLike
    percepts: tuple[MoveLike, ...]


#: One step of a match as the manager reports it: a joint move (GDL-I) or what the player saw (GDL-II).
Step = tuple[MoveLike, ...] | Seen


class Seat(Protocol):
    """The player of one match."""

    def start(self, start_clock: float, play_clock: float) -> None:
        """Read the rules, make the player and let it prepare."""
        ...

    def follow(self, moves: Sequence[Step]) -> tuple[Term, ...]:
        """Play the steps made since the last call; the legal moves now (none when terminal)."""
        ...

    def play(self, deadline: float) -> Term:
        """Choose a move by ``deadline``."""
        ...

    def finish(self, moves: Sequence[Step], completed: bool) -> None:
        """Follow the last steps and tell the player the match is over (or aborted)."""
        ...

    def close(self) -> None:
        """Free what the seat holds; the player may be in the middle of a call."""
        ...

    def kill(self, reason: str) -> None:
        """End the player's work now (the match is over or broke its limits); calls in progress raise."""
        ...

    def allow(self, seconds: float) -> None:
        """Let the player use ``seconds`` of CPU time in all since its START (only ever raised)."""
        ...


class Follower:
    """A match followed from its steps: the game, the legal moves of a role and what it knows, the state
    (``state``, None once GDL-II steps have hidden it) and, in a GDL-II game, its ``view`` and belief."""

    def __init__(self, rules: str, role: str, engine: str) -> None:
        self.rules = rules
        self.role = role
        self.engine = engine

    def open(self) -> None:
        self.game = parse(self.rules, self.engine)
        state = self.game.initial_state()
        self.state: State | None = state
        self.view: View | None = View.initial(state, self.role) if plays_with_views(self.game) else None
        self.belief = Belief.initial(self.game, self.role)

    def follow(self, moves: Sequence[Step]) -> tuple[Term, ...]:
        state, view, belief = self.state, self.view, self.belief
        for step in moves:
            if isinstance(step, Seen):
                view = view or View.initial(self.game.initial_state(), self.role)
                seen = tuple(map(as_term, step.percepts))
                belief = self._update(belief, view, as_term(step.move), seen)
                state = None
                view = view.after(step.move, seen, legal_moves(belief))
                continue
            if state is None:
                raise ProtocolError("joint moves after the state was hidden by GDL-II percepts")
            joint = dict(zip(self.game.roles, step, strict=True))
            reached = state.next(joint)
            if view is not None:
                legal = () if reached.is_terminal() else reached.legal_moves(self.role)
                view = view.after(joint[self.role], told(state, joint)[self.role], legal)
                belief = Belief(self.role, (reached,), (1.0,))
            state = reached
        self.state, self.view, self.belief = state, view, belief  # only once every step was followed
        if view is not None:
            return view.legal
        assert state is not None
        return () if state.is_terminal() else tuple(state.legal_moves(self.role))


    def _update(self, belief: Belief, view: View, move: Term, percepts: tuple[Term, ...]) -> Belief:
        """The belief after one more step. A sampled belief may have lost every state that fits: then it
        is filtered again from the start, with new draws, before the step counts as impossible."""
        try:
            return belief.update(move, percepts, max_states=SEAT_BELIEF_STATES)
        except InconsistentViewError:
            if belief.exact:
                raise
        belief = Belief.initial(self.game, self.role)
        rng = random.Random(len(view.moves))
        for past, seen in zip((*view.moves, move), (*view.percepts, percepts), strict=True):
            belief = belief.update(past, seen, max_states=SEAT_BELIEF_STATES, rng=rng)
        return belief



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
        if self.view is not None:
            return self.player.play_view(self.view, deadline)
        assert self.state is not None
        return self.player.play(self.state, deadline)

    def finish(self, moves: Sequence[Step], completed: bool) -> None:
        self.follow(moves)
        if self.view is not None:
            # STOP says what the percepts may not: the match is over, nothing is legal any more.
            self.view = replace(self.view, legal=()) if completed else self.view
            (self.player.stop_view if completed else self.player.abort_view)(self.view)
            return
        assert self.state is not None
        if completed:
            self.player.stop(self.state)
        else:
            self.player.abort(self.state)

    def close(self) -> None:
        """Nothing to free: the thread belongs to the server's pool."""

    def kill(self, reason: str) -> None:
        """A thread cannot be killed: its player stops at its own deadline (threads are for trusted use)."""

    def allow(self, seconds: float) -> None:
        """A thread has no CPU-time limit of its own (threads are for trusted use)."""


class _TextSeat:
    """A seat or follower inside a worker process, answering in KIF text: cheaper to send between
    processes than terms with their spans."""

    def __init__(self, seat: Follower) -> None:
        self.seat = seat
        #: Why the seat cannot follow the match any further (a legal move too large to write): its state
        #: went on without the server, so every later follow says so again rather than misjudge a move.
        self.broken: str | None = None

    def open(self) -> None:
        self.seat.open()

    def start(self, start_clock: float, play_clock: float) -> None:
        assert isinstance(self.seat, ThreadSeat)
        self.seat.start(start_clock, play_clock)

    def follow(self, moves: Sequence[tuple[str, ...] | Seen]) -> tuple[str, ...]:
        if self.broken is not None:
            raise ProtocolError(self.broken)
        followed = self.seat.follow(moves)  # moves it cannot follow are refused, and it stays as it was
        try:
            legal = tuple(map(move_text, followed))
            if sum(map(len, legal)) > MAX_LEGAL_TEXT:
                raise ProtocolError(f"the legal moves add up to more than {MAX_LEGAL_TEXT} characters")
        except ProtocolError as problem:
            self.broken = str(problem)
            raise
        return legal

    def play(self, deadline: float) -> str:
        assert isinstance(self.seat, ThreadSeat)
        return move_text(self.seat.play(deadline))

    def finish(self, moves: Sequence[tuple[str, ...]], completed: bool) -> None:
        assert isinstance(self.seat, ThreadSeat)
        self.seat.finish(moves, completed)


def move_text(move: Term) -> str:
    """A move as KIF text, refused past :data:`gdl.protocol.messages.MAX_MOVE` characters before it is
    written: rules can make a move of millions of leaves out of a few shared subterms."""
    sizes: dict[int, int] = {}

    def size(term: Term) -> int:
        known = sizes.get(id(term))
        if known is None:
            args = getattr(term, "args", ())
            known = len(str(term)) if not args else len(term.name) + 2 + sum(1 + size(a) for a in args)
            if known > MAX_MOVE:
                raise ProtocolError(f"a move of more than {MAX_MOVE} characters: ({term.name} ...)")
            sizes[id(term)] = known
        return known

    size(move)
    return str(move)


def as_text(moves: Sequence[Step]) -> list[tuple[str, ...] | Seen]:
    """Moves cross to and from player processes as KIF text: cheaper to send than terms with spans."""
    return [
        Seen(str(s.move), tuple(map(str, s.percepts))) if isinstance(s, Seen) else tuple(map(str, s))
        for s in moves
    ]


class ProcessSeat:
    """A seat whose player runs in a worker process under ``limits``; ``make_player`` must be picklable.

    The player may use the CPU time the server allows it for the whole match (:meth:`allow`, plus the
    limits' slack), however it spreads it over its calls: a player that uses more ends the process, and
    :attr:`failure` says why. The process is made by :meth:`start`, so that making the seat itself costs
    nothing.
    """

    def __init__(
        self,
        make_player: Callable[[], Player],
        rules: str,
        role: str,
        engine: str,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.worker = WorkerProcess(_TextSeat(ThreadSeat(make_player, rules, role, engine)), limits, "player")

    @property
    def failure(self) -> str | None:
        return self.worker.failure

    def start(self, start_clock: float, play_clock: float) -> None:
        self.worker.start()
        self.worker.call("start", None, start_clock, play_clock)

    def follow(self, moves: Sequence[Step]) -> tuple[Term, ...]:
        return tuple(map(parse_move, self.worker.call("follow", None, as_text(moves))))

    def play(self, deadline: float) -> Term:
        return parse_move(self.worker.call("play", None, deadline))

    def finish(self, moves: Sequence[Step], completed: bool) -> None:
        self.worker.call("finish", None, as_text(moves), completed)

    def kill(self, reason: str) -> None:
        self.worker.kill(reason)

    def allow(self, seconds: float) -> None:
        self.worker.allow(seconds)

    def close(self) -> None:
        self.worker.close()


class ProcessFollower:
    """A follower of a match (the server's spare referee) in a worker process under ``limits``."""

    def __init__(self, rules: str, role: str, engine: str, limits: Limits) -> None:
        # Above the players' priority: the referee is wanted only when a player is stuck, and then at once.
        follower = _TextSeat(Follower(rules, role, engine))
        self.worker = WorkerProcess(follower, limits, "referee", REFEREE_NICENESS)
        self.clock = 0.0

    def open(self, seconds: float, clock: float) -> None:
        """Load the game within ``seconds`` of CPU time; each later follow may take ``clock``."""
        self.clock = clock
        self.worker.start()
        self.worker.call("open", seconds)

    def follow(self, moves: Sequence[Step]) -> tuple[Term, ...]:
        return tuple(map(parse_move, self.worker.call("follow", self.clock, as_text(moves))))

    def kill(self, reason: str) -> None:
        self.worker.kill(reason)

    def close(self) -> None:
        self.worker.close()


#: The roles of a game, in order, and its spelling of names.
Checked = tuple[tuple[str, ...], dict[str, str]]


class Checker:
    """Checks rules in a worker process (see :mod:`gdl.workers`); here, so that the worker need
    not import the server (and aiohttp)."""

    def check(self, rules: str) -> Checked:
        """The roles of the game, in order, and its spellings; raises :class:`ProtocolError` when the
        checker finds errors."""
        result = check_text(rules)
        if result.checked is None:
            errors = [d for d in result.diagnostics if d.level.value == "error"]
            more = f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""
            raise ProtocolError(f"the rules fail the checker: {errors[0].format().splitlines()[0]}{more}")
        return tuple(sorted_roles(result.checked)), dict(result.checked.program.spellings)
