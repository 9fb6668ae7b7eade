"""Ratings: Elo by a Bradley–Terry fit for two-player games, OpenSkill for more players.

**Two players.** A Bradley–Terry model with a first-seat advantage: the player
in seat 0 scores against seat 1 with probability
``1 / (1 + 10 ** (-(R_a - R_b + H) / 400))`` where ``R`` are Elo ratings and
``H`` the first seat's advantage in Elo points. Draws count as half a win (the
likelihood uses the score 0, 1/2 or 1 of each game, like Elo's own update).
The fit maximises the likelihood with a weak normal prior (σ = 1000 Elo) on
every rating and on ``H``, which keeps ratings finite when an agent wins or
loses every game and is negligible otherwise. Ratings are anchored so that
their **mean is 1500**. 95 % intervals come from a bootstrap over games
(games are resampled with replacement and the model refitted; percentile
intervals, widened to the estimate when all resamples fall on one side of it,
as they can after a handful of games), so each interval is for an agent's
rating relative to the mean of all agents.

**Three or more players.** OpenSkill's Plackett–Luce model (a TrueSkill-like
Bayesian rating) updated game by game in the order of the games' indices,
with seats ranked by their returns (ties share a rank). It reports μ, σ, the
conservative ``ordinal`` μ − 3σ and the interval μ ± 1.96σ.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np

from boardlab.arena.stats import ranks
from boardlab.arena.store import GameResult
from boardlab.core.errors import BoardlabError

ELO_ANCHOR = 1500.0
ELO_SCALE = 400.0 / math.log(10.0)  # Elo points per natural log-odds unit
PRIOR_SD_ELO = 1000.0


@dataclass
class EloRating:
    agent: str
    elo: float
    low: float
    high: float
    games: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class EloFit:
    ratings: list[EloRating]
    #: the first seat's advantage in Elo points, with its 95 % interval
    first_seat: tuple[float, float, float]
    bootstrap: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": "bradley-terry (draws = half wins), mean anchored at 1500",
            "ratings": [r.to_dict() for r in self.ratings],
            "first_seat_advantage": dict(zip(("elo", "low", "high"), self.first_seat)),
            "bootstrap": self.bootstrap,
        }


def _fit(first: np.ndarray, second: np.ndarray, score: np.ndarray, count: np.ndarray, n: int,
         start: np.ndarray | None = None) -> np.ndarray:
    """Maximum a-posteriori (ratings in log-odds units, seat advantage) for aggregated games.

    Each row is a (seat-0 agent, seat-1 agent) cell with ``count`` games and
    ``score`` total points of seat 0. The objective is convex with a handful of
    parameters, so Newton's method (with step halving) converges in a few
    steps; that keeps hundreds of bootstrap refits fast.
    """
    prior = 1.0 / (PRIOR_SD_ELO / ELO_SCALE) ** 2
    # design matrix: +1 for seat 0's agent, -1 for seat 1's, +1 for the seat advantage
    design = np.zeros((first.size, n + 1))
    rows = np.arange(first.size)
    design[rows, first] += 1.0
    design[rows, second] -= 1.0
    design[:, n] = 1.0

    def objective(params: np.ndarray) -> float:
        x = design @ params
        return float(np.sum(score * np.logaddexp(0.0, -x) + (count - score) * np.logaddexp(0.0, x))) + 0.5 * prior * float(params @ params)

    params = np.zeros(n + 1) if start is None else start.copy()
    value = objective(params)
    for _ in range(100):
        x = design @ params
        p = 1.0 / (1.0 + np.exp(-x))
        grad = design.T @ (count * p - score) + prior * params
        hessian = (design.T * (count * p * (1 - p))) @ design + prior * np.eye(n + 1)
        step = np.linalg.solve(hessian, grad)
        scale = 1.0
        while True:
            candidate = params - scale * step
            new_value = objective(candidate)
            if new_value <= value + 1e-12 or scale < 1e-6:
                break
            scale /= 2
        params, improvement, value = candidate, value - new_value, new_value
        if improvement < 1e-10 and float(np.max(np.abs(scale * step))) < 1e-8:
            break
    return params


def _cells(first: np.ndarray, second: np.ndarray, score: np.ndarray,
           n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (seat-0 agent, seat-1 agent, score) cells and how many games fell in each."""
    code = (first * n + second) * 3 + np.rint(score * 2).astype(np.int64)
    cells, counts = np.unique(code, return_counts=True)
    return cells // 3 // n, cells // 3 % n, (cells % 3) / 2.0, counts.astype(float)


def _aggregate(a: np.ndarray, b: np.ndarray, s: np.ndarray, counts: np.ndarray,
               n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per (a, b) pairing: the games and the points of seat 0, from per-cell counts."""
    pair = a * n + b
    games = np.bincount(pair, weights=counts, minlength=n * n)
    points = np.bincount(pair, weights=counts * s, minlength=n * n)
    keep = np.nonzero(games > 0)[0]
    return keep // n, keep % n, points[keep], games[keep]


def _to_elo(params: np.ndarray, n: int) -> tuple[np.ndarray, float]:
    theta = params[:n] * ELO_SCALE
    return theta - theta.mean() + ELO_ANCHOR, float(params[n] * ELO_SCALE)


def bradley_terry(first: Sequence[int], second: Sequence[int], score: Sequence[float], names: Sequence[str],
                  bootstrap: int = 400, seed: int = 0) -> EloFit:
    """Elo ratings of ``names`` from games ``first[i]`` (seat 0) vs ``second[i]`` scoring ``score[i]`` (1, 0.5, 0)."""
    a = np.asarray(first, dtype=np.int64)
    b = np.asarray(second, dtype=np.int64)
    s = np.asarray(score, dtype=float)
    n = len(names)
    if a.size == 0:
        raise BoardlabError("no finished two-player games to rate")
    cell_a, cell_b, cell_s, cell_count = _cells(a, b, s, n)
    estimate = _fit(*_aggregate(cell_a, cell_b, cell_s, cell_count, n), n)
    elo, advantage = _to_elo(estimate, n)
    rng = np.random.default_rng(seed)
    samples = np.empty((bootstrap, n))
    seat_samples = np.empty(bootstrap)
    for k in range(bootstrap):
        # resampling games with replacement = a multinomial draw of how many games fall in each cell
        counts = rng.multinomial(a.size, cell_count / a.size).astype(float)
        params = _fit(*_aggregate(cell_a, cell_b, cell_s, counts, n), n, start=estimate)
        samples[k], seat_samples[k] = _to_elo(params, n)
    games = np.bincount(a, minlength=n) + np.bincount(b, minlength=n)
    if bootstrap > 0:
        low, high = np.percentile(samples, [2.5, 97.5], axis=0)
        seat_low, seat_high = np.percentile(seat_samples, [2.5, 97.5])
        # with few games the resamples can all fall on one side of the estimate (or equal it up to
        # rounding): widen the interval to the estimate, so that it always contains it
        low, high = np.minimum(low, elo), np.maximum(high, elo)
        seat_low, seat_high = min(seat_low, advantage), max(seat_high, advantage)
    else:
        low = high = elo
        seat_low = seat_high = advantage
    ratings = [EloRating(name, float(elo[i]), float(low[i]), float(high[i]), int(games[i])) for i, name in enumerate(names)]
    return EloFit(ratings, (advantage, float(seat_low), float(seat_high)), bootstrap)


def elo_from_results(results: Sequence[GameResult], names: Sequence[str], bootstrap: int = 400, seed: int = 0) -> EloFit:
    """Bradley–Terry Elo from a tournament's two-player games."""
    two = [r for r in results if r.players == 2]
    first = [r.seats[0] for r in two]
    second = [r.seats[1] for r in two]
    score = [1.0 if r.returns[0] > r.returns[1] else 0.5 if r.returns[0] == r.returns[1] else 0.0 for r in two]
    return bradley_terry(first, second, score, names, bootstrap, seed)


@dataclass
class SkillRating:
    agent: str
    mu: float
    sigma: float
    low: float
    high: float
    ordinal: float
    games: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def openskill_from_results(results: Sequence[GameResult], names: Sequence[str]) -> list[SkillRating]:
    """OpenSkill Plackett–Luce ratings, updated game by game in index order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = [model.rating(name=name) for name in names]
    games = [0] * len(names)
    for result in sorted(results, key=lambda r: r.index):
        teams = [[current[number]] for number in result.seats]
        updated = model.rate(teams, ranks=ranks(result.returns))
        for number, team in zip(result.seats, updated):
            current[number] = team[0]
            games[number] += 1
    return [
        SkillRating(name, float(r.mu), float(r.sigma), float(r.mu - 1.96 * r.sigma), float(r.mu + 1.96 * r.sigma),
                    float(r.ordinal()), games[i])
        for i, (name, r) in enumerate(zip(names, current))
    ]
