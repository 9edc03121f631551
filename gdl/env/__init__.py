"""Every GDL and GDL-II game as an environment of the libraries where agents are trained: PettingZoo
(:func:`env`, :func:`parallel_env`), Gymnasium (:func:`gym_env`, one-player games) and OpenSpiel
(:func:`openspiel_game`). Needs the optional extra ``gdl[env]``.

>>> import gdl.env
>>> aec = gdl.env.env("games/tictactoe.kif")
>>> aec.reset(seed=0)
>>> aec.agent_selection, aec.action_space("xplayer")
('xplayer', Discrete(10))
"""

from gdl.env.encoding import Encoding, NotResetError, UngroundableGameError
from gdl.env.gymnasium import GdlGymEnv, gym_env
from gdl.env.openspiel import openspiel_game, register
from gdl.env.pettingzoo import GdlAECEnv, GdlParallelEnv, env, parallel_env

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
