"""The uct player's search tree: nodes and edges in numpy arrays, a transposition table keyed by the
state, searched by the numba kernels of :mod:`gdl.players.uct.kernel`.

A node is a state (packed bits of the native kernel's base propositions), found through an
open-addressing table by the state's hash; it has a visit count, flags (terminal, proven, expanded),
each role's value in [0, 1] once proven, and, once expanded, each role's legal moves as a run of
edges. An edge holds a legal output of the kernel, how often its role chose it at the node, the sum of
that role's rewards, and the child it led to when one role alone chooses at the node (or none does:
the solver reads those). A node where several roles choose at once links its children by joint move, in
a slot each after its edges (:mod:`gdl.players.uct.joint_kernel`), where it has at most
:data:`gdl.players.uct.layout.JOINT_LIMIT` of them; else they are found by state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from gdl.engines.base import goal_value
from gdl.engines.compiled import CompiledReasoner
from gdl.engines.native import Kernel
from gdl.engines.native_layout import BASES, LEGAL_LITS, LEGAL_STARTS, ROLES, SIZES, STATE_IN
from gdl.ground.grounding import term_of
from gdl.memory import address_space_left
from gdl.players.uct.decisive import Watch, no_watch
from gdl.players.uct.layout import (
    EDGES_USED,
    EXPANDED,
    FULL,
    JOINT,
    MOST_PROBE_PLIES,
    NODES_USED,
    RANDOM,
    SIMULTANEOUS,
    SOLVED,
    TERMINAL_NODE,
    THREATS,
)

#: Bytes a node and an edge take in the arrays (besides the packed state and per-role entries).
NODE_BYTES = 8 + 1 + 8 + 4 + 1
EDGE_BYTES = 4 + 4 + 8 + 4
#: Bytes an edge's move average takes (in a tree that keeps them).
AVERAGE_BYTES = 4 + 8


@dataclass(frozen=True)
class Edge:
    """One role's move at a node: the kernel's legal output, its visits, its mean reward, and the value
    it is proven to secure for that role (else None): its child's, when the child is proven, or where
    several roles choose, the least of its children's over the others' moves, when all are proven."""

    output: int
    visits: int
    mean: float
    proven: float | None
    #: The node it led to (-1: unknown; known where one role alone chooses).
    child: int = -1


@dataclass(frozen=True)
class Heuristic:
    """Each feature's base propositions (``bases[starts[f]:starts[f + 1]]``), and per role the weight of
    each feature's count and an intercept: the predicted reward in [0, 1] (clipped); the spread of the
    predictions over the states fitted on; room for each role's prediction at the search's root (the
    kernel's, which node priors are relative to); the mean of the predictions over the states fitted
    on (a state's estimate for implicit minimax is the logistic of its distance from it, in spreads); and
    per role its *targets*, ``targets[target_starts[r]:target_starts[r + 1]]``: the pieces a capture of
    role ``r`` may take, the one worth most to it first (:func:`gdl.players.uct.heuristic.targets`)."""

    starts: npt.NDArray[np.int32]
    bases: npt.NDArray[np.int32]
    weights: npt.NDArray[np.float64]
    intercepts: npt.NDArray[np.float64]
    #: The lowest correlation over the roles on the held-out playouts.
    correlation: float
    spreads: npt.NDArray[np.float64]
    anchors: npt.NDArray[np.float64]
    centers: npt.NDArray[np.float64]
    target_starts: npt.NDArray[np.int32]
    targets: npt.NDArray[np.int32]

    def as_tuple(self) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.float64],
                                npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64],
                                npt.NDArray[np.float64], npt.NDArray[np.int32], npt.NDArray[np.int32]]:
        return (
            self.starts, self.bases, self.weights, self.intercepts, self.spreads, self.anchors, self.centers,
            self.target_starts, self.targets,
        )


def no_heuristic(roles: int) -> Heuristic:
    """No feature: playouts are never cut off, nodes get no prior."""
    return Heuristic(
        np.zeros(1, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros((roles, 0)), np.zeros(roles), 0.0,
        np.ones(roles), np.zeros(roles), np.zeros(roles), np.zeros(roles + 1, dtype=np.int32),
        np.zeros(0, dtype=np.int32),
    )


class Tree:
    """A search tree over a copy of ``kernel``'s network (see the module doc), of at most ``nodes``
    nodes and ``edges`` edges; ``goal_values`` holds the value of each of the kernel's goal outputs;
    ``averages``: whether the edges keep move averages (all moves as first), which GRAVE's selection
    reads (``rave`` in :meth:`search`)."""

    def __init__(
        self,
        kernel: Kernel,
        goal_values: npt.NDArray[np.float64],
        nodes: int,
        edges: int,
        seed: int,
        playout_limit: int = 2_000,
        watch: Watch | None = None,
        averages: bool = False,
    ) -> None:
        self.data = kernel.data.copy()
        sizes = kernel.section(SIZES)
        self.roles = int(sizes[ROLES])
        bases = int(sizes[BASES])
        self.words = max(1, (bases + 63) // 64)
        self.legal_starts = [int(x) for x in kernel.section(LEGAL_STARTS)]
        self.goal_values = goal_values
        start, end = int(self.data[STATE_IN]), int(self.data[STATE_IN + 1])
        self._state_in = self.data[start:end].view(np.uint8)
        roles = self.roles
        table = 1 << max(4, (2 * nodes - 1).bit_length())
        self.arrays = (
            np.full(table, -1, dtype=np.int32),  # the transposition table: node or -1
            np.zeros((nodes, self.words), dtype=np.uint64),  # each node's packed state
            np.zeros(nodes, dtype=np.uint8),  # flags
            np.zeros(nodes, dtype=np.int64),  # visits
            np.zeros((nodes, roles), dtype=np.float64),  # each role's proven value
            np.zeros(nodes, dtype=np.int8),  # the role whose edges hold the children, or SIMULTANEOUS
            np.zeros((nodes, roles), dtype=np.int64),  # each role's first edge
            np.zeros((nodes, roles), dtype=np.int32),  # each role's number of edges
            np.zeros(edges, dtype=np.int32),  # the edge's legal output
            np.zeros(edges, dtype=np.int32),  # visits
            np.zeros(edges, dtype=np.float64),  # sum of rewards
            np.zeros(edges, dtype=np.int32),  # child, or -1
            np.array([0, 0, 0, seed | 1], dtype=np.int64),  # NODES_USED, EDGES_USED, FULL, RANDOM
        )
        self.scratch = (
            np.zeros(self.words, dtype=np.uint64),
            np.zeros(roles, dtype=np.int32),
            np.zeros(roles, dtype=np.int32),
            np.zeros(roles, dtype=np.int32),
            np.zeros(roles, dtype=np.float64),
        )
        #: One row per level of a descent: the node, then each role's edge.
        self.path = np.zeros((4096, 1 + roles), dtype=np.int64)
        #: The most moves of a playout (a game that runs longer scores its goals where a playout stops).
        self.playout_limit = playout_limit
        outputs = len(kernel.section(LEGAL_LITS))
        #: MAST: each legal output's sum of rewards and count over the iterations that played it, and the
        #: record of a playout's moves.
        self.mast = (
            np.zeros(outputs, dtype=np.float64),
            np.zeros(outputs, dtype=np.float64),
            np.zeros(playout_limit * roles, dtype=np.int32),
        )
        #: What the playouts watch for decisive moves (:mod:`gdl.players.uct.decisive`), and room for the
        #: base propositions a step flips and those a move tried after it flips, and for that joint move.
        self.bases = bases
        self.watch_for(watch if watch is not None else no_watch(bases))
        room = edges if averages else 0
        #: The edges' move averages (visits, sums of rewards), a stamp per legal output and the last
        #: stamp, and each role's reference node (GRAVE, :func:`gdl.players.uct.kernel.amaf_update`).
        self.amaf = (
            np.zeros(room, dtype=np.int32),
            np.zeros(room, dtype=np.float64),
            np.zeros(outputs + 1, dtype=np.int64),
            np.zeros(roles, dtype=np.int64),
        )
        #: Room for a probe's plies: the base propositions each flipped, its joint move, the legal moves
        #: of its role to move, and its frame (:mod:`gdl.players.uct.probe_kernel`).
        self.probe = (
            np.zeros((MOST_PROBE_PLIES, bases), dtype=np.int32),
            np.zeros((MOST_PROBE_PLIES, roles), dtype=np.int32),
            np.zeros((MOST_PROBE_PLIES, outputs), dtype=np.int32),
            np.zeros((MOST_PROBE_PLIES, 5), dtype=np.int64),
        )
        self.options = np.zeros(THREATS + 1, dtype=np.float64)
        #: The material heuristic that scores playouts cut off (none: never cut off).
        self.heuristic = no_heuristic(roles)
        self.table, self.states, self.flags, self.visits, self.values = self.arrays[:5]
        self.first, self.counts = self.arrays[6:8]
        self.moves, self.edge_visits, self.edge_sums, self.children, self.meta = self.arrays[8:]

    def watch_for(self, watch: Watch) -> None:
        """Watch ``watch``'s literals for decisive moves (:mod:`gdl.players.uct.decisive`)."""
        self.watch = watch
        self.decisive = (
            *watch.as_tuple(),
            np.zeros(self.bases, dtype=np.int32),
            np.zeros(self.bases, dtype=np.int32),
            np.zeros(self.roles, dtype=np.int32),
        )

    @property
    def used(self) -> float:
        """The share of the tree's room in use (nodes or edges, whichever is fuller)."""
        nodes, edges = int(self.meta[NODES_USED]), int(self.meta[EDGES_USED])
        return max(nodes / len(self.states), 2 * nodes / len(self.table), edges / len(self.moves))

    def clear(self) -> None:
        """Forget every node."""
        self.table.fill(-1)
        self.meta[NODES_USED] = self.meta[EDGES_USED] = self.meta[FULL] = 0

    def keep(self, root: int) -> int:
        """Forget every node but ``root`` and those its edges or joint moves lead to, at any depth (where
        several roles choose among more than :data:`gdl.players.uct.layout.JOINT_LIMIT` joint moves, only
        the node itself is kept: its children are found by state); the root's new number. What is kept
        keeps its statistics and proofs."""
        from gdl.players.uct.reuse_kernel import keep_subtree

        nodes, edges = int(self.meta[NODES_USED]), int(self.meta[EDGES_USED])
        return int(
            keep_subtree(
                self.arrays, self.amaf, root, self.scratch[0], np.empty(nodes, dtype=np.int32),
                np.empty(nodes, dtype=np.int32), np.empty(max(1, edges), dtype=np.int32),
            )
        )

    def root(self, state: int) -> int:
        """The node of ``state`` (a bitset of base propositions), found or added, with the network brought
        to it; -1 when the tree is full."""
        self._state_in[:] = np.frombuffer(state.to_bytes(len(self._state_in), "little"), dtype=np.uint8)
        return int(_kernels().set_root(self.data, self.arrays, self.goal_values, self.scratch))

    def search(
        self,
        root: int,
        iterations: int,
        chance: int = -1,
        exploration: float = 0.7,
        greed: float = 0.0,
        decisive: int = 0,
        tries: int = 4,
        anti: int = 0,
        cutoff: int = 0,
        rave: int = 0,
        bias: float = 1e-4,
        prior: int = 0,
        savers: int = 0,
        minimax: float = 0.0,
        probe: int = 0,
        probe_visit: int = 1,
        capture: float = 0.0,
        threats: int = 0,
    ) -> int:
        """Up to ``iterations`` iterations from ``root`` (fewer once it is proven); how many ran.
        ``chance``: the role of nature (-1: none); ``exploration``: UCB1's constant; ``greed``: how
        often a playout's move is the better of two by MAST rather than the first drawn; ``decisive``:
        whether a playout plays a move that ends the game with its best goal for the role to move
        where the watch shows one (trying at most ``tries`` candidates a step); ``anti``: how many
        times a playout move after which the next role to move has such a move is drawn again;
        ``cutoff``: after how many moves a playout stops, scored by :attr:`heuristic` (0: never);
        ``rave``: GRAVE's reference threshold (0: UCB1 alone; a tree made with ``averages``), the visits
        from which a node's move averages guide the nodes below it; ``bias``: how fast a move's own
        mean takes over from its average as its visits grow; ``prior``: how many visits a move's first
        visit adds at the value :attr:`heuristic` gives its child, relative to the root (0: none);
        ``savers``: whether a move after which the next role to move wins at once is first replaced by
        a saver (:func:`gdl.players.uct.decisive_kernel.play_saver`), before the redraws; ``minimax``:
        the weight of the implicit minimax value of a move's child, as :attr:`heuristic` estimates the
        leaves, in the move's mean (0: none); ``probe``: within how many plies (at most
        :data:`gdl.players.uct.layout.MOST_PROBE_PLIES`) a node's role to move is searched for a forced
        win, at the node's ``probe_visit``-th visit (0: never; :mod:`gdl.players.uct.probe_kernel`);
        ``capture``: how often a playout step where one role alone chooses plays its best capture by
        :attr:`heuristic` (:func:`gdl.players.uct.playout_kernel.play_capture`; 0: never); ``threats``:
        how many answers that leave the prober no win at once a probe follows a move against (0: every
        answer, a full-width probe; more, only forcing moves are followed)."""
        if rave > 0 and len(self.amaf[0]) < len(self.moves):
            raise ValueError("uct: a tree without move averages cannot search with rave")
        if not 0 <= probe <= MOST_PROBE_PLIES:
            raise ValueError(f"uct: a probe of {probe} plies (at most {MOST_PROBE_PLIES})")
        self._set_options(
            chance, greed, decisive, tries, anti, cutoff, rave, bias, prior, savers, minimax, probe,
            probe_visit, capture, threats,
        )
        return int(
            _kernels().search(
                self.data, self.arrays, self.goal_values, self.scratch, self.path, self.mast, self.amaf,
                self.decisive, self.probe, self.heuristic.as_tuple(), self.options, root, iterations,
                exploration, self.playout_limit,
            )
        )

    def playouts(self, count: int, **options: float) -> npt.NDArray[np.float64]:
        """``count`` playouts from the state of the last :meth:`root` (with ``options`` as
        :meth:`search` takes them: ``chance``, ``greed``, ``decisive``, ``tries``, ``anti``, ``cutoff``,
        ``savers``, ``capture``);
        each role's reward at the end of each, a row each."""
        return self.sample(np.zeros(count, dtype=np.int64), **options)[0]

    def sample(
        self, splits: npt.NDArray[np.int64], **options: float
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
        """A playout per entry of ``splits``, as :meth:`playouts`: each role's reward at its end, its
        state after that many moves (or at its end, if sooner) as base propositions (0 or 1), and the
        moves made until that state."""
        self._set_options(**options)
        rewards = np.zeros((len(splits), self.roles), dtype=np.float64)
        states = np.zeros((len(splits), self.bases), dtype=np.uint8)
        splits = splits.copy()
        _kernels().playouts(
            self.data, self.arrays, self.goal_values, self.scratch, self.mast, self.decisive,
            self.heuristic.as_tuple(), self.options, self.playout_limit, rewards, splits, states,
        )
        return rewards, states, splits

    def _set_options(
        self,
        chance: float = -1,
        greed: float = 0.0,
        decisive: float = 0,
        tries: float = 4,
        anti: float = 0,
        cutoff: float = 0,
        rave: float = 0,
        bias: float = 0.0,
        prior: float = 0,
        savers: float = 0,
        minimax: float = 0.0,
        probe: float = 0,
        probe_visit: float = 1,
        capture: float = 0.0,
        threats: float = 0,
    ) -> None:
        self.options[:] = (
            chance, greed, decisive, tries, anti, cutoff, rave, bias, prior, savers, minimax, probe,
            probe_visit, capture, threats,
        )

    def fade(self, factor: float) -> None:
        """Scale the MAST statistics by ``factor``: what earlier moves taught weighs less."""
        for statistics in self.mast[:2]:
            np.multiply(statistics, factor, out=statistics)

    def state(self, node: int) -> int:
        """The state of ``node``, as a bitset of base propositions."""
        return int.from_bytes(self.states[node].tobytes(), "little")

    def solved(self, node: int) -> bool:
        return bool(self.flags[node] & SOLVED)

    def terminal(self, node: int) -> bool:
        return bool(self.flags[node] & TERMINAL_NODE)

    def value(self, node: int, role: int) -> float:
        """The proven value of ``node`` for ``role`` once it is proven; before, its implicit minimax
        estimate (:data:`gdl.players.uct.layout.NO_ESTIMATE` where it has none)."""
        return float(self.values[node, role])

    def edges(self, node: int, role: int) -> list[Edge]:
        """The edges of ``role`` at an expanded ``node``, in the order of the legal outputs."""
        start, count = int(self.first[node, role]), int(self.counts[node, role])
        secured = self._secured(node, role) if self.flags[node] & JOINT else [None] * count
        found = []
        for index, e in enumerate(range(start, start + count)):
            visits = int(self.edge_visits[e])
            child = int(self.children[e])
            proven = secured[index]
            if child >= 0 and self.flags[child] & SOLVED:
                proven = float(self.values[child, role])
            mean = float(self.edge_sums[e]) / visits if visits else 0.0
            found.append(Edge(int(self.moves[e]), visits, mean, proven, child))
        return found

    def traps(self, node: int, role: int, value: float) -> float:
        """The share of the moves at an expanded ``node`` of the role that alone chooses there, another
        than ``role``, after which ``role`` is proven to get more than ``value``: how likely a fallible
        opponent is to go wrong there (0 where ``role`` or several roles choose)."""
        mover = int(self.arrays[5][node])
        if not self.flags[node] & EXPANDED or mover in (SIMULTANEOUS, role):
            return 0.0
        start, count = int(self.first[node, mover]), int(self.counts[node, mover])
        children = self.children[start : start + count]
        linked = children[children >= 0]
        solved = linked[(self.flags[linked] & SOLVED) != 0]
        return float((self.values[solved, role] > value).sum()) / count if count else 0.0

    def _secured(self, node: int, role: int) -> list[float | None]:
        """For each edge of ``role`` at ``node``, whose children are linked by joint move: the least
        value of its children for the role, where all of them are proven (else None)."""
        shape = tuple(int(n) for n in self.counts[node])
        base = int(self.first[node, -1] + self.counts[node, -1])
        slots = self.children[base : base + int(np.prod(shape))].reshape(shape)
        linked = slots >= 0
        proven = linked & ((self.flags[np.where(linked, slots, 0)] & SOLVED) != 0)
        value = np.where(proven, self.values[np.where(linked, slots, 0), role], np.inf)
        secured: list[float | None] = []
        for index in range(shape[role]):
            if proven.take(index, axis=role).all():
                secured.append(float(value.take(index, axis=role).min()))
            else:
                secured.append(None)
        return secured

    def averages(self, node: int, role: int) -> list[tuple[int, float]]:
        """The move averages of ``role``'s edges at an expanded ``node`` (in a tree that keeps them), in
        the order of :meth:`edges`: the iterations that played the move there or later, and their mean
        reward."""
        start, count = int(self.first[node, role]), int(self.counts[node, role])
        visits, sums = self.amaf[0][start : start + count], self.amaf[1][start : start + count]
        return [(int(n), float(total) / int(n) if n else 0.0) for n, total in zip(visits, sums, strict=True)]

    def branching(self) -> float | None:
        """The mean number of moves of the role that alone chooses, over the expanded nodes where one
        does; None when none does, or at some node several roles choose at once."""
        used = int(self.meta[NODES_USED])
        expanded = (self.flags[:used] & EXPANDED) != 0
        movers = self.arrays[5][:used][expanded].astype(np.int64)
        if (movers == SIMULTANEOUS).any():
            return None
        moves = self.counts[:used][expanded][np.arange(len(movers)), movers]
        choosing = moves[moves > 1]
        return float(choosing.mean()) if len(choosing) else None

    def expanded(self, node: int) -> bool:
        return bool(self.flags[node] & EXPANDED)

    def reseed(self, seed: int) -> None:
        self.meta[RANDOM] = seed | 1


def _kernels() -> Any:
    """The module of the search kernels (importing numba, and loading or compiling them, on first use)."""
    from gdl.players.uct import kernel

    return kernel


def goal_values(compiled: CompiledReasoner) -> npt.NDArray[np.float64]:
    """The value of each goal output of the network, role after role (0 for a value that is no number
    from 0 to 100)."""
    values = [goal_value((term_of(value),)) for entries in compiled.net.goals for value, _ in entries]
    return np.array([value or 0 for value in values], dtype=np.float64)


def no_traps(edge: Edge, value: float) -> float:
    """No move sets a trap (:func:`choose` without a tree to look into)."""
    return 0.0


def choose(edges: list[Edge], proven: float | None, traps: Callable[[Edge, float], float] = no_traps) -> Edge:
    """The move to play among a root's ``edges`` (``proven``: the root's value, once proven): the one
    that attains a proven value; else the most visited of those not proven worse than another move
    (a proven child at least as good as every unproven one's mean is played). Among the moves proven
    to attain it, the one with the most ``traps`` (the share of the next mover's answers that give more,
    :meth:`Tree.traps`), then the most visited: an opponent that can go wrong gets the most ways to."""
    if proven is None:
        best_proven = max((e.proven for e in edges if e.proven is not None), default=-1.0)
        open_edges = [e for e in edges if e.proven is None and e.visits > 0]
        if best_proven < max((e.mean for e in open_edges), default=-1.0):
            return max(open_edges, key=lambda e: (e.visits, e.mean))
        proven = best_proven

    def rank(edge: Edge) -> tuple[bool, float, int]:
        attains = edge.proven is not None and edge.proven >= proven
        return attains, traps(edge, proven) if attains else 0.0, edge.visits

    return max(edges, key=rank)


def tree_budget(wanted: int) -> int:
    """The bytes the tree may take: ``wanted``, or half the address space this process has left under
    its limit (a worker of the player server has one, :mod:`gdl.workers`) if that is less."""
    left = address_space_left()
    return wanted if left is None else max(1 << 20, min(wanted, left // 2))
