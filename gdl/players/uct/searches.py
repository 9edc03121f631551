"""The uct player's searches: a tree over the native kernel of the whole game, and, in a game of
independent sub-games (:mod:`gdl.ground.factors`: two boards played at once), a tree per sub-game,
played alone."""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gdl.engines.compiled import CompiledReasoner
from gdl.engines.folding import FoldedKernels
from gdl.engines.native import Kernel
from gdl.ground.factors import Factoring, factor, restrict
from gdl.ground.grounding import term_of
from gdl.ground.propnet import PropNet
from gdl.players.uct.decisive import watch
from gdl.players.uct.tree import AVERAGE_BYTES, EDGE_BYTES, NODE_BYTES, Tree, goal_values
from gdl.syntax.model import Term

logger = logging.getLogger(__name__)


@dataclass
class Search:
    """A search tree over a kernel: of the whole game, or of one factor of it played alone."""

    tree: Tree
    kernels: FoldedKernels
    kernel: Kernel
    #: The (role, move) of each legal output of the tree's network.
    terms: list[tuple[int, Term]]
    #: The factor's index (None: the whole game).
    factor: int | None = None


@dataclass
class Searches:
    """The search of the whole game and of each of its factors (none where it has one)."""

    whole: Search
    factors: list[Search]
    factoring: Factoring | None
    #: The factor of each of the player's moves (None: of no factor).
    factor_of: dict[Term, int | None]


def make_searches(
    compiled: CompiledReasoner, role: int, budget: int, averages: bool, watched: bool, rng: random.Random
) -> Searches | None:
    """The searches of the game of ``compiled`` for the player of ``role``, its trees sharing ``budget``
    bytes (with move averages, and watching for decisive moves, as asked); None where the network is
    too large for the native kernel, or the whole game's tree for the room."""
    net = compiled.net
    factoring = factor(net) if len(net.roles) > 1 else None
    if factoring is not None and not factoring.between_roles(net):
        factoring = None
    nets = [restrict(net, factoring, k) for k in range(len(factoring.factors))] if factoring else []
    if any(each is None for each in nets):
        factoring, nets = None, []
    # One budget for every tree: room for the nodes and about eight edges a node (breakthrough's trees
    # have seven).
    share = budget // (1 + len(nets))
    goals = goal_values(compiled)
    whole = _new_search(compiled.kernels, net, compiled.initial(), goals, share, averages, watched, rng)
    if whole is None:
        return None
    factors: list[Search] = []
    for index, each in enumerate(nets):
        assert each is not None and factoring is not None
        initial = factoring.project(compiled.initial(), index)
        search = _new_search(FoldedKernels(each), each, initial, goals, share, averages, watched, rng, index)
        if search is None:
            return Searches(whole, [], None, {})
        factors.append(search)
    if factoring is None:
        return Searches(whole, [], None, {})
    input_of = {entry: net.first_input + at for at, entry in enumerate(net.moves)}
    factor_of = {term_of(move): factoring.factor_of(input_of[(role, move)]) for move, _ in net.legal[role]}
    return Searches(whole, factors, factoring, factor_of)


def _new_search(
    kernels: FoldedKernels, net: PropNet, initial: int, goals: npt.NDArray[np.float64], budget: int,
    averages: bool, watched: bool, rng: random.Random, factor_index: int | None = None,
) -> Search | None:
    """A search over ``net`` (flattened in ``kernels``) in ``budget`` bytes, or None where its network
    is too large for the native kernel, or the tree for the room."""
    try:
        kernel = kernels.of(initial)
    except ValueError as problem:  # a network too large for the native kernel's array
        logger.warning("uct: %s; playing as mcts", problem)
        return None
    roles = len(net.roles)
    words = (len(net.fluents) + 63) // 64
    node_bytes = NODE_BYTES + 8 * words + (8 + 8 + 4) * roles + 2 * 4
    edge_bytes = EDGE_BYTES + (AVERAGE_BYTES if averages else 0)
    nodes = max(1024, budget // (node_bytes + 8 * edge_bytes))
    edges = max(1024, (budget - nodes * node_bytes) // edge_bytes)
    try:
        tree = Tree(
            kernel, goals, int(nodes), int(edges), rng.randrange(1 << 62),
            watch=watch(kernel) if watched else None, averages=averages,
        )
    except MemoryError:
        logger.warning("uct: no room for a tree of %d MB; playing as mcts", budget >> 20)
        return None
    terms = [(role, term_of(move)) for role, entries in enumerate(net.legal) for move, _ in entries]
    return Search(tree, kernels, kernel, terms, factor_index)
