"""Which reference bot plays each seat, told from the moves it has made so far.

Dice Wars hides nothing: every attack and every end of turn is in the game's history. Replaying
it, each decision of another player is scored under every candidate bot (the compiled twins of
:mod:`boardlab.bots.dicewars.compiled`): a deterministic bot (dt.ste, dt.stei, dt.sdc, dt.wpm_c
with and without the course's quirks) either makes the move it would make or is nearly ruled out
(probability :data:`SLIP` for a move it would not make); dt.rand and the template bot attack
uniformly at random (the template at most twice a turn) and never end a turn early. A seat plays
as its most likely candidate once :data:`MIN_DECISIONS` of its decisions are seen and that
candidate explains most of them; until then, or for a player no candidate explains (a person,
another search), it is taken for dt.ste.

Why: ``dw-emm:leaf=rollout`` plays each leaf on to the end with a bot in every seat, and with the
bots that really sit there (known by an oracle, in a trial of 200 games) it won 53.5 % against
44 % for the score leaf at the same tables, where dt.ste in every seat won as often as the score
leaf. (On 800 fresh games the model's rollouts then gained only 1.1 points: docs/dicewars-emm.md.)
"""

from __future__ import annotations

import math

import numpy as np

from boardlab.bots.dicewars import compiled as K
from boardlab.core.errors import BoardlabError
from boardlab.games.dicewars.state import END_TURN, PLAY

#: the candidates, by the name their bot has in the registry
CANDIDATES = {"dw-ste": K.STE, "dw-stei": K.STEI, "dw-sdc": K.SDC, "dw-wpm": K.WPM, "dw-wpm-fixed": K.WPM_FIXED,
              "dw-rand": K.RAND, "dw-template": K.TEMPLATE}
_RANDOM = {K.RAND, K.TEMPLATE}
#: the chance that a deterministic bot makes a move other than its own (so one odd move does not rule it out)
SLIP = 0.02
#: decisions of a seat seen before its model is trusted
MIN_DECISIONS = 6
#: the share of a seat's decisions its candidate must have predicted (random bots: made legally as they would)
MIN_AGREEMENT = 0.7


class OpponentModel:
    """The candidates' log-likelihoods for every seat, kept up to date from the game's history."""

    def __init__(self, game, me: int) -> None:
        self.game, self.me = game, me
        self.bots = K.CompiledBots(game)
        self.names = list(CANDIDATES)
        self.codes = np.array([CANDIDATES[n] for n in self.names], dtype=np.int64)
        self.loglik = np.zeros((game.players, len(self.names)))
        self.agree = np.zeros((game.players, len(self.names)), dtype=np.int64)
        self.decisions = np.zeros(game.players, dtype=np.int64)
        self.shadow = None
        self.seen = 0
        self.broken = False

    def update(self, state) -> None:
        """Score every decision of the other players made since the last update."""
        if self.broken:
            return
        if self.shadow is None:
            self.shadow = self.game.new_initial_state(state.seed)
        history = state.history
        try:
            for action in history[self.seen:]:
                shadow = self.shadow
                if shadow.phase == PLAY and shadow.player != self.me:
                    self._score(shadow, int(action))
                shadow.apply_action(action)
            self.seen = len(history)
        except BoardlabError:  # a game set up from another position: its history does not replay from the seed
            self.broken = True
            return
        if self.shadow.owner != list(state.owner) or self.shadow.dice != list(state.dice):
            self.broken = True

    def _score(self, shadow, action: int) -> None:
        p = shadow.player
        attacks = len(shadow.attacks_of(p))
        self.decisions[p] += 1
        for i, code in enumerate(self.codes):
            if code in _RANDOM:
                must_end = attacks == 0 or (code == K.TEMPLATE and shadow.attacks >= 2)
                if must_end:
                    ok, chance = action == END_TURN, 1.0
                else:
                    ok, chance = action != END_TURN, 1.0 / attacks
            else:
                ok, chance = self.bots.choose(int(code), shadow) == action, 1.0 - SLIP
            self.loglik[p, i] += math.log(chance if ok else SLIP)
            self.agree[p, i] += ok

    def seat_names(self) -> list[str | None]:
        """The bot each seat is taken for (None: not known, or this agent's own seat)."""
        out: list[str | None] = []
        for p in range(self.game.players):
            if p == self.me or self.broken or self.decisions[p] < MIN_DECISIONS:
                out.append(None)
                continue
            i = int(np.argmax(self.loglik[p]))
            out.append(self.names[i] if self.agree[p, i] >= MIN_AGREEMENT * self.decisions[p] else None)
        return out

    def policies(self, default: int = K.STE) -> np.ndarray:
        """The kernel policy of every seat for the rollouts (``default`` where no bot is known)."""
        return np.array([default if n is None else CANDIDATES[n] for n in self.seat_names()], dtype=np.int64)
