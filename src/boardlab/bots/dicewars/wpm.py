"""``dw-wpm``: the course's dt.wpm_c (Win Probability Maximisation, log scores and log dice).

A logistic model estimates the bot's chance to win from, for every player in turn order starting
with itself, log(score + 1) and log(dice + 1) (score = largest connected region), with the
course's fitted weights for the number of players at the start (2..8). Each attack is judged by
the expected log win probability over its two outcomes (win: the bot's dice count as
``dice + score``, the defender loses the target's dice; loss: the bot also loses ``source - 1``
dice), ending the turn by the bot's dice + score. It attacks when the best option is an attack
whose improvement over the present is at least -0.05, or any top attack from an 8-dice area; when
ending ranks first it still attacks from an 8-dice area (the best ranked such attack).

The course's bot has two quirks, kept by default (``quirks=true``): every player's score is the
bot's own largest region (the score function ignores whose score it is asked for), and the "this
attack grows my largest region" bonus never applies (the region list is never filled in).
``quirks=false`` (``dw-wpm:quirks=false``) uses each player's own score and the bonus.
"""

from __future__ import annotations

import math

from boardlab.bots.dicewars.common import DiceWarsBot, attack_probability, possible_attacks
from boardlab.bots.dicewars.compiled import WPM_WEIGHTS
from boardlab.core.params import Option


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0


def _log(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf


class DwWpm(DiceWarsBot):
    name = "dw-wpm"
    summary = "Dice Wars: logistic win-probability maximiser (the course's dt.wpm_c; quirks=false fixes its bugs)"
    options = {"quirks": Option("quirks", bool, True, "keep the course bot's two bugs (see the module docstring)")}

    def decide(self, state):
        me = self.player
        n_players = state.game.num_players()
        weights = WPM_WEIGHTS[self.players_at_start]
        order = [(me + i) % n_players for i in range(n_players)]
        regions = state.regions(me)
        own_score = len(regions[0]) if regions else 0
        quirks = self.config["quirks"]
        dice = [state.player_dice(p) for p in order]
        scores = [own_score if quirks else state.largest_region(p) for p in order]
        features = []
        for i in range(n_players):
            features += [math.log(scores[i] + 1), math.log(dice[i] + 1)]

        def value(f: list[float]) -> float:
            return sum(a * b for a, b in zip(f, weights))

        wp_start = _log(_sigmoid(value(features)))
        end = list(features)
        end[1] = math.log(dice[0] + own_score + 1)
        options: list[tuple[float, tuple[int, int] | None]] = [(_log(_sigmoid(value(end))) - wp_start, None)]
        largest = set() if quirks else {a for r in regions if len(r) == own_score for a in r}
        for s, t in possible_attacks(state, me):
            grows = s in largest or any(b in largest for b in state.adjacent[t])
            a_score = own_score + (1 if grows else 0)
            oi = order.index(state.owner[t]) * 2 + 1
            win, loss = list(features), list(features)
            win[1] = math.log(dice[0] + a_score + 1)
            win[oi] = math.log(dice[oi // 2] - state.dice[t] + 1)
            loss[1] = math.log(dice[0] + a_score - state.dice[s] + 1 + 1)
            loss[oi] = math.log(dice[oi // 2] + 1)
            p = attack_probability(state, s, t)
            total = _sigmoid(value(win)) * p + _sigmoid(value(loss)) * (1.0 - p)
            options.append((_log(total) - wp_start, (s, t)))
        ranked = sorted(options, key=lambda o: o[0], reverse=True)  # stable: ending first on ties
        top = ranked[0][1]
        if top is not None:
            return top if ranked[0][0] >= -0.05 or state.dice[top[0]] == 8 else None
        return next((m for _, m in ranked[1:] if state.dice[m[0]] == 8), None)
