"""How good a "who wins" forecast is: log-loss, Brier score, accuracy and calibration.

A forecast is one probability per seat per board (rows summing to 1), the truth the seat that
won. Calibration pools every (board, seat) pair: a forecast of 30 % should come true 30 % of the
time whoever it is about, so the reliability diagram and the expected calibration error (ECE)
bin all of the seats' probabilities together (equal-width bins) and compare each bin's mean
forecast with how often those seats won. Nothing here knows the game.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from boardlab.core.errors import BoardlabError

EPS = 1e-15  # a forecast of exactly 0 for the winner would make the log-loss infinite


def _check(p: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(p, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    if p.ndim != 2 or y.shape != (p.shape[0],):
        raise BoardlabError(f"forecasts must be (boards, seats) with one winner per board, not {p.shape} and {y.shape}")
    if len(y) and (y.min() < 0 or y.max() >= p.shape[1]):
        raise BoardlabError("a winner is not one of the forecast's seats")
    return p, y


def log_loss(p, y) -> float:
    p, y = _check(p, y)
    return float(-np.mean(np.log(np.clip(p[np.arange(len(y)), y], EPS, 1.0))))


def brier(p, y) -> float:
    """The multi-class Brier score: squared distance to the winner's one-hot, summed over seats (0..2)."""
    p, y = _check(p, y)
    onehot = np.zeros_like(p)
    onehot[np.arange(len(y)), y] = 1.0
    return float(np.mean(np.sum((p - onehot) ** 2, axis=1)))


def accuracy(p, y) -> float:
    p, y = _check(p, y)
    return float(np.mean(p.argmax(axis=1) == y))


def reliability(p, y, bins: int = 10) -> dict[str, list]:
    """Per equal-width bin of the pooled (board, seat) forecasts: count, mean forecast, share won."""
    p, y = _check(p, y)
    onehot = np.zeros_like(p)
    onehot[np.arange(len(y)), y] = 1.0
    flat, hit = p.ravel(), onehot.ravel()
    which = np.minimum((flat * bins).astype(np.int64), bins - 1)
    count = np.bincount(which, minlength=bins)
    forecast = np.bincount(which, weights=flat, minlength=bins)
    won = np.bincount(which, weights=hit, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return {"count": count.tolist(),
                "forecast": [float(v) if c else None for v, c in zip(forecast / count, count)],
                "observed": [float(v) if c else None for v, c in zip(won / count, count)]}


def ece(p, y, bins: int = 10) -> float:
    """Expected calibration error: the count-weighted mean gap between forecast and outcome over the bins."""
    r = reliability(p, y, bins)
    total = sum(r["count"])
    if total == 0:
        return float("nan")
    return float(sum(c * abs(f - o) for c, f, o in zip(r["count"], r["forecast"], r["observed"]) if c) / total)


def scores(p, y, bins: int = 10) -> dict[str, Any]:
    p, y = _check(p, y)
    if len(y) == 0:
        return {"boards": 0}
    return {"boards": int(len(y)), "log_loss": log_loss(p, y), "brier": brier(p, y), "accuracy": accuracy(p, y),
            "ece": ece(p, y, bins)}


def by_phase(p, y, phase: np.ndarray, names: Mapping[int, str], bins: int = 10) -> dict[str, Any]:
    """:func:`scores` for the boards of each phase (``phase[i]``: the key in ``names`` of board i)."""
    p, y = _check(p, y)
    phase = np.asarray(phase)
    return {name: scores(p[phase == key], y[phase == key], bins) for key, name in names.items()}


def log_loss_gap(p_a, p_b, y, groups, draws: int = 2000, seed: int = 0) -> dict[str, float]:
    """Log-loss of forecast a minus forecast b on the same boards, with a 95 % interval from a bootstrap
    over ``groups`` (games): a game's boards share one outcome, so they are resampled together."""
    p_a, y = _check(p_a, y)
    p_b, _ = _check(p_b, y)
    groups = np.asarray(groups)
    if groups.shape != y.shape:
        raise BoardlabError(f"one group per board is needed, not {groups.shape} for {y.shape[0]} boards")
    if len(y) == 0:
        return {"boards": 0}
    index = np.arange(len(y))
    diff = (np.log(np.clip(p_b[index, y], EPS, 1.0)) - np.log(np.clip(p_a[index, y], EPS, 1.0)))
    _, which = np.unique(groups, return_inverse=True)
    sums = np.bincount(which, weights=diff)
    counts = np.bincount(which).astype(np.float64)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(sums), size=(draws, len(sums)))
    means = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return {"boards": int(len(y)), "groups": int(len(sums)), "gap": float(diff.mean()), "low": float(low), "high": float(high)}


def reliability_png(curves: Mapping[str, dict], path: str | Path, title: str = "") -> Path:
    """The reliability diagram of one or more forecasts (:func:`reliability` each), with the diagonal."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from boardlab.core.records import write_atomic

    fig, ax = plt.subplots(figsize=(4.8, 4.4))
    ax.plot([0, 1], [0, 1], color="0.6", linestyle="--", linewidth=1, label="perfect")
    for label, r in curves.items():
        points = [(f, o) for f, o, c in zip(r["forecast"], r["observed"], r["count"]) if c]
        if points:
            ax.plot(*zip(*points), marker="o", markersize=3, linewidth=1.2, label=label)
    ax.set_xlabel("forecast chance to win (a seat on a board)")
    ax.set_ylabel("share of those seats that won")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8, loc="upper left")
    if title:
        ax.set_title(title, fontsize=9)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80, bbox_inches="tight")
    plt.close(fig)
    write_atomic(Path(path), buffer.getvalue())
    return Path(path)
