"""No Thanks! for 3 to 7 players: the rules (:mod:`.rules`); its board in the browser is ``board.js``, beside it."""

from boardlab.games.nothanks.rules import (
    ACTION_NAMES,
    ALL_CARDS,
    HIGH_CARD,
    LOW_CARD,
    PASS,
    REMOVED,
    STACK,
    TAKE,
    NoThanks,
    NoThanksState,
    card_mask,
    card_points,
    format_cards,
    mask_cards,
    runs,
    starting_chips,
)

__all__ = [
    "NoThanks", "NoThanksState", "TAKE", "PASS", "ACTION_NAMES", "LOW_CARD", "HIGH_CARD", "ALL_CARDS", "REMOVED",
    "STACK", "starting_chips", "card_mask", "mask_cards", "card_points", "runs", "format_cards",
]
