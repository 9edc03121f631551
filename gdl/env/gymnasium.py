"""A one-player GDL game (a puzzle, perhaps with nature) as a Gymnasium environment: :func:`gym_env`.

Spaces, observations and rewards are those of the PettingZoo environments (:mod:`gdl.env.encoding`): the
action space is ``Discrete(n)`` over every move the player can ever make, the observation a dict with
``"observation"`` and ``"action_mask"``, the reward the goal / 100 at the end. Gymnasium agents may send
any action of the space: an illegal one leaves the state as it was, with reward 0 and
``info["illegal_action"]`` True (use the mask to avoid them). As in the AEC environment, states where
the player has no choice are not skipped: its only move is its only legal action.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from gdl.env import spaces
from gdl.env.encoding import Encoding, Episode, as_game, check_options, rewards, show
from gdl.errors import IllegalMoveError, NotResetError
from gdl.game import Game

Observation = dict[str, np.ndarray]


def gym_env(game: Game | str | Path, **options: Any) -> GdlGymEnv:
    """The Gymnasium environment of the one-player ``game``; see :class:`GdlGymEnv`."""
    return GdlGymEnv(game, **options)


class GdlGymEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """A one-player GDL game as a Gymnasium environment (see the module docstring).

    Options: ``render_mode`` ("human" or "ansi"), ``max_steps`` (steps, illegal actions included, before
    the episode is truncated; none by default), ``engine`` (when ``game`` is a path).
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        game: Game | str | Path,
        *,
        render_mode: str | None = None,
        max_steps: int | None = None,
        engine: str = "auto",
    ) -> None:
        check_options(render_mode, max_steps)
        loaded = as_game(game, engine)
        if len(loaded.players) != 1:
            raise ValueError(
                f"game {loaded.name!r} has {len(loaded.players)} players ({', '.join(loaded.players)}); "
                "Gymnasium environments are for one-player games: use gdl.env.env for more"
            )
        self.encoding = Encoding(loaded)
        self.player = loaded.players[0]
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.observation_space = spaces.observation_space(self.encoding, self.player)
        self.action_space = spaces.action_space(self.encoding, self.player)
        self._episode: Episode | None = None
        self._taken = 0

    def _observe(self, episode: Episode) -> Observation:
        return {
            "observation": episode.observation(self.player),
            "action_mask": self.encoding.action_mask(self.player, episode.legal(self.player)),
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        self._episode = Episode(self.encoding, self.np_random)
        self._taken = 0
        return self._observe(self._episode), {}

    def step(self, action: int | np.int64) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        episode = self._episode
        if episode is None:
            raise NotResetError(f"{self.encoding.game.name}: call reset() before step()")
        if episode.state.is_terminal():
            raise RuntimeError("step() after the episode ended: call reset()")
        self._taken += 1
        info: dict[str, Any] = {}
        try:
            move = self.encoding.move(self.player, action, episode.legal(self.player))
        except IllegalMoveError:
            info["illegal_action"] = True
        else:
            episode.play({self.player: move})
        terminated = episode.state.is_terminal()
        truncated = not terminated and self.max_steps is not None and self._taken >= self.max_steps
        reward = rewards(episode.state.goals(), False)[self.player] if terminated else 0.0
        if self.render_mode == "human":
            self.render()
        return self._observe(episode), reward, terminated, truncated, info

    def render(self) -> str | None:
        """The state drawn as ``gdl play`` draws it: printed ("human") or returned ("ansi")."""
        return None if self._episode is None else show(self._episode, self.render_mode)


#: The Gymnasium id of every one-player GDL game: ``gymnasium.make(GYM_ID, game="puzzle.kif")``.
GYM_ID = "gdl/Game-v0"
if GYM_ID not in gymnasium.registry:
    gymnasium.register(id=GYM_ID, entry_point="gdl.env.gymnasium:GdlGymEnv")
