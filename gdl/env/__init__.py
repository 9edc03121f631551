"""Every GDL and GDL-II game as an environment of the libraries where agents are trained: PettingZoo
(:func:`env`, :func:`parallel_env`), Gymnasium (:func:`gym_env`, one-player games) and OpenSpiel
(:func:`openspiel_game`). Needs the optional extra ``gdl[env]``.

>>> import gdl.env
>>> aec = gdl.env.env("games/tictactoe.kif")
>>> aec.reset(seed=0)
>>> aec.agent_selection, aec.action_space("xplayer")
('xplayer', Discrete(10))
"""

import importlib
from typing import TYPE_CHECKING, Any

from gdl.env.encoding import Encoding
from gdl.errors import NotResetError, UngroundableGameError

if TYPE_CHECKING:
    from gdl.env.gymnasium import GdlGymEnv, gym_env
    from gdl.env.openspiel import openspiel_game, register
    from gdl.env.pettingzoo import GdlAECEnv, GdlParallelEnv, env, parallel_env

#: Where each name lives: a library is imported with the first name that needs it (importing all three
#: at once took seconds and needed all three installed).
_LAZY = {
    "GdlGymEnv": "gymnasium", "gym_env": "gymnasium",
    "openspiel_game": "openspiel", "register": "openspiel",
    "GdlAECEnv": "pettingzoo", "GdlParallelEnv": "pettingzoo",
    "env": "pettingzoo", "parallel_env": "pettingzoo",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"gdl.env.{_LAZY[name]}"), name)

__all__ = [
    "Encoding",
    "GdlAECEnv",
    "GdlGymEnv",
    "GdlParallelEnv",
    "NotResetError",
    "UngroundableGameError",
    "env",
    "gym_env",
    "openspiel_game",
    "parallel_env",
    "register",
]
