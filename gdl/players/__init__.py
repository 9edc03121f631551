"""Players: programs (and people) that choose moves. Build one from text with :func:`make_player`."""

from gdl.players.base import Player
from gdl.players.registry import PLAYER_KINDS, assign_roles, make_player, options, parse_spec

__all__ = ["PLAYER_KINDS", "Player", "assign_roles", "make_player", "options", "parse_spec"]
