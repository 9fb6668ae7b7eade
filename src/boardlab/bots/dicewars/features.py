"""The SUI study's 552 inputs of its Dice Wars win-probability network (the Dice Wars study, docs/references.md), without torch.

For a board of ``n`` areas (29 in the course's 2020 tournaments) and 4 players:

* the adjacency matrix's upper triangle without the diagonal, row by row: ``n(n-1)/2`` = 406;
* each area's owner, one-hot over the 4 seats, area by area: ``4n`` = 116;
* each area's dice / 8: ``n`` = 29;
* the turn, fading from 1 to 0 over 50 rounds and 0 after: 1.

The study counted "turns" without saying whose; here a round is every player's turn once
(``turns ended in the game / players``), so 50 rounds is the study's threshold of 50 turns of
the game as its players saw them. Owners are seats (absolute), as in the study: the network's
softmax gives each seat its chance to win.
"""

from __future__ import annotations

import numpy as np

FADE_ROUNDS = 50


def feature_count(areas: int = 29, players: int = 4) -> int:
    return areas * (areas - 1) // 2 + players * areas + areas + 1


def adjacency_bits(adjacent) -> np.ndarray:
    """The upper triangle (i < j, row by row) of the map's adjacency matrix, as float32 0/1."""
    n = len(adjacent)
    matrix = np.zeros((n, n), dtype=np.float32)
    for a, near in enumerate(adjacent):
        matrix[a, list(near)] = 1.0
    return matrix[np.triu_indices(n, k=1)]


def turn_fade(turns: np.ndarray | int, players: int) -> np.ndarray:
    """1 at the start, 0 after 50 rounds (``turns``: player turns ended in the game)."""
    rounds = np.asarray(turns, dtype=np.float32) / players
    return np.clip(1.0 - rounds / FADE_ROUNDS, 0.0, 1.0)


def features(adjacency: np.ndarray, owner: np.ndarray, dice: np.ndarray, turns: np.ndarray,
             players: int = 4) -> np.ndarray:
    """Inputs for a batch of boards: ``adjacency`` (batch, n(n-1)/2) or one row for all, ``owner`` and
    ``dice`` (batch, n), ``turns`` (batch,); float32 (batch, 552 for n = 29)."""
    owner = np.asarray(owner)
    batch, n = owner.shape
    adjacency = np.broadcast_to(np.asarray(adjacency, dtype=np.float32), (batch, n * (n - 1) // 2))
    onehot = (owner[:, :, None] == np.arange(players)[None, None, :]).astype(np.float32).reshape(batch, n * players)
    out = np.concatenate([adjacency, onehot, np.asarray(dice, dtype=np.float32) / 8.0,
                          turn_fade(turns, players).reshape(batch, 1)], axis=1)
    return out
