"""Playing many games: single games, duels and tournaments.

``play`` plays one game, ``duel`` two agents; tournaments are ``schedule`` (who
plays whom), ``worker`` and ``backends`` (where games are played), ``store``
(the SQLite results store), ``tournament`` (config and resume loop),
``stats``, ``ratings`` and ``report``. Those are imported from their modules,
not here, so that ``import boardlab.arena`` stays light (no scipy).
"""

from boardlab.arena.duel import DuelResult, duel
from boardlab.arena.play import play_game

__all__ = ["play_game", "duel", "DuelResult"]
