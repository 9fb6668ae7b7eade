"""``dw-rand``: the course's dt.rand. Attacks at random among all possible attacks, one per call,
and ends its turn only when it has no attack left."""

from __future__ import annotations

from boardlab.bots.dicewars.common import DiceWarsBot, possible_attacks
from boardlab.core.params import Option


class DwRand(DiceWarsBot):
    name = "dw-rand"
    summary = "Dice Wars: random attacks until none is left (the course's dt.rand)"
    options = {"seed": Option("seed", int, None, "random seed (mixed with the game's)")}

    def decide(self, state):
        attacks = possible_attacks(state, self.player)
        if not attacks:
            return None
        return attacks[int(self.rng.integers(len(attacks)))]
