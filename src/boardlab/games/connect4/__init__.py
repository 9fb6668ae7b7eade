"""Connect Four: the rules on a bitboard (:mod:`.rules`), compiled playouts (:mod:`.kernel`), compiled
UCT and PUCT engines (:mod:`.search`, :mod:`.puct`), and the 7x6 game's perfect solver (:mod:`.solver`)
with its opening book (:mod:`.book`) and the grading of agents by their share of optimal moves
(:mod:`.grading`). Only the rules are imported here: the others compile with numba on first use."""

from boardlab.games.connect4.rules import ConnectFour, ConnectFourState

__all__ = ["ConnectFour", "ConnectFourState"]
