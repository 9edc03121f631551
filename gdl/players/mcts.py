"""The Monte Carlo tree search player: UCT, decoupled for simultaneous moves, reusing its tree.

Every iteration walks down the tree choosing, for *each role separately*, the move with the highest
UCB1 score from that role's own statistics at the node (decoupled UCT: roles that move at once do not
see each other's choice; in turn-taking games only the role to move has a choice and this is plain
UCT; nature, GDL-II's ``random``, picks uniformly). The first joint move leading outside the tree adds
one node, a random playout from it (:meth:`MctsPlayer.rollout`) scores every role, and the scores
(goal / 100) are added along the path. The move played is the one of this player's moves visited most
at the root.

Between moves the subtree of the state actually reached is kept (tree reuse); a new match starts a new
tree. Playouts live in one method, :meth:`MctsPlayer.rollout`. With ``batch`` K > 1 it runs K playouts of
the leaf at once on the batched engine (:class:`gdl.engines.batched.BatchedEngine`) and backs up each
role's mean goal; the batched engine needs the game instantiated, and when it is too large (or cannot be
instantiated within the budgets of ``engine="auto"``) the player logs a warning and plays single
playouts on the game's own reasoner. The search stops at the deadline less a safety ``margin``
(earlier if the longest iteration so far would overrun it), or after ``iterations`` iterations.
"""

from __future__ import annotations

import logging
import math
import random
import sys
import time

from gdl.engines import AUTO_MAX_SECONDS, build_compiled
from gdl.engines.base import depth_charge, depth_charges
from gdl.engines.batched import BatchedEngine
from gdl.engines.compiled import CompiledReasoner
from gdl.errors import GameTooLargeError
from gdl.game import Game, State
from gdl.players.base import Player, at_least
from gdl.syntax.model import Term

logger = logging.getLogger(__name__)

#: The compiled reasoner that maps states to bitsets, and the batched engine over its network.
_Batched = tuple[CompiledReasoner, BatchedEngine]


class _Node:
    """A state in the tree with each role's move statistics (decoupled: one table per role)."""

    __slots__ = ("children", "goals", "moves", "state", "totals", "visits")

    def __init__(self, state: State, roles: tuple[str, ...]) -> None:
        self.state = state
        self.children: dict[tuple[int, ...], _Node] = {}
        if state.is_terminal():
            goals = state.goals()
            # Nature (GDL-II's random) has no goal; its entry is never used.
            self.goals: tuple[float, ...] | None = tuple(goals.get(r, 0) / 100 for r in roles)
            self.moves: tuple[list[Term], ...] = ()
        else:
            self.goals = None
            self.moves = tuple(state.legal_moves(r) for r in roles)
        self.visits = [[0] * len(m) for m in self.moves]
        self.totals = [[0.0] * len(m) for m in self.moves]


class MctsPlayer(Player):
    """UCT with decoupled selection for simultaneous moves and tree reuse between moves.

    Options: ``iterations`` (int) stops each search after that many iterations (the clock still
    applies); ``c`` (float) is the UCB1 exploration constant for rewards in [0, 1]; ``seed`` (int) makes
    the search reproducible when it is bounded by iterations; ``margin`` (float, seconds) is kept free
    before the deadline; ``batch`` (int) is the number of playouts run at once per leaf on the batched
    engine (1, the default, plays one playout on the game's reasoner).
    """

    name = "mcts"

    def __init__(
        self,
        iterations: int | None = None,
        c: float = 1.4,
        seed: int | None = None,
        margin: float = 0.1,
        batch: int = 1,
    ) -> None:
        at_least("mcts", "iterations", iterations, 1)
        at_least("mcts", "margin", margin, 0)
        at_least("mcts", "batch", batch, 1)
        at_least("mcts", "c", c, 0)
        self.iterations = iterations
        self.batch = batch
        self.c = c
        self.margin = margin
        self.rng = random.Random(seed)
        self._root: _Node | None = None
        self._batched: _Batched | None = None

    def start(self, game: Game, role: str, start_clock: float, play_clock: float) -> None:
        super().start(game, role, start_clock, play_clock)
        self._root = None
        self._index = game.roles.index(role)
        self._chance = game.roles.index(game.chance_role) if game.chance_role is not None else -1
        self._players = frozenset(game.roles.index(player) for player in game.players)
        self._batched = self._batched_engine(game, start_clock) if self.batch > 1 else None
        if self._batched is None:
            # A playout of no moves loads the reasoner's native playouts, if it has them, within the start
            # clock rather than in the first search (whose time estimate it would spoil).
            depth_charge(game.reasoner, game.reasoner.initial(), self.rng, 0)

    def _batched_engine(self, game: Game, start_clock: float) -> _Batched | None:
        """The compiled reasoner (to map states by their fluents) and batched engine of ``game``, if any.

        The game's own reasoner is used when it is the compiled one; otherwise (the Datalog evaluator, or
        a reasoner wrapped for a match) a compiled reasoner of our own is made, so that no other thread
        shares it, within the budgets of ``engine="auto"`` and half the start clock.
        """
        compiled = game.reasoner
        if not isinstance(compiled, CompiledReasoner):
            try:
                compiled = build_compiled(game.checked, min(AUTO_MAX_SECONDS, start_clock / 2))
            except GameTooLargeError as problem:
                logger.warning("mcts: %s; batch=%d falls back to single playouts", problem, self.batch)
                return None
        return compiled, BatchedEngine(compiled.net, self.batch, self.rng.randrange(1 << 32))

    def play(self, state: State, deadline: float) -> Term:
        root = self._reuse(state)
        done = self._search(root, deadline)
        visits = root.visits[self._index]
        totals = root.totals[self._index]
        best = max(range(len(visits)), key=lambda i: (visits[i], totals[i] / visits[i] if visits[i] else 0.0))
        self._root = root
        self._info = {
            "iterations": done,
            "visits": visits[best],
            "value": round(100 * totals[best] / visits[best], 1) if visits[best] else None,
        }
        return root.moves[self._index][best]

    def stop(self, state: State) -> None:
        self._root = None

    def move_values(self, state: State, deadline: float) -> dict[Term, tuple[float, int]]:
        """A new search from ``state`` until ``deadline`` (or ``iterations``): for each of this player's
        legal moves, its mean reward in [0, 1] and how many iterations tried it (0: value 0.0)."""
        root = _Node(state, self.game.roles)
        self._search(root, deadline)
        visits, totals = root.visits[self._index], root.totals[self._index]
        return {
            move: (totals[i] / visits[i] if visits[i] else 0.0, visits[i])
            for i, move in enumerate(root.moves[self._index])
        }

    def _search(self, root: _Node, deadline: float) -> int:
        """Iterate from ``root`` until ``deadline`` less the margin, or ``iterations``; how many ran."""
        stop_at = deadline - self.margin
        done, longest = 0, 0.0
        while self.iterations is None or done < self.iterations:
            begun = time.monotonic()
            if begun + longest >= stop_at:  # the next iteration might not end in time
                break
            self._iterate(root)
            longest = max(longest, time.monotonic() - begun)
            done += 1
        return done

    def _reuse(self, state: State) -> _Node:
        """The node of ``state`` in the old tree (the root or up to two joint moves below), else a new one.

        Two levels cover turn-taking games, where the runner need not ask this player while the
        opponent moves.
        """
        level = [self._root] if self._root is not None else []
        for _ in range(3):
            for node in level:
                if node.state == state:
                    return node
            level = [child for node in level for child in node.children.values()]
        return _Node(state, self.game.roles)

    def _iterate(self, root: _Node) -> None:
        """One selection, expansion, playout and backup from ``root``."""
        path: list[tuple[_Node, tuple[int, ...]]] = []
        node = root
        while node.goals is None:
            joint = tuple(self._select(node, r) for r in range(len(node.moves)))
            path.append((node, joint))
            child = node.children.get(joint)
            if child is None:
                moves = {role: m[i] for role, m, i in zip(self.game.roles, node.moves, joint, strict=True)}
                child = _Node(node.state.next(moves), self.game.roles)
                node.children[joint] = child
                node = child
                break
            node = child
        rewards = node.goals if node.goals is not None else self.rollout(node.state)
        for visited, joint in path:
            for r, i in enumerate(joint):
                visited.visits[r][i] += 1
                visited.totals[r][i] += rewards[r]

    def _select(self, node: _Node, r: int) -> int:
        """Role ``r``'s move at ``node`` by UCB1 on its own statistics; untried moves first, at random."""
        visits = node.visits[r]
        if len(visits) == 1:
            return 0
        if r == self._chance:  # nature picks uniformly, whatever the statistics say
            return self.rng.randrange(len(visits))
        untried = [i for i, n in enumerate(visits) if n == 0]
        if untried:
            return self.rng.choice(untried)
        totals = node.totals[r]
        log_n = math.log(sum(visits))
        return max(
            range(len(visits)), key=lambda i: totals[i] / visits[i] + self.c * math.sqrt(log_n / visits[i])
        )

    def rollout(self, state: State) -> tuple[float, ...]:
        """Each role's reward in [0, 1] at the end of a uniformly random playout from ``state``; with a
        batched engine, each role's mean reward over ``batch`` playouts from ``state`` run at once.

        The single playout talks to the reasoner directly (:func:`gdl.engines.base.depth_charges`, native
        on the compiled engine, goals included): its moves come from the reasoner's own legal moves, so
        the checks of :meth:`State.next` would only cost time.
        """
        if self._batched is not None:
            compiled, engine = self._batched
            start = compiled.from_fluents(state.fluents())
            values = engine.rollouts([start] * self.batch)
            return tuple(float(mean) / 100 for mean in values.mean(axis=0))
        game = self.game
        reasoner = game.reasoner
        charges = depth_charges(reasoner, reasoner.from_fluents(state.fluents()), 1, self.rng, sys.maxsize)
        roles = range(len(game.roles))
        if charges.terminal and all(charges.goal_counts[i] for i in self._players):
            # Nature (GDL-II's random) has no goal; its entry is never used.
            return tuple(charges.goal_sums[i] / 100 if i in self._players else 0.0 for i in roles)
        # The end is not terminal (a role has no legal move) or a player has no single goal value in it:
        # the game's error, as State raises it.
        end = State(game, charges.last)
        if not charges.terminal:
            for role in game.roles:
                end.legal_moves(role)
        goals = end.goals()
        return tuple(goals.get(r, 0) / 100 for r in game.roles)
