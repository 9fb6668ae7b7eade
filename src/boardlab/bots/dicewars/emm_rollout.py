"""``dw-emm:leaf=rollout``: a leaf is worth, to every seat, how often that seat wins when the game
is played on from the leaf by the compiled reference bots (dt.ste in every seat by default).

Why rollouts: the score leaf judges a board by the largest region and the dice share, which
misses what happens next (who is about to be attacked, whose reinforcement lands where); a
game played to its end by a decent policy sees all of it, and the compiled engine plays a whole
4-player game of dt.ste in about 0.1-0.2 ms. Two leaves of one decision are played on with the
*same* seeds (common random numbers), so their difference is measured with far less noise than
their values: the dice that decide one continuation decide the other alike.

The search evaluates such a leaf where the player has used its attacks, before its turn ends
(``Search(..., leaf_in_turn=True)``): the rollout's dt.ste then carries on the turn, so an
attack is not judged as if the turn had to end after it.

Win shares saturate: once every continuation is won (or lost) every option is worth the same,
and a player who then always ends its turn lets the game stall, which the rules cancel as a loss
for all. So the score leaf, weighted by :data:`TIE_BREAK` (far below one rollout's 1/rollouts),
breaks ties: among equal chances, the better board. A board already won is worth more than
any board whose games are all won (:data:`WON_BONUS`), so a player sure to win still finishes
the game instead of waiting.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from boardlab.bots.dicewars import compiled as K
from boardlab.core.rng import kernel_rng
from boardlab.games.dicewars.kernel import WIN_TABLE, adjacency_table

#: weight of the score leaf beside the win share (ties only: one rollout is worth 1/rollouts)
TIE_BREAK = 1e-3
#: a won board: 1 and this, more than the tie-break of any board not yet won can reach
WON_BONUS = 4 * TIE_BREAK
#: the rollouts' policy in every seat, by option value ("model": each seat's bot as told from its
#: moves, :mod:`.opponents`)
POLICIES = {"ste": K.STE, "stei": K.STEI, "sdc": K.SDC, "wpm": K.WPM}
ROLLOUT_POLICIES = (*POLICIES, "model")


class RolloutLeaf:
    """The leaf function of one decision's search: win shares of ``rollouts`` continuations."""

    #: the value of a board its player has won (the search reads it too)
    won_value = 1.0 + WON_BONUS

    def __init__(self, adjacent, players: int, rollouts: int, policies: np.ndarray, seed: int,
                 tie_break: Callable[[object], list[float]]) -> None:
        self.tie_break = tie_break
        self.adj, self.deg = adjacency_table(adjacent)
        self.players = players
        self.policies = np.asarray(policies, dtype=np.int64)  # the kernel policy of each seat
        # one list of random streams for every leaf of the decision: common random numbers
        self.starts = np.array([kernel_rng(s)[0] for s in range(seed, seed + rollouts)], dtype=np.uint64)
        self.wins = np.zeros(players, dtype=np.int64)
        self.evaluated = 0

    def __call__(self, pos) -> list[float]:
        owner = np.array(pos.owner, dtype=np.int64)
        alive = set(pos.owner)
        if len(alive) == 1:
            return [self.won_value if p in alive else 0.0 for p in range(self.players)]
        scal = np.zeros(8, dtype=np.int64)
        scal[0], scal[6], scal[7] = pos.player, pos.battles, pos.attacks
        self.wins[:] = 0
        K.continuations(owner, np.array(pos.dice, dtype=np.int64), np.array(pos.reserve, dtype=np.int64), scal,
                        self.adj, self.deg, self.policies, self.players, WIN_TABLE, K.WPM_TABLE, self.starts, self.wins)
        self.evaluated += 1
        score = self.tie_break(pos)
        return [w / len(self.starts) + TIE_BREAK * v for w, v in zip(self.wins.tolist(), score)]
