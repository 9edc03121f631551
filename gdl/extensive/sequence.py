"""The sequence form of a two-player game (Koller, Megiddo and von Stengel; von Stengel 1996).

A player's *sequence* is the list of its own choices on the way to a node; with perfect recall it is
named by its last choice alone, ``(infoset, action)``, and the empty sequence ``()`` starts every
play. A *realization plan* gives each sequence the probability that the player makes all its choices,
and is a behaviour strategy in disguise: ``x[() ] = 1`` and, at every information set ``h`` reached by
the player's sequence ``s``, ``sum over a of x[(h, a)] = x[s]``. These are the constraints ``E x = e``
(player 1) and ``F y = f`` (player 2): one row for the empty sequence and one per information set.

The payoff table ``g_i(s1, s2)`` sums, over the terminals that the pair of sequences leads to, chance's
probability of reaching the terminal times player ``i``'s payoff there; it is sparse (a pair that leads
to no terminal is 0). The expected payoff of realization plans ``x`` and ``y`` is ``x^T G_i y``.

>>> from gdl.extensive.model import Decision, ExtensiveGame, Terminal
>>> def guess(hidden):  # player 2 guesses where player 1 hid the coin, without seeing it
...     pays = [Terminal({"1": -1, "2": 1}) if a == hidden else Terminal({"1": 1, "2": -1}) for a in "ht"]
...     return Decision("2", "guess", ("h", "t"), pays)
>>> root = Decision("1", "hide", ("h", "t"), (guess("h"), guess("t")))
>>> form = SequenceForm.from_game(ExtensiveGame(("1", "2"), root))
>>> form.sides[0].sequences
((), ('hide', 'h'), ('hide', 't'))
>>> sorted(form.payoffs[0].items())
[((1, 1), Fraction(-1, 1)), ((1, 2), Fraction(1, 1)), ((2, 1), Fraction(1, 1)), ((2, 2), Fraction(-1, 1))]
>>> form.sides[1].constraints.toarray()
array([[ 1.,  0.,  0.],
       [-1.,  1.,  1.]])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import numpy.typing as npt
from scipy import sparse

from gdl.deprecation import moved_names
from gdl.errors import ExtensiveGameError, NotTwoPlayerError
from gdl.extensive.model import Chance, Decision, ExtensiveGame, Node, Strategy, Terminal

if TYPE_CHECKING:
    from gdl.extensive.generate import GameTree

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
#: ``()`` (the empty sequence) or ``(infoset, action)``: the player's last choice.
SequenceKey = tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Level:
    """The information sets of one player at one depth of its own choices, with their sequences."""

    infosets: IntArray  # information-set indices
    parents: IntArray  # the sequence leading to each
    sequences: IntArray  # the sequences of these information sets, grouped by information set
    offsets: IntArray  # where each information set's group starts in ``sequences``


@dataclass(frozen=True, eq=False)
class PlayerSequences:
    """One player's side of the sequence form."""

    player: str
    #: Index 0 is the empty sequence; each information set's sequences are contiguous.
    sequences: Sequence[SequenceKey]
    #: Information-set keys, in the game's walk order.
    infosets: Sequence[str]
    #: Per information set: the sequence leading to it, its first sequence, its number of actions.
    parent: IntArray
    first: IntArray
    count: IntArray
    #: The constraint matrix (``E`` or ``F``), one row for the empty sequence then one per information
    #: set, and its right-hand side (``e`` or ``f``: 1 then 0s).
    constraints: sparse.csr_matrix
    rhs: FloatArray
    #: Information sets grouped by how many own choices precede them, shallowest first.
    levels: tuple[Level, ...]

    def index(self, sequence: SequenceKey) -> int:
        """The index of a sequence."""
        return self.sequences.index(sequence)

    def realization_plan(self, strategy: Strategy) -> FloatArray:
        """The realization plan of a behaviour strategy, which must cover every information set of the
        player (probabilities nonnegative, summing to 1 within 1e-6; they are renormalised)."""
        behaviour = np.zeros(len(self.sequences))
        for index, key in enumerate(self.infosets):
            given = strategy.get(key)
            if given is None:
                raise ExtensiveGameError(f"the strategy has no probabilities for information set {key!r}")
            first, count = int(self.first[index]), int(self.count[index])
            actions = [self.sequences[first + k][1] for k in range(count)]
            unknown = set(given) - set(actions)
            if unknown:
                raise ExtensiveGameError(f"information set {key!r} has no action {sorted(unknown)[0]!r}")
            probabilities = np.array([float(given.get(action, 0.0)) for action in actions])
            total = probabilities.sum()
            if (probabilities < 0).any() or not math.isfinite(total) or abs(total - 1) > 1e-6:
                raise ExtensiveGameError(
                    f"the probabilities at information set {key!r} are not a distribution: {dict(given)}"
                )
            behaviour[first : first + count] = probabilities / total
        return self.plan_of(behaviour)

    def plan_of(self, behaviour: FloatArray) -> FloatArray:
        """The realization plan of behaviour probabilities given per sequence (entry 0 ignored)."""
        plan = np.empty(len(self.sequences))
        plan[0] = 1.0
        for level in self.levels:
            reach = np.repeat(plan[level.parents], np.diff(np.append(level.offsets, len(level.sequences))))
            plan[level.sequences] = reach * behaviour[level.sequences]
        return plan

    def behaviour(self, plan: FloatArray) -> dict[str, dict[str, float]]:
        """The behaviour strategy of a realization plan; uniform where the plan never reaches."""
        strategy: dict[str, dict[str, float]] = {}
        for index, key in enumerate(self.infosets):
            first, count = int(self.first[index]), int(self.count[index])
            weights = np.clip(plan[first : first + count], 0.0, None)
            total = weights.sum()
            probabilities = weights / total if total > 1e-300 else np.full(count, 1.0 / count)
            strategy[key] = {
                self.sequences[first + k][1]: float(probabilities[k]) for k in range(count)
            }
        return strategy


@dataclass(frozen=True, eq=False)
class SequenceForm:
    """Both players' sequences, constraints and payoff tables; build with :meth:`from_game`."""

    #: The game (None for a form made from arrays, :meth:`from_tree`).
    game: ExtensiveGame | None
    players: tuple[str, str]
    sides: tuple[PlayerSequences, PlayerSequences]
    #: The same tables as sparse float matrices (rows: player 1's sequences, columns: player 2's).
    matrices: tuple[sparse.csr_matrix, sparse.csr_matrix]
    #: The payoffs' common sum at every terminal, or None when the game is not constant-sum.
    constant_sum: Fraction | None
    #: Every terminal reached with positive probability: both sequence indices and the probability.
    reached: tuple[tuple[int, int, Fraction, Terminal], ...] = field(repr=False)

    @cached_property
    def payoffs(self) -> tuple[dict[tuple[int, int], Fraction], dict[tuple[int, int], Fraction]]:
        """``g_i`` exactly: (player-1 sequence index, player-2 sequence index) -> expected payoff of
        player ``i`` (computed on first use)."""
        tables: tuple[dict[tuple[int, int], Fraction], dict[tuple[int, int], Fraction]] = ({}, {})
        for s1, s2, probability, terminal in self.reached:
            for table, player in zip(tables, self.players, strict=True):
                table[(s1, s2)] = table.get((s1, s2), Fraction(0)) + probability * terminal.payoff(player)
        return tables

    @classmethod
    def from_tree(cls, tree: GameTree) -> SequenceForm:
        """The sequence form of a two-player game tree held as arrays
        (:class:`gdl.extensive.generate.GameTree`), built with array operations: its :attr:`game` is
        None, :attr:`reached` is empty and the keys of sequences are made when asked for."""
        if len(tree.players) != 2:
            raise NotTwoPlayerError(
                f"the sequence form needs two players; the game has {len(tree.players)}: {list(tree.players)}"
            )
        players = (tree.players[0], tree.players[1])
        # Each information set's first sequence in its player's side.
        set_first = np.zeros(len(tree.set_player), dtype=np.int64)
        firsts: list[IntArray] = []
        for mover in range(2):
            mine = np.flatnonzero(tree.set_player == mover)
            counts = tree.set_count[mine].astype(np.int64)
            firsts.append((1 + np.concatenate([[0], np.cumsum(counts)])[:-1]).astype(np.int64))
            set_first[mine] = firsts[-1]

        def sequence_of(codes: IntArray) -> IntArray:
            """Sequence indices of own-sequence codes (``infoset * radix + action``, -1 empty)."""
            found = np.zeros(len(codes), dtype=np.int64)
            chosen = codes >= 0
            found[chosen] = set_first[codes[chosen] // tree.radix] + codes[chosen] % tree.radix
            return found

        sides = []
        for mover in range(2):
            mine = np.flatnonzero(tree.set_player == mover)
            sides.append(_arrays_side(
                players[mover], _TreeKeys(tree, mine), sequence_of(tree.set_parent[mine]), firsts[mover],
                tree.set_count[mine].astype(np.int64),
            ))
        rows, cols = sequence_of(tree.term_own[:, 0]), sequence_of(tree.term_own[:, 1])
        probability = 1.0 / tree.term_den.astype(np.float64)
        payoffs = tree.payoffs()
        shape = (len(sides[0].sequences), len(sides[1].sequences))
        matrices = tuple(
            sparse.csr_matrix((probability * payoffs[:, k], (rows, cols)), shape=shape) for k in range(2)
        )
        constant = None if tree.constant is None else Fraction(tree.constant) - 2 * tree.goal_offset
        return cls(None, players, (sides[0], sides[1]), (matrices[0], matrices[1]), constant, ())

    @classmethod
    def from_game(cls, game: ExtensiveGame) -> SequenceForm:
        """The sequence form of a two-player game."""
        if len(game.players) != 2:
            raise NotTwoPlayerError(
                f"the sequence form needs two players; the game has {len(game.players)}: {list(game.players)}"
            )
        players = (game.players[0], game.players[1])
        sides = tuple(_Side(game, player) for player in players)
        reached: list[tuple[int, int, Fraction, Terminal]] = []
        # Each entry: node, chance probability of reaching it, each player's sequence index.
        stack: list[tuple[Node, Fraction, int, int]] = [(game.root, Fraction(1), 0, 0)]
        while stack:
            node, probability, s1, s2 = stack.pop()
            if isinstance(node, Terminal):
                if probability:
                    reached.append((s1, s2, probability, node))
            elif isinstance(node, Chance):
                for p, child in zip(node.probabilities, node.children, strict=True):
                    stack.append((child, probability * p, s1, s2))
            else:
                mover = players.index(node.player)
                sequences = sides[mover].visit(node, s1 if mover == 0 else s2)
                for sequence, child in zip(sequences, node.children, strict=True):
                    stack.append((child, probability, *((sequence, s2) if mover == 0 else (s1, sequence))))
        first, second = (side.finish() for side in sides)
        shape = (len(first.sequences), len(second.sequences))
        return cls(
            game,
            players,
            (first, second),
            (_matrix(reached, players[0], shape), _matrix(reached, players[1], shape)),
            game.constant_sum(),
            tuple(reached),
        )

    def zero_sum_matrix(self) -> sparse.csr_matrix:
        """Player 1's payoff table for the solvers: the game must be constant-sum (the constant is
        split off: with sum c, player 2's payoff is c minus player 1's)."""
        if self.constant_sum is None:
            raise NotTwoPlayerError(
                "the solvers need a constant-sum game (the payoffs sum to the same number at every "
                "terminal); this one is general-sum"
            )
        return self.matrices[0]

    def expected_payoffs(self, x: FloatArray, y: FloatArray) -> tuple[float, float]:
        """Each player's expected payoff when they follow realization plans ``x`` and ``y``."""
        return (float(x @ (self.matrices[0] @ y)), float(x @ (self.matrices[1] @ y)))

    def describe(self) -> dict[str, Any]:
        """Sizes, for printing: sequences and information sets per player, nonzeros of the table."""
        return {
            "sequences": {side.player: len(side.sequences) for side in self.sides},
            "infosets": {side.player: len(side.infosets) for side in self.sides},
            "payoff_entries": int(self.matrices[0].nnz),
        }


def _matrix(
    reached: list[tuple[int, int, Fraction, Terminal]], player: str, shape: tuple[int, int]
) -> sparse.csr_matrix:
    """A player's payoff table in floats (entries of one pair of sequences are summed)."""
    floats: dict[Fraction, float] = {}

    def real(value: Fraction) -> float:
        known = floats.get(value)
        if known is None:
            known = floats[value] = float(value)
        return known

    rows = np.fromiter((s1 for s1, _, _, _ in reached), dtype=np.int64, count=len(reached))
    cols = np.fromiter((s2 for _, s2, _, _ in reached), dtype=np.int64, count=len(reached))
    values = np.fromiter(
        (real(p) * real(t.payoff(player)) for _, _, p, t in reached), dtype=np.float64, count=len(reached)
    )
    return sparse.csr_matrix((values, (rows, cols)), shape=shape)


class _Side:
    """Collects one player's sequences while the tree is walked."""

    def __init__(self, game: ExtensiveGame, player: str) -> None:
        self.player = player
        self.infosets = tuple(s.key for s in game.infosets_of(player))
        self.sequences: list[SequenceKey] = [()]
        self.first: dict[str, int] = {}
        self.count: dict[str, int] = {}
        for infoset in game.infosets_of(player):
            self.first[infoset.key] = len(self.sequences)
            self.count[infoset.key] = len(infoset.actions)
            self.sequences.extend((infoset.key, action) for action in infoset.actions)
        self.parent: dict[str, int] = {}

    def visit(self, node: Decision, sequence: int) -> range:
        """The sequences that extend ``sequence`` at this node, one per action."""
        self.parent.setdefault(node.infoset, sequence)
        first = self.first[node.infoset]
        return range(first, first + len(node.actions))

    def finish(self) -> PlayerSequences:
        parent = np.array([self.parent[key] for key in self.infosets], dtype=np.int64)
        first = np.array([self.first[key] for key in self.infosets], dtype=np.int64)
        count = np.array([self.count[key] for key in self.infosets], dtype=np.int64)
        return _arrays_side(self.player, self.infosets, parent, first, count, tuple(self.sequences))


def _arrays_side(
    player: str,
    infosets: Sequence[str],
    parent: IntArray,
    first: IntArray,
    count: IntArray,
    sequences: Sequence[SequenceKey] | None = None,
) -> PlayerSequences:
    """One player's side from its information sets' parent sequences, first sequences and action counts
    (its sequences' keys made from the information sets' when not given)."""
    n = len(first)
    total = 1 + int(count.sum())
    # Row 0: the empty sequence is 1; row i + 1: information set i's sequences sum to its parent's.
    owner_rows = np.repeat(np.arange(1, n + 1), count)
    rows = np.concatenate([[0], np.arange(1, n + 1), owner_rows])
    cols = np.concatenate([[0], parent, np.arange(1, total)])
    values = np.concatenate([[1.0], -np.ones(n), np.ones(total - 1)])
    constraints = sparse.csr_matrix((values, (rows, cols)), shape=(n + 1, total))
    rhs = np.zeros(n + 1)
    rhs[0] = 1.0
    return PlayerSequences(
        player,
        sequences if sequences is not None else _SequenceKeys(infosets, first, count),
        infosets,
        parent,
        first,
        count,
        constraints,
        rhs,
        _levels(parent, first, count),
    )


class _TreeKeys(Sequence[str]):
    """The keys of some information sets of a tree of arrays, made when asked for."""

    def __init__(self, tree: GameTree, numbers: IntArray) -> None:
        self.tree = tree
        self.numbers = numbers

    def __len__(self) -> int:
        return len(self.numbers)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self.tree.infoset_key(int(self.numbers[index]))

    def actions(self, index: int) -> tuple[str, ...]:
        return self.tree.infoset_actions(int(self.numbers[index]))


class _SequenceKeys(Sequence[SequenceKey]):
    """A side's sequence keys, ``()`` then ``(infoset key, action)``, made when asked for."""

    def __init__(self, infosets: Sequence[str], first: IntArray, count: IntArray) -> None:
        self.infosets = infosets
        self.owner = np.repeat(np.arange(len(first)), count)
        self.first = first

    def __len__(self) -> int:
        return 1 + len(self.owner)

    @overload
    def __getitem__(self, index: int) -> SequenceKey: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[SequenceKey]: ...
    def __getitem__(self, index: int | slice) -> SequenceKey | Sequence[SequenceKey]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if index == 0:
            return ()
        owner = int(self.owner[index - 1])
        infosets = self.infosets
        actions = infosets.actions(owner) if isinstance(infosets, _TreeKeys) else ()
        return (infosets[owner], actions[index - int(self.first[owner])])


def _levels(parent: IntArray, first: IntArray, count: IntArray) -> tuple[Level, ...]:
    """Information sets grouped by depth: an information set is one deeper than the one whose
    sequence leads to it (sequence 0 is depth 0)."""
    if not len(first):
        return ()
    owner = np.full(int(first[-1] + count[-1]), -1, dtype=np.int64)
    owner[np.repeat(first, count) + _ranks(count)] = np.repeat(np.arange(len(first)), count)
    depth = np.full(len(first), -1, dtype=np.int64)
    depth[parent == 0] = 0
    d = 0
    while (depth < 0).any():  # each pass finds the information sets one deeper
        if d > len(first):
            raise ExtensiveGameError("an information set is not reached from the empty sequence")
        leading = owner[parent]
        deeper = (depth < 0) & (depth[np.maximum(leading, 0)] == d) & (parent > 0)
        depth[deeper] = d + 1
        d += 1
    levels = []
    for d in range(int(depth.max()) + 1):
        infosets = np.flatnonzero(depth == d).astype(np.int64)
        sizes = count[infosets]
        sequences = np.repeat(first[infosets], sizes) + _ranks(sizes)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        levels.append(Level(infosets, parent[infosets], sequences.astype(np.int64), offsets))
    return tuple(levels)


def _ranks(sizes: IntArray) -> IntArray:
    """``0, 1, ..., sizes[0] - 1, 0, 1, ..., sizes[1] - 1, ...``."""
    total = int(sizes.sum())
    starts = np.repeat(np.cumsum(sizes) - sizes, sizes)
    ranks: IntArray = np.arange(total, dtype=np.int64) - starts
    return ranks


moved_names(__name__, "gdl.errors", "NotTwoPlayerError")
