"""A tiny test-only game with explicit chance nodes, for the adapters (no built-in game has them).

*Dice race* for two: on each turn the player to move picks a die (action 0, a
safe die giving 1 or 2, or action 1, a bolder one giving 1 or 3), then a chance
node rolls it (outcomes 1..3 with the die's probabilities) and the points are
added; the first to reach ``target`` wins. Registered only while a test runs.
"""

from __future__ import annotations

import numpy as np

from boardlab.core.game import CHANCE, TERMINAL, Game, GameType, State
from boardlab.core.params import Option

DICE = {0: [(1, 0.5), (2, 0.5)], 1: [(1, 0.5), (3, 0.5)]}


class DiceRace(Game):
    game_type = GameType("dicerace", "Dice race (test game)", chance="explicit", provides=frozenset({"observation_tensor"}))
    parameters = {"target": Option("target", int, 6, "points that win")}

    def num_distinct_actions(self) -> int:
        return 4

    def max_game_length(self) -> int:
        return 2 * (2 * self.params["target"] - 1)  # a turn is two actions and gains a point at least

    def observation_tensor_shape(self) -> tuple[int]:
        return (3,)

    def new_initial_state(self, seed=None) -> "DiceRaceState":
        return DiceRaceState(self, seed)


class DiceRaceState(State):
    def __init__(self, game: DiceRace, seed=None) -> None:
        self.game, self.seed, self.history = game, seed, []
        self.score, self.player, self.die = [0, 0], 0, None

    def current_player(self) -> int:
        if max(self.score) >= self.game.params["target"]:
            return TERMINAL
        return CHANCE if self.die is not None else self.player

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def legal_actions(self) -> list[int]:
        return [0, 1] if self.current_player() >= 0 else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(DICE[self.die])

    def apply_action(self, action: int) -> None:
        if self.is_chance_node():
            if action not in dict(DICE[self.die]):
                raise self._illegal(action)
            self.score[self.player] += action
            self.die, self.player = None, 1 - self.player
        elif action in self.legal_actions():
            self.die = action
        else:
            raise self._illegal(action)
        self.history.append(action)

    def clone(self) -> "DiceRaceState":
        other = DiceRaceState(self.game, self.seed)
        other.history, other.score, other.player, other.die = list(self.history), list(self.score), self.player, self.die
        return other

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        return [1.0, -1.0] if self.score[0] > self.score[1] else [-1.0, 1.0]

    def observation_tensor(self, player: int) -> np.ndarray:
        target = self.game.params["target"]
        mine, theirs = self.score[player], self.score[1 - player]
        return np.array([min(mine, target) / target, min(theirs, target) / target,
                         float(self.current_player() == player)], dtype=np.float32)

    def __str__(self) -> str:
        return f"scores {self.score[0]}-{self.score[1]}, " + ("over" if self.is_terminal() else f"player {self.player + 1}")
