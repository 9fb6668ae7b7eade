"""``dw-sdc``: the course's dt.sdc (Strength Difference Checking). Plays the attack with the
largest difference (own dice - defender's dice), the first such in the engine's order, as long as
that difference is not negative; otherwise ends its turn."""

from __future__ import annotations

from boardlab.bots.dicewars.common import DiceWarsBot, best, possible_attacks


class DwSdc(DiceWarsBot):
    name = "dw-sdc"
    summary = "Dice Wars: the attack with the largest dice difference if it is >= 0 (the course's dt.sdc)"

    def decide(self, state):
        scored = [(state.dice[s] - state.dice[t], (s, t)) for s, t in possible_attacks(state, self.player)]
        move = best(scored)
        if move is None or state.dice[move[0]] - state.dice[move[1]] < 0:
            return None
        return move
