"""Small games solved at the start: every reachable state of a turn-taking game without nature valued by
backward induction (:mod:`gdl.retrograde`, at engine speed), then played from that table.

A game small enough is solved in a moment of the start clock, and its exact values make the search
pointless: the player takes a move that attains its state's value. Against a perfect opponent any such
move is as good as another; against a fallible one some are better. So among them it takes the one with
the best expectation against an opponent that judges its moves by random playouts, as flat Monte Carlo
players do (and as every Monte Carlo player does before its tree grows): at each of its turns the
opponent takes a move with a probability that grows with the mean goal uniformly random play from there
gives it, ``exp(mean / PLAYOUT_NOISE)``, and it plays on as this player does. Next come the move's
*traps*, the share of the next mover's answers after which this role gets more, then (a win) the
shortest line or (else) the longest, then chance. The player never gives up any of the value: against
perfect play it draws what is drawn; against a fallible player it wins where that player tends to err.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import numpy as np

from gdl.errors import GameDefinitionError
from gdl.game import Game, State
from gdl.retrograde import EDGES, STATES, Exploration, explore, values
from gdl.syntax.model import Term

#: The most states a table keeps (its lookup, a dict of rows, takes about 100 bytes a state).
MOST_STATES = 300_000
#: The most joint moves among them (the table's valuing takes about 0.15 s a million).
MOST_EDGES = 5_000_000
#: The memory an exploration may take.
MEMORY = 256 << 20
#: How far apart (in goal points) two moves' random-playout means are for the modelled opponent to take
#: the better one e (2.72) times as often as the worse: flat Monte Carlo's estimates from a few
#: thousand playouts a move are that close.
PLAYOUT_NOISE = 2.0


@dataclass(frozen=True)
class SolvedMove:
    """A move of a solved state: the move, the value it attains for the role, its expectation against
    the opponent that judges by random playouts, and its traps (the share of the next mover's answers
    that give the role more)."""

    move: Term
    value: int
    expected: float
    traps: float


class SolvedGame:
    """The exact values of every reachable state of a game (see the module docstring)."""

    def __init__(self, found: Exploration, valued: np.ndarray, length: np.ndarray) -> None:
        self.found = found
        self.valued = valued
        self.length = length
        count = len(valued)
        self.number = {found.keys[s].tobytes(): s for s in range(count)}
        self.mover = np.argmax(found.legal_counts[:count] > 1, axis=1)
        self.starts, self.ends = found.child_start[:count], found.child_start[1 : count + 1]
        self.edges = found.children[: int(found.child_start[count])]
        self.levels = _levels(self.starts, self.ends, self.edges)
        #: Each role's mean goal under uniformly random play from each state.
        self.playouts = self._playout_means()
        self._expected: dict[int, np.ndarray] = {}

    def value(self, state: State, role: str) -> int | None:
        """``role``'s exact value in ``state`` (None: a state the table does not hold)."""
        number = self.number.get(self.found.row(state).tobytes())
        return None if number is None else int(self.valued[number, self.found.game.roles.index(role)])

    def choose(self, state: State, role: str, rng: random.Random | None = None) -> SolvedMove | None:
        """``role``'s move in ``state`` from the table (see the module docstring; ties at random with
        ``rng``, else the first); None for a state the table does not hold."""
        found, game = self.found, self.found.game
        number = self.number.get(found.row(state).tobytes())
        if number is None:
            return None
        r = game.roles.index(role)
        # The kernel numbers the moves as the compiled engine lists them.
        legal = [found.state(number).legal_moves(each) for each in game.roles]
        best = int(self.valued[number, r])
        top = int(found.goal_value.max(initial=100))
        expected = self.expected(r)
        ranked: list[tuple[float, float, int, int]] = []
        for joint in range(int(found.child_start[number]), int(found.child_start[number + 1])):
            child = int(found.children[joint])
            if int(self.valued[child, r]) < best:
                continue
            line = int(self.length[child])
            mean = round(float(expected[child]), 9)
            ranked.append((mean, self._traps(child, r, best), -line if best >= top else line, joint))
        first = max(ranked)[:3]
        ties = [each for each in ranked if each[:3] == first]
        _, traps, _, joint = rng.choice(ties) if rng is not None else ties[0]
        mean = float(expected[int(found.children[joint])])
        # Joint moves are numbered in mixed radix over the roles' legal moves, the last role fastest.
        rest = joint - int(found.child_start[number])
        for each in range(len(legal) - 1, r, -1):
            rest //= len(legal[each])
        return SolvedMove(legal[r][rest % len(legal[r])], best, mean, traps)

    def expected(self, role: int) -> np.ndarray:
        """``role``'s expectation in each state against the opponent that judges its moves by random
        playouts, ``role`` playing as :meth:`choose` does (see the module docstring)."""
        if role not in self._expected:
            self._expected[role] = self._against_playouts(role)
        return self._expected[role]

    def _playout_means(self) -> np.ndarray:
        found = self.found
        means = np.where(found.terminal[: len(self.valued), None], found.goals[: len(self.valued)], 0.0)
        for states in self.levels:
            kids, offsets, lengths = self._children(states)
            means[states] = np.add.reduceat(means[kids], offsets, axis=0) / lengths[:, None]
        return means

    def _against_playouts(self, role: int) -> np.ndarray:
        found = self.found
        count = len(self.valued)
        expected = np.where(found.terminal[:count], found.goals[:count, role], 0.0)
        for states in self.levels:
            kids, offsets, lengths = self._children(states)
            # Where the role moves: its best expectation among the moves that keep its value.
            keeps = self.valued[kids, role] == np.repeat(self.valued[states, role], lengths)
            own = np.maximum.reduceat(np.where(keeps, expected[kids], -np.inf), offsets)
            # Where another role moves: its moves weighed by their playout means for it.
            judged = self.playouts[kids, np.repeat(self.mover[states], lengths)]
            judged -= np.repeat(np.maximum.reduceat(judged, offsets), lengths)
            weights = np.exp(judged / PLAYOUT_NOISE)
            others = np.add.reduceat(weights * expected[kids], offsets) / np.add.reduceat(weights, offsets)
            expected[states] = np.where(self.mover[states] == role, own, others)
        return expected

    def _children(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The successors of ``states``, one run after another; where each run starts; their lengths."""
        lengths = self.ends[states] - self.starts[states]
        runs = _runs(self.starts[states], self.ends[states])
        return self.edges[runs], np.cumsum(lengths) - lengths, lengths

    def _traps(self, s: int, role: int, value: int) -> float:
        """The share of the joint moves of state ``s`` after which ``role`` gets more than ``value``, where
        another role moves there (0 where it is terminal or ``role`` moves)."""
        found = self.found
        if found.terminal[s] or self.mover[s] == role:
            return 0.0
        children = found.children[int(found.child_start[s]) : int(found.child_start[s + 1])]
        return float((self.valued[children, role] > value).mean())


def _levels(starts: np.ndarray, ends: np.ndarray, edges: np.ndarray) -> list[np.ndarray]:
    """The non-terminal states of an acyclic graph by height (the longest line to a terminal state),
    lowest first: each state's successors lie in earlier levels. Kahn's order a level at a time, each
    edge looked at once."""
    lengths = ends - starts
    sources = np.repeat(np.arange(len(starts)), lengths)
    by_child = np.argsort(edges, kind="stable")
    into = np.searchsorted(edges[by_child], np.arange(len(starts) + 1))  # each state's edges in
    remaining = lengths.copy()
    level = np.flatnonzero(lengths == 0)
    levels: list[np.ndarray] = []
    while True:
        runs = _runs(into[level], into[level + 1])
        parents = sources[by_child[runs]]
        remaining -= np.bincount(parents, minlength=len(starts))
        level = np.unique(parents[remaining[parents] == 0])
        if not len(level):
            return levels
        levels.append(level)


def _runs(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The indices ``starts[i]`` to ``ends[i]`` (excluded), one run after another."""
    lengths = ends - starts
    offsets = np.cumsum(lengths) - lengths
    return np.repeat(starts - offsets, lengths) + np.arange(int(lengths.sum()))


def solve_small(game: Game, stop_at: float, most_states: int = MOST_STATES) -> SolvedGame | None:
    """``game``'s table of exact values, when it is played by the compiled engine, turn-taking, without
    nature or percepts, has at most ``most_states`` reachable states and :data:`MOST_EDGES` joint moves
    among them and none repeats, and they are found and valued before ``stop_at``; else None (also
    where a reachable state breaks GDL: play finds that there)."""
    if game.has_percepts or game.chance_role is not None or getattr(game.reasoner, "net", None) is None:
        return None
    try:
        found, stopped = explore(game, game.initial_state(), stop_at, most_states, MEMORY, None)
    except GameDefinitionError:
        return None
    count = int(found.counters[STATES])
    if stopped or found.counting or int(found.counters[EDGES]) > MOST_EDGES:
        return None
    if (found.legal_counts[:count] > 1).sum(axis=1).max(initial=0) > 1:
        return None
    solution = values(found)
    if solution is None or time.monotonic() > stop_at:
        return None
    valued, length, _ = solution
    return SolvedGame(found, valued, length)
