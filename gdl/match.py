"""The match runner: players play a game under clocks, and the record says what happened.

>>> import gdl
>>> from gdl.match import Match
>>> from gdl.players import make_player
>>> game = gdl.load("games/tictactoe.kif")
>>> players = {"xplayer": make_player("minimax"), "oplayer": make_player("random:seed=1")}
>>> record = Match(game, players, play_clock=1.0).run()
>>> record.goals["xplayer"] >= 50
True

Like a GGP game server, the runner never lets one player stop a match. A player that raises, answers
with something that is not a legal move, or has not answered by its deadline gets an error recorded
and a random legal move played for it, and the match goes on. Each player runs in its own worker
thread, so the runner stops waiting at the deadline even when a player blocks; a blocked player's
later calls queue behind the one it is stuck in. Human players (``is_human``) are waited for. Since
reasoners are not thread-safe, a match serialises the calls to its game's reasoner with a lock while it
runs and until the last of its players' threads has ended; then the game is as it was given.

By default a role with exactly one legal move (e.g. ``noop`` while the other side moves) plays it
without asking its player, so that players sharing this process do not slow each other down;
``ask_forced=True`` asks every player every step, as GGP servers do.

Nature, the role ``random``, has no player: the runner draws its move uniformly among its legal moves
with the match's seeded random source. What each player is told follows :mod:`gdl.views`: in a GDL
game (no ``sees`` rules) every role is told every joint move, nature's included, so a player is handed
the state; in a GDL-II game (:func:`gdl.views.plays_with_views`) each player is handed only its
:class:`gdl.views.View` (its own moves, what it was told after each joint move, its legal moves), never
the state (:meth:`Player.play_view`, :meth:`Player.stop_view`). The record still holds the true states,
every joint move and each role's percepts per step.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import itertools
import random
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from gdl.engines import another_reasoner
from gdl.engines.compiled import CompiledReasoner
from gdl.engines.warm import warm_up
from gdl.errors import (
    GameDefinitionError,
    KifSyntaxError,
    PlayerConnectionError,
    PlayerLeft,
    PlayerTimeoutError,
    ProtocolError,
    UnknownRoleError,
)
from gdl.game import Game, State
from gdl.player_threads import PlayerThread, done_with, unlocked_reasoner, use_from_threads
from gdl.players.base import Player
from gdl.players.isolated import IsolatedPlayer
from gdl.players.registry import make_player
from gdl.syntax.model import Term
from gdl.syntax.reader import parse_term
from gdl.syntax.spelling import spell
from gdl.views import View, plays_with_views, told
from gdl.workers import prepare_processes


@dataclass
class MatchRecord:
    """What happened in a match. Step ``i`` leads from ``states[i]`` by ``moves[i]`` to ``states[i+1]``.

    ``times[i]`` and ``errors[i]`` hold, per role, the seconds its player took (0 when it was not asked)
    and the error it made at step ``i`` ("" for none); ``infos[i]`` what each asked player reported
    about its search (:meth:`Player.info`, e.g. depth or iterations). ``goals`` is empty unless the
    match completed. In a GDL-II game ``percepts[i]`` holds what each role saw after step ``i`` (KIF
    texts, sorted), ``players`` names ``nature`` for the role ``random``, and ``goals`` has the players'
    goals only; in other games ``percepts`` stays empty.
    ``codes`` holds each error as ggp-base records it, one entry for START and then
    one per step: ``TO`` (no reply in time), ``CE`` (connection failed), ``IL move`` (an illegal
    move; ``IL null`` for a reply that is no move); a failure ggp-base has no code for is its message.
    """

    match_id: str
    game: str
    roles: tuple[str, ...]
    players: dict[str, str]
    start_clock: float
    play_clock: float
    start_time: float
    states: list[State] = field(default_factory=list)
    state_times: list[float] = field(default_factory=list)
    moves: list[dict[str, str]] = field(default_factory=list)
    times: list[dict[str, float]] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)
    infos: list[dict[str, dict[str, Any]]] = field(default_factory=list)
    percepts: list[dict[str, list[str]]] = field(default_factory=list)
    start_errors: dict[str, str] = field(default_factory=dict)
    stop_errors: dict[str, str] = field(default_factory=dict)
    codes: list[dict[str, str]] = field(default_factory=list)
    goals: dict[str, int] = field(default_factory=dict)
    completed: bool = False
    aborted: bool = False
    abort_reason: str = ""
    #: Roles played by people (``Player.is_human``).
    humans: tuple[str, ...] = ()
    #: How the rules spell the names that are not lower case (see :meth:`gdl.game.Game.spell`).
    spellings: Mapping[str, str] = field(default_factory=dict)

    def spell(self, item: object) -> str:
        """A role, move or fluent spelled as the rules spell it."""
        return spell(item, self.spellings)

    def error_count(self, role: str) -> int:
        """How many errors the player of ``role`` made, at the start, in moves and at the stop."""
        moves = sum(bool(step.get(role)) for step in self.errors)
        return moves + bool(self.start_errors.get(role)) + bool(self.stop_errors.get(role))

    def never_answered(self, role: str) -> bool:
        """Whether the match had steps and the player of ``role`` made an error in every one of them (a
        player asked every step, as GGP managers ask, then never gave a legal move)."""
        return bool(self.errors) and all(step.get(role) for step in self.errors)

    def to_json(self) -> dict[str, Any]:
        """The record in the ggp-base match format (JSON-ready), plus a few gdl keys.

        As in ggp-base, terms are written with spaces inside parentheses (``( mark 1 1 )``), a state is
        the list of its fluents (``( ( cell 1 1 b ) ( control xplayer ) )``), times are milliseconds
        since the epoch, clocks whole seconds, and ``errors`` has one entry for START and then one per
        step, each role's error code ("" for none; see :attr:`codes`). The gdl keys are ``gameName``,
        ``roles``, ``moveTimes`` (seconds), ``errorMessages`` (the errors in words, shaped as
        ``errors``), ``clockSeconds`` (the clocks exactly, when not whole) and ``abortReason``; a
        GDL-II match adds ``percepts`` (per step, per role in role order, the list of its percepts),
        and nature's entry in ``goalValues`` is ``null``: it has no goal.
        """
        in_order = self.roles
        messages = [self.start_errors, *self.errors]
        exact = {} if _whole(self.start_clock) and _whole(self.play_clock) else {
            "clockSeconds": [self.start_clock, self.play_clock]
        }
        record = {
            "matchId": self.match_id,
            "randomToken": self.match_id.rpartition(".")[2],
            "gameMetaURL": "",
            "gameName": self.game,
            "roles": [self.spell(r) for r in in_order],
            "playerNamesFromHost": [self.players[r] for r in in_order],
            "isPlayerHuman": [r in self.humans for r in in_order],
            "startTime": round(self.start_time * 1000),
            "previewClock": -1,
            "startClock": round(self.start_clock),
            "playClock": round(self.play_clock),
            **exact,
            "states": [
                "( " + "".join(_spaced(f) + " " for f in sorted(map(self.spell, s.fluents()))) + ")"
                for s in self.states
            ],
            "stateTimes": [round(t * 1000) for t in self.state_times],
            "moves": [[_spaced(step[r]) for r in in_order] for step in self.moves],
            "moveTimes": [[round(step[r], 4) for r in in_order] for step in self.times],
            "errors": [[step.get(r, "") for r in in_order] for step in self.codes],
            "errorMessages": [[step.get(r, "") for r in in_order] for step in messages],
            "goalValues": [self.goals.get(r) for r in in_order] if self.goals else [],
            "isCompleted": self.completed,
            "isAborted": self.aborted,
            "abortReason": self.abort_reason,
            "scrambled": False,
        }
        if self.percepts:
            record["percepts"] = [[[_spaced(p) for p in step[r]] for r in in_order] for step in self.percepts]
        return record


def _spaced(kif: str) -> str:
    """Canonical KIF in the ggp-base spelling: ``(mark 1 1)`` becomes ``( mark 1 1 )``."""
    return kif.replace("(", "( ").replace(")", " )")


def _whole(clock: float) -> bool:
    return float(clock).is_integer()


def error_code(problem: BaseException) -> str:
    """ggp-base's code for a failed call to a player, or the failure in words where it has none."""
    if isinstance(problem, PlayerTimeoutError | TimeoutError):
        return "TO"
    if isinstance(problem, PlayerConnectionError | ConnectionError):
        return "CE"
    if isinstance(problem, ProtocolError):
        return "IL null"  # a reply that is no move
    return describe(problem)


def describe(problem: BaseException) -> str:
    """A failure in words: gdl's domain errors (ValueError) by their message, anything else by its type
    too, since its message alone may not say what went wrong."""
    if isinstance(problem, ValueError):
        return str(problem)
    return f"{type(problem).__name__}: {problem}"


class Match:
    """A match of ``game`` between ``players`` (role -> a player, or its description such as ``"mcts"``)
    under a start and a play clock (seconds).

    ``grace`` seconds beyond each deadline are allowed for thread scheduling; ``seed`` makes the random
    moves played for faulty players reproducible; ``max_steps`` aborts a match that runs too long;
    ``on_step(record)`` is called after every step (and once at the start) to show progress.

    No player can reach the hidden state. A player in this process gets a game of its own (its own
    reasoner and caches), never the referee's, and states of that game. ``isolate`` runs every player
    that is not human (nor elsewhere already, as a player server is) in a process of its own instead
    (:class:`gdl.players.isolated.IsolatedPlayer`): by default (None) in a GDL-II game, where a player
    in the referee's process could still find the true state among the process's objects.
    ``isolate=False`` plays them here, which is faster but unsafe with players that are not trusted.
    """

    def __init__(
        self,
        game: Game,
        players: Mapping[str, Player | str],
        start_clock: float = 10.0,
        play_clock: float = 10.0,
        *,
        grace: float = 0.1,
        seed: int | None = None,
        ask_forced: bool = False,
        max_steps: int | None = None,
        on_step: Callable[[MatchRecord], None] | None = None,
        isolate: bool | None = None,
    ) -> None:
        wanted = {
            game.roles[game.role_index(r)]: _player(p, None if seed is None else seed + i)
            for i, (r, p) in enumerate(players.items())
        }
        if game.chance_role in wanted:
            raise ValueError(f"role {game.chance_role!r} is nature: the match draws its moves, no player")
        missing = [r for r in game.players if r not in wanted]
        if missing:
            raise UnknownRoleError(f"no player for role(s): {', '.join(missing)}")
        shared = [r for r in wanted if any(wanted[o] is wanted[r] for o in wanted if o != r)]
        if shared:
            raise ValueError(f"roles {', '.join(shared)} share one player object; give each role its own")
        if start_clock <= 0 or play_clock <= 0:
            raise ValueError(f"clocks must be positive, got start {start_clock} and play {play_clock}")
        if plays_with_views(game) if isolate is None else isolate:
            compiled = isinstance(unlocked_reasoner(game.reasoner), CompiledReasoner)
            engine = "compiled" if compiled else "datalog"
            wanted = {
                r: p if p.is_human or p.elsewhere else IsolatedPlayer(p, engine) for r, p in wanted.items()
            }
        self.game = game
        self.players = wanted
        #: The game each player is handed: its own, or the referee's for a player in its own process.
        self._games: dict[str, Game] = {}
        self.start_clock = start_clock
        self.play_clock = play_clock
        self.grace = grace
        self.rng = random.Random(seed)
        self.ask_forced = ask_forced
        self.max_steps = max_steps
        self.on_step = on_step

    def run(self) -> MatchRecord:
        """Play the match to its end (or abort it) and return the record."""
        if isinstance(unlocked_reasoner(self.game.reasoner), CompiledReasoner):
            warm_up()  # players may play out: compile the kernel before the first clock starts
        roles = self.game.roles
        record = MatchRecord(
            match_id=f"{self.game.name}.{uuid.uuid4().hex[:12]}",
            game=self.game.name,
            roles=roles,
            players={r: self.players[r].name if r in self.players else "nature" for r in roles},
            start_clock=self.start_clock,
            play_clock=self.play_clock,
            start_time=time.time(),
            humans=tuple(r for r in self.players if self.players[r].is_human),
            spellings=self.game.checked.program.spellings,
        )
        isolated = {r: p for r, p in self.players.items() if isinstance(p, IsolatedPlayer)}
        if isolated:
            prepare_processes()  # before any clock runs: the fork server imports gdl once
        for role, player in isolated.items():
            # Each loads the game in its process before the clocks, as the referee has loaded it here.
            with contextlib.suppress(ProtocolError):  # then its start fails, and the record says why
                player.prepare(self.game, role)
        self._games = {
            r: self.game if isinstance(p, IsolatedPlayer) or p.elsewhere else _game_of_its_own(self.game)
            for r, p in self.players.items()
        }
        use_from_threads(self.game)
        try:
            workers = {r: PlayerThread(r, self._games[r]) for r in self.players}
            try:
                self._play(record, workers)
            finally:
                for worker in workers.values():
                    worker.close(self.grace)
                for player in isolated.values():
                    player.close()
        finally:
            done_with(self.game)
        return record

    def _seen_by(self, role: str, state: State) -> State:
        """``state`` in the game of the player of ``role``."""
        game = self._games[role]
        return state if game is state.game else State(game, game.reasoner.from_fluents(state.fluents()))

    def _play(self, record: MatchRecord, workers: dict[str, PlayerThread]) -> None:
        game = self.game
        started = {
            r: workers[r].submit(partial(p.start, self._games[r], r, self.start_clock, self.play_clock))
            for r, p in self.players.items()
        }
        start_codes: dict[str, str] = {}
        self._collect(started, time.monotonic() + self.start_clock, record.start_errors, start_codes)
        record.codes.append({r: start_codes.get(r, "") for r in record.roles})
        state = game.initial_state()
        # GDL-II: what each player knows, and all it is ever handed.
        views = {r: View.initial(state, r) for r in self.players} if plays_with_views(game) else None
        record.states.append(state)
        record.state_times.append(time.time())
        if self.on_step:
            self.on_step(record)
        try:
            for step in itertools.count():
                if state.is_terminal():
                    break
                if self.max_steps is not None and step >= self.max_steps:
                    steps = f"{step} step{'' if step == 1 else 's'}"
                    record.aborted, record.abort_reason = True, f"no terminal state after {steps}"
                    break
                state = self._step(state, record, workers, views)
                record.states.append(state)
                record.state_times.append(time.time())
                if self.on_step:
                    self.on_step(record)
            if not record.aborted:
                record.goals = state.goals()
                record.completed = True
        except (GameDefinitionError, PlayerLeft) as problem:
            record.aborted, record.abort_reason = True, str(problem)
        ended = {}
        for role, player in self.players.items():
            if views is None:
                end = partial(player.stop if record.completed else player.abort, self._seen_by(role, state))
            else:
                end = partial(player.stop_view if record.completed else player.abort_view, views[role])
            ended[role] = workers[role].submit(end)
        self._collect(ended, time.monotonic() + self.play_clock, record.stop_errors, {})

    def _step(
        self, state: State, record: MatchRecord, workers: dict[str, PlayerThread],
        views: dict[str, View] | None,
    ) -> State:
        """Ask the players (nature's move is drawn), repair faulty answers with random legal moves, make
        the joint move and, in a GDL-II game, hand each player its percepts (``views`` is updated)."""
        roles = self.game.roles
        legal = {r: state.legal_moves(r) for r in roles}
        deadline = time.monotonic() + self.play_clock
        asked = {
            r: workers[r].submit(
                partial(player.play, self._seen_by(r, state), deadline)
                if views is None
                else partial(player.play_view, views[r], deadline)
            )
            for r, player in self.players.items()
            if (self.ask_forced and not player.is_human) or len(legal[r]) > 1  # a person plays only choices
        }
        errors: dict[str, str] = {}
        codes: dict[str, str] = {}
        answers, times = self._collect(asked, deadline, errors, codes)
        for future in asked.values():
            if future.done() and isinstance(left := future.exception(), PlayerLeft):
                raise left
        joint: dict[str, Term] = {}
        for role in roles:
            move = _as_legal_move(answers[role], legal[role]) if role in answers else None
            if move is None and role in answers:
                shown = self.game.spell(answers[role])
                errors[role] = "illegal move: " + (shown if len(shown) <= 200 else shown[:200] + "...")
                codes[role] = f"IL {_spaced(shown)}"
            if move is None:
                move = legal[role][0] if len(legal[role]) == 1 else self.rng.choice(legal[role])
            joint[role] = move
        record.moves.append({r: self.game.spell(joint[r]) for r in roles})
        record.times.append({r: round(times.get(r, 0.0), 6) for r in roles})
        record.errors.append({r: errors.get(r, "") for r in roles})
        record.codes.append({r: codes.get(r, "") for r in roles})
        record.infos.append({r: _info(self.players[r]) for r in answers})
        if views is None:
            return state.next(joint)
        percepts = told(state, joint)
        reached = state.next(joint)
        record.percepts.append({r: sorted(map(str, percepts[r])) for r in roles})
        for role, view in views.items():
            legal_now = () if reached.is_terminal() else reached.legal_moves(role)
            views[role] = view.after(joint[role], percepts[role], legal_now)
        return reached

    def _collect(
        self,
        futures: dict[str, concurrent.futures.Future[Any]],
        deadline: float,
        errors: dict[str, str],
        codes: dict[str, str],
    ) -> tuple[dict[str, Any], dict[str, float]]:
        """The answers given by ``deadline`` (humans: whenever they answer) and the seconds each took.

        Exceptions and missed deadlines are written to ``errors`` (role -> message) and ``codes``
        (role -> ggp-base's code).
        """
        begun = time.monotonic()
        finished: dict[str, float] = {}
        for role, future in futures.items():
            future.add_done_callback(partial(_note_time, finished, role))
        timed = [f for r, f in futures.items() if not self.players[r].is_human]
        concurrent.futures.wait(timed, timeout=max(0.0, deadline + self.grace - begun))
        concurrent.futures.wait([f for f in futures.values() if f not in timed])
        answers: dict[str, Any] = {}
        times: dict[str, float] = {}
        for role, future in futures.items():
            times[role] = finished.get(role, time.monotonic()) - begun
            if not future.done():
                errors[role] = f"no answer within the clock ({deadline - begun:.2f} s)"
                codes[role] = "TO"
            elif (problem := future.exception()) is not None:
                errors[role] = describe(problem)
                codes[role] = error_code(problem)
            else:
                answers[role] = future.result()
        return answers, times


def _game_of_its_own(game: Game) -> Game:
    """``game`` with a reasoner of its own: what a player in the referee's process is handed, so that
    the referee's reasoner (and the states in its caches) is out of the player's reach."""
    return Game(game.checked, another_reasoner(unlocked_reasoner(game.reasoner), game.checked), game.name)


def _player(player: Player | str, seed: int | None) -> Player:
    """A player object, or the one a description names (``"mcts:iterations=200"``, as ``gdl play`` and
    ``gdl host`` take them); a player server's URL is for :func:`gdl.protocol.manager.host`."""
    if isinstance(player, Player):
        return player
    if player.startswith(("http://", "https://")):
        raise ValueError(
            f"{player!r} is a player server: gdl.protocol.manager.host plays it (Match plays local players)"
        )
    return make_player(player, seed)


def _info(player: Player) -> dict[str, Any]:
    """What the player reports about its search; a failing report is no reason to stop a match."""
    try:
        return dict(player.info())
    except Exception as problem:  # the player's bug, not the match's
        return {"error": describe(problem)}


def _note_time(finished: dict[str, float], role: str, _: concurrent.futures.Future[Any]) -> None:
    finished.setdefault(role, time.monotonic())


def _as_legal_move(answer: Any, legal: list[Term]) -> Term | None:
    """The legal move the answer (a term or KIF text) names, or None."""
    if isinstance(answer, str):
        try:
            answer = parse_term(answer)
        except KifSyntaxError:
            return None
    return answer if answer in legal else None
