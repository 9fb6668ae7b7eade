"""OpenSpiel and boardlab: every pyspiel game as a boardlab game, OpenSpiel's bots as boardlab agents.

* ``openspiel:GAME`` game specs (:mod:`.game`): ``openspiel:hex:board_size=7``,
  ``openspiel:kuhn_poker``, ``openspiel:hex(board_size=7)``... so boardlab's
  agents, duels, tournaments, web app and tree files work on OpenSpiel's games;
* agents (:mod:`.bots`): ``openspiel-mcts``, ``openspiel-random``,
  ``openspiel-ismcts`` (hidden information) and ``openspiel-az`` (a model
  trained by OpenSpiel's alpha_zero), on OpenSpiel's games, on boardlab games
  with an OpenSpiel twin (natively), and on the others through OpenSpiel's
  Python bots.

OpenSpiel is the optional extra ``boardlab[openspiel]``; both are registered
through entry points like every game and agent, and say what to install when
it is missing. Importing this package does not import pyspiel.
"""

from boardlab.adapters.openspiel.game import OpenSpielGame, OpenSpielState

__all__ = ["OpenSpielGame", "OpenSpielState"]
