"""A player in a process of its own, out of reach of the referee's objects.

A player that shares the referee's process can reach whatever the process holds: the true state of a
game with hidden information is among the referee's objects (its states, its reasoner's caches), and
Python keeps nothing private. :class:`IsolatedPlayer` runs a player in a worker process of its own
(:mod:`gdl.workers`, under the same CPU-time and memory limits as the player server's): the process is
sent the rules as text, loads its own game, and is then sent only what the player's role is told (its
view, or in a game without ``sees`` rules the state). The match runner seats every non-human player of
a GDL-II game so by default.

The player object is pickled into the process: what it learns there stays there, and its moves and its
:meth:`Player.info` are sent back as text.
"""

from __future__ import annotations

import pickle
import time
from typing import Any

from gdl.budget import LOAD_SECONDS
from gdl.game import Game, State, parse
from gdl.players.base import Player
from gdl.syntax.model import Term
from gdl.syntax.reader import parse_term
from gdl.views import View
from gdl.workers import DEFAULT_LIMITS, Limits, WorkerProcess, preload

preload(__name__)

#: A view as it crosses to the player's process: the role, its moves, what it was told after each, its
#: legal moves, all as KIF text.
ViewText = tuple[str, tuple[str, ...], tuple[tuple[str, ...], ...], tuple[str, ...]]


def view_text(view: View) -> ViewText:
    return (
        view.role,
        tuple(map(str, view.moves)),
        tuple(tuple(sorted(map(str, seen))) for seen in view.percepts),
        tuple(map(str, view.legal)),
    )


def _view(text: ViewText) -> View:
    role, moves, percepts, legal = text
    return View(
        role,
        tuple(map(parse_term, moves)),
        tuple(frozenset(map(parse_term, seen)) for seen in percepts),
        tuple(map(parse_term, legal)),
    )


def check_picklable(player: Player) -> None:
    """Raise :class:`ValueError` when ``player`` cannot be sent to a process of its own."""
    try:
        pickle.dumps(player)
    except Exception as problem:  # whatever pickling raises: the player cannot move
        raise ValueError(
            f"player {player.name!r} cannot run in a process of its own ({type(problem).__name__}: "
            f"{problem}); make it picklable, or play it in the referee's process (unsafe with players "
            "that are not trusted: they can read the hidden state there)"
        ) from None


class _Inside:
    """The player's side, in its process: its own game, loaded from the rules text."""

    def __init__(self, player: Player, rules: str, engine: str, name: str) -> None:
        self.player = player
        self.rules = rules
        self.engine = engine
        self.name = name

    game: Game | None = None

    def load(self) -> None:
        self.game = parse(self.rules, self.engine, file=f"{self.name}.kif")

    def start(self, role: str, start_clock: float, play_clock: float) -> None:
        if self.game is None:  # loading failed: again, so that the start says why
            self.load()
        assert self.game is not None
        self.player.start(self.game, role, start_clock, play_clock)

    def play(self, fluents: tuple[str, ...], deadline: float) -> tuple[str, dict[str, Any]]:
        move = self.player.play(self.player.game.state(fluents), deadline)
        return str(move), self.player.info()

    def play_view(self, view: ViewText, deadline: float) -> tuple[str, dict[str, Any]]:
        move = self.player.play_view(_view(view), deadline)
        return str(move), self.player.info()

    def end(self, method: str, where: tuple[str, ...] | ViewText) -> None:
        if method.endswith("_view"):
            getattr(self.player, method)(_view(where))  # type: ignore[arg-type]
        else:
            getattr(self.player, method)(self.player.game.state(where))  # type: ignore[arg-type]


class IsolatedPlayer(Player):
    """``player`` run in a worker process of its own under ``limits``, with a game of its own loaded by
    ``engine``. Each match has a fresh process, made by :meth:`prepare` (before the clocks, as the match
    runner calls it) or else by :meth:`start`; :meth:`close` ends it."""

    def __init__(self, player: Player, engine: str = "auto", limits: Limits = DEFAULT_LIMITS) -> None:
        check_picklable(player)
        self.player = player
        self.name = player.name
        self.thinks = player.thinks
        self.engine = engine
        self.limits = limits
        self.worker: WorkerProcess | None = None
        self._prepared: Game | None = None

    def __repr__(self) -> str:
        return f"<IsolatedPlayer {self.player!r}>"

    def prepare(self, game: Game, role: str) -> None:
        """Start the player's process for a match of ``game`` and load the game there, within the CPU
        time loading may take (:data:`gdl.budget.LOAD_SECONDS`); raises :class:`ProtocolError` when the
        process fails (then :meth:`start` fails too, and says why)."""
        self.close()
        rules = " ".join(game.spell(rule) for rule in game.checked.program.rules)
        inside = _Inside(self.player, rules, self.engine, game.name)
        self.worker = WorkerProcess(inside, self.limits, f"player of {role}")
        self._prepared = game
        self.worker.start()
        self.worker.call("load", LOAD_SECONDS)

    def start(self, game: Game, role: str, start_clock: float, play_clock: float) -> None:
        super().start(game, role, start_clock, play_clock)
        if self.worker is None or self._prepared is not game:
            self.prepare(game, role)
        self._worker().call("start", start_clock, role, start_clock, play_clock)

    def play(self, state: State, deadline: float) -> Term:
        return self._move("play", tuple(sorted(map(str, state.fluents()))), deadline)

    def play_view(self, view: View, deadline: float) -> Term:
        return self._move("play_view", view_text(view), deadline)

    def _move(self, method: str, where: object, deadline: float) -> Term:
        move, self._info = self._worker().call(method, max(0.0, deadline - time.monotonic()), where, deadline)
        return parse_term(move)

    def stop(self, state: State) -> None:
        self._end("stop", tuple(sorted(map(str, state.fluents()))))

    def abort(self, state: State) -> None:
        self._end("abort", tuple(sorted(map(str, state.fluents()))))

    def stop_view(self, view: View) -> None:
        self._end("stop_view", view_text(view))

    def abort_view(self, view: View) -> None:
        self._end("abort_view", view_text(view))

    def _end(self, method: str, where: object) -> None:
        try:
            self._worker().call("end", self.play_clock, method, where)
        finally:
            self.close()

    def _worker(self) -> WorkerProcess:
        if self.worker is None:
            raise RuntimeError(f"player {self.name!r} was not started")
        return self.worker

    def close(self) -> None:
        """End the player's process (at once if it is still busy)."""
        if self.worker is not None:
            self.worker.close(wait=0.5)
            self.worker, self._prepared = None, None
