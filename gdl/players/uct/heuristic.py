"""A material heuristic found in the start clock: piece counts, kept only where they foretell the goals.

Candidate features are the base relations that look like pieces on cells: a relation of two or more
arguments whose last argument takes a few constant values (``(cellholds 3 4 white)``: the count of
``white`` cells is a feature, and that of ``black`` another); where a cell has two or more coordinates,
so are the counts of each value on each line of each coordinate (the ``white`` cells whose row is 4,
those whose column is 3): a piece can be worth more in one row than in another (the held-out
correlation with the goals is 0.45 in breakthrough and knightthrough with them, 0.22 without). The
search's own playouts from the initial state then give, for a state somewhere in each, the features'
counts and, at its end, each role's goal;
a least-squares line per role predicts the goal from the counts. It is kept when, on the half of the
playouts it was not fitted on, its predictions correlate with the goals (for every role) at least as
much as its use asks; otherwise the game gets no heuristic. A playout can then stop after a number of
moves and score each role by the prediction (:func:`gdl.players.uct.playout_kernel.playout`), which asks
:data:`LEAST_CORRELATION`; a move's first visit can add visits at the value the prediction gives the
state it leads to relative to the root (:func:`gdl.players.uct.kernel.add_prior`), which asks only
:data:`LEAST_PRIOR_CORRELATION`: a prior is outweighed by the visits that follow. A playout step can
play a *capture* (:func:`gdl.players.uct.playout_kernel.play_capture`): a move that makes false one of
the mover's :func:`targets`, a piece of a kind whose count lowers its prediction, the one worth most to it.
"""

from __future__ import annotations

import dataclasses
import time
from collections import defaultdict

import numpy as np
import numpy.typing as npt

from gdl.ground.propnet import PropNet
from gdl.players.uct.decisive import Watch
from gdl.players.uct.tree import Heuristic, Tree, no_heuristic

#: The fewest and most values of a relation's last argument that make it a piece relation, and the most
#: features kept (the counts per line are left out where they would pass it).
FEWEST_VALUES, MOST_VALUES, MOST_FEATURES = 2, 8, 64
#: The least correlation, on playouts not fitted on, between predicted and actual goals: for playouts cut
#: off, and for node priors (breakthrough's piece counts correlate at about 0.2).
LEAST_CORRELATION, LEAST_PRIOR_CORRELATION = 0.3, 0.1
#: The fewest playouts worth a fit, and the most it takes.
FEWEST_PLAYOUTS, MOST_PLAYOUTS = 100, 20_000


def piece_features(net: PropNet) -> list[list[int]]:
    """The candidate features, as lists of base propositions: per (relation, last argument value) of a
    piece relation, and per (relation, last argument value, coordinate, its value) where its cells have
    two or more coordinates (see the module doc)."""
    groups: dict[tuple[str, int], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    Line = tuple[str, int, str]  # a value, a coordinate's position, its value
    lines: dict[tuple[str, int], dict[Line, list[int]]] = defaultdict(lambda: defaultdict(list))
    for b, fluent in enumerate(net.fluents):
        if isinstance(fluent, tuple) and len(fluent) >= 3 and all(isinstance(x, str) for x in fluent):
            relation, last = (str(fluent[0]), len(fluent)), str(fluent[-1])
            groups[relation][last].append(b)
            if len(fluent) >= 4:  # a cell of one coordinate is its own line
                for position in range(1, len(fluent) - 1):
                    lines[relation][(last, position, str(fluent[position]))].append(b)
    counts: list[list[int]] = []
    per_line: list[list[int]] = []
    for relation, values in groups.items():
        if FEWEST_VALUES <= len(values) <= MOST_VALUES:
            counts.extend(bases for bases in values.values() if len(bases) >= 2)
            per_line.extend(bases for bases in lines[relation].values() if len(bases) >= 2)
    return counts[:MOST_FEATURES] if len(counts) + len(per_line) > MOST_FEATURES else counts + per_line


def _per_role(per_role: list[list[int]]) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """Each role's bases laid end to end, as :class:`gdl.players.uct.tree.Heuristic` keeps its targets:
    where each role's begin, and the bases."""
    starts = np.cumsum([0, *map(len, per_role)]).astype(np.int32)
    return starts, np.array([b for bases in per_role for b in bases], dtype=np.int32)


def targets(
    features: list[list[int]], weights: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """Per role (a row of ``weights``, one weight per feature), the base propositions that are its
    opponents' pieces: those of the whole counts (the features no other one holds) whose weight for it
    is below 0 and for another role above 0 (a kind that every role weighs below 0, as the blank cells
    of a game of marks may be, is no one's piece), as :class:`gdl.players.uct.tree.Heuristic` keeps
    them: where each role's begin, and the bases, the one worth most to the role first (whose features
    weigh least for it, summed). (A count per line can weigh a role's own pieces below 0 on its home
    rows: moving them away is no capture.)"""
    sets = [set(group) for group in features]
    whole = [f for f, group in enumerate(sets) if not any(group < other for other in sets)]
    counted: dict[int, list[int]] = defaultdict(list)
    for f, group in enumerate(features):
        for b in group:
            counted[b].append(f)
    per_role = []
    for r in range(len(weights)):
        theirs = [f for f in whole if weights[r, f] < 0 and any(np.delete(weights[:, f], r) > 0)]
        bases = {b for f in theirs for b in features[f]}
        per_role.append(sorted(bases, key=lambda b: (sum(weights[r, f] for f in counted[b]), b)))
    return _per_role(per_role)


def takeable(heuristic: Heuristic, watched: Watch) -> Heuristic:
    """``heuristic`` with only the targets that a legal move may take (make false) in ``watched``, which
    watches their flips: a piece never removed, as a mark in a game of marks, is not looked for."""
    starts, bounds = watched.starts, heuristic.target_starts
    per_role = [
        [b for b in heuristic.targets[bounds[r]:bounds[r + 1]] if starts[2 * b + 1] > starts[2 * b]]
        for r in range(len(bounds) - 1)
    ]
    starts, bases = _per_role(per_role)
    return dataclasses.replace(heuristic, target_starts=starts, targets=bases)


def fit(
    features: list[list[int]],
    tree: Tree,
    seconds: float,
    seed: int = 0,
    least: float = LEAST_CORRELATION,
    **options: float,
) -> Heuristic:
    """The material heuristic of ``features`` (see :func:`piece_features`), or :func:`no_heuristic` when
    their counts do not foretell the goals with a correlation of at least ``least`` (see the module
    doc): playouts of ``tree`` from its root (with ``options`` as :meth:`Tree.search` takes them) for
    about ``seconds``."""
    roles = tree.roles
    if not features:
        return no_heuristic(roles)
    rng = np.random.default_rng(seed)
    stop = time.monotonic() + seconds
    # The playouts' length, to split them between a quarter of it and its end.
    _, _, lengths = tree.sample(np.full(50, tree.playout_limit, dtype=np.int64), **options)
    longest = max(2, int(lengths.mean()))
    counts: list[npt.NDArray[np.float64]] = []
    goals: list[npt.NDArray[np.float64]] = []
    batch = 50
    while time.monotonic() < stop and sum(len(g) for g in goals) < MOST_PLAYOUTS:
        splits = rng.integers(longest // 4, longest + 1, size=batch)
        rewards, states, _ = tree.sample(splits, **options)
        counts.append(np.column_stack([states[:, bases].sum(axis=1) for bases in features]).astype(float))
        goals.append(rewards)
        batch = min(2 * batch, 1000)
    if sum(len(g) for g in goals) < FEWEST_PLAYOUTS:
        return no_heuristic(roles)
    x = np.column_stack([np.concatenate(counts), np.ones(sum(len(g) for g in goals))])
    y = np.concatenate(goals)
    half = len(y) // 2
    solution, *_ = np.linalg.lstsq(x[:half], y[:half], rcond=None)
    predicted = x[half:] @ solution
    correlations = []
    for r in range(roles):
        if np.std(y[half:, r]) == 0 or np.std(predicted[:, r]) == 0:
            return no_heuristic(roles)
        correlations.append(float(np.corrcoef(predicted[:, r], y[half:, r])[0, 1]))
    if min(correlations) < least:
        return no_heuristic(roles)
    solution, *_ = np.linalg.lstsq(x, y, rcond=None)
    starts = np.cumsum([0, *(len(bases) for bases in features)]).astype(np.int32)
    bases = np.array([b for group in features for b in group], dtype=np.int32)
    predictions = x @ solution
    spreads = np.std(predictions, axis=0)
    if np.any(spreads == 0):
        return no_heuristic(roles)
    weights = np.ascontiguousarray(solution[:-1].T)
    return Heuristic(
        starts, bases, weights, np.ascontiguousarray(solution[-1]), min(correlations),
        np.ascontiguousarray(spreads), np.zeros(roles), np.ascontiguousarray(predictions.mean(axis=0)),
        *targets(features, weights),
    )
