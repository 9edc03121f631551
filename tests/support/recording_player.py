"""A player that writes down everything it is handed, and the check that a GDL-II player was handed
exactly its own view at each step: its moves, its percepts and its legal moves, and nothing else."""

from __future__ import annotations

import random
from typing import Any

from gdl.game import Game, State
from gdl.match import MatchRecord
from gdl.players import Player
from gdl.syntax.model import Term
from gdl.views import View


class Recording(Player):
    """Plays at random from its view and writes down every call it gets, with every argument."""

    name = "recording"

    def __init__(self, seed: int) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.rng = random.Random(seed)

    def start(self, game: Game, role: str, start_clock: float, play_clock: float) -> None:
        super().start(game, role, start_clock, play_clock)
        self.calls.append(("start", (game, role, start_clock, play_clock)))

    def play(self, state: State, deadline: float) -> Term:
        self.calls.append(("play", (state, deadline)))
        raise AssertionError("a GDL-II player must never be handed the state")

    def play_view(self, view: View, deadline: float) -> Term:
        self.calls.append(("play_view", (view, deadline)))
        return self.rng.choice(view.legal)

    def stop(self, state: State) -> None:
        self.calls.append(("stop", (state,)))

    def stop_view(self, view: View) -> None:
        self.calls.append(("stop_view", (view,)))


def check_calls(player: Recording, record: MatchRecord, role: str, game: Game) -> None:
    """``player`` was started, asked with its view at every step and stopped with its last view, and
    was never handed anything but views and deadlines."""
    kinds = [kind for kind, _ in player.calls]
    assert kinds == ["start"] + ["play_view"] * len(record.moves) + ["stop_view"]
    started = player.calls[0][1]
    assert started[0].checked.program.rules == game.checked.program.rules and started[1] == role
    for _, args in player.calls[1:]:
        # A view (and a deadline): never a state, a record or another role's anything.
        assert all(isinstance(a, View | float) for a in args), args
    check_views(record, role, [args[0] for _, args in player.calls[1:]])


def check_views(record: MatchRecord, role: str, views: list[View]) -> None:
    """``views[i]`` is exactly what ``role`` may know before step ``i`` (the last one: at the end):
    its own moves and percepts as the record has them, and its true legal moves; nothing else."""
    assert len(views) == len(record.states)
    for step, view in enumerate(views):
        assert view.role == role
        assert [str(m) for m in view.moves] == [record.moves[i][role] for i in range(step)]
        assert [sorted(map(str, p)) for p in view.percepts] == [record.percepts[i][role] for i in range(step)]
        state = record.states[step]
        legal = [] if state.is_terminal() else state.legal_moves(role)
        assert list(view.legal) == legal
