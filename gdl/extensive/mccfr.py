"""Monte Carlo CFR with outcome sampling (Lanctot, Waugh, Zinkevich and Bowling 2009) on a game tree
held as arrays.

Each iteration samples one play: the updating player (alternately each) picks an action with its
current strategy mixed with ``exploration`` of the uniform one, the other player with its current
strategy, chance with its probabilities. Along the play, the updating player's regrets grow by the
sampled counterfactual values (the terminal's payoff over the probability of sampling it) and its
average strategy by its current strategy weighted by its reach over the sampling probability. An
iteration touches one play, not the whole tree, so an iteration costs the depth of the game. The
average strategy's exploitability is then measured exactly (in floating point) on the sequence form
(:mod:`gdl.extensive.best_response`), every ``report_every`` iterations.

The tree's arrays: per node its kind (0 terminal, 1 chance, 2 decision), the first of its children
(numbered consecutively) and their count, its information set's first sequence in its player's side of
the sequence form (decisions) and its player (0 or 1); per child of a chance node its probability; per
terminal player 1's payoff (the game is constant-sum: player 2 gets the constant minus it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gdl.extensive.best_response import plans_exploitability
from gdl.extensive.cfr import CFRSolution
from gdl.extensive.model import Chance, Node, Terminal
from gdl.extensive.sequence import FloatArray, IntArray, SequenceForm

if TYPE_CHECKING:
    from gdl.extensive.generate import GameTree

#: The share of the uniform strategy mixed into the updating player's sampling.
EXPLORATION = 0.6


@dataclass(frozen=True, eq=False)
class FlatTree:
    """A game tree as arrays (see the module docstring), numbered breadth first from the root."""

    kind: IntArray
    first: IntArray
    count: IntArray
    sequence: IntArray
    player: IntArray
    probability: FloatArray
    payoff: FloatArray
    #: The most decisions and chance nodes on a play.
    depth: int

    @classmethod
    def from_arrays(cls, tree: GameTree, form: SequenceForm) -> FlatTree:
        """The arrays of a tree generated from GDL (:class:`gdl.extensive.generate.GameTree`), whose
        sequence form is ``form`` (:meth:`SequenceForm.from_tree`)."""
        sets = tree.infoset
        decision = tree.kind == 2
        player = np.where(decision, tree.set_player[np.maximum(sets, 0)], -1).astype(np.int64)
        set_first = np.zeros(len(tree.set_player), dtype=np.int64)
        for mover, side in enumerate(form.sides):
            set_first[np.flatnonzero(tree.set_player == mover)] = side.first
        sequence = np.where(decision, set_first[np.maximum(sets, 0)], -1).astype(np.int64)
        probability = np.zeros(tree.nodes)
        chance = np.flatnonzero(tree.kind == 1)
        sizes = tree.count[chance].astype(np.int64)
        children = np.repeat(tree.first[chance], sizes) + np.arange(int(sizes.sum())) - np.repeat(
            np.cumsum(sizes) - sizes, sizes
        )
        probability[children] = np.repeat(1.0 / sizes, sizes)
        kind, count = tree.kind.astype(np.int64), tree.count.astype(np.int64)
        depth = tree.deepest * (len(tree.game.roles) + 1) + 1  # at most a node per role per step
        return cls(kind, tree.first, count, sequence, player, probability, tree.payoffs()[:, 0].copy(), depth)

    @classmethod
    def from_form(cls, form: SequenceForm) -> FlatTree:
        game = form.game
        if game is None:
            raise ValueError("a sequence form made from arrays: use FlatTree.from_arrays")
        first_of = [
            {key: int(side.first[i]) for i, key in enumerate(side.infosets)} for side in form.sides
        ]
        nodes: list[Node] = [game.root]
        kind: list[int] = []
        first: list[int] = []
        count: list[int] = []
        sequence: list[int] = []
        player: list[int] = []
        payoff: list[float] = []
        one = form.players[0]
        index = 0
        while index < len(nodes):
            node = nodes[index]
            index += 1
            if isinstance(node, Terminal):
                kind.append(0)
                first.append(len(payoff))
                count.append(0)
                sequence.append(-1)
                player.append(-1)
                payoff.append(float(node.payoff(one)))
                continue
            first.append(len(nodes))
            count.append(len(node.children))
            nodes.extend(node.children)
            if isinstance(node, Chance):
                kind.append(1)
                sequence.append(-1)
                player.append(-1)
            else:
                mover = form.players.index(node.player)
                kind.append(2)
                sequence.append(first_of[mover][node.infoset])
                player.append(mover)
        # A child's probability (chance's children) is kept by the child's number.
        chance_of = np.zeros(len(nodes))
        for number, node in enumerate(nodes):
            if isinstance(node, Chance):
                start = first[number]
                chance_of[start : start + len(node.children)] = [float(p) for p in node.probabilities]
        depth = np.zeros(len(nodes), dtype=np.int64)
        for number in range(len(nodes)):
            if kind[number]:
                depth[first[number] : first[number] + count[number]] = depth[number] + 1
        def ints(values: list[int]) -> IntArray:
            return np.asarray(values, dtype=np.int64)

        return cls(
            ints(kind), ints(first), ints(count), ints(sequence), ints(player), chance_of,
            np.asarray(payoff, dtype=np.float64), int(depth.max()),
        )


def solve_mccfr(
    form: SequenceForm,
    iterations: int,
    *,
    tree: FlatTree | None = None,
    seed: int = 0,
    report_every: int = 10_000,
    target: float | None = None,
    progress: Callable[[int, float], None] | None = None,
    seconds: float | None = None,
    strategies: bool = True,
) -> CFRSolution:
    """Run outcome-sampling MCCFR for ``iterations`` iterations (fewer once the exploitability reaches
    ``target`` or ``seconds`` have passed), measuring the average strategy's exploitability every
    ``report_every``; ``progress(iteration, exploitability)`` is called at every measurement
    (``tree``: the tree's arrays when made already; ``strategies`` as in
    :func:`gdl.extensive.cfr.solve_cfr`)."""
    from gdl.extensive.mccfr_kernel import sample

    if iterations < 1 or report_every < 1:
        raise ValueError("iterations and report_every must be at least 1")
    start = time.perf_counter()
    if tree is None:
        tree = FlatTree.from_form(form)
    form.zero_sum_matrix()  # refuses a game that is not constant-sum
    constant = float(form.constant_sum or 0)
    regrets = [np.zeros(len(side.sequences)) for side in form.sides]
    averages = [np.zeros(len(side.sequences)) for side in form.sides]
    history: list[tuple[int, float]] = []
    done = 0
    rng_state = np.array([seed * 2 + 1 or 1], dtype=np.uint64)
    while done < iterations:
        batch = min(report_every - done % report_every, iterations - done)
        sample(
            tree.kind, tree.first, tree.count, tree.sequence, tree.player, tree.probability, tree.payoff,
            constant, regrets[0], regrets[1], averages[0], averages[1], done, batch, EXPLORATION, rng_state,
            tree.depth,
        )
        done += batch
        plans = _plans(form, averages)
        gap = plans_exploitability(form, *plans).exploitability
        history.append((done, gap))
        if progress is not None:
            progress(done, gap)
        out_of_time = seconds is not None and time.perf_counter() - start >= seconds
        if (target is not None and gap <= target) or out_of_time:
            break
    x, y = _plans(form, averages)
    measured = plans_exploitability(form, x, y)
    behaviour = (
        {side.player: side.behaviour(plan) for side, plan in zip(form.sides, (x, y), strict=True)}
        if strategies else {}
    )
    return CFRSolution(
        form, measured.values, (x, y), behaviour, measured, done, tuple(history), time.perf_counter() - start
    )


def _plans(form: SequenceForm, averages: list[FloatArray]) -> tuple[FloatArray, FloatArray]:
    """The realization plans of the average strategies (uniform where nothing was summed)."""
    plans: list[FloatArray] = []
    for side, summed in zip(form.sides, averages, strict=True):
        behaviour = np.zeros(len(side.sequences))
        for index in range(len(side.infosets)):
            first, count = int(side.first[index]), int(side.count[index])
            weights = summed[first : first + count]
            total = weights.sum()
            behaviour[first : first + count] = weights / total if total > 0 else 1.0 / count
        plans.append(side.plan_of(behaviour))
    return plans[0], plans[1]

