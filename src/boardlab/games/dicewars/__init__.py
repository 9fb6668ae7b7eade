"""Dice Wars, the game of the FIT VUT SUI course engine: maps (:mod:`.mapgen`), exact battle odds
(:mod:`.probabilities`), the rules (:mod:`.state`) and a compiled engine (:mod:`.kernel`)."""

from boardlab.games.dicewars.state import DiceWars, DiceWarsState

__all__ = ["DiceWars", "DiceWarsState"]
