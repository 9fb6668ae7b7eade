"""The Ticket to Ride study's experiment (Łabno 2018): N games per player count, the score table.

The study played 1,000 games, 250 for each of 2, 3, 4 and 5 players, every seat
taken by its algorithmic player, and reported per player count and overall:
MAX, MIN, AVG, σ, MED, the share of players above 110, 120 and 140 points, and
the tickets completed and failed per player (and, for its network, the moves
the rules forbade). :func:`run` plays the same games as arena tournaments (one
per player count: K copies of the agent, every game in the store as it ends,
so a killed run resumes), on all cores or on Ray, and :func:`table` computes the
study's rows from what the store keeps (``state.statistics()`` of each game and
``agent.statistics()`` of each seat). :func:`plots` draws the study's three
figures: the scores per player count, the overall histogram with its fitted
normal, and MIN/AVG/MED/MAX per player count.

:data:`STUDY` holds the study's own table (its table "Wyniki uzależnione od
ilości graczy dla algorytmu klasycznego") for the side-by-side comparison.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from boardlab.arena.stats import score_summary
from boardlab.arena.store import GameResult, ResultStore
from boardlab.arena.tournament import Progress, TournamentConfig, play_missing, prepare
from boardlab.core.errors import BoardlabError
from boardlab.core.files import output_folder
from boardlab.core.params import parse_spec
from boardlab.core.records import write_atomic

PLAYER_COUNTS = (2, 3, 4, 5)
THRESHOLDS = (110, 120, 140)
VARIANTS = ("study", "official")

#: the study's table for its algorithmic player (per player count and overall)
STUDY: dict[str, dict[str, float]] = {
    "2": {"min": 37, "max": 173, "mean": 107.02, "sd": 19.70, "median": 108, "above_110": 44.60, "above_120": 23.40,
          "above_140": 3.80, "tickets_done": 3.63, "tickets_failed": 0.46},
    "3": {"min": 14, "max": 149, "mean": 98.02, "sd": 18.00, "median": 95, "above_110": 38.00, "above_120": 8.80,
          "above_140": 0.40, "tickets_done": 3.01, "tickets_failed": 0.58},
    "4": {"min": 43, "max": 182, "mean": 98.03, "sd": 19.38, "median": 98, "above_110": 28.00, "above_120": 13.20,
          "above_140": 0.70, "tickets_done": 3.21, "tickets_failed": 0.56},
    "5": {"min": 34, "max": 162, "mean": 94.59, "sd": 19.71, "median": 96, "above_110": 21.60, "above_120": 8.80,
          "above_140": 0.96, "tickets_done": 2.80, "tickets_failed": 0.62},
    "all": {"min": 14, "max": 182, "mean": 98.16, "sd": 19.66, "median": 99, "above_110": 27.51, "above_120": 12.14,
            "above_140": 1.17, "tickets_done": 3.08, "tickets_failed": 0.57},
}


def seat_specs(agent: str, players: int) -> list[str]:
    """``players`` specs of one agent that a tournament tells apart (``seed=1..K``)."""
    name, raw = parse_spec(agent)
    if "seed" in raw:
        raise BoardlabError(f"agent spec {agent!r}: leave out seed=, the experiment numbers the seats itself")
    joiner = "," if raw else ":"
    return [f"{agent}{joiner}seed={seat + 1}" for seat in range(players)]


def configs(variant: str = "study", games: int = 250, seed: int = 2018, agent: str = "ttr-algorithmic",
            players: Sequence[int] = PLAYER_COUNTS) -> dict[int, TournamentConfig]:
    """One tournament per player count: ``games`` games, every seat the given agent."""
    if variant not in VARIANTS:
        raise BoardlabError(f"--variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
    if games < 1:
        raise BoardlabError("--games must be at least 1")
    bad = [k for k in players if k not in PLAYER_COUNTS]
    if bad or not players:
        raise BoardlabError(f"player counts must be among 2, 3, 4, 5, not {list(players)}")
    spec = "tickettoride" if variant == "official" else "tickettoride:variant=study"
    return {k: prepare(spec, seat_specs(agent, k), players=k, games=games, fmt="round-robin", seed=seed + k)
            for k in sorted(set(players))}


def run(
    variant: str = "study",
    games: int = 250,
    seed: int = 2018,
    agent: str = "ttr-algorithmic",
    players: Sequence[int] = PLAYER_COUNTS,
    store: str | Path | None = None,
    workers: int = 1,
    backend: str = "process",
    address: str | None = None,
    compiled: bool = True,
    on_game: Callable[[int, Progress], None] | None = None,
    command: str = "",
) -> dict[int, list[GameResult]]:
    """Play what is missing of every player count's tournament; the finished games by player count."""
    plans = configs(variant, games, seed, agent, players)
    out: dict[int, list[GameResult]] = {}
    with ResultStore(store) as results:
        for k, config in plans.items():
            callback = None if on_game is None else (lambda progress, k=k: on_game(k, progress))
            play_missing(config, results, command, workers, backend, address, callback, compiled=compiled)
            out[k] = results.games(config.id)
    return out


def _row(scores: list[float], done: list[float], failed: list[float], forbidden_games: int, forbidden: int,
         games: int) -> dict[str, Any]:
    summary = score_summary(scores, THRESHOLDS)
    row = {
        "games": games, "players": summary["n"], "max": summary["max"], "min": summary["min"], "mean": summary["mean"],
        "mean_low": summary["mean_low"], "mean_high": summary["mean_high"], "sd": summary["sd"],
        "median": summary["median"],
        "tickets_done": float(np.mean(done)) if done else math.nan,
        "tickets_failed": float(np.mean(failed)) if failed else math.nan,
        "forbidden_games": forbidden_games, "forbidden_moves": forbidden,
    }
    for above in summary["above"]:
        row[f"above_{int(above['threshold'])}"] = 100.0 * above["share"]
    return row


def table(by_count: dict[int, list[GameResult]]) -> dict[str, dict[str, Any]]:
    """The study's rows per player count and overall (``"all"``): scores, the share above 110/120/140
    (in %, strictly above as the study's column heads say), tickets completed and failed per player,
    games with a forbidden move and forbidden moves in all."""
    rows: dict[str, dict[str, Any]] = {}
    everyone: dict[str, list[float]] = {"scores": [], "done": [], "failed": []}
    total_games = total_forbidden_games = total_forbidden = 0
    for k in sorted(by_count):
        scores: list[float] = []
        done: list[float] = []
        failed: list[float] = []
        forbidden_games = forbidden = 0
        for result in by_count[k]:
            scores.extend(result.points())
            stats = result.stats or {}
            game = stats.get("game") or {}
            done.extend(game.get("tickets_done", []))
            failed.extend(game.get("tickets_failed", []))
            moves = sum((a or {}).get("forbidden", 0) for a in stats.get("agents", []))
            forbidden += moves
            forbidden_games += 1 if moves else 0
        if not scores:
            continue
        rows[str(k)] = _row(scores, done, failed, forbidden_games, forbidden, len(by_count[k]))
        everyone["scores"] += scores
        everyone["done"] += done
        everyone["failed"] += failed
        total_games += len(by_count[k])
        total_forbidden_games += forbidden_games
        total_forbidden += forbidden
    if everyone["scores"]:
        rows["all"] = _row(everyone["scores"], everyone["done"], everyone["failed"], total_forbidden_games,
                           total_forbidden, total_games)
    return rows


#: the table's lines: (key, label, digits)
LINES = (
    ("min", "MIN", 0), ("max", "MAX", 0), ("mean", "AVG", 2), ("sd", "σ", 2), ("median", "MED", 1),
    ("above_110", "% > 110", 2), ("above_120", "% > 120", 2), ("above_140", "% > 140", 2),
    ("tickets_done", "tickets completed", 2), ("tickets_failed", "tickets failed", 2),
    ("forbidden_games", "games with a forbidden move", 0), ("forbidden_moves", "forbidden moves", 0),
)


def markdown(rows: dict[str, dict[str, Any]], study: bool = True) -> str:
    """The table in Markdown, the study's value beside each of ours (``ours (study)``)."""
    columns = list(rows)
    head = "| | " + " | ".join(f"{c} players" if c != "all" else "overall" for c in columns) + " |"
    lines = [head, "|" + " --- |" * (len(columns) + 1)]
    for key, label, digits in LINES:
        cells = []
        for c in columns:
            value = rows[c].get(key)
            text = "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"
            theirs = STUDY.get(c, {}).get(key)
            if study and theirs is not None:
                text += f" ({theirs:.{digits}f})"
            cells.append(text)
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --- plots ---------------------------------------------------------------------------------------
def _png(figure: Any, path: Path) -> None:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    write_atomic(path, buffer.getvalue())


def plots(by_count: dict[int, list[GameResult]], folder: str | Path, title: str = "") -> list[Path]:
    """The study's three figures as PNGs in ``folder``: ``scores-by-players.png`` (a histogram per player
    count), ``scores-overall.png`` (all scores with the normal of their mean and σ) and
    ``scores-range.png`` (MIN, AVG, MED, MAX per player count)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = output_folder(folder)
    scores = {k: [s for r in results for s in r.points()] for k, results in sorted(by_count.items()) if results}
    if not scores:
        raise BoardlabError("no games to plot")
    everything = [s for values in scores.values() for s in values]
    low, high = math.floor(min(everything) / 5) * 5, math.ceil(max(everything) / 5) * 5 + 5
    bins = np.arange(low, high + 5, 5)
    paths = []

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for k, values in scores.items():
        ax.hist(values, bins=bins, histtype="step", linewidth=1.6, label=f"{k} players (n={len(values)})")
    ax.set_xlabel("final score")
    ax.set_ylabel("players")
    ax.set_title(f"Scores by player count{(' — ' + title) if title else ''}")
    ax.legend()
    paths.append(folder / "scores-by-players.png")
    _png(fig, paths[-1])
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.hist(everything, bins=bins, color="#7fa7d9", edgecolor="white", label=f"all players (n={len(everything)})")
    mean, sd = float(np.mean(everything)), float(np.std(everything, ddof=1))
    xs = np.linspace(low, high, 300)
    ax.plot(xs, len(everything) * 5 * np.exp(-0.5 * ((xs - mean) / sd) ** 2) / (sd * math.sqrt(2 * math.pi)),
            color="#c0392b", linewidth=2, label=f"normal, mean {mean:.1f}, σ {sd:.1f}")
    ax.set_xlabel("final score")
    ax.set_ylabel("players")
    ax.set_title(f"All scores{(' — ' + title) if title else ''}")
    ax.legend()
    paths.append(folder / "scores-overall.png")
    _png(fig, paths[-1])
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    counts = list(scores)
    for label, func, style in (("MAX", np.max, "^-"), ("AVG", np.mean, "o-"), ("MED", np.median, "s--"), ("MIN", np.min, "v-")):
        ax.plot(counts, [float(func(scores[k])) for k in counts], style, label=label)
    ax.set_xticks(counts)
    ax.set_xlabel("players")
    ax.set_ylabel("score")
    ax.set_title(f"Scores by player count{(' — ' + title) if title else ''}")
    ax.legend()
    paths.append(folder / "scores-range.png")
    _png(fig, paths[-1])
    plt.close(fig)
    return paths
