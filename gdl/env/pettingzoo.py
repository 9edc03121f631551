"""Any GDL or GDL-II game as a PettingZoo environment, AEC (:func:`env`) or Parallel (:func:`parallel_env`).

The agents are the game's players (never nature, whose moves the environment draws). Each agent's action
space is ``Discrete(n)`` over every move it can ever make, and its observation a dict with
``"observation"`` (see :mod:`gdl.env.encoding`) and ``"action_mask"`` (its legal moves now, as in
PettingZoo's classic games). Rewards come at the end, from the goals.

**AEC.** In each state the agents with a choice (more than one legal move) act, one after another in role
order; the others play their only legal move. A simultaneous move is applied once every agent with a
choice has acted, so that no agent learns another's pending move. In a state where no agent has a
choice every agent acts, each with its only legal move (so an episode never passes by its agents:
tictactoe's last, forced, mark is played by the agent whose turn it is, its opponent's noop too).

**Parallel.** Each step is one joint move: every live agent gives an action, legal by its mask.

An illegal action raises :class:`gdl.IllegalMoveError` and leaves the environment as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv

from gdl.env import spaces
from gdl.env.encoding import Encoding, Episode, as_game, check_options, rewards, show
from gdl.errors import NotResetError
from gdl.game import Game
from gdl.syntax.model import Term
from gdl.views import View

Observation = dict[str, np.ndarray]


def env(game: Game | str | Path, **options: Any) -> GdlAECEnv:
    """The AEC environment of ``game`` (a :class:`gdl.Game` or a ``.kif`` path); see :class:`GdlAECEnv`."""
    return GdlAECEnv(game, **options)


def parallel_env(game: Game | str | Path, **options: Any) -> GdlParallelEnv:
    """The Parallel environment of ``game``; see :class:`GdlParallelEnv`."""
    return GdlParallelEnv(game, **options)


class _GdlEnv:
    """The options, spaces, rendering and seeding that both kinds of environment share.

    Options: ``render_mode`` ("human" or "ansi"), ``zero_sum`` (rewards shifted to sum to zero),
    ``max_steps`` (joint moves before the episode is truncated; none by default: GDL games end),
    ``engine`` (when ``game`` is a path).
    """

    metadata: dict[str, Any]
    render_mode: str | None

    def __init__(
        self,
        game: Game | str | Path,
        *,
        render_mode: str | None = None,
        zero_sum: bool = False,
        max_steps: int | None = None,
        engine: str = "auto",
    ) -> None:
        check_options(render_mode, max_steps)
        self.encoding = Encoding(as_game(game, engine))
        self.game = self.encoding.game
        self.render_mode = render_mode
        self.zero_sum = zero_sum
        self.max_steps = max_steps
        self.metadata = {"render_modes": ["human", "ansi"], "name": f"gdl_{self.game.name}"}
        self.possible_agents: list[str] = list(self.encoding.players)
        # One space object per agent for the environment's life, as PettingZoo asks (seeding them holds).
        agents = self.possible_agents
        self._observation_spaces = {a: spaces.observation_space(self.encoding, a) for a in agents}
        self._action_spaces = {a: spaces.action_space(self.encoding, a) for a in agents}
        self._rng: np.random.Generator | None = None
        self._current: Episode | None = None

    @property
    def _episode(self) -> Episode:
        return self._started()

    def _started(self) -> Episode:
        """The episode under way; :class:`NotResetError` before the first ``reset()``."""
        if self._current is None:
            raise NotResetError(f"{self.metadata['name']}: call reset() before step(), last() or observe()")
        return self._current

    def _generator(self, seed: int | None) -> np.random.Generator:
        if seed is not None or self._rng is None:
            self._rng, _ = seeding.np_random(seed)
        return self._rng

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Discrete:
        return self._action_spaces[agent]

    def observe(self, agent: str) -> Observation:
        episode = self._episode
        return {
            "observation": episode.observation(agent),
            "action_mask": self.encoding.action_mask(agent, episode.legal(agent)),
        }

    def view(self, agent: str) -> View:
        """The agent's exact view in a GDL-II game: its moves and its percepts after each step."""
        if not self.encoding.imperfect:
            raise ValueError(f"game {self.game.name!r} has no percepts: its agents observe the state")
        return self._episode.views[agent]

    def _ended(self) -> tuple[bool, bool]:
        """Whether the episode is over: terminated (a terminal state), truncated (``max_steps``)."""
        if self._episode.state.is_terminal():
            return True, False
        return False, self.max_steps is not None and self._episode.steps >= self.max_steps

    def _final_rewards(self) -> dict[str, float]:
        return rewards(self._episode.state.goals(), self.zero_sum)

    def render(self) -> str | None:
        """The state drawn as ``gdl play`` draws it: printed ("human") or returned ("ansi")."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: pass render_mode='human' or 'ansi'")
        return show(self._episode, self.render_mode)

    def close(self) -> None:
        """Nothing to release."""


class GdlAECEnv(_GdlEnv, AECEnv[str, Observation, int]):
    """A GDL game as a PettingZoo AEC environment (see the module docstring); options as
    :class:`_GdlEnv` says."""

    agent_selection: str
    #: The agents that act in the current state, and the moves chosen so far there.
    _acting: list[str]
    _pending: dict[str, Term]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._current = Episode(self.encoding, self._generator(seed))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._pending = {}
        self._advance()

    def step(self, action: int | None) -> None:
        episode = self._started()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._pending[agent] = self.encoding.move(agent, action, episode.legal(agent))
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        waiting = [a for a in self._acting if a not in self._pending]
        if waiting:
            self.agent_selection = waiting[0]
        else:
            episode.play(self._pending)
            self._pending = {}
            self._advance()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True) -> tuple[Observation | None, float, bool, bool, dict[str, Any]]:
        self._started()
        last: tuple[Observation | None, float, bool, bool, dict[str, Any]] = super().last(observe)
        return last

    def _advance(self) -> None:
        """Select the first agent to act in the new state, or end the episode."""
        terminated, truncated = self._ended()
        if not (terminated or truncated):
            self._acting = self._episode.choosers() or list(self.agents)
            self.agent_selection = self._acting[0]
            return
        if terminated:
            self.rewards = self._final_rewards()
        self.terminations = dict.fromkeys(self.agents, terminated)
        self.truncations = dict.fromkeys(self.agents, truncated)
        self.agent_selection = self.agents[0]


class GdlParallelEnv(_GdlEnv, ParallelEnv[str, Observation, int]):
    """A GDL game as a PettingZoo Parallel environment: one joint move per step; options as
    :class:`_GdlEnv` says."""

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        self._current = Episode(self.encoding, self._generator(seed))
        self.agents = self.possible_agents[:]
        return {a: self.observe(a) for a in self.agents}, {a: {} for a in self.agents}

    def step(self, actions: dict[str, int]) -> tuple[
        dict[str, Observation], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]
    ]:
        episode = self._started()
        missing = [agent for agent in self.agents if agent not in actions]
        if missing:
            raise ValueError(f"no action for agent(s) {', '.join(missing)}")
        chosen = {a: self.encoding.move(a, actions[a], episode.legal(a)) for a in self.agents}
        episode.play(chosen)
        agents = self.agents
        terminated, truncated = self._ended()
        step_rewards = self._final_rewards() if terminated else dict.fromkeys(agents, 0.0)
        observations = {a: self.observe(a) for a in agents}
        if terminated or truncated:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return (
            observations,
            step_rewards,
            dict.fromkeys(agents, terminated),
            dict.fromkeys(agents, truncated),
            {a: {} for a in agents},
        )
