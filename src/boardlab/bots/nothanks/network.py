"""The No Thanks! imitation network: 8 features -> 32 -> 32 -> 1, and its checkpoint files.

As in the imitation study (the No Thanks! study, docs/references.md; its
section 3): eight features of the player to move, two hidden layers of 32 ReLU
units, one linear output that predicts the expert's value (0 strong TAKE,
1 strong PASS). The study's training lives in :mod:`boardlab.studies.nothanks.training`;
this module holds what the ``nothanks-net`` agent needs to play.

The features (all in [0, 1]; chip counts are divided by 55, the number of
chips in the box, so that a threshold such as "fewer than 5 chips" sits at the
same input value whatever the number of players):

1. ``card``: face-up card / 35
2. ``pot``: chips on the card normalised by the card's value, capped at twice
   the value and halved (``min(pot / card, 2) / 2``). The study only says
   "normalised"; dividing by the card is the normalisation its expert reads
   (every threshold is a share of the card's value), and past 2 nothing the
   expert decides changes.
3. ``own_chips``: the player's chips / 55
4. ``own_cards``: the player's card count / 24
5. ``own_neighbour``: the player holds the card one below or above (0/1)
6. ``opponent_neighbour``: some opponent holds such a card (0/1)
7. ``opponent_broke``: some opponent has no chips (0/1)
8. ``max_opponent_chips``: most chips of one opponent / 55

A checkpoint is ``torch.save`` of a plain dict ``{"format", "config",
"state_dict", "metrics"}`` (tensors, numbers, strings only), loaded with
``torch.load(..., weights_only=True)``: no pickled code runs. ``config`` is the
training config that made the network; only its ``hidden`` decides the network's shape.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch
from torch import nn

from boardlab.core.errors import BoardlabError, FormatError
from boardlab.games.nothanks import STACK, NoThanksState
from boardlab.nn import checkpoint

CHECKPOINT_FORMAT = "boardlab-nothanks-net/1"
FEATURE_NAMES = (
    "card", "pot", "own_chips", "own_cards", "own_neighbour", "opponent_neighbour",
    "opponent_broke", "max_opponent_chips",
)
#: units in each hidden layer: the study's 32
HIDDEN = 32
#: the widest network a config may ask for (two hidden layers of this many units)
MAX_HIDDEN = 4096
CHIP_SCALE = 55.0  # chips in the box
CARD_SCALE = 35.0  # highest card
POT_RATIO_CAP = 2.0  # chips worth twice the card or more: every rule has decided by then


def features(state: NoThanksState) -> np.ndarray:
    """The eight study features of the player to move, as float32 in [0, 1]."""
    me = state.current_player()
    card = state.card()
    if card is None:
        raise BoardlabError("features describe a face-up card; this game is over")
    neighbours = (1 << (card - 1)) | (1 << (card + 1))
    opponents = [p for p in range(state.game.players) if p != me]
    return np.array(
        [
            card / CARD_SCALE,
            min(state.pot / card, POT_RATIO_CAP) / POT_RATIO_CAP,
            state.chips[me] / CHIP_SCALE,
            bin(state.hands[me]).count("1") / STACK,
            1.0 if state.hands[me] & neighbours else 0.0,
            1.0 if any(state.hands[p] & neighbours for p in opponents) else 0.0,
            1.0 if any(state.chips[p] == 0 for p in opponents) else 0.0,
            max(state.chips[p] for p in opponents) / CHIP_SCALE,
        ],
        dtype=np.float32,
    )


def feature_matrix(states: Sequence[NoThanksState]) -> np.ndarray:
    return np.stack([features(s) for s in states]) if states else np.zeros((0, 8), np.float32)


class NoThanksNet(nn.Module):
    """8 -> hidden -> hidden -> 1, ReLU, linear output (the study's 32/32 by default)."""

    def __init__(self, hidden: int = HIDDEN) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(len(FEATURE_NAMES), hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, 1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x).squeeze(-1)

    def value(self, state: NoThanksState) -> float:
        """Predicted expert value of ``state`` (0 TAKE .. 1 PASS; may stray outside)."""
        with torch.no_grad():
            return float(self(torch.from_numpy(features(state)).unsqueeze(0))[0])


def read_checkpoint(path: str | Path) -> tuple[NoThanksNet, dict[str, Any], dict[str, Any]]:
    """The network of a checkpoint, the training config stored with it (as written: the study that
    trains networks checks the rest of it) and its metrics summary; any other file is a FormatError."""
    path = Path(path)
    payload = checkpoint.read_checkpoint(path, CHECKPOINT_FORMAT, "No Thanks! network checkpoint",
                                         missing=f"no No Thanks! model at {path}")
    try:
        config = payload["config"]
        if not isinstance(config, dict):
            raise TypeError("'config' is not a dict")
        hidden = config.get("hidden", HIDDEN)
        if isinstance(hidden, bool) or not isinstance(hidden, int) or not 1 <= hidden <= MAX_HIDDEN:
            raise FormatError(f"{path}: config: 'hidden' must be a whole number from 1 to {MAX_HIDDEN} (got {hidden!r})")
        if not isinstance(payload["state_dict"], dict):
            raise TypeError("'state_dict' is not a dict of tensors")
        model = NoThanksNet(hidden)
        model.load_state_dict(payload["state_dict"])
        if not all(torch.isfinite(p).all() for p in model.parameters()):
            raise ValueError("the weights are not all finite numbers")
        metrics = payload.get("metrics", {})
        if not isinstance(metrics, dict):
            raise TypeError("'metrics' is not a dict")
    except FormatError:
        raise
    except (KeyError, TypeError, RuntimeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise FormatError(f"{path}: damaged No Thanks! checkpoint ({first[:200]})") from None
    model.eval()
    return model, dict(config), dict(metrics)


def is_checkpoint(path: str | Path) -> bool:
    """Whether ``path`` is a No Thanks! network checkpoint (read with ``weights_only=True``)."""
    return checkpoint.is_checkpoint(path, CHECKPOINT_FORMAT)
