"""``dw-ste``: the course's dt.ste (Single Turn Expectiminimax). For each attack, the chance to win
it and then hold the conquered area (with ``source - 1`` dice) until the next turn; plays the
attack with the highest such chance among those of at least 0.2 or launched from an area with
8 dice, and ends its turn when there is none."""

from __future__ import annotations

from boardlab.bots.dicewars.common import DiceWarsBot, attack_probability, best, hold_probability, possible_attacks


def hold_after_attack(state, src: int, dst: int, player: int) -> float:
    """P(win the attack) * P(hold the target with the dice moved in)."""
    return attack_probability(state, src, dst) * hold_probability(state, dst, state.dice[src] - 1, player)


class DwSte(DiceWarsBot):
    name = "dw-ste"
    summary = "Dice Wars: the attack most likely to be won and held, if >= 0.2 (the course's dt.ste)"

    def decide(self, state):
        candidates = []
        for s, t in possible_attacks(state, self.player):
            hold = hold_after_attack(state, s, t, self.player)
            if hold >= 0.2 or state.dice[s] == 8:
                candidates.append((hold, (s, t)))
        return best(candidates)
