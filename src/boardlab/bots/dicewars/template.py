"""``dw-template``: the course's template AI (xlogin00). A random attack among all possible ones,
at most two attacks per turn, then it ends its turn."""

from __future__ import annotations

from boardlab.bots.dicewars.common import DiceWarsBot, possible_attacks
from boardlab.core.params import Option


class DwTemplate(DiceWarsBot):
    name = "dw-template"
    summary = "Dice Wars: at most two random attacks per turn (the course's template AI)"
    options = {"seed": Option("seed", int, None, "random seed (mixed with the game's)")}

    def decide(self, state):
        if state.attacks >= 2:
            return None
        attacks = possible_attacks(state, self.player)
        if not attacks:
            return None
        return attacks[int(self.rng.integers(len(attacks)))]
