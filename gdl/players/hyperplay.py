"""The HyperPlay player for GDL-II: perfect-information search on the states its view allows.

HyperPlay (Schofield, Cerexhe and Thielscher, 2012) plays a game of hidden information by sampling the
states the player may be in, given everything it knows, and searching each as if the game had perfect
information. Here the states come from the player's belief (:class:`gdl.belief.Belief`, kept up to date
by :class:`gdl.players.tracking.BeliefTracker`), each with the probability of being the true state; each
state is searched by the MCTS player (:meth:`gdl.players.mcts.MctsPlayer.move_values`), and the move
with the best average value, weighted by those probabilities, is played.

When the belief is exact and has at most ``samples`` states, every state is searched with its own
weight (the expectation is exact up to the searches); otherwise ``samples`` states are drawn by weight.
The play clock is shared equally between the searches. Keeping the belief is bounded by ``max_states``
(default 100), which the player halves after an update that took more than a quarter of the play clock
(and lets grow back after fast ones); past it the belief is a weighted sample, and should that sample
lose every state that fits a later percept, the player filters again from the start and, failing that,
plays a random legal move. A known weakness of the method is that each search assumes the player would
know the state afterwards (it values information it cannot have); in Monty Hall that does no harm, and
it switches doors.

In a game without hidden information the player is plain MCTS.
"""

from __future__ import annotations

import random
import time

from gdl.errors import GameDefinitionError, InconsistentViewError
from gdl.game import Game, State
from gdl.players.base import Player, at_least
from gdl.players.mcts import MctsPlayer
from gdl.players.tracking import BeliefTracker
from gdl.syntax.model import Term
from gdl.views import View


class HyperPlayer(Player):
    """HyperPlay: the best move on average over states drawn from the belief, each searched by MCTS.

    Options: ``samples`` (int) states searched per move; ``iterations`` (int) MCTS iterations per state
    (the clock still applies); ``max_states`` (int) bound on the belief before it is sampled; ``c``
    (float) UCB1 exploration constant; ``seed`` (int) for the draws and the searches; ``margin``
    (float, seconds) kept free before the deadline.
    """

    name = "hyperplay"

    def __init__(
        self,
        samples: int = 16,
        iterations: int | None = None,
        max_states: int = 100,
        c: float = 1.4,
        seed: int | None = None,
        margin: float = 0.1,
    ) -> None:
        at_least("hyperplay", "samples", samples, 1)
        at_least("hyperplay", "iterations", iterations, 1)
        at_least("hyperplay", "max_states", max_states, 1)
        at_least("hyperplay", "margin", margin, 0)
        at_least("hyperplay", "c", c, 0)
        self.samples = samples
        self.max_states = max_states
        self.margin = margin
        self.rng = random.Random(seed)
        self.search = MctsPlayer(iterations, c, self.rng.randrange(1 << 32), margin=0.0)

    def start(self, game: Game, role: str, start_clock: float, play_clock: float) -> None:
        super().start(game, role, start_clock, play_clock)
        self.search.start(game, role, start_clock, play_clock)
        self.tracker = BeliefTracker(game, role, max_states=self.max_states, rng=self.rng)

    def play(self, state: State, deadline: float) -> Term:
        move = self.search.play(state, deadline - self.margin)
        self._info = self.search.info()
        return move

    def stop(self, state: State) -> None:
        self.search.stop(state)

    def _adapt(self, seconds: float) -> None:
        """Keep belief updates to about a quarter of the play clock: halve the belief's bound after a
        slower one, let it grow back (up to ``max_states``) after a much faster one."""
        tracker = self.tracker
        if seconds > self.play_clock / 4:
            tracker.max_states = max(1, tracker.max_states // 2)
        elif seconds < self.play_clock / 16:
            tracker.max_states = min(self.max_states, tracker.max_states * 2)

    def play_view(self, view: View, deadline: float) -> Term:
        if len(view.legal) == 1:
            return view.legal[0]
        begun = time.monotonic()
        try:
            belief = self.tracker.belief(view)
        except InconsistentViewError as problem:
            # The sampled belief lost track (or the game is not well-formed): play on, at random.
            self._info = {"lost": str(problem)}
            return self.rng.choice(view.legal)
        finally:
            self._adapt(time.monotonic() - begun)
        if belief.exact and len(belief.states) <= self.samples:
            drawn = list(zip(belief.states, belief.weights, strict=True))
        else:
            drawn = [(s, 1.0) for s in self.rng.choices(belief.states, belief.weights, k=self.samples)]
        # The player may not know that some of its states would have ended the game: it is asked for a
        # move, so they are not the true one.
        drawn = [(state, weight) for state, weight in drawn if not state.is_terminal()]
        worth = {move: 0.0 for move in view.legal}
        weight = {move: 0.0 for move in view.legal}
        stop_at = deadline - self.margin
        skipped = 0
        for done, (state, probability) in enumerate(drawn):
            now = time.monotonic()
            if now >= stop_at and any(weight.values()):
                break
            try:
                values = self.search.move_values(state, now + (stop_at - now) / (len(drawn) - done))
            except GameDefinitionError:  # a state where the rules break (e.g. two goals): no guide
                skipped += 1
                continue
            for move, (value, visits) in values.items():
                if visits and move in worth:
                    worth[move] += probability * value
                    weight[move] += probability
        average = {move: worth[move] / weight[move] for move in view.legal if weight[move] > 0}
        best = max(view.legal, key=lambda m: (average.get(m, -1.0), -view.legal.index(m)))
        self._info = {
            "states": len(belief.states),
            "searched": len(drawn),
            "exact": belief.exact,
            **({"skipped": skipped} if skipped else {}),
            "value": round(100 * average[best], 1) if best in average else None,
        }
        return best
