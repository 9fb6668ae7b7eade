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
intervals), so each interval is for an agent's rating relative to the mean of
all agents.

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
from scipy.optimize import minimize

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

    Each row is a (seat-0 agent, seat-1 agent) pairing with ``count`` games and
    ``score`` total points of seat 0.
    """
    prior = 1.0 / (PRIOR_SD_ELO / ELO_SCALE) ** 2

    def objective(params: np.ndarray) -> tuple[float, np.ndarray]:
        theta, h = params[:n], params[n]
        x = theta[first] - theta[second] + h
        # log sigmoid(x) and log sigmoid(-x), computed stably
        log_p = -np.logaddexp(0.0, -x)
        log_q = -np.logaddexp(0.0, x)
        nll = -float(np.sum(score * log_p + (count - score) * log_q)) + 0.5 * prior * float(params @ params)
        residual = score - count / (1.0 + np.exp(-x))  # d(log-likelihood)/dx
        grad = np.zeros(n + 1)
        np.add.at(grad, first, -residual)
        np.add.at(grad, second, residual)
        grad[n] = -residual.sum()
        return nll, grad + prior * params

    x0 = np.zeros(n + 1) if start is None else start
    solution = minimize(objective, x0, jac=True, method="L-BFGS-B")
    return solution.x


def _aggregate(first: np.ndarray, second: np.ndarray, score: np.ndarray, n: int,
               weights: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    pair = first * n + second
    count = np.bincount(pair, weights=weights, minlength=n * n)
    total = np.bincount(pair, weights=score if weights is None else score * weights, minlength=n * n)
    keep = count > 0
    index = np.nonzero(keep)[0]
    return index // n, index % n, total[keep], count[keep]


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
    estimate = _fit(*_aggregate(a, b, s, n), n)
    elo, advantage = _to_elo(estimate, n)
    rng = np.random.default_rng(seed)
    samples = np.empty((bootstrap, n))
    seat_samples = np.empty(bootstrap)
    for k in range(bootstrap):
        # a bootstrap resample of games, as multiplicities of each game
        weights = np.bincount(rng.integers(0, a.size, a.size), minlength=a.size).astype(float)
        params = _fit(*_aggregate(a, b, s, n, weights), n, start=estimate)
        samples[k], seat_samples[k] = _to_elo(params, n)
    games = np.bincount(a, minlength=n) + np.bincount(b, minlength=n)
    if bootstrap > 0:
        low, high = np.percentile(samples, [2.5, 97.5], axis=0)
        seat_low, seat_high = np.percentile(seat_samples, [2.5, 97.5])
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
