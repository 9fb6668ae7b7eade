"""Uniformly random play over the legal actions."""

from __future__ import annotations

from boardlab.agents.base import Agent
from boardlab.core.game import State
from boardlab.core.params import Option, non_negative


class RandomAgent(Agent):
    name = "random"
    summary = "uniform over legal actions"
    options = {"seed": Option("seed", int, None, "seed of its random choices (default: from the game seed)", non_negative)}

    def step(self, state: State) -> int:
        legal = state.legal_actions()
        return legal[int(self.rng.integers(len(legal)))]
