"""What a player of a GDL-II game can keep track of: its belief, brought up to date with its view.

In a GDL-II game (one with ``sees`` rules: :func:`gdl.views.plays_with_views`) a player is handed its
:class:`gdl.views.View`, never the state. :class:`BeliefTracker` keeps the :class:`gdl.belief.Belief`
that goes with the view, updating it by the steps added since the last call (one filtering step per
move, not a replay of the whole match), and starts over when it is handed a view that does not extend
the last one (a new match). A belief that was cut down to a sample may have lost every state that
fits a later percept; then the tracker filters once more from the start, with new draws.
"""

from __future__ import annotations

import random

from gdl.belief import MAX_STATES, Belief
from gdl.errors import InconsistentViewError
from gdl.game import Game, State
from gdl.syntax.model import Term
from gdl.views import View


class BeliefTracker:
    """The belief of ``role`` in ``game``, kept in step with the views it is handed.

    ``max_states`` bounds the belief (past it, a weighted sample is kept); ``rng`` draws the samples.
    """

    def __init__(
        self, game: Game, role: str, *, max_states: int = MAX_STATES, rng: random.Random | None = None
    ) -> None:
        self.game = game
        self.role = game.roles[game.role_index(role)]
        self.max_states = max_states
        self.rng = rng if rng is not None else random.Random(0)
        self._belief = Belief.initial(game, self.role)
        self._moves: tuple[Term, ...] = ()
        self._percepts: tuple[frozenset[Term], ...] = ()

    def belief(self, view: View) -> Belief:
        """The belief given ``view``; raises :class:`gdl.errors.InconsistentViewError` when no play of the
        game produces the view."""
        known = len(self._moves)
        if view.moves[:known] != self._moves or view.percepts[:known] != self._percepts:
            self._restart()
        try:
            self._catch_up(view)
        except InconsistentViewError:
            if self._belief.exact:
                raise  # no state of the game fits the view: another try cannot help
            self._restart()
            self._catch_up(view)
        return self._belief

    def _restart(self) -> None:
        self._belief, self._moves, self._percepts = Belief.initial(self.game, self.role), (), ()

    def _catch_up(self, view: View) -> None:
        known = len(self._moves)
        for move, seen in zip(view.moves[known:], view.percepts[known:], strict=True):
            self.step(move, seen)

    def step(self, move: Term, percepts: frozenset[Term]) -> Belief:
        """The belief after one more step: the role played ``move`` and then saw ``percepts``."""
        self._belief = self._belief.update(move, percepts, max_states=self.max_states, rng=self.rng)
        self._moves += (move,)
        self._percepts += (percepts,)
        return self._belief



def sample_playing(belief: Belief, rng: random.Random) -> State:
    """A state of ``belief`` drawn by weight among those where the game goes on (a player asked for a
    move is not in a terminal state, though it may not know that the others are); any state if none."""
    pairs = [(s, w) for s, w in zip(belief.states, belief.weights, strict=True) if not s.is_terminal()]
    if not pairs:
        return belief.sample(rng)
    drawn: State = rng.choices([s for s, _ in pairs], [w for _, w in pairs])[0]
    return drawn


def legal_moves(belief: Belief) -> tuple[Term, ...]:
    """The role's legal moves, read from a state of its belief; none when every such state is terminal.
    (In a well-formed GDL-II game they depend only on the view, so any state will do.)"""
    state = next((state for state in belief.states if not state.is_terminal()), None)
    return () if state is None else tuple(state.legal_moves(belief.role))
