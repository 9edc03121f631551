"""The one player interface, used alike by scripts, the CLI, the match runner and the network server."""

from __future__ import annotations

from abc import ABC, abstractmethod

from gdl.game import Game, State
from gdl.syntax.model import Term


class Player(ABC):
    """A player is told the game, its role and the clocks, asked for moves, and told when it ends.

    Clocks are in seconds. ``deadline`` values are :func:`time.monotonic` instants by which the player
    must have answered; a player should keep a safety margin.
    """

    #: A short name for tables and logs, e.g. ``"mcts"``.
    name: str = "player"

    def start(self, game: Game, role: str, start_clock: float, play_clock: float) -> None:
        """A match begins; preparation may use up to ``start_clock`` seconds."""
        self.game = game
        self.role = role
        self.start_clock = start_clock
        self.play_clock = play_clock

    @abstractmethod
    def play(self, state: State, deadline: float) -> Term:
        """Choose a legal move for :attr:`role` in ``state`` before ``deadline``."""

    def stop(self, state: State) -> None:  # noqa: B027 - optional hook
        """The match ended in ``state`` (terminal, or aborted when it is not)."""
