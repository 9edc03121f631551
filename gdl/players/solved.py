"""Small games solved at the start: every reachable state of a turn-taking game without nature valued by
backward induction (:mod:`gdl.retrograde`, at engine speed), then played from that table.

A game small enough is solved in a moment of the start clock, and its exact values make the search
pointless: the player takes a move that attains its state's value. Among such moves it takes the one
that leaves the next mover the most ways to go wrong, the share of its answers after which this role
gets more (an opponent that plays perfectly is indifferent; one that does not gets the most chances to
err): a draw against a perfect player, more against a fallible one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from gdl.game import Game, State
from gdl.retrograde import STATES, Exploration, explore, values
from gdl.syntax.model import Term

#: The most states a table keeps (its lookup, a dict of rows, takes about 100 bytes a state).
MOST_STATES = 300_000
#: The memory an exploration may take.
MEMORY = 256 << 20


@dataclass(frozen=True)
class SolvedMove:
    """A move of a solved state: the move, the value it attains for the role, and its traps (the share
    of the next mover's answers that give the role more)."""

    move: Term
    value: int
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

    def value(self, state: State, role: str) -> int | None:
        """``role``'s exact value in ``state`` (None: a state the table does not hold)."""
        number = self.number.get(self.found.row(state).tobytes())
        return None if number is None else int(self.valued[number, self.found.game.roles.index(role)])

    def choose(self, state: State, role: str) -> SolvedMove | None:
        """``role``'s move in ``state`` from the table: one that attains the state's value for it, with
        the most traps, then (a win) the shortest line or (else) the longest; None for a state the table
        does not hold."""
        found, game = self.found, self.found.game
        number = self.number.get(found.row(state).tobytes())
        if number is None:
            return None
        r = game.roles.index(role)
        # The kernel numbers the moves as the compiled engine lists them.
        legal = [found.state(number).legal_moves(each) for each in game.roles]
        best = int(self.valued[number, r])
        top = int(found.goal_value.max(initial=100))
        ranked: list[tuple[float, int, int]] = []
        for joint in range(int(found.child_start[number]), int(found.child_start[number + 1])):
            child = int(found.children[joint])
            if int(self.valued[child, r]) < best:
                continue
            line = int(self.length[child])
            ranked.append((self._traps(child, r, best), -line if best >= top else line, joint))
        traps, _, joint = max(ranked)
        # Joint moves are numbered in mixed radix over the roles' legal moves, the last role fastest.
        rest = joint - int(found.child_start[number])
        for each in range(len(legal) - 1, r, -1):
            rest //= len(legal[each])
        return SolvedMove(legal[r][rest % len(legal[r])], best, traps)

    def _traps(self, s: int, role: int, value: int) -> float:
        """The share of the joint moves of state ``s`` after which ``role`` gets more than ``value``, where
        another role moves there (0 where it is terminal or ``role`` moves)."""
        found = self.found
        if found.terminal[s] or self.mover[s] == role:
            return 0.0
        children = found.children[int(found.child_start[s]) : int(found.child_start[s + 1])]
        return float((self.valued[children, role] > value).mean())


def solve_small(game: Game, stop_at: float, most_states: int = MOST_STATES) -> SolvedGame | None:
    """``game``'s table of exact values, when it is played by the compiled engine, turn-taking, without
    nature or percepts, has at most ``most_states`` reachable states and none repeats, and they are
    found and valued before ``stop_at``; else None."""
    if game.has_percepts or game.chance_role is not None or getattr(game.reasoner, "net", None) is None:
        return None
    found, stopped = explore(game, game.initial_state(), stop_at, most_states, MEMORY, None)
    count = int(found.counters[STATES])
    if stopped or found.counting or (found.legal_counts[:count] > 1).sum(axis=1).max(initial=0) > 1:
        return None
    solution = values(found)
    if solution is None or time.monotonic() > stop_at:
        return None
    valued, length, _ = solution
    return SolvedGame(found, valued, length)
