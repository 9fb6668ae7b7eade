"""Leaf evaluators: a game's own judgement of a position, for search cut-offs.

An evaluator lives with its game (``boardlab.games.chess:MATERIAL``) and is
named through the ``boardlab.evaluators`` entry points, so agent specs can say
``mcts:eval=chess_material``. It declares the game it judges; search refuses
it on any other game instead of failing deep inside.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from boardlab.core.game import Game, State


@dataclass(frozen=True)
class Evaluator:
    """``evaluator(state) -> list[float]``: a value in [-1, 1] per player (the true returns at the end)."""

    game: str  # the short name of the game it judges
    function: Callable[["State"], list[float]]
    summary: str

    def applies_to(self, game: "Game") -> bool:
        return game.name == self.game

    def __call__(self, state: "State") -> list[float]:
        return self.function(state)
