"""gdl: a toolkit for General Game Playing.

Read, check, reason about, play and solve games written in the Game Description Language.
"""

from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("gdl")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

from gdl.errors import (
    GameDefinitionError,
    IllegalMoveError,
    InvalidGameError,
    InvalidStateError,
    KifSyntaxError,
    UnknownRoleError,
)
from gdl.game import Game, State, load, parse
from gdl.kernel_cache import refresh
from gdl.match import Match, MatchRecord

# Before any kernel is loaded from numba's cache (at its first call): see gdl.kernel_cache.
refresh(Path(__file__).parent)

__all__ = [
    "Game",
    "GameDefinitionError",
    "IllegalMoveError",
    "InvalidGameError",
    "InvalidStateError",
    "KifSyntaxError",
    "Match",
    "MatchRecord",
    "State",
    "UnknownRoleError",
    "load",
    "parse",
]
