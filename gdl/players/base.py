"""The one player interface, used alike by scripts, the CLI, the match runner and the network server."""

from __future__ import annotations

import functools
import math
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from gdl.deprecation import moved_names
from gdl.game import Game, State
from gdl.players.tracking import BeliefTracker, sample_playing
from gdl.syntax.model import Term
from gdl.views import View

#: The bound on the belief behind the default :meth:`Player.play_view`: small, so that keeping it leaves
#: the player most of its clock.
DEFAULT_BELIEF_STATES = 100


class Player(ABC):
    """A player is told the game, its role and the clocks, asked for moves, and told when it ends.

    Clocks are in seconds. ``deadline`` values are :func:`time.monotonic` instants by which the player
    must have answered; a player should keep a safety margin. The caller (a :class:`gdl.match.Match`,
    the CLI, a network server) calls :meth:`start` once, then :meth:`play` once per step, then
    :meth:`stop` when the match is over or :meth:`abort` when it is abandoned. A player object plays one
    match at a time; :meth:`start` resets whatever it learnt in an earlier match.

    In a GDL-II game (one with ``sees`` rules, :func:`gdl.views.plays_with_views`) a player never gets
    the state: it is asked :meth:`play_view` with its :class:`gdl.views.View` (its own moves, its
    percepts, its legal moves) and told :meth:`stop_view` or :meth:`abort_view` at the end. By default
    :meth:`play_view` keeps the belief of the view (:class:`gdl.players.tracking.BeliefTracker`) and
    calls :meth:`play` on one state drawn from it, so that every perfect-information player can take
    part; players built for hidden information override it.
    """

    #: A short name for tables and logs, e.g. ``"mcts"``.
    name: str = "player"

    #: A person at a terminal: match runners wait for their moves instead of enforcing the play clock.
    is_human: bool = False

    #: Whether the player runs outside this process (a player server reached over the network), so that
    #: it cannot reach the referee's objects and needs no process of its own.
    elsewhere: bool = False

    #: Whether choosing a move keeps a CPU busy (a search does; a random or fixed choice does not):
    #: tournaments on a cluster reserve one CPU per player that thinks.
    thinks: bool = True

    game: Game
    role: str
    start_clock: float
    play_clock: float

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every player's ``play`` (and ``play_view``) first checks its deadline (see
        :func:`check_deadline`), so that no player searches until killed on a wall-clock deadline."""
        super().__init_subclass__(**kwargs)
        for name in ("play", "play_view"):
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "checks_deadline", False):
                setattr(cls, name, _checking_deadline(method))

    def start(self, game: Game, role: str, start_clock: float, play_clock: float) -> None:
        """A match begins; preparation may use up to ``start_clock`` seconds."""
        self.game = game
        self.role = role
        self.start_clock = start_clock
        self.play_clock = play_clock

    @abstractmethod
    def play(self, state: State, deadline: float) -> Term:
        """Choose a legal move for :attr:`role` in ``state`` before ``deadline``."""

    def stop(self, state: State) -> None:  # noqa: B027 - optional hook
        """The match ended in ``state`` (terminal)."""

    def abort(self, state: State) -> None:
        """The match was abandoned in the non-terminal ``state``; by default the same as :meth:`stop`."""
        self.stop(state)

    def play_view(self, view: View, deadline: float) -> Term:
        """GDL-II: choose one of ``view.legal`` before ``deadline``, knowing only ``view``. By default,
        :meth:`play` on a state drawn by its probability from the states consistent with the view (where
        the game goes on)."""
        tracker = self._tracker
        if tracker is None or tracker.game is not self.game or tracker.role != view.role:
            tracker = self._tracker = BeliefTracker(
                self.game, view.role, max_states=DEFAULT_BELIEF_STATES, rng=random.Random(0)
            )
        return self.play(sample_playing(tracker.belief(view), tracker.rng), deadline)

    def stop_view(self, view: View) -> None:  # noqa: B027 - optional hook
        """GDL-II: the match ended; ``view`` is the player's last view (its legal moves are empty)."""

    def abort_view(self, view: View) -> None:
        """GDL-II: the match was abandoned; by default the same as :meth:`stop_view`."""
        self.stop_view(view)

    #: The belief behind the default :meth:`play_view`, made on first use.
    _tracker: BeliefTracker | None = None

    #: What the player found out while choosing its last move; players that search set it.
    _info: dict[str, Any] = {}  # noqa: RUF012 - replaced, never mutated

    def info(self) -> dict[str, Any]:
        """What the player last found out (e.g. ``{"iterations": 812}``), for logs; empty by default."""
        return dict(self._info)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def at_least(kind: str, option: str, value: float | None, minimum: float) -> None:
    """Refuse an option value below ``minimum`` (None means unset) with a :class:`ValueError`."""
    if value is not None and value < minimum:
        raise ValueError(f"{kind} {option} must be at least {minimum:g}, got {value:g}")


#: A deadline this many seconds ahead of :func:`time.monotonic` (about three years) is a wall-clock time.
_WALL_CLOCK_AHEAD = 1e8


def check_deadline(deadline: float) -> None:
    """Refuse a deadline that is not a :func:`time.monotonic` instant (``math.inf``: no deadline).

    ``time.time() + 1`` is decades ahead of the monotonic clock, and a player would search until it
    is killed; a :class:`ValueError` says what to pass instead.
    """
    ahead = deadline - time.monotonic()
    if math.isnan(deadline) or (_WALL_CLOCK_AHEAD < ahead < math.inf):
        raise ValueError(
            f"deadline {deadline!r} is {ahead:.3g} s from now: pass time.monotonic() + seconds, "
            "not time.time() + seconds"
        )


def _checking_deadline(method: Callable[..., Term]) -> Callable[..., Term]:
    @functools.wraps(method)
    def play(self: Player, where: Any, deadline: float) -> Term:
        check_deadline(deadline)
        return method(self, where, deadline)

    play.checks_deadline = True  # type: ignore[attr-defined]
    return play


moved_names(__name__, "gdl.errors", "PlayerLeft")
