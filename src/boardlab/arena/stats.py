"""Tournament statistics with 95 % intervals: win/draw/loss, seats, ranks and score tables.

Rates get Wilson score intervals (good with few games and rates near 0 or 1);
means get Student-t intervals. A game's *winner* is the seat with the highest
return; seats that share the highest return have *drawn* (all seats, when all
returns are equal, as in a drawn two-player game); every other seat has lost.
A *score* is the game's ``state.scores()`` when the game keeps scores, else
its return (the Ticket to Ride study's MAX, MIN, AVG, σ, MED and share above
thresholds are computed on it).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Sequence

import numpy as np
from scipy import stats as sps

from boardlab.arena.store import GameResult

Z95 = 1.959963984540054


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n``; (0, 1) when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # the interval contains p, and its ends are exact where the rate is 0 or 1 (rounding would leave 1e-19)
    low = 0.0 if successes <= 0 else max(0.0, min(p, centre - half))
    high = 1.0 if successes >= n else min(1.0, max(p, centre + half))
    return low, high


def mean_interval(values: Sequence[float] | np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean and its Student-t interval; the interval is the mean itself for fewer than 2 values."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(x.mean())
    if x.size < 2 or float(x.std()) == 0.0:
        return mean, mean, mean
    half = float(sps.t.ppf(0.5 + confidence / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return mean, mean - half, mean + half


def outcomes(returns: Sequence[float]) -> list[int]:
    """+1 for the sole best seat, 0 for seats sharing the best return, -1 for the others."""
    best = max(returns)
    top = sum(1 for r in returns if r == best)
    return [(1 if top == 1 else 0) if r == best else -1 for r in returns]


def ranks(returns: Sequence[float]) -> list[float]:
    """Rank of each seat, 1 = best, ties get their average rank (1.5, 1.5, 3)."""
    return [float(r) for r in sps.rankdata([-x for x in returns], method="average")]


def agent_table(results: Sequence[GameResult], names: Sequence[str]) -> list[dict[str, Any]]:
    """Per agent: games, wins, draws, losses, win rate and mean rank with 95 % intervals."""
    tallies = [{"wins": 0, "draws": 0, "losses": 0} for _ in names]
    seat_ranks: list[list[float]] = [[] for _ in names]
    for result in results:
        for seat, (outcome, rank) in enumerate(zip(outcomes(result.returns), ranks(result.returns))):
            agent = result.seats[seat]
            tallies[agent]["wins" if outcome > 0 else "draws" if outcome == 0 else "losses"] += 1
            seat_ranks[agent].append(rank)
    rows = []
    for number, (name, t, agent_ranks) in enumerate(zip(names, tallies, seat_ranks)):
        games = t["wins"] + t["draws"] + t["losses"]
        low, high = wilson(t["wins"], games)
        rank, rank_low, rank_high = mean_interval(agent_ranks)
        rows.append({
            "agent": name, "number": number, "games": games,
            "wins": t["wins"], "draws": t["draws"], "losses": t["losses"],
            "win_rate": t["wins"] / games if games else None, "win_low": low, "win_high": high,
            "mean_rank": None if games == 0 else rank,
            "rank_low": None if games == 0 else rank_low, "rank_high": None if games == 0 else rank_high,
        })
    return rows


def pair_table(results: Sequence[GameResult], names: Sequence[str]) -> list[dict[str, Any]]:
    """Two-player games: for each pairing (a, b), a's wins, the draws and b's wins, and a's score rate."""
    pairs: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    for result in results:
        if result.players != 2:
            continue
        a, b = result.seats
        outcome = outcomes(result.returns)[0]
        if a > b:
            a, b, outcome = b, a, -outcome
        pairs[(a, b)][1 - outcome] += 1  # index 0: a won, 1: draw, 2: b won
    rows = []
    for (a, b), (wins, draws, losses) in sorted(pairs.items()):
        games = wins + draws + losses
        score = (wins + draws / 2) / games
        low, high = wilson(wins + draws / 2, games)
        rows.append({
            "agent": names[a], "opponent": names[b], "games": games, "wins": wins, "draws": draws,
            "losses": losses, "score_rate": score, "score_low": low, "score_high": high,
        })
    return rows


def seat_table(results: Sequence[GameResult]) -> list[dict[str, Any]]:
    """Per player count and seat: games, wins, draws and the win rate with its Wilson interval."""
    counts: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    for result in results:
        for seat, outcome in enumerate(outcomes(result.returns)):
            counts[(result.players, seat)][1 - outcome] += 1
    rows = []
    for (players, seat), (wins, draws, losses) in sorted(counts.items()):
        games = wins + draws + losses
        low, high = wilson(wins, games)
        rows.append({
            "players": players, "seat": seat, "games": games, "wins": wins, "draws": draws, "losses": losses,
            "win_rate": wins / games, "win_low": low, "win_high": high,
        })
    return rows


def score_summary(values: Sequence[float], thresholds: Sequence[float] = ()) -> dict[str, Any]:
    """MAX, MIN, AVG (with its t interval), σ, MED and the share above each threshold (Wilson)."""
    x = np.asarray(values, dtype=float)
    mean, low, high = mean_interval(x)
    row: dict[str, Any] = {
        "n": int(x.size), "max": float(x.max()), "min": float(x.min()),
        "mean": mean, "mean_low": low, "mean_high": high,
        "sd": float(x.std(ddof=1)) if x.size > 1 else 0.0, "median": float(np.median(x)),
        "above": [],
    }
    for threshold in thresholds:
        k = int((x > threshold).sum())
        share_low, share_high = wilson(k, x.size)
        row["above"].append({"threshold": threshold, "share": k / x.size, "low": share_low, "high": share_high})
    return row


def score_table(results: Sequence[GameResult], names: Sequence[str], thresholds: Sequence[float] = ()) -> list[dict[str, Any]]:
    """Score statistics per player count: one row per agent, then one for all agents together."""
    by_count: dict[int, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        for seat, points in enumerate(result.points()):
            by_count[result.players][result.seats[seat]].append(points)
    rows = []
    for players in sorted(by_count):
        everyone: list[float] = []
        for number in sorted(by_count[players]):
            values = by_count[players][number]
            everyone.extend(values)
            rows.append({"players": players, "agent": names[number], **score_summary(values, thresholds)})
        rows.append({"players": players, "agent": "all", **score_summary(everyone, thresholds)})
    return rows


def uses_scores(results: Sequence[GameResult]) -> bool:
    """Whether the games kept scores (else score tables are computed on returns)."""
    return bool(results) and all(r.scores is not None for r in results)


def ending_table(results: Sequence[GameResult]) -> list[dict[str, Any]]:
    """How the games ended (the records' ``end``: ``state.end_reason()``), with the games nobody won
    (every return equal: a draw, or a game its rules cancelled) counted per ending."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for result in results:
        end = result.record.get("end") or "unknown"
        counts[end][0] += 1
        if len(set(result.returns)) == 1:
            counts[end][1] += 1
    total = len(results)
    return [{"end": end, "games": games, "share": games / total if total else None, "no_winner": none}
            for end, (games, none) in sorted(counts.items(), key=lambda kv: (-kv[1][0], kv[0]))]
