"""Every boardlab game as a PettingZoo AEC environment.

::

    from boardlab.adapters.pettingzoo import env

    e = env("connect4")                      # any registered game spec: "nothanks:players=5", "openspiel:hex"...
    e.reset(seed=42)
    for agent in e.agent_iter():
        observation, reward, termination, truncation, info = e.last()
        if termination or truncation:
            action = None
        else:
            action = e.action_space(agent).sample(observation["action_mask"])
        e.step(action)

What the environment is made of, all read from the game protocol:

* agents ``player_0 .. player_{n-1}``, one per seat; ``agent_selection`` is
  the seat to move (the same agent again when the rules give another turn);
* observations as in PettingZoo's classic games: a dict with
  ``"observation"`` (``state.observation_tensor(seat)``: float32 of
  ``game.observation_tensor_shape()``, only what that seat may see, within
  ``game.observation_tensor_bounds()``) and ``"action_mask"`` (int8 over
  ``range(game.num_distinct_actions())``; all zero for an agent not to move);
  a game that offers no tensor is refused with a clear error;
* actions ``Discrete(game.num_distinct_actions())``; an illegal action raises
  :class:`~boardlab.core.errors.IllegalActionError`, or, with
  ``illegal_reward=r``, ends the game with reward ``r`` for the offender and 0
  for the others (PettingZoo's ``TerminateIllegalWrapper`` rule);
* rewards: each seat's ``state.returns()`` when the game ends, 0 before;
  every agent terminates then (boardlab games end by their own rules, so
  there is no truncation);
* chance: chance nodes are played inside the environment with outcomes drawn
  by their probabilities from the environment's generator, and randomness
  fixed by the seed at the start (a shuffled deck) comes from the same
  generator, so ``reset(seed=s)`` replays exactly (PettingZoo's ``seed_test``);
* ``infos`` are empty dicts (the move labels of a position are
  ``state.action_to_string(a)`` on ``env.unwrapped.game_state``; computing them
  at every step would cost chess's SAN for every legal move);
* rendering: ``"ansi"`` returns the public text view
  (``state.observation(None)["text"]``), ``"human"`` prints it, and
  ``"rgb_array"`` draws it as an image (:mod:`boardlab.adapters.text_image`).

PettingZoo and Gymnasium are the optional extra ``boardlab[pettingzoo]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.core.errors import BoardlabError, IllegalActionError, require
from boardlab.core.game import Game
from boardlab.core.registry import make
from boardlab.core.rng import sample_chance

require("pettingzoo", "pettingzoo", "pettingzoo", "boardlab.adapters.pettingzoo")
require("gymnasium", "gymnasium", "pettingzoo", "boardlab.adapters.pettingzoo")

from gymnasium import spaces  # noqa: E402
from pettingzoo import AECEnv  # noqa: E402
from pettingzoo.utils import wrappers  # noqa: E402

RENDER_MODES = ("human", "ansi", "rgb_array")


def env(game: str | Game, render_mode: str | None = None, illegal_reward: float | None = None):
    """An AEC environment for ``game`` (a spec string or a Game), wrapped in PettingZoo's
    ``OrderEnforcingWrapper`` as PettingZoo's own environments are (``.unwrapped`` is the
    :class:`BoardlabAECEnv`)."""
    return wrappers.OrderEnforcingWrapper(BoardlabAECEnv(game, render_mode, illegal_reward))


def raw_env(game: str | Game, render_mode: str | None = None, illegal_reward: float | None = None) -> "BoardlabAECEnv":
    """The environment without PettingZoo's order-enforcing wrapper."""
    return BoardlabAECEnv(game, render_mode, illegal_reward)


class BoardlabAECEnv(AECEnv):
    """A boardlab game as a PettingZoo ``AECEnv`` (see the module docstring)."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "boardlab", "is_parallelizable": False, "render_fps": 2}

    def __init__(self, game: str | Game, render_mode: str | None = None, illegal_reward: float | None = None) -> None:
        super().__init__()
        self.game: Game = make(game) if isinstance(game, str) else game
        if "observation_tensor" not in self.game.provides:
            raise BoardlabError(
                f"game {self.game.spec()} offers no observation tensor, which a PettingZoo environment needs: "
                "give the game observation_tensor_shape() and State.observation_tensor() and declare "
                "provides={'observation_tensor'} in its GameType (docs/adding-a-game.md)"
            )
        shape = self.game.observation_tensor_shape()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise BoardlabError(f"render_mode {render_mode!r} is not one of {', '.join(RENDER_MODES)}")
        self.render_mode = render_mode
        self.illegal_reward = illegal_reward
        self.metadata = {**type(self).metadata, "name": f"boardlab[{self.game.spec()}]"}
        self.possible_agents = [f"player_{seat}" for seat in range(self.game.num_players())]
        self.agent_seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        low, high = self.game.observation_tensor_bounds()
        actions = self.game.num_distinct_actions()
        self.observation_spaces = {
            agent: spaces.Dict({
                "observation": spaces.Box(low=low, high=high, shape=tuple(shape), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(actions,), dtype=np.int8),
            })
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(actions) for agent in self.possible_agents}
        self.rng = np.random.default_rng()
        self.game_state = None  # the boardlab State of the game in progress
        self.agents: list[str] = []

    # --- spaces --------------------------------------------------------------------
    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    # --- the game ----------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.game_state = self.game.new_initial_state(int(self.rng.integers(1 << 62)))
        self._play_chance()
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[0]
        self._after_move(None)

    def _play_chance(self) -> None:
        state = self.game_state
        while state.is_chance_node():
            state.apply_action(sample_chance(state, self.rng))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_seat[agent]
        state = self.game_state
        mask = np.zeros(self.game.num_distinct_actions(), dtype=np.int8)
        if state.current_player() == seat:
            mask[state.legal_actions()] = 1
        return {"observation": state.observation_tensor(seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        seat = self.agent_seat[agent]
        self._cumulative_rewards[agent] = 0.0
        try:
            action = int(action)
        except (TypeError, ValueError):
            raise IllegalActionError(f"{agent}: action {action!r} is not an integer") from None
        if action not in state.legal_actions():
            if self.illegal_reward is None:
                legal = ", ".join(f"{a} ({state.action_to_string(a)})" for a in state.legal_actions())
                raise IllegalActionError(f"{agent}: action {action} is not legal here (legal: {legal})")
            self.rewards = {other: 0.0 for other in self.agents}
            self.rewards[agent] = float(self.illegal_reward)
            self.terminations = {other: True for other in self.agents}
            self.infos = {other: {"illegal_action": {"agent": agent, "action": action}} for other in self.agents}
            self._accumulate_rewards()
            return
        state.apply_action(action)
        self._play_chance()
        self._after_move(seat)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _after_move(self, mover: int | None) -> None:
        state = self.game_state
        self.infos = {agent: {} for agent in self.agents}
        if state.is_terminal():
            returns = state.returns()
            self.rewards = {agent: float(returns[self.agent_seat[agent]]) for agent in self.agents}
            self.terminations = {agent: True for agent in self.agents}
            if mover is not None:  # the dead steps start with the seat after the last mover
                self.agent_selection = self.possible_agents[(mover + 1) % len(self.possible_agents)]
            return
        self.rewards = {agent: 0.0 for agent in self.agents}
        self.agent_selection = self.possible_agents[state.current_player()]

    # --- views -------------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() was called without a render_mode; give one to env(...)")
            return None
        if self.game_state is None:
            raise BoardlabError("render() before reset(): there is no game yet")
        text = self.game_state.observation(None)["text"]
        if self.render_mode == "ansi":
            return text
        if self.render_mode == "human":
            print(text)
            return None
        from boardlab.adapters.text_image import text_image

        return text_image(text)

    def state(self) -> np.ndarray:
        raise NotImplementedError("a boardlab game offers per-seat observations, not one global state tensor")

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return self.metadata["name"]
