"""The uct player: MCTS with its hot loop in native code (see :mod:`gdl.players.uct.player`)."""

from gdl.players.uct.player import UctPlayer
from gdl.players.uct.warm import warm_up

__all__ = ["UctPlayer", "warm_up"]
