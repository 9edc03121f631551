"""Belief states of GDL-II: the states a player may be in given its view, each with its probability.

A belief is kept by forward filtering: from the initial state, each step expands every state by every
joint move in which the player makes its own move, and keeps the successors where the player would have
been told exactly what it was (:func:`gdl.views.told`: its percepts in a GDL-II game) and, when given,
would have exactly its legal moves. The weight of a successor is the probability of reaching it, under
an assumption that the player cannot avoid making: nature (``random``) picks uniformly among its legal
moves, as GDL-II says, and **every other player also picks uniformly among its legal moves** (an
opponent model, not a fact of the game). Equal states merge.

The weights matter. In Monty Hall, after the candidate chose door 1 and the host opened door 2, the car
is behind door 3 with probability 2/3: the host had one choice there against two when the car is behind
door 1.

>>> import gdl
>>> game = gdl.load("games/montyhall.kif")
>>> belief = Belief.initial(game, "candidate").update("noop", [])
>>> len(belief.states), belief.exact
(3, True)

Exact filtering is bounded. Each state gets a share of :data:`EXPANSION_FACTOR` times ``max_states``
joint moves to try (at least :data:`EXPANSION_FACTOR`): a state with more joint moves than its share is
expanded by a uniform sample of that many, each carrying its part of the state's weight (a sample whose
percepts differ is rejected). When more than ``max_states`` states remain, a weighted sample of
``max_states`` draws is kept. Either way the belief says ``exact=False``, and it may have lost the true
state: when no kept state fits a later percept, :meth:`Belief.update` raises
:class:`gdl.errors.BeliefDepletedError` (an :class:`gdl.errors.InconsistentViewError`), and
:func:`belief_from_view` filters again with a larger budget.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from gdl.errors import BeliefDepletedError, InconsistentViewError
from gdl.game import Game, State, as_term
from gdl.syntax.model import Term
from gdl.views import View, told

#: The default bound on the states a belief keeps.
MAX_STATES = 1000

#: Exact filtering tries at most this many (state, joint move) pairs per state kept; past that, joint
#: moves are sampled, this many per state kept.
EXPANSION_FACTOR = 16


@dataclass(frozen=True)
class Belief:
    """The states ``role`` may be in, with the probability of each (``weights`` sum to 1); ``exact`` is
    False once sampling has replaced exact filtering."""

    role: str
    states: tuple[State, ...]
    weights: tuple[float, ...]
    exact: bool = True

    def __post_init__(self) -> None:
        if len(self.states) != len(self.weights) or not self.states:
            raise ValueError("a belief needs at least one state and one weight per state")

    def __repr__(self) -> str:
        return f"<Belief {self.role} states={len(self.states)} exact={self.exact}>"

    @classmethod
    def initial(cls, game: Game, role: str) -> Belief:
        """Before the first move: the initial state, certainly."""
        return cls(game.roles[game.role_index(role)], (game.initial_state(),), (1.0,))

    def sample(self, rng: random.Random) -> State:
        """A state drawn by weight."""
        return rng.choices(self.states, self.weights)[0]

    def probability(self, event: Callable[[State], bool]) -> float:
        """The probability that the true state satisfies ``event``."""
        return math.fsum(w for s, w in zip(self.states, self.weights, strict=True) if event(s))

    def update(
        self,
        move: Term | str,
        percepts: Iterable[Term | str],
        legal: Iterable[Term | str] | None = None,
        *,
        max_states: int = MAX_STATES,
        rng: random.Random | None = None,
    ) -> Belief:
        """The belief after the role played ``move`` and then saw ``percepts`` (and, when given, may now
        play exactly ``legal``); raises :class:`InconsistentViewError` when no state fits."""
        if max_states < 1:
            raise ValueError(f"max_states must be at least 1, not {max_states}")
        rng = rng if rng is not None else random.Random(0)
        own = as_term(move)
        seen = frozenset(map(as_term, percepts))
        wanted = None if legal is None else frozenset(map(as_term, legal))
        game = self.states[0].game
        # Each state is expanded by all its joint moves, or by a uniform sample of them when it has more
        # than its share of the budget (then each sampled one carries its share of the state's weight).
        share = max(EXPANSION_FACTOR, EXPANSION_FACTOR * max_states // len(self.states))
        counts = [_joint_count(state, self.role) for state in self.states]
        exact = self.exact and all(count <= share for count in counts)
        found: dict[State, float] = {}
        for state, weight, count in zip(self.states, self.weights, counts, strict=True):
            if not count or not state.is_legal(self.role, own):
                continue
            if count <= share:
                joints = _joints(state, self.role, own)
            else:
                joints = _sampled_joints(state, self.role, own, share, rng)
            for joint, factor in joints:
                if told(state, joint)[self.role] != seen:
                    continue
                successor = state.next(joint)
                if wanted is not None and frozenset(successor.legal_moves(self.role)) != wanted:
                    continue
                found[successor] = found.get(successor, 0.0) + weight * factor
        if not found:
            problem = (
                f"no state of game {game.name!r} fits {self.role}'s view: move {str(own)!r}, percepts "
                f"{sorted(map(str, seen))}"
            )
            if exact:
                raise InconsistentViewError(problem)
            raise BeliefDepletedError(
                f"{problem} among the {len(self.states)} sampled states of the belief; rebuild it from the "
                "view with a larger max_states (belief_from_view does)"
            )
        states, weights = tuple(found), tuple(found.values())
        if len(states) > max_states:
            drawn = rng.choices(range(len(states)), weights, k=max_states)
            kept: dict[int, int] = {}
            for index in drawn:
                kept[index] = kept.get(index, 0) + 1
            states = tuple(states[i] for i in kept)
            weights = tuple(float(c) for c in kept.values())
            exact = False
        total = math.fsum(weights)
        return Belief(self.role, states, tuple(w / total for w in weights), exact)


def _joint_count(state: State, role: str) -> int:
    if state.is_terminal():
        return 0
    return math.prod(len(state.legal_moves(r)) for r in state.game.roles if r != role)


def _joints(state: State, role: str, own: Term) -> Iterator[tuple[dict[str, Term], float]]:
    """Every joint move at ``state`` in which ``role`` plays ``own``, with its probability when each
    other role picks uniformly among its legal moves."""
    if state.is_terminal():
        return
    others = [r for r in state.game.roles if r != role]
    options: list[Sequence[Term]] = [state.legal_moves(r) for r in others]
    factor = 1.0 / math.prod(len(o) for o in options)
    for moves in itertools.product(*options):
        joint = dict(zip(others, moves, strict=True))
        joint[role] = own
        yield joint, factor


def _sampled_joints(
    state: State, role: str, own: Term, draws: int, rng: random.Random
) -> Iterator[tuple[dict[str, Term], float]]:
    """``draws`` joint moves at ``state`` in which ``role`` plays ``own``, the others' moves drawn
    uniformly, each with probability ``1 / draws``."""
    others = [(r, state.legal_moves(r)) for r in state.game.roles if r != role]
    for _ in range(draws):
        joint = {r: options[rng.randrange(len(options))] for r, options in others}
        joint[role] = own
        yield joint, 1.0 / draws


def belief_from_view(
    game: Game,
    view: View,
    *,
    max_states: int = MAX_STATES,
    rng: random.Random | None = None,
    retries: int = 2,
) -> Belief:
    """The belief of ``view.role`` given its whole view, filtered forward from the initial state (its
    legal moves now are used at the last step).

    A sampled belief can lose every state that fits a later percept (the true one was not drawn): then
    the filtering starts again with four times ``max_states``, up to ``retries`` times, before the
    :class:`BeliefDepletedError` is raised.
    """
    for attempt in range(retries + 1):
        try:
            return _filtered(game, view, max_states * 4**attempt, rng)
        except BeliefDepletedError:
            if attempt == retries:
                raise
    raise AssertionError("unreachable")


def _filtered(game: Game, view: View, max_states: int, rng: random.Random | None) -> Belief:
    belief = Belief.initial(game, view.role)
    last = len(view.moves) - 1
    for step, (move, seen) in enumerate(zip(view.moves, view.percepts, strict=True)):
        legal = view.legal if step == last else None
        belief = belief.update(move, seen, legal, max_states=max_states, rng=rng)
    return belief
