"""The interface every reasoning engine implements; :mod:`gdl.game` builds the public API on it."""

from __future__ import annotations

import numbers
import random
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Generic, NamedTuple, Protocol, TypeVar

from gdl.check.moves import goal_number as goal_number  # the one reading of goal values, re-exported
from gdl.syntax.model import Constant, Term

S = TypeVar("S", bound=Hashable)


class Reasoner(Protocol[S]):
    """Computes the game relations for states in an engine-specific, hashable representation ``S``.

    Moves and fluents cross this interface as ground terms of the clause model. Roles are referred to
    by their index in :attr:`roles`. A reasoner trusts its caller: :class:`gdl.game.State` checks
    legality and the run-time promises of GDL before and after calling it.
    """

    #: Role names (canonical KIF) in declaration order.
    roles: tuple[str, ...]

    def initial(self) -> S:
        """The initial state: the fluents of every ``init`` fact."""
        ...

    def fluents(self, state: S) -> frozenset[Term]:
        """The fluents (ground terms ``f`` with ``(true f)``) of a state."""
        ...

    def from_fluents(self, fluents: Iterable[Term]) -> S:
        """The state whose fluents are exactly ``fluents``."""
        ...

    def legal(self, state: S, role: int) -> tuple[Term, ...]:
        """The legal moves of a role, sorted by their KIF text."""
        ...

    def next(self, state: S, moves: Sequence[Term]) -> S:
        """The successor state after a joint move, one move per role in role order."""
        ...

    def terminal(self, state: S) -> bool:
        """Whether the state is terminal."""
        ...

    def goals(self, state: S, role: int) -> tuple[Term, ...]:
        """Every goal value derived for a role (a valid game derives exactly one, 0..100)."""
        ...

    def sees(self, state: S, moves: Sequence[Term]) -> tuple[frozenset[Term], ...]:
        """GDL-II: per role (in role order), the percepts ``p`` of ``(sees role p)`` after a joint move."""
        ...


#: The signature of a reasoner's own ``depth_charge`` method (state, random source, maximum depth).
DepthCharge = Callable[[S, random.Random, int], tuple[S, int, bool]]


def depth_charge(reasoner: Reasoner[S], state: S, rng: random.Random, max_depth: int) -> tuple[S, int, bool]:
    """A playout from ``state`` where every role picks uniformly among its legal moves: the last state,
    the joint moves made, and whether the last state is terminal (it is not when the playout stopped at
    a role without a legal move, or after ``max_depth`` joint moves).

    A reasoner may have its own, faster, method ``depth_charge`` with this meaning (and the reasoner's
    own random choices, drawn from ``rng``); it is used when present.
    """
    # Looked up by name: an isinstance check against a runtime-checkable protocol costs microseconds.
    own: DepthCharge[S] | None = getattr(reasoner, "depth_charge", None)
    if own is not None:
        return own(state, rng, max_depth)
    return random_walk(reasoner, state, rng, max_depth)


def random_walk(reasoner: Reasoner[S], state: S, rng: random.Random, max_depth: int) -> tuple[S, int, bool]:
    """:func:`depth_charge` through the reasoner protocol, one call per question."""
    roles = range(len(reasoner.roles))
    depth = 0
    while not reasoner.terminal(state):
        if depth == max_depth:
            return state, depth, False
        moves = []
        for role in roles:
            legal = reasoner.legal(state, role)
            if not legal:
                return state, depth, False
            moves.append(legal[rng.randrange(len(legal))])
        state = reasoner.next(state, moves)
        depth += 1
    return state, depth, True


class Charges(NamedTuple, Generic[S]):
    """What many depth charges from one state add up to (:func:`depth_charges`).

    ``goal_sums[r]`` adds role ``r``'s goal value over the charges that ended at a terminal state where
    the role has exactly one goal value, a number from 0 to 100; ``goal_counts[r]`` counts those charges
    (fewer than ``terminal`` only in a game that breaks GDL's promise of one goal value per role).
    """

    #: How many depth charges were made.
    playouts: int
    #: How many ended at a terminal state (the others at a role without a legal move, or at the depth limit).
    terminal: int
    #: The joint moves made in all (the states visited are ``moves + playouts``).
    moves: int
    goal_sums: tuple[int, ...]
    goal_counts: tuple[int, ...]
    #: The last state of the last depth charge.
    last: S

    def mean_goal(self, role: int) -> float | None:
        """Role ``role``'s mean goal value over the charges that counted it (None when none did)."""
        count = self.goal_counts[role]
        return self.goal_sums[role] / count if count else None


#: The signature of a reasoner's own ``depth_charges`` method (state, count, random source, maximum depth).
DepthCharges = Callable[[S, int, random.Random, int], Charges[S]]


def depth_charges(
    reasoner: Reasoner[S], state: S, count: int, rng: random.Random, max_depth: int
) -> Charges[S]:
    """``count`` depth charges from ``state`` (see :func:`depth_charge`), added up: for a tree search
    that runs several playouts per leaf, or a benchmark, without a call per playout.

    A reasoner may have its own method ``depth_charges`` with this meaning, which is used when present
    (the compiled engine makes all the charges and reads their goals in one native call); otherwise the
    charges are made one by one with :func:`depth_charge` and their goals read with ``reasoner.goals``.
    Raises :class:`ValueError` unless ``count`` is a positive integer and ``max_depth`` a non-negative one
    (a reasoner's own method checks them with :func:`charges_arguments`).
    """
    own: DepthCharges[S] | None = getattr(reasoner, "depth_charges", None)
    if own is not None:
        return own(state, count, rng, max_depth)
    return charges_one_by_one(reasoner, state, count, rng, max_depth)


def charges_one_by_one(
    reasoner: Reasoner[S], state: S, count: int, rng: random.Random, max_depth: int
) -> Charges[S]:
    """:func:`depth_charges` made one by one with :func:`depth_charge`, the goals read through the
    reasoner protocol."""
    count, max_depth = charges_arguments(count, max_depth)
    roles = range(len(reasoner.roles))
    terminal = moves = 0
    sums = [0] * len(roles)
    counts = [0] * len(roles)
    last = state
    for _ in range(count):
        last, depth, ended = depth_charge(reasoner, state, rng, max_depth)
        moves += depth
        if ended:
            terminal += 1
            for role in roles:
                value = goal_value(reasoner.goals(last, role))
                if value is not None:
                    sums[role] += value
                    counts[role] += 1
    return Charges(count, terminal, moves, tuple(sums), tuple(counts), last)


def charges_arguments(count: int, max_depth: int) -> tuple[int, int]:
    """The count and maximum depth of :func:`depth_charges` as ints, checked: ValueError unless the count
    is a positive integer and the maximum depth a non-negative one."""
    for name, value, least in (("count", count, 1), ("max_depth", max_depth, 0)):
        if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < least:
            kind = "positive" if least else "non-negative"
            raise ValueError(f"depth charges: {name} must be a {kind} integer, not {value!r}")
    return int(count), int(max_depth)


def goal_value(values: Sequence[Term]) -> int | None:
    """The goal value of a role with the goal values ``values``: the one value, if it is a number from 0
    to 100; None otherwise."""
    if len(values) == 1 and isinstance(values[0], Constant):
        return goal_number(values[0].name)
    return None


