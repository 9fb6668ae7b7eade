"""What the course's bots share: the engine's attack order, battle odds and the hold estimate."""

from __future__ import annotations

from typing import Any, ClassVar

from boardlab.agents.base import Agent
from boardlab.core.game import State
from boardlab.games.dicewars.probabilities import WIN
from boardlab.games.dicewars.state import END_TURN, DiceWarsState


class DiceWarsBot(Agent):
    """A bot for ``dicewars``: :meth:`decide` returns an attack ``(src, dst)`` or None to end the turn."""

    games: ClassVar[tuple[str, ...]] = ("dicewars",)

    def reset(self, game, player: int, seed: int | None = None) -> None:
        super().reset(game, player, seed)
        #: players in the game when the bot was made (the course's bots read this at construction)
        self.players_at_start = game.num_players()

    def step(self, state: State) -> int:
        assert isinstance(state, DiceWarsState)
        if self.game is None:
            self.reset(state.game, state.current_player())
        move = self.decide(state)
        if move is None:
            return END_TURN
        return state.game.attack_action(*move)

    def decide(self, state: DiceWarsState) -> tuple[int, int] | None:
        raise NotImplementedError


def possible_attacks(state: DiceWarsState, player: int) -> list[tuple[int, int]]:
    """Every attack of ``player`` in the engine's order: source area ascending, then target."""
    owner, dice, adjacent = state.owner, state.dice, state.adjacent
    return [(src, dst) for src in range(len(owner)) if owner[src] == player and dice[src] >= 2
            for dst in adjacent[src] if owner[dst] != player]


def attack_probability(state: DiceWarsState, src: int, dst: int) -> float:
    """P(the attack wins), exact (the course's table is these values rounded to 8 decimals)."""
    return float(WIN[state.dice[src], state.dice[dst]])


def hold_probability(state: DiceWarsState, area: int, area_dice: int, player: int) -> float:
    """The course's estimate of keeping ``area`` with ``area_dice`` dice until the next turn:
    the product, over adjacent areas of other players with more than one die, of the chance
    that their attack on it fails."""
    p = 1.0
    for b in state.adjacent[area]:
        if state.owner[b] != player and state.dice[b] > 1:
            p *= 1.0 - float(WIN[state.dice[b], area_dice])
    return p


def best(items: list[tuple[float, Any]]) -> Any:
    """The item with the highest key, the earliest on ties (as the course's stable descending sorts)."""
    top = None
    for key, item in items:
        if top is None or key > top[0]:
            top = (key, item)
    return None if top is None else top[1]
