"""Monte Carlo CFR for GDL-II games whose extensive form is too large to store: outcome sampling
through the compiled network, with regrets and average strategies in tables keyed by information set.

Each iteration samples one play on the game's network (:mod:`gdl.extensive.sampling_kernel`) and
updates, as outcome-sampling MCCFR does on a stored tree (:mod:`gdl.extensive.mccfr`), the regrets of
the player it updates (each in turn) and the average strategy of the other. An information set is what
its player has seen, as :meth:`gdl.views.View.information_state` writes it (its own moves, what it was
told after each, its legal moves now), kept as numbers interned in hash tables exactly (no hashing
away of collisions): a view is its previous view, its move and its percepts, and an information set is
a view and the legal moves. Only the information sets the plays touch are stored, so memory grows with
the iterations, not with the tree; the sampling stops at ``iterations``, at ``seconds`` or when the
tables would pass ``memory``.

No exact best response is possible on a tree that is not stored; :mod:`gdl.extensive.sampled_bound`
gives a statistical lower bound of the average strategy's exploitability instead.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gdl.errors import GdlSourceError, NotTwoPlayerError
from gdl.extensive.generate import DEFAULT_MEMORY, Network
from gdl.extensive.mccfr import EXPLORATION
from gdl.game import Game

if TYPE_CHECKING:
    from gdl.extensive.generate import GameTree
    from gdl.extensive.sequence import FloatArray, SequenceForm

#: Rows of each table at first (they double as they fill).
FIRST_ROWS = 1 << 12
#: The most plays a call of the kernel samples between two looks at the clock (fewer, by
#: :func:`next_batch`, where plays are slow).
BATCH = 20_000
#: The CPU-seconds a call of the kernel aims at.
BATCH_SECONDS = 0.05
#: The share of the memory MCCFR's tables may take (the rest is kept for learning best responders).
MCCFR_MEMORY = 0.75
#: Steps of the longest play the sampling accepts.
MAX_STEPS = 1_000


class Sampler:
    """A two-player GDL-II game's network and the tables of the information sets its plays touched:
    each one's player, actions, parent sequence, and per action its regret, average-strategy weight
    and estimated earnings (see :mod:`gdl.extensive.sampling_kernel`)."""

    def __init__(self, game: Game, *, memory: int = DEFAULT_MEMORY, seed: int = 0) -> None:
        from gdl.extensive import sampling_kernel as kernel

        if len(game.players) != 2:
            raise NotTwoPlayerError(
                f"sampled Monte Carlo CFR needs two players; the game has {len(game.players)}"
            )
        self.game = game
        self.memory = memory
        setup = Network(game)  # raises ArraysUnsupportedError for a game without a network
        net = setup.net
        roles = len(net.roles)
        self.setup = setup
        role_names = [str(r) for r in net.roles]
        self.player_role = np.asarray([role_names.index(p) for p in game.players], dtype=np.int64)
        self.role_player = np.full(roles, -1, dtype=np.int64)
        self.role_player[self.player_role] = np.arange(2)
        self.chance = role_names.index(game.chance_role) if game.chance_role in role_names else -1
        self.sees_first = np.cumsum([0, *(len(e) for e in setup.sees)]).astype(np.int64)
        self.initial = setup.frames(1)[0].copy()
        percept_words = max(roles, *((len(e) + 63) // 64 for e in setup.sees), 1)
        legal_words = (setup.most_legal + 63) // 64
        rows = FIRST_ROWS + (MAX_STEPS + 2) * max(roles, 2)
        self.arrays: dict[str, npt.NDArray[Any]] = {
            "view_keys": np.zeros((rows, 3), dtype=np.int64),
            "percept_keys": np.zeros((rows, percept_words), dtype=np.int64),
            "legal_keys": np.zeros((rows, legal_words), dtype=np.int64),
            "set_keys": np.zeros((rows, 2), dtype=np.int64),
            "set_player": np.zeros(rows, dtype=np.int8),
            "set_count": np.zeros(rows, dtype=np.int32),
            "set_first": np.zeros(rows, dtype=np.int64),
            "set_parent": np.zeros(rows, dtype=np.int64),
            "set_visits": np.zeros(rows, dtype=np.int64),
            "choice": np.full(rows, -1, dtype=np.int64),
            "regrets": np.zeros(rows * setup.most_legal),
            "average": np.zeros(rows * setup.most_legal),
            "earn": np.zeros(rows * setup.most_legal),
        }
        self.tables = {name: _table(rows) for name in ("view_keys", "percept_keys", "legal_keys", "set_keys")}
        self.counters = np.zeros(kernel.COUNTERS, dtype=np.int64)
        self.counters[kernel.CONSTANT] = -1
        self.earn_root = np.zeros(1)
        self.rng = np.array([seed * 2 + 1], dtype=np.uint64)
        #: Whether the tables reached ``memory`` (nothing more is stored).
        self.full = False

    @property
    def sets(self) -> int:
        from gdl.extensive.sampling_kernel import INFOSETS

        return int(self.counters[INFOSETS])

    def infosets(self) -> dict[str, int]:
        """The information sets stored, per player."""
        counts = np.bincount(self.arrays["set_player"][: self.sets], minlength=2)
        return {player: int(counts[k]) for k, player in enumerate(self.game.players)}

    @property
    def constant(self) -> int:
        """The goals' sum on every play sampled (-1 before the first)."""
        from gdl.extensive.sampling_kernel import CONSTANT

        return int(self.counters[CONSTANT])

    def used(self) -> int:
        return sum(a.nbytes for a in self.arrays.values()) + sum(t.nbytes for t in self.tables.values())

    def play(
        self, mode: int, plays: int, *, start: int = 0, responder: int = 0, exploration: float = EXPLORATION,
        outcomes: FloatArray | None = None, share: float = 1.0,
    ) -> int:
        """Sample ``plays`` plays in ``mode`` (:mod:`gdl.extensive.sampling_kernel`); the plays done
        (fewer when the tables would pass ``share`` of the memory: :attr:`full`)."""
        from gdl.extensive import sampling_kernel as kernel

        setup, a, t = self.setup, self.arrays, self.tables
        if outcomes is None:
            outcomes = np.zeros(1)
        done = 0
        while done < plays:
            status = kernel.play(
                mode, plays - done, start + done, responder, exploration, self.rng,
                setup.state_sweep.tables, setup.next_sweep.tables, setup.legal_first, setup.legal_input,
                setup.goal_first, setup.goal_values, self.sees_first, self.player_role, self.role_player,
                self.chance, not self.game.has_percepts, setup.input_bytes, MAX_STEPS, self.initial,
                self.counters, a["view_keys"], t["view_keys"], a["percept_keys"], t["percept_keys"],
                a["legal_keys"], t["legal_keys"], a["set_keys"], t["set_keys"], a["set_player"],
                a["set_count"], a["set_first"], a["set_parent"], a["set_visits"], a["regrets"], a["average"],
                a["earn"], self.earn_root, a["choice"],
                outcomes[done:] if mode == kernel.EVALUATE else outcomes,
            )
            done += int(self.counters[kernel.PLAYED])
            if status == kernel.DONE:
                break
            if status != kernel.GROW:
                raise _broken(self.game, status)
            if 2 * self.used() > share * self.memory:
                self.full = True
                break
            self._grow()
        return done

    def _grow(self) -> None:
        """Double every table that may not hold another play."""
        from gdl.extensive import sampling_kernel as kernel
        from gdl.extensive.generate_kernel import rehash

        headroom = (MAX_STEPS + 2) * max(len(self.role_player), 2)
        counts = {
            "view_keys": kernel.VIEWS, "percept_keys": kernel.PERCEPTS, "legal_keys": kernel.LEGALS,
            "set_keys": kernel.INFOSETS,
        }
        for name, field in counts.items():
            rows = int(self.counters[field]) + headroom
            if rows > len(self.arrays[name]) or 2 * rows > len(self.tables[name]):
                grown = max(2 * len(self.arrays[name]), rows)
                group = [name] if name != "set_keys" else [
                    "set_keys", "set_player", "set_count", "set_first", "set_parent", "set_visits", "choice"
                ]
                for member in group:
                    self.arrays[member] = _grown(self.arrays[member], grown, -1 if member == "choice" else 0)
                self.tables[name] = _table(grown)
                rehash(self.arrays[name], self.tables[name], int(self.counters[field]))
        sequences = int(self.counters[kernel.SEQUENCES]) + headroom * self.setup.most_legal
        if sequences > len(self.arrays["regrets"]):
            size = max(2 * len(self.arrays["regrets"]), sequences)
            for member in ("regrets", "average", "earn"):
                self.arrays[member] = _grown(self.arrays[member], size, 0)

    def tree_sets(self, tree: GameTree) -> npt.NDArray[np.int64]:
        """Per information set of the stored tree of the same game, its number in these tables (-1:
        never sampled); the tree's views, percepts and legal moves are numbered as these are."""
        from gdl.extensive.sampling_kernel import lookup

        a, t = self.arrays, self.tables
        # The tree's views as this sampler numbers them (-1: never sampled), parents first.
        mine_of_view = np.full(len(tree.view_keys), -1, dtype=np.int64)
        for view, (parent, move, percepts) in enumerate(tree.view_keys):
            if move < 0:
                key = np.asarray([parent, -1, -1], dtype=np.int64)
            elif mine_of_view[parent] < 0:
                continue
            else:
                row = np.zeros(a["percept_keys"].shape[1], dtype=np.int64)
                words = tree.percept_keys[percepts]
                row[: len(words)] = words
                found = lookup(a["percept_keys"], t["percept_keys"], row)
                if found < 0:
                    continue
                key = np.asarray([mine_of_view[parent], move, found], dtype=np.int64)
            mine_of_view[view] = lookup(a["view_keys"], t["view_keys"], key)
        sets = np.full(len(tree.set_player), -1, dtype=np.int64)
        for number in range(len(tree.set_player)):
            view = mine_of_view[tree.set_view[number]]
            legal = lookup(a["legal_keys"], t["legal_keys"], tree.legal_keys[tree.set_legal[number]])
            if view >= 0 and legal >= 0:
                sets[number] = lookup(a["set_keys"], t["set_keys"], np.asarray([view, legal], dtype=np.int64))
        return sets

    def average_plans(self, tree: GameTree, form: SequenceForm) -> tuple[FloatArray, FloatArray]:
        """The average strategy's realization plans on the stored tree of the same game (uniform at
        the information sets no play touched), to measure its exploitability exactly there."""
        a = self.arrays
        behaviours = [np.zeros(len(side.sequences)) for side in form.sides]
        sides = [np.flatnonzero(tree.set_player == mover) for mover in range(2)]
        index_in_side = np.zeros(len(tree.set_player), dtype=np.int64)
        for mine in sides:
            index_in_side[mine] = np.arange(len(mine))
        for number, found in enumerate(self.tree_sets(tree)):
            mover = int(tree.set_player[number])
            side = form.sides[mover]
            first, count = int(side.first[index_in_side[number]]), int(side.count[index_in_side[number]])
            behaviour = behaviours[mover]
            behaviour[first : first + count] = 1.0 / count
            if found < 0:
                continue
            start = int(a["set_first"][found])
            weights = a["average"][start : start + count]
            if weights.sum() > 0:
                behaviour[first : first + count] = weights / weights.sum()
        plans = [side.plan_of(b) for side, b in zip(form.sides, behaviours, strict=True)]
        return plans[0], plans[1]


@dataclass(frozen=True)
class SampledRun:
    """What :func:`sample_mccfr` did: its iterations, why it stopped, its time."""

    iterations: int
    #: "iterations", "time" or "memory".
    stopped: str
    seconds: float
    cpu_seconds: float

    @property
    def rate(self) -> float:
        """Iterations per CPU-second."""
        return self.iterations / max(self.cpu_seconds, 1e-9)


def sample_mccfr(
    sampler: Sampler, iterations: int, *, seconds: float | None = None, start: int = 0,
    progress: Callable[[int, float], None] | None = None,
) -> SampledRun:
    """Run outcome-sampling MCCFR on ``sampler``'s game for ``iterations`` iterations (fewer once
    ``seconds`` have passed or the tables take :data:`MCCFR_MEMORY` of the memory), starting at
    iteration ``start``; ``progress(iterations, seconds)`` is called after every call of the kernel."""
    from gdl.extensive.sampling_kernel import MCCFR

    if iterations < 1:
        raise ValueError("iterations must be at least 1")
    began, cpu = time.monotonic(), time.process_time()
    done = 0
    stopped = "iterations"
    sampler.full = False
    batch = 100
    while done < iterations:
        before = time.process_time()
        done += sampler.play(MCCFR, min(batch, iterations - done), start=start + done, share=MCCFR_MEMORY)
        batch = next_batch(batch, time.process_time() - before)
        if progress is not None:
            progress(done, time.monotonic() - began)
        if sampler.full:
            stopped = "memory"
            break
        if seconds is not None and time.monotonic() - began >= seconds and done < iterations:
            stopped = "time"
            break
    return SampledRun(done, stopped, time.monotonic() - began, time.process_time() - cpu)


def next_batch(batch: int, seconds: float) -> int:
    """The plays of the next call of the kernel, after ``batch`` took ``seconds``: as many as take
    :data:`BATCH_SECONDS`, at most twice the last and at most :data:`BATCH`."""
    return max(1, min(BATCH, 2 * batch, int(batch * BATCH_SECONDS / max(seconds, 1e-9))))


def _table(rows: int) -> npt.NDArray[np.int64]:
    return np.zeros(1 << (2 * rows).bit_length(), dtype=np.int64)


def _grown(array: npt.NDArray[Any], rows: int, fill: int) -> npt.NDArray[Any]:
    grown = np.full((rows, *array.shape[1:]), fill, dtype=array.dtype)
    grown[: len(array)] = array
    return grown


def _broken(game: Game, status: int) -> Exception:
    from gdl.extensive import sampling_kernel as kernel

    why = {
        kernel.RECALL: "a player reaches the same information set after different moves of its own (it "
        "forgets); Monte Carlo CFR needs perfect recall",
        kernel.NO_LEGAL_MOVE: "a role has no legal move in a state that is not terminal",
        kernel.NO_GOAL: "a player has no goal value, or several, at a terminal state",
        kernel.TOO_LONG: f"a play is longer than {MAX_STEPS} steps",
        kernel.NOT_CONSTANT_SUM: "the goals do not sum to the same constant on every play",
    }.get(status, f"status {status}")
    return GdlSourceError(f"game {game.name!r}: {why}")


__all__ = ["BATCH", "SampledRun", "Sampler", "next_batch", "sample_mccfr"]
