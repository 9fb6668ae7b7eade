"""Exact battle odds and the dice shown for a roll.

A battle throws one d6 per die on each side; the attacker wins when its sum is
strictly greater (a tie goes to the defender). :func:`win_probability` is
that probability, computed exactly from the sum distributions (integer counts
over ``6**n``), for any number of dice; :data:`WIN` tabulates it for 1..8
against 1..8 (the course engine's ``attack_succcess_probability`` table is
this one rounded to 8 decimals: 2v1 0.83796296, 3v3 0.45357510, 8v8 0.47109073).

The rules need only the outcome (a chance node with these two
probabilities). The dice people see are drawn afterwards, *conditioned on the
outcome* (:func:`dice_for_outcome`): first the two sums from their joint
distribution restricted to the outcome, then each die given the sum still to
make. Drawn this way, outcome and dice together have exactly the distribution
of throwing the dice, so showing them changes nothing in the rules.
"""

from __future__ import annotations

import bisect
from functools import lru_cache

import numpy as np

MAX_DICE = 8


@lru_cache(maxsize=None)
def sum_counts(n: int) -> tuple[int, ...]:
    """``counts[s]``: the number of ways ``n`` d6 sum to ``s`` (index 0..6n), out of ``6**n``."""
    counts = [1]
    for _ in range(n):
        nxt = [0] * (len(counts) + 6)
        for s, c in enumerate(counts):
            if c:
                for face in range(1, 7):
                    nxt[s + face] += c
        counts = nxt
    return tuple(counts)


@lru_cache(maxsize=None)
def win_probability(attack: int, defend: int) -> float:
    """P(sum of ``attack`` d6 > sum of ``defend`` d6), exact to double precision."""
    a, d = sum_counts(attack), sum_counts(defend)
    wins = 0
    below = 0  # ways the defender's sum is below s
    for s, c in enumerate(a):
        if s - 1 < len(d) and s >= 1:
            below += d[s - 1]
        wins += c * below
    return wins / (6 ** attack * 6 ** defend)


#: ``WIN[a, d]`` = P(attacker with ``a`` dice beats ``d`` dice), for 0..8 (row/column 0 unused)
WIN = np.zeros((MAX_DICE + 1, MAX_DICE + 1))
for _a in range(1, MAX_DICE + 1):
    for _d in range(1, MAX_DICE + 1):
        WIN[_a, _d] = win_probability(_a, _d)


def dice_for_outcome(attack: int, defend: int, won: bool, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """Dice faces of one battle drawn from the dice distribution conditioned on its outcome
    (which must be possible: 7 dice never lose to 1)."""
    pick = _draw(_sums_given_outcome(attack, defend, won), rng)
    s_sum, t_sum = divmod(pick, len(sum_counts(defend)))  # the sums were flattened attacker-major
    return _faces(attack, s_sum, rng), _faces(defend, t_sum, rng)


def _draw(cdf: tuple[float, ...], rng: np.random.Generator) -> int:
    """An index drawn with the probabilities whose cumulative sums are ``cdf``: the draw of
    ``rng.choice(len(p), p=p)``, one uniform number placed among the sums, without its checks."""
    return bisect.bisect_right(cdf, rng.random())


# every view of a Dice Wars game shows the dice of its last battles, drawn afresh each time: the
# distributions they are drawn from are worked out once (as tuples of cumulative sums)
@lru_cache(maxsize=None)
def _sums_given_outcome(attack: int, defend: int, won: bool) -> tuple[float, ...]:
    """The joint distribution of the two sums given the outcome, flattened (attacker's sum major)."""
    a, d = np.array(sum_counts(attack), dtype=float), np.array(sum_counts(defend), dtype=float)
    joint = np.outer(a, d)
    s, t = np.indices(joint.shape)
    joint[(s > t) != won] = 0.0
    if not joint.any():
        raise ValueError(f"{attack} dice against {defend} cannot {'win' if won else 'lose'}")
    return _cumulative(joint.ravel() / joint.sum())


@lru_cache(maxsize=None)
def _face_given_total(left: int, total: int) -> tuple[float, ...]:
    """The distribution of the next die's face (1..6) when ``left`` dice still have to make ``total``."""
    rest = sum_counts(left - 1)
    weights = np.array([rest[total - f] if 0 <= total - f < len(rest) else 0 for f in range(1, 7)], dtype=float)
    return _cumulative(weights / weights.sum())


def _cumulative(p: np.ndarray) -> tuple[float, ...]:
    """The cumulative sums ``rng.choice`` draws from: the last one scaled to exactly 1."""
    cdf = p.cumsum()
    cdf /= cdf[-1]
    return tuple(float(x) for x in cdf)


def _faces(n: int, total: int, rng: np.random.Generator) -> list[int]:
    """``n`` dice faces drawn uniformly among those summing to ``total``."""
    faces = []
    for left in range(n, 0, -1):
        face = _draw(_face_given_total(left, total), rng) + 1
        faces.append(face)
        total -= face
    return faces
