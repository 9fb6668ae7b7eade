"""The lowest layer: the game protocol, the registry, game records and seeded randomness."""

from boardlab.core.errors import BoardlabError, IllegalActionError, SpecError
from boardlab.core.game import CHANCE, TERMINAL, Game, State
from boardlab.core.records import GameRecord

__all__ = [
    "BoardlabError",
    "IllegalActionError",
    "SpecError",
    "CHANCE",
    "TERMINAL",
    "Game",
    "State",
    "GameRecord",
]
