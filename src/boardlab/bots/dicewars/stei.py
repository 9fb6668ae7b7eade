"""``dw-stei``: the course's dt.stei (STE improved). As ``dw-ste``, with a threshold of 0.2 in a
two-player game and 0.4 otherwise (players at the start), and an attack launched from its largest
region (the first of the largest, by lowest area) counts 3 times (two players) or 2 times as much."""

from __future__ import annotations

from boardlab.bots.dicewars.common import DiceWarsBot, best, possible_attacks
from boardlab.bots.dicewars.ste import hold_after_attack


class DwStei(DiceWarsBot):
    name = "dw-stei"
    summary = "Dice Wars: dw-ste preferring attacks from its largest region (the course's dt.stei)"

    def decide(self, state):
        two = self.players_at_start == 2
        threshold, weight = (0.2, 3.0) if two else (0.4, 2.0)
        regions = state.regions(self.player)
        largest = set(regions[0]) if regions else set()
        candidates = []
        for s, t in possible_attacks(state, self.player):
            hold = hold_after_attack(state, s, t, self.player)
            if hold >= threshold or state.dice[s] == 8:
                candidates.append((hold * weight if s in largest else hold, (s, t)))
        return best(candidates)
