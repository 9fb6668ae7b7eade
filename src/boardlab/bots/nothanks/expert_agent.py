"""The No Thanks! imitation study's rule-based expert as an agent (no torch needed)."""

from __future__ import annotations

from boardlab.agents.base import Agent
from boardlab.bots.nothanks.expert import expert_value
from boardlab.core.game import State
from boardlab.core.params import Option
from boardlab.games.nothanks import PASS, TAKE


class NoThanksExpertAgent(Agent):
    """PASS when the study's expert value is above 0.5, else TAKE (forced TAKE without chips).

    ``read=flipped`` reads the expert's scale the other way round (1 = TAKE),
    the reading under which most of its rules make sense to a player (see
    :mod:`boardlab.bots.nothanks.expert`); it is not the study's expert and
    serves only to show how much the direction of the scale matters.
    """

    name = "nothanks-expert"
    summary = "the No Thanks! imitation study's rule-based expert, rules as written"
    games = ("nothanks",)
    options = {"read": Option("read", str, "as-written", "as-written (1 = PASS, the study) or flipped (1 = TAKE)",
                              lambda v: None if v in ("as-written", "flipped") else "must be as-written or flipped")}

    def step(self, state: State) -> int:
        if PASS not in state.legal_actions():
            return TAKE
        says_pass = expert_value(state) > 0.5  # type: ignore[arg-type]
        if self.config["read"] == "flipped":
            says_pass = expert_value(state) < 0.5  # type: ignore[arg-type]
        return PASS if says_pass else TAKE
