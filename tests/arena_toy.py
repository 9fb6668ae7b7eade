"""A tiny test-only game for three or more players, and a greedy agent for it.

*Sum race*: for ``rounds`` rounds every player in turn adds 1, 2 or 3 points
to their own score; the highest score wins. The greedy agent always adds 3,
so it beats random players and ties with other greedy players.
The arena tests register them only while they run (:func:`registered`), so
other tests never see them; a tournament's job carries the registry entries
to its worker processes.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from typing import Iterator

from boardlab.agents.base import Agent
from boardlab.core import plugins
from boardlab.core.game import TERMINAL, Game, GameType, State
from boardlab.core.params import Option


class SumRace(Game):
    # a return is a total's distance from the mean, which grows with the rounds: no bound for every game
    game_type = GameType("sumrace", "Sum race (test game)", min_players=2, max_players=5,
                         utility="general_sum", provides_scores=True, min_utility=-math.inf, max_utility=math.inf)
    parameters = {
        "players": Option("players", int, 3, "number of players"),
        "rounds": Option("rounds", int, 3, "rounds"),
    }

    def num_players(self) -> int:
        return self.params["players"]

    def num_distinct_actions(self) -> int:
        return 3

    def new_initial_state(self, seed: int | None = None) -> "SumRaceState":
        return SumRaceState(self, seed)


class SumRaceState(State):
    def __init__(self, game: SumRace, seed: int | None) -> None:
        self.game = game
        self.seed = seed
        self.history = []
        self.totals = [0] * game.num_players()

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else len(self.history) % self.game.num_players()

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() else [0, 1, 2]

    def apply_action(self, action: int) -> None:
        if self.is_terminal() or action not in (0, 1, 2):
            raise self._illegal(action)
        self.totals[self.current_player()] += action + 1
        self.history.append(action)

    def clone(self) -> "SumRaceState":
        other = SumRaceState(self.game, self.seed)
        other.history = list(self.history)
        other.totals = list(self.totals)
        return other

    def is_terminal(self) -> bool:
        return len(self.history) >= self.game.num_players() * self.game.params["rounds"]

    def scores(self) -> list[float]:
        return [float(t) for t in self.totals]

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * len(self.totals)
        mean = sum(self.totals) / len(self.totals)
        return [t - mean for t in self.totals]


class GreedyAgent(Agent):
    name = "greedy"
    summary = "always the largest action"

    def step(self, state: State) -> int:
        return max(state.legal_actions())


class CheaterAgent(Agent):
    name = "cheater"
    summary = "plays an action that does not exist (to test error reports)"

    def step(self, state: State) -> int:
        return 99


@contextmanager
def registered() -> Iterator[None]:
    """The sumrace game and the greedy and cheater agents, known to the registries inside the block."""
    with plugins.games.registered("sumrace", "arena_toy:SumRace"), \
            plugins.agents.registered("greedy", "arena_toy:GreedyAgent"), \
            plugins.agents.registered("cheater", "arena_toy:CheaterAgent"):
        yield
