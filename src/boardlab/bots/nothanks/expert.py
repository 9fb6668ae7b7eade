"""The No Thanks! imitation study's rule-based expert, and its state generator.

The study (Suliga and Bogusławski, "Trening i ocena skuteczności przykładowej
sieci neuronowej do gry w Prezencik": the No Thanks! study, docs/references.md)
labels random game states with a hand-written expert that returns a value in
[0, 1]: **0 is a strong TAKE, 1 a strong PASS**. :func:`expert_decision`
implements its rules exactly, first match wins, in the study's order:

==  =========================  ====================================================  =====
 #  rule name                  condition (``r`` = chips on card / card value)        value
==  =========================  ====================================================  =====
 1  ``no-chips``               the player has no chips (TAKE is forced)              0.0
 2  ``fits-own-run``           the card is one above or below a card the player has  1.0
 3  ``chips-exceed-card``      chips on the card > card value                        1.0
 4  ``half-few-chips``         r >= 1/2 and the player has fewer than 10 chips       0.95
 5  ``half-many-chips``        r >= 1/2 and the player has 10 chips or more          0.75
 6  ``broke-opponent-gains``   an opponent has no chips and taking the card would    0.9
                               lower that opponent's score (see below)
 7  ``few-chips-40``           fewer than 5 own chips and r >= 0.4                   0.75
 8  ``rich-60``                more than 18 own chips and r >= 0.6                   0.9
 9  ``far-behind-30``          own score >= 15 worse than the next-worst player's    0.9
                               (the worst opponent's) and r >= 0.3
10  ``far-ahead-under-40``     own score >= 20 better than some opponent's, r < 0.4  0.2
11  ``under-20``               r < 0.2                                               0.1
12  ``scaled``                 otherwise: 0.3 + 0.4 * (r - 0.2) / 0.3, in [0.3, 0.7]  0.3-0.7
==  =========================  ====================================================  =====

Where the study's wording is vague, this module decides, and says so:

* Scores are the rule scores so far (run heads minus chips; lower is better),
  so "worse" means higher.
* Rule 6, "which would be favourable for him" ("wzięcie przez niego karty będzie
  dla niego korzystne"): taking the card with its chips would strictly lower
  that opponent's score.
* Rule 12 reaches this point only with 0.2 <= r < 0.5 (smaller r is rule 11,
  larger rules 4-5); the value rises linearly from 0.3 at r = 0.2 to 0.7 at r = 0.5.

Rules that look inverted from a player's interest, implemented as the study
gives them (section 2 of the study, its list of expert decisions):

* Rule 2 says PASS (1.0) when the card extends the player's own run, "which
  will allow a better score" -- yet taking such a card costs nothing or little,
  and passing lets an opponent take it.
* Rules 3-5 say PASS when the card carries many chips, where taking is
  cheapest (rule 3: taking would *lower* the taker's score), and rule 11 says
  TAKE (0.1) when the card carries almost no chips, where taking is dearest.
  Read with 1 meaning TAKE these rules would make sense; only rule 1 (no chips
  -> 0.0, forced TAKE) fixes the direction the study states. The expert agent
  plays these rules as written, and the experiments report how that plays.
* Rule 8 can never fire: r >= 0.6 already satisfies r >= 1/2, so rule 4 or 5
  returns first. It is kept, in order, so that the rule list is the study's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from boardlab.core.errors import BoardlabError
from boardlab.core.rng import derive_seed
from boardlab.games.nothanks import PASS, STACK, TAKE, NoThanks, NoThanksState, card_points

RULES = (
    "no-chips",
    "fits-own-run",
    "chips-exceed-card",
    "half-few-chips",
    "half-many-chips",
    "broke-opponent-gains",
    "few-chips-40",
    "rich-60",
    "far-behind-30",
    "far-ahead-under-40",
    "under-20",
    "scaled",
)


@dataclass(frozen=True)
class Decision:
    """The expert's value (0 strong TAKE .. 1 strong PASS) and the rule that gave it."""

    value: float
    rule: str

    @property
    def action(self) -> int:
        """PASS when the value is above 0.5, else TAKE."""
        return PASS if self.value > 0.5 else TAKE


def expert_decision(state: NoThanksState) -> Decision:
    """Apply the study's rules, first match wins, for the player to move."""
    if state.is_terminal():
        raise BoardlabError("the expert judges a face-up card; this game is over")
    me = state.current_player()
    card = state.card()
    assert card is not None
    pot = state.pot
    own_chips = state.chips[me]
    hand = state.hands[me]
    ratio = pot / card
    opponents = [p for p in range(state.game.players) if p != me]
    scores = state.scores()

    if own_chips == 0:
        return Decision(0.0, "no-chips")
    if hand & ((1 << (card - 1)) | (1 << (card + 1))):
        return Decision(1.0, "fits-own-run")
    if pot > card:
        return Decision(1.0, "chips-exceed-card")
    if ratio >= 0.5:
        return Decision(0.95, "half-few-chips") if own_chips < 10 else Decision(0.75, "half-many-chips")
    for p in opponents:
        if state.chips[p] == 0:
            gain = card_points(state.hands[p] | 1 << card) - card_points(state.hands[p]) - pot
            if gain < 0:
                return Decision(0.9, "broke-opponent-gains")
    if own_chips < 5 and ratio >= 0.4:
        return Decision(0.75, "few-chips-40")
    if own_chips > 18 and ratio >= 0.6:
        return Decision(0.9, "rich-60")  # unreachable: see the module docstring
    worst_opponent = max(scores[p] for p in opponents)
    if scores[me] - worst_opponent >= 15 and ratio >= 0.3:
        return Decision(0.9, "far-behind-30")
    if worst_opponent - scores[me] >= 20 and ratio < 0.4:
        return Decision(0.2, "far-ahead-under-40")
    if ratio < 0.2:
        return Decision(0.1, "under-20")
    return Decision(0.3 + 0.4 * min(1.0, (ratio - 0.2) / 0.3), "scaled")


def expert_value(state: NoThanksState) -> float:
    """The expert's value for the player to move: 0 strong TAKE .. 1 strong PASS."""
    return expert_decision(state).value


#: the state generators (see generate_state); a training config's ``generator`` is one of them
Generator = Literal["plausible", "random"]
GENERATORS: tuple[str, ...] = get_args(Generator)


def generate_state(game: NoThanks, seed: int, play: str = "plausible") -> NoThanksState:
    """One mid-game state: a seeded deal, then play to a random depth.

    ``play="random"``: every game draws how eager its players are to pass
    (probability 0.3-0.95) and each move is a coin flip with that bias.
    Random players take cards that carry no chips and pass on cards that fit
    their runs, so scores drift far apart.

    ``play="plausible"`` (the default): each player of the game gets one of
    three habits -- the random coin flip above; a sensible threshold player
    (takes a card that fits a run, or when the chips on it reach 10-60 % of
    its value, else passes); or the study's expert as written -- and makes a
    random move instead with a per-game probability of 0-30 %. The expert's
    habit is there because a network that imitates the expert will play the
    positions the expert's own games lead to (one player holding many cards
    and few chips, say), which random play alone seldom reaches: training on
    the states the imitator will meet is the lesson of DAgger (Ross, Gordon
    and Bagnell, 2011).

    Either way play stops at a random number of taken cards (0-23), then a
    random number of extra passes follows, so piles of chips on the face-up
    card (which decide most rules) take every size from none to more than the
    card's value.
    """
    if play not in GENERATORS:
        raise BoardlabError(f"unknown state generator {play!r} (known: {', '.join(GENERATORS)})")
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(int(rng.integers(2**63)))
    eagerness = rng.uniform(0.3, 0.95)
    noise = rng.uniform(0.0, 0.3)
    habits = rng.integers(3, size=game.players)  # 0 random, 1 threshold, 2 expert
    thresholds = rng.uniform(0.1, 0.6, size=game.players)
    taken = int(rng.integers(STACK))
    while state.pos < taken:
        p = state.player
        if state.chips[p] == 0:
            state.apply_action(TAKE)
            continue
        habit = 0 if play == "random" or rng.random() < noise else habits[p]
        if habit == 0:
            state.apply_action(PASS if rng.random() < eagerness else TAKE)
        elif habit == 1:
            card = state.deck[state.pos]
            fits = state.hands[p] & ((1 << (card - 1)) | (1 << (card + 1)))
            state.apply_action(TAKE if fits or state.pot >= thresholds[p] * card else PASS)
        else:
            state.apply_action(expert_decision(state).action)
    for _ in range(int(rng.integers(0, 3 * game.players + 1))):
        if state.chips[state.player] == 0:
            break
        state.apply_action(PASS)
    return state


def generate_states(count: int, seed: int, players: int = 4, play: str = "plausible") -> list[NoThanksState]:
    """``count`` states from :func:`generate_state`, each from its own derived seed."""
    game = NoThanks(players=players)
    return [generate_state(game, derive_seed(seed, "nothanks-state", i), play) for i in range(count)]
