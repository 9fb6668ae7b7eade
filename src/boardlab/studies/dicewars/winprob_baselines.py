"""Two simple "who wins" models to hold the win-probability network against, fitted on its training games.

* ``wpm``: the course's logistic model (dt.wpm_c's, :mod:`boardlab.bots.dicewars.wpm`): for each
  seat, the chance it wins is sigmoid(w . f) where f is, for every player in turn order starting
  with that seat, log(largest region + 1) and log(dice + 1); refitted here (with an intercept) on
  the training boards, one row per (board, seat), and the four chances normalised to sum to 1.
  ``wpm-course`` is the same model with the course's own weights for 4 players, not refitted.
* ``share``: a softmax over the seats of a . (largest region / areas) + b . (dice / all dice),
  fitted by maximum likelihood (a conditional logit); a seat with no area gets 0.

The region and dice counts come from the boards' arrays and each game's adjacency bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.optimize import minimize

from boardlab.bots.dicewars.compiled import WPM_WEIGHTS

L2 = 1e-4  # a touch of ridge so that a degenerate tiny training set still has a finite fit


def neighbours(bits: np.ndarray) -> list[list[int]]:
    """The adjacency lists of a map from its upper-triangle bits (the features' first block)."""
    m = len(bits)
    n = int(round((1 + np.sqrt(1 + 8 * m)) / 2))
    rows, cols = np.triu_indices(n, k=1)
    near: list[list[int]] = [[] for _ in range(n)]
    for a, b in zip(rows[bits > 0], cols[bits > 0]):
        near[a].append(int(b))
        near[b].append(int(a))
    return near


def regions_and_dice(owner: np.ndarray, dice: np.ndarray, games: np.ndarray, adjacency: np.ndarray,
                     players: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """(boards, players) arrays: each seat's largest connected region (areas) and its dice."""
    owner = np.asarray(owner, dtype=np.int64)
    region = np.zeros((len(owner), players), dtype=np.int64)
    cache: dict[int, list[list[int]]] = {}
    for i, (row, g) in enumerate(zip(owner.tolist(), np.asarray(games).tolist())):
        near = cache.get(g)
        if near is None:
            near = cache[g] = neighbours(adjacency[g])
        seen = [False] * len(row)
        for a, o in enumerate(row):
            if seen[a]:
                continue
            seen[a] = True
            stack, size = [a], 0
            while stack:
                x = stack.pop()
                size += 1
                for b in near[x]:
                    if not seen[b] and row[b] == o:
                        seen[b] = True
                        stack.append(b)
            if size > region[i, o]:
                region[i, o] = size
    dice_per = np.zeros((len(owner), players), dtype=np.int64)
    for p in range(players):
        dice_per[:, p] = np.where(owner == p, dice, 0).sum(axis=1)
    return region, dice_per


def wpm_features(region: np.ndarray, dice: np.ndarray) -> np.ndarray:
    """(boards, seats, 2 x seats): for each seat, log(region + 1), log(dice + 1) of every player in turn order from it."""
    boards, players = region.shape
    out = np.zeros((boards, players, 2 * players))
    for p in range(players):
        for i in range(players):
            q = (p + i) % players
            out[:, p, 2 * i] = np.log(region[:, q] + 1.0)
            out[:, p, 2 * i + 1] = np.log(dice[:, q] + 1.0)
    return out


def share_features(region: np.ndarray, dice: np.ndarray, areas: int) -> np.ndarray:
    return np.stack([region / areas, dice / np.maximum(1, dice.sum(axis=1, keepdims=True))], axis=2)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _normalised(chances: np.ndarray) -> np.ndarray:
    total = chances.sum(axis=1, keepdims=True)
    return np.where(total > 0, chances / np.where(total > 0, total, 1.0), 1.0 / chances.shape[1])


def fit_wpm(features: np.ndarray, winner: np.ndarray) -> np.ndarray:
    """Weights (intercept last) of the binary logistic model "this seat wins", one row per (board, seat)."""
    x = features.reshape(-1, features.shape[2])
    x = np.concatenate([x, np.ones((len(x), 1))], axis=1)
    t = (np.arange(features.shape[1])[None, :] == np.asarray(winner)[:, None]).ravel().astype(np.float64)

    def loss(w):
        z = x @ w
        nll = np.sum(np.logaddexp(0.0, z) - t * z) / len(t)
        grad = x.T @ (_sigmoid(z) - t) / len(t)
        return nll + L2 * w[:-1] @ w[:-1], grad + 2 * L2 * np.append(w[:-1], 0.0)

    return minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B").x


def predict_wpm(features: np.ndarray, weights: np.ndarray) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    z = features @ w[:features.shape[2]] + (w[features.shape[2]] if len(w) > features.shape[2] else 0.0)
    return _normalised(_sigmoid(z))


def course_wpm_weights(players: int = 4) -> np.ndarray:
    return np.asarray(WPM_WEIGHTS[players], dtype=np.float64)


def _share_logits(features: np.ndarray, alive: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.where(alive, features @ w, -np.inf)


def predict_share(features: np.ndarray, alive: np.ndarray, weights: np.ndarray) -> np.ndarray:
    z = _share_logits(features, alive, np.asarray(weights, dtype=np.float64))
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit_share(features: np.ndarray, alive: np.ndarray, winner: np.ndarray) -> np.ndarray:
    """The conditional logit's weights (one per share feature), by maximum likelihood."""
    y = np.asarray(winner, dtype=np.int64)
    rows = np.arange(len(y))

    def loss(w):
        p = predict_share(features, alive, w)
        nll = -np.mean(np.log(np.clip(p[rows, y], 1e-300, 1.0)))
        expected = np.einsum("bs,bsk->bk", p, np.where(alive[..., None], features, 0.0))
        grad = np.mean(expected - features[rows, y], axis=0)
        return nll + L2 * w @ w, grad + 2 * L2 * w

    return minimize(loss, np.zeros(features.shape[2]), jac=True, method="L-BFGS-B").x


def fit_all(region: np.ndarray, dice: np.ndarray, winner: np.ndarray, areas: int) -> dict[str, Any]:
    """The fitted weights of both baselines (and the course's own), from training boards."""
    alive = region > 0
    return {"wpm": fit_wpm(wpm_features(region, dice), winner).tolist(),
            "wpm-course": course_wpm_weights(region.shape[1]).tolist(),
            "share": fit_share(share_features(region, dice, areas), alive, winner).tolist()}


def predict_all(weights: dict[str, Any], region: np.ndarray, dice: np.ndarray, areas: int) -> dict[str, np.ndarray]:
    f = wpm_features(region, dice)
    return {"wpm": predict_wpm(f, np.array(weights["wpm"])),
            "wpm-course": predict_wpm(f, np.array(weights["wpm-course"])),
            "share": predict_share(share_features(region, dice, areas), region > 0, np.array(weights["share"]))}
