"""Players that think in threads of the match runner's process: one thread per player, whose calls run
in order, and a lock on the game's reasoner while any such thread may use it.

Reasoners keep caches and are not thread-safe, so every call a player thread makes into a shared game
goes through :class:`LockedReasoner`; a thread stuck in a player's call keeps the lock in place until
it ends, which may be after its match.
"""

from __future__ import annotations

import concurrent.futures
import queue
import random
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from gdl.engines.base import Charges, Reasoner, charges_one_by_one, depth_charge, depth_charges, random_walk
from gdl.game import Game
from gdl.syntax.model import Term

#: One lock per reasoner object, shared by every match that uses it (see :class:`LockedReasoner`).
_LOCKS: weakref.WeakKeyDictionary[object, threading.Lock] = weakref.WeakKeyDictionary()
_LOCKS_GUARD = threading.Lock()


class LockedReasoner:
    """A reasoner whose calls are serialised by a lock, for players that think in worker threads.

    Reasoners keep caches and are not thread-safe; since Python threads share one interpreter lock
    anyway, serialising costs next to nothing. The lock belongs to the wrapped reasoner, so a player
    still busy from an earlier match cannot race a new one either.
    """

    def __init__(self, reasoner: Reasoner[Any]) -> None:
        self.unlocked = reasoner
        self.roles = reasoner.roles
        with _LOCKS_GUARD:
            self._lock = _LOCKS.setdefault(reasoner, threading.Lock())

    def initial(self) -> Any:
        with self._lock:
            return self.unlocked.initial()

    def fluents(self, state: Any) -> frozenset[Term]:
        with self._lock:
            return self.unlocked.fluents(state)

    def from_fluents(self, fluents: Iterable[Term]) -> Any:
        with self._lock:
            return self.unlocked.from_fluents(list(fluents))

    def legal(self, state: Any, role: int) -> tuple[Term, ...]:
        with self._lock:
            return self.unlocked.legal(state, role)

    def next(self, state: Any, moves: Sequence[Term]) -> Any:
        with self._lock:
            return self.unlocked.next(state, moves)

    def terminal(self, state: Any) -> bool:
        with self._lock:
            return self.unlocked.terminal(state)

    def goals(self, state: Any, role: int) -> tuple[Term, ...]:
        with self._lock:
            return self.unlocked.goals(state, role)

    def sees(self, state: Any, moves: Sequence[Term]) -> tuple[frozenset[Term], ...]:
        with self._lock:
            return self.unlocked.sees(state, moves)

    def depth_charge(self, state: Any, rng: random.Random, max_depth: int) -> tuple[Any, int, bool]:
        """The reasoner's own (native) playout under one lock, or a walk locking each call, so that a
        slow reasoner does not hold the lock for a whole playout."""
        if hasattr(self.unlocked, "depth_charge"):
            with self._lock:
                return depth_charge(self.unlocked, state, rng, max_depth)
        return random_walk(self, state, rng, max_depth)

    def depth_charges(self, state: Any, count: int, rng: random.Random, max_depth: int) -> Charges[Any]:
        """The reasoner's own (native) depth charges under one lock, or charges made one by one locking
        each call."""
        if hasattr(self.unlocked, "depth_charges"):
            with self._lock:
                return depth_charges(self.unlocked, state, count, rng, max_depth)
        return charges_one_by_one(self, state, count, rng, max_depth)


def unlocked_reasoner(reasoner: Any) -> Any:
    """The reasoner under the lock, or ``reasoner`` itself when it has none."""
    return reasoner.unlocked if isinstance(reasoner, LockedReasoner) else reasoner


#: How many matches and player threads use each game now; its reasoner is locked while any does.
_USERS: weakref.WeakKeyDictionary[Game, int] = weakref.WeakKeyDictionary()
_USERS_GUARD = threading.Lock()


def use_from_threads(game: Game) -> None:
    """Note one more user of ``game`` from another thread; the first one puts a lock on its reasoner.

    The game object itself is changed, not copied, so that the states of a match stay comparable with
    the user's states of the same game; the cost is a lock per reasoner call, small beside the call.
    """
    with _USERS_GUARD:
        if not _USERS.get(game) and not isinstance(game.reasoner, LockedReasoner):
            game.reasoner = LockedReasoner(game.reasoner)
        _USERS[game] = _USERS.get(game, 0) + 1


def done_with(game: Game) -> None:
    """Undo one :func:`use_from_threads`; the last user takes the lock away again."""
    with _USERS_GUARD:
        _USERS[game] -= 1
        if _USERS[game] == 0:
            del _USERS[game]
            if isinstance(game.reasoner, LockedReasoner):
                game.reasoner = game.reasoner.unlocked


class PlayerThread:
    """A daemon thread that runs one player's calls in order; :meth:`submit` returns a future.

    The thread uses ``game`` (see :func:`use_from_threads`) until it ends, which may be after the match
    when a player is stuck in a call.
    """

    def __init__(self, name: str, game: Game) -> None:
        self._calls: queue.Queue[tuple[concurrent.futures.Future[Any], Callable[[], Any]] | None] = (
            queue.Queue()
        )
        self._game = game
        use_from_threads(game)
        self._thread = threading.Thread(target=self._serve, name=f"gdl-player-{name}", daemon=True)
        self._thread.start()

    def submit(self, call: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._calls.put((future, call))
        return future

    def close(self, wait: float) -> None:
        """End the thread once its calls are done; wait up to ``wait`` seconds for that."""
        self._calls.put(None)
        self._thread.join(wait)

    def _serve(self) -> None:
        try:
            while (item := self._calls.get()) is not None:
                future, call = item
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(call())
                    except BaseException as problem:  # any failure of a player is its error
                        future.set_exception(problem)
        finally:
            done_with(self._game)
