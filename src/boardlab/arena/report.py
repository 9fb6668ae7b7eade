"""Tournament reports: the tables as one JSON-ready dict, a Markdown file and PNG plots.

:func:`build_report` gathers, for one or more tournaments of a store, the
win/draw/loss table, ratings (Bradley–Terry Elo for two players, OpenSkill for
more), pairings, win rate by seat and score tables per player count.
:func:`write_report` writes ``report.md``, ``ratings.png`` (ratings with 95 %
intervals), ``scores.png`` (score histograms with a fitted normal curve, one
panel per player count) and ``seats.png`` (win rate by seat), each atomically.
"""

from __future__ import annotations

import io
import math
from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from boardlab.arena import ratings, stats
from boardlab.arena.store import GameResult, ResultStore
from boardlab.core.files import output_folder
from boardlab.core.records import write_atomic


def tournament_section(info: Any, results: Sequence[GameResult], thresholds: Sequence[float] = (),
                       bootstrap: int = 400) -> dict[str, Any]:
    """Everything the report says about one tournament."""
    config = info.config
    names = list(config["agents"])
    section: dict[str, Any] = {
        "id": info.id,
        "game": config["game"],
        "players": config["players"],
        "format": config["format"],
        "seed": config["seed"],
        "agents": names,
        # absent for tournaments stored before agents' options were recorded: then nobody knows them
        **({"resolved_agents": config["resolved_agents"]} if "resolved_agents" in config else {}),
        "total_games": info.total_games,
        "finished_games": len(results),
        "command": info.command,
        "created": info.created,
        "agent_table": stats.agent_table(results, names),
    }
    if results and config["players"] == 2:
        section["rating_model"] = "elo"
        section["ratings"] = ratings.elo_from_results(results, names, bootstrap=bootstrap, seed=config["seed"]).to_dict()
        section["pair_table"] = stats.pair_table(results, names)
    elif results:
        section["rating_model"] = "openskill"
        section["ratings"] = {
            "model": "openskill plackett-luce, interval mu +- 1.96 sigma",
            "ratings": [r.to_dict() for r in ratings.openskill_from_results(results, names)],
        }
    section["seat_table"] = stats.seat_table(results)
    section["endings"] = stats.ending_table(results)
    section["score_source"] = "scores" if stats.uses_scores(results) else "returns"
    section["score_table"] = stats.score_table(results, names, thresholds) if results else []
    return section


def build_report(store: ResultStore, tournament_ids: Sequence[str | None] = (None,), thresholds: Sequence[float] = (),
                 bootstrap: int = 400) -> tuple[dict[str, Any], dict[str, list[GameResult]]]:
    """The report for the named tournaments (the latest when the only id is None) and their games."""
    sections = []
    games: dict[str, list[GameResult]] = {}
    for tid in tournament_ids or (None,):
        info = store.tournament(tid)
        if info.id in games:
            continue
        results = store.games(info.id)
        games[info.id] = results
        sections.append(tournament_section(info, results, thresholds, bootstrap))
    return {"store": str(store.path), "thresholds": list(thresholds), "tournaments": sections}, games


# --- Markdown --------------------------------------------------------------------

def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def table_rows(section: dict[str, Any], thresholds: Sequence[float]) -> dict[str, tuple[list[str], list[list[str]]]]:
    """The report's tables as (header, rows of strings), shared by the Markdown file and the terminal."""
    tables: dict[str, tuple[list[str], list[list[str]]]] = {}
    if section.get("rating_model") == "elo":
        tables["ratings"] = (
            ["agent", "Elo", "95 % interval", "games"],
            [[r["agent"], f"{r['elo']:.0f}", f"{r['low']:.0f} – {r['high']:.0f}", str(r["games"])]
             for r in sorted(section["ratings"]["ratings"], key=lambda r: -r["elo"])],
        )
    elif section.get("rating_model") == "openskill":
        tables["ratings"] = (
            ["agent", "μ", "σ", "95 % interval", "ordinal", "games"],
            [[r["agent"], f"{r['mu']:.2f}", f"{r['sigma']:.2f}", f"{r['low']:.2f} – {r['high']:.2f}", f"{r['ordinal']:.2f}", str(r["games"])]
             for r in sorted(section["ratings"]["ratings"], key=lambda r: -r["ordinal"])],
        )
    tables["results"] = (
        ["agent", "games", "W", "D", "L", "win % (95 %)", "mean rank (95 %)"],
        [[r["agent"], str(r["games"]), str(r["wins"]), str(r["draws"]), str(r["losses"]),
          f"{_pct(r['win_rate'])} ({_pct(r['win_low'])}–{_pct(r['win_high'])})",
          f"{_num(r['mean_rank'], 2)} ({_num(r['rank_low'], 2)}–{_num(r['rank_high'], 2)})"] for r in section["agent_table"]],
    )
    if section.get("pair_table"):
        tables["pairings"] = (
            ["agent", "opponent", "games", "W", "D", "L", "score % (95 %)"],
            [[r["agent"], r["opponent"], str(r["games"]), str(r["wins"]), str(r["draws"]), str(r["losses"]),
              f"{_pct(r['score_rate'])} ({_pct(r['score_low'])}–{_pct(r['score_high'])})"] for r in section["pair_table"]],
        )
    tables["seats"] = (
        ["players", "seat", "games", "W", "D", "win % (95 %)"],
        [[str(r["players"]), str(r["seat"]), str(r["games"]), str(r["wins"]), str(r["draws"]),
          f"{_pct(r['win_rate'])} ({_pct(r['win_low'])}–{_pct(r['win_high'])})"] for r in section["seat_table"]],
    )
    if section.get("endings"):
        tables["endings"] = (
            ["ending", "games", "share", "nobody won"],
            [[r["end"], str(r["games"]), _pct(r["share"]), str(r["no_winner"])] for r in section["endings"]],
        )
    above = [f"% > {t:g}" for t in thresholds]
    tables["scores"] = (
        ["players", "agent", "N", "MAX", "MIN", "AVG (95 %)", "σ", "MED", *above],
        [[str(r["players"]), r["agent"], str(r["n"]), _num(r["max"]), _num(r["min"]),
          f"{_num(r['mean'], 2)} ({_num(r['mean_low'], 2)}–{_num(r['mean_high'], 2)})", _num(r["sd"], 2), _num(r["median"]),
          *[f"{_pct(a['share'])} ({_pct(a['low'])}–{_pct(a['high'])})" for a in r["above"]]]
         for r in section["score_table"]],
    )
    return tables


TABLE_TITLES = {
    "ratings": "Ratings",
    "results": "Wins, draws and losses",
    "pairings": "Pairings (score % = wins + draws/2 of the first agent)",
    "seats": "Win rate by seat",
    "endings": "How the games ended",
    "scores": "Scores",
}


def _options_lines(section: dict[str, Any]) -> list[str]:
    """The agents' options as recorded (specs leave defaults out, and defaults change between releases)."""
    resolved = section.get("resolved_agents")
    if resolved is None:
        return ["Agent options: not recorded (stored before boardlab recorded them).", ""]
    lines = ["Agent options, defaults included, as recorded when the tournament began:", ""]
    for name, options in zip(section["agents"], resolved):
        shown = ", ".join(f"{k}={v}" for k, v in options.items()) or "none"
        lines.append(f"- `{name}`: {shown}")
    return lines + [""]


def markdown(report: dict[str, Any], images: Sequence[str]) -> str:
    thresholds = report["thresholds"]
    parts = ["# boardlab tournament report", "", f"Store: `{report['store']}`", ""]
    for section in report["tournaments"]:
        parts += [
            f"## Tournament {section['id']}: {section['game']}",
            "",
            f"{section['format']}, {section['players']} players per game, seed {section['seed']}, "
            f"{section['finished_games']} of {section['total_games']} games finished.",
            "",
            f"Command: `{section['command']}`",
            "",
            *_options_lines(section),
        ]
        if section.get("rating_model") == "elo":
            parts += [
                "Elo: Bradley–Terry fit with a first-seat advantage, draws counted as half wins, mean anchored at 1500; "
                f"95 % intervals by a bootstrap over games ({section['ratings']['bootstrap']} resamples). "
                f"First-seat advantage: {section['ratings']['first_seat_advantage']['elo']:.0f} Elo "
                f"({section['ratings']['first_seat_advantage']['low']:.0f} – {section['ratings']['first_seat_advantage']['high']:.0f}).",
                "",
            ]
        elif section.get("rating_model") == "openskill":
            parts += ["Ratings: OpenSkill Plackett–Luce, games in index order; ordinal = μ − 3σ; interval μ ± 1.96σ.", ""]
        for key, (header, rows) in table_rows(section, thresholds).items():
            title = TABLE_TITLES[key]
            if key == "scores":
                title += " (state.scores())" if section["score_source"] == "scores" else " (returns: the game keeps no scores)"
            parts += [f"### {title}", "", _md_table(header, rows), ""]
    parts += ["## Plots", ""] + [f"![{Path(name).stem}]({name})" for name in images] + [""]
    parts.append("Rates have Wilson 95 % intervals; means have Student-t 95 % intervals.")
    return "\n".join(parts) + "\n"


# --- plots -------------------------------------------------------------------------

def _save_png(figure: Any, path: Path) -> None:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    write_atomic(path, buffer.getvalue())


def ratings_plot(report: dict[str, Any], path: Path) -> None:
    from matplotlib.figure import Figure

    sections = [s for s in report["tournaments"] if s.get("ratings")]
    figure = Figure(figsize=(7, 1.2 + 0.45 * sum(len(s["agents"]) for s in sections) + 0.6 * len(sections)))
    axes = figure.subplots(max(1, len(sections)), 1, squeeze=False)[:, 0]
    for ax, section in zip(axes, sections):
        rows = section["ratings"]["ratings"]
        key = "elo" if section["rating_model"] == "elo" else "mu"
        rows = sorted(rows, key=lambda r: r[key])
        values = np.array([r[key] for r in rows])
        errors = np.array([[v - r["low"] for v, r in zip(values, rows)], [r["high"] - v for v, r in zip(values, rows)]])
        errors = np.clip(np.nan_to_num(errors), 0.0, None)  # intervals contain their estimates; never let rounding break the plot
        base = 1500 if key == "elo" else 25.0
        ax.barh(range(len(rows)), values - base, left=base, xerr=errors, capsize=4, color="#4C72B0")
        ax.set_yticks(range(len(rows)), [r["agent"] for r in rows])
        ax.set_xlabel("Elo (Bradley–Terry, mean 1500)" if key == "elo" else "OpenSkill μ")
        ax.set_title(f"{section['game']} ({section['id']}): ratings with 95 % intervals", fontsize=10)
    if not sections:
        axes[0].text(0.5, 0.5, "no finished games", ha="center")
    _save_png(figure, path)


def scores_plot(report: dict[str, Any], games: dict[str, list[GameResult]], path: Path) -> None:
    from matplotlib.figure import Figure
    from scipy import stats as sps

    by_count: dict[int, list[float]] = defaultdict(list)
    for results in games.values():
        for result in results:
            by_count[result.players].extend(result.points())
    counts = sorted(by_count) or [0]
    figure = Figure(figsize=(6, 3 * len(counts)))
    axes = figure.subplots(len(counts), 1, squeeze=False)[:, 0]
    source = "score" if all(s["score_source"] == "scores" for s in report["tournaments"]) else "score (return)"
    for ax, players in zip(axes, counts):
        values = np.asarray(by_count.get(players, []), dtype=float)
        if values.size == 0:
            ax.text(0.5, 0.5, "no finished games", ha="center")
            continue
        bins: np.ndarray | int
        if np.all(values == np.round(values)) and values.max() - values.min() <= 60:
            bins = np.arange(values.min() - 0.5, values.max() + 1.5)  # one bar per whole number
        else:
            bins = 30
        ax.hist(values, bins=bins, density=True, color="#55A868", alpha=0.7, label=f"{values.size} scores")
        sd = values.std(ddof=1) if values.size > 1 else 0.0
        if sd > 0:
            x = np.linspace(values.min() - sd, values.max() + sd, 200)
            ax.plot(x, sps.norm.pdf(x, values.mean(), sd), color="#C44E52",
                    label=f"normal fit: mean {values.mean():.2f}, σ {sd:.2f}")
        ax.set_title(f"{players} players", fontsize=10)
        ax.set_xlabel(source)
        ax.set_ylabel("density")
        ax.legend(fontsize=8)
    _save_png(figure, path)


def seats_plot(report: dict[str, Any], path: Path) -> None:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6, 3.5))
    ax = figure.subplots()
    rows = [(s["id"], r) for s in report["tournaments"] for r in s["seat_table"]]
    labels = [f"{r['players']}p seat {r['seat']}" + (f" ({tid[:6]})" if len(report["tournaments"]) > 1 else "") for tid, r in rows]
    rates = np.array([r["win_rate"] for _, r in rows])
    errors = np.array([[r["win_rate"] - r["win_low"] for _, r in rows], [r["win_high"] - r["win_rate"] for _, r in rows]])
    errors = np.clip(np.nan_to_num(errors), 0.0, None)
    if rows:
        ax.bar(range(len(rows)), 100 * rates, yerr=100 * errors, capsize=4, color="#8172B2")
        # a seat without advantage wins 1/K of the games (less when draws are common)
        for i, (_, r) in enumerate(rows):
            ax.hlines(100 / r["players"], i - 0.4, i + 0.4, colors="gray", linestyles="dashed",
                      # matplotlib takes label=None (no legend entry), though its stubs say str
                      label="1 / players" if i == 0 else None)  # type: ignore[arg-type]
        ax.legend(fontsize=8)
        ax.set_xticks(range(len(rows)), labels, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("win % (Wilson 95 %)")
    ax.set_title("Win rate by seat", fontsize=10)
    _save_png(figure, path)


def write_report(report: dict[str, Any], games: dict[str, list[GameResult]], out: Path) -> list[Path]:
    """Write report.md and the three PNG plots into ``out``; return the paths written."""
    output_folder(out)  # the folder asked for is made, never the folders above it
    images = ["ratings.png", "scores.png", "seats.png"]
    ratings_plot(report, out / images[0])
    scores_plot(report, games, out / images[1])
    seats_plot(report, out / images[2])
    write_atomic(out / "report.md", markdown(report, images))
    return [out / "report.md", *(out / name for name in images)]
