"""Playing many games: single games, duels, and (later) tournaments."""

from boardlab.arena.duel import DuelResult, duel
from boardlab.arena.play import play_game

__all__ = ["play_game", "duel", "DuelResult"]
