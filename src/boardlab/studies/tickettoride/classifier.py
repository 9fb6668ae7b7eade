"""The Ticket to Ride study's classifier: data, training, and its three experiments.

* :func:`train_model`: the dataset (:mod:`boardlab.studies.tickettoride.dataset`) and the
  network (:mod:`boardlab.studies.tickettoride.training`) trained on its training games, checked on
  its held-out games; writes ``NAME.pt`` (resumable), ``NAME.metrics.json`` and
  ``NAME.curves.png``.
* experiment (a), :func:`versus`: the network in every seat, N games per player
  count, the ttr-study table beside the study's network table (:data:`STUDY_NET`).
* experiment (b), :func:`universal_vs_specific`: one model trained on every
  player count against one model per player count.
* experiment (c), :func:`learning_progress`: train in steps of decisions and
  after each step measure the held-out rows and play games.

Torch is imported by the functions that train (this module is loaded only by
the commands that run them).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from boardlab.arena.store import GameResult
from boardlab.core.errors import BoardlabError
from boardlab.core.records import write_atomic
from boardlab.studies.tickettoride import dataset as ttr_dataset
from boardlab.studies.tickettoride import study as ttr_study
from boardlab.studies.tickettoride.dataset import DataConfig

#: the study's table for its network ("Wyniki uzależnione od ilości graczy dla sieci neuronowej"); its
#: forbidden-move line counts games that ended on a forbidden move
STUDY_NET: dict[str, dict[str, float]] = {
    "2": {"min": 55, "max": 163, "mean": 106.41, "sd": 15.51, "median": 107, "above_110": 38.07, "above_120": 14.81,
          "above_140": 2.26, "tickets_done": 3.91, "tickets_failed": 0.28, "net_forbidden_games": 7},
    "3": {"min": 37, "max": 178, "mean": 100.01, "sd": 16.83, "median": 100, "above_110": 38.27, "above_120": 10.24,
          "above_140": 0.55, "tickets_done": 3.55, "tickets_failed": 0.43, "net_forbidden_games": 9},
    "4": {"min": 27, "max": 159, "mean": 100.13, "sd": 17.28, "median": 101, "above_110": 24.79, "above_120": 10.12,
          "above_140": 1.14, "tickets_done": 3.70, "tickets_failed": 0.38, "net_forbidden_games": 8},
    "5": {"min": 15, "max": 180, "mean": 96.23, "sd": 18.65, "median": 98, "above_110": 21.12, "above_120": 7.54,
          "above_140": 0.79, "tickets_done": 3.31, "tickets_failed": 0.37, "net_forbidden_games": 22},
    "all": {"min": 15, "max": 180, "mean": 99.69, "sd": 17.72, "median": 101, "above_110": 25.71, "above_120": 9.92,
            "above_140": 1.05, "tickets_done": 3.56, "tickets_failed": 0.37, "net_forbidden_games": 46},
}

#: the study's experiment (b) tables: per-player-count ("specific") models and the universal one
STUDY_SPECIFIC = {
    "2": {"min": 41, "max": 157, "mean": 101.66, "median": 99.5, "completed": 60, "above_110": 28.33,
          "above_120": 18.33, "above_140": 4.17, "tickets_done": 467, "tickets_failed": 63},
    "3": {"min": 48, "max": 140, "mean": 99.4, "median": 101, "completed": 55, "above_110": 24.24,
          "above_120": 10.30, "above_140": 0.00, "tickets_done": 575, "tickets_failed": 66},
    "4": {"min": 46, "max": 148, "mean": 97.36, "median": 100, "completed": 60, "above_110": 25.00,
          "above_120": 8.75, "above_140": 0.42, "tickets_done": 873, "tickets_failed": 102},
    "5": {"min": 41, "max": 142, "mean": 92.05, "median": 91, "completed": 56, "above_110": 18.57,
          "above_120": 8.21, "above_140": 0.36, "tickets_done": 951, "tickets_failed": 135},
    "all": {"min": 41, "max": 157, "mean": 96.57, "median": 97, "completed": 231, "above_110": 23.11,
            "above_120": 10.31, "above_140": 0.87, "tickets_done": 2866, "tickets_failed": 366},
}
STUDY_UNIVERSAL = {
    "2": {"min": 45, "max": 154, "mean": 108.12, "median": 108, "completed": 60, "above_110": 43.33,
          "above_120": 25.00, "above_140": 3.33, "tickets_done": 515, "tickets_failed": 41},
    "3": {"min": 49, "max": 133, "mean": 96.51, "median": 97, "completed": 60, "above_110": 24.44,
          "above_120": 7.78, "above_140": 0.00, "tickets_done": 603, "tickets_failed": 90},
    "4": {"min": 54, "max": 144, "mean": 97.69, "median": 99.5, "completed": 59, "above_110": 23.73,
          "above_120": 8.05, "above_140": 1.27, "tickets_done": 855, "tickets_failed": 83},
    "5": {"min": 37, "max": 143, "mean": 94.88, "median": 96.5, "completed": 56, "above_110": 21.07,
          "above_120": 7.14, "above_140": 0.71, "tickets_done": 939, "tickets_failed": 111},
    "all": {"min": 37, "max": 154, "mean": 98.00, "median": 99, "completed": 235, "above_110": 25.86,
            "above_120": 10.17, "above_140": 1.10, "tickets_done": 2912, "tickets_failed": 325},
}


def dataset(config: DataConfig, path: str | Path | None = None,
            on_game: Callable[[str, int, int], None] | None = None) -> dict[str, Any]:
    """The dataset at ``path`` when it exists (its settings must be ``config``'s), else built (and saved there)."""
    if path is not None and Path(path).exists():
        data = ttr_dataset.load(path)
        stored = data["meta"]["config"]
        wanted = json.loads(json.dumps(config.__dict__))
        if stored != wanted:
            differ = sorted(k for k in wanted if stored.get(k) != wanted[k])
            raise BoardlabError(f"{path} holds a dataset of other settings ({', '.join(differ)}); "
                                "name another --data file or delete it")
        return data
    data = ttr_dataset.build(config, on_game)
    if path is not None:
        ttr_dataset.save(path, data)
    return data


def split(data: dict[str, Any], players: Sequence[int] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Training and held-out rows (by game), optionally only those of some player counts."""
    keep = np.ones(len(data["x"]), dtype=bool) if players is None else np.isin(data["players"], list(players))
    test = data["test"].astype(bool)
    return data["x"][keep & ~test], data["y"][keep & ~test], data["x"][keep & test], data["y"][keep & test]


def sidecar(model: str | Path, kind: str) -> Path:
    model = Path(model)
    return model.with_name(model.stem + "." + kind)


def train_model(data: dict[str, Any], net_config: Any, out: str | Path, resume: bool = True,
                players: Sequence[int] | None = None,
                on_epoch: Callable[[int, dict[str, float]], None] | None = None) -> dict[str, Any]:
    """Train (or go on training) the network of ``out`` on the dataset's training games; the metrics.

    A checkpoint at ``out`` made with other settings (but the epochs) is refused unless ``resume`` is
    False (then it is replaced)."""
    from boardlab.studies.tickettoride import training

    out = Path(out)
    x_fit, y_fit, x_test, y_test = split(data, players)
    if len(x_fit) == 0:
        raise BoardlabError("the dataset has no training rows for these player counts")
    extra = {"data": data["meta"], "players": list(players) if players else None}
    run = None
    if resume and out.exists():
        run = training.load(out)
        same = dict(run.config.__dict__, epochs=0) == dict(net_config.__dict__, epochs=0)
        if not same or json.loads(json.dumps(run.extra.get("data"))) != json.loads(json.dumps(extra["data"])):
            raise BoardlabError(f"{out} was trained with other settings; pass --fresh to replace it, or name another --out")
        run.config = net_config  # only the epochs may differ: train on to the new count
    if run is None:
        run = training.new_run(net_config, extra)
    start = run.epoch
    test = data["test"].astype(bool)
    keep = np.ones(len(test), dtype=bool) if not players else np.isin(data["players"], list(players))
    training.train(run, x_fit, y_fit, x_test, y_test, checkpoint=out, on_epoch=on_epoch)
    if run.epoch == start == 0:
        training.save(out, run)
    metrics = {
        "model": str(out), "net": run.config.__dict__, "data": data["meta"], "epochs": run.epoch, "resumed_from": start,
        "split": {"train_rows": int(len(x_fit)), "test_rows": int(len(x_test)),
                  "train_games": int(len(np.unique(data["game"][keep & ~test]))),
                  "test_games": int(len(np.unique(data["game"][keep & test])))},
        "class_counts": np.bincount(data["y"], minlength=4).tolist(),
        "train": training.evaluate(run.model, x_fit, y_fit),
        "test": training.evaluate(run.model, x_test, y_test),
        "history": run.history,
    }
    write_atomic(sidecar(out, "metrics.json"), json.dumps(metrics, indent=1) + "\n")
    if run.history.get("train_loss"):
        metrics["curves"] = str(training.curves_png(run.history, sidecar(out, "curves.png"),
                                                    f"ttr-classifier, {len(x_fit)} training decisions"))
    return metrics


def held_out_report(model: str | Path, data_path: str | Path | None = None) -> dict[str, Any]:
    """The model's accuracy on the games its dataset held out, overall and per player count."""
    from boardlab.studies.tickettoride import training

    run = training.load(model)
    meta = run.extra.get("data")
    if not isinstance(meta, dict) or not isinstance(meta.get("config"), dict):
        raise BoardlabError(f"{model}: the checkpoint does not say which data it was trained on")
    raw = dict(meta["config"])
    raw["players"] = tuple(raw.get("players", ()))
    config = DataConfig(**raw)
    data = dataset(config, data_path)
    _, _, x_test, y_test = split(data, run.extra.get("players"))
    test = data["test"].astype(bool)
    by_players = {}
    for k in sorted(set(data["players"][test].tolist())):
        keep = test & (data["players"] == k)
        by_players[str(k)] = training.evaluate(run.model, data["x"][keep], data["y"][keep])
    return {"model": str(model), "epochs": run.epoch, "test": training.evaluate(run.model, x_test, y_test),
            "by_players": by_players}


# --- experiment (a) --------------------------------------------------------------------------------------
def net_table(by_count: dict[int, list[GameResult]]) -> dict[str, dict[str, Any]]:
    """ttr-study's rows, plus the turns where the unmasked network chose a forbidden type, the games
    with such a turn, and those turns by the type chosen (``net_forbidden_moves``, ``net_forbidden_games``,
    ``net_forbidden_by_type``: pass, cards, tickets, claim)."""
    rows = ttr_study.table(by_count)
    total_moves = total_games = 0
    total_types = [0] * 4
    for k, results in by_count.items():
        moves = games = 0
        types = [0] * 4
        for result in results:
            agents = [a or {} for a in (result.stats or {}).get("agents", [])]
            count = sum(a.get("unmasked_forbidden", 0) for a in agents)
            for a in agents:
                types = [t + u for t, u in zip(types, a.get("unmasked_forbidden_by_type", [0] * 4))]
            moves += count
            games += 1 if count else 0
        if str(k) in rows:
            rows[str(k)].update(net_forbidden_moves=moves, net_forbidden_games=games, net_forbidden_by_type=types)
        total_moves += moves
        total_games += games
        total_types = [t + u for t, u in zip(total_types, types)]
    if "all" in rows:
        rows["all"].update(net_forbidden_moves=total_moves, net_forbidden_games=total_games, net_forbidden_by_type=total_types)
    return rows


NET_LINES = ttr_study.LINES + (("net_forbidden_games", "games where the unmasked net chose a forbidden type", 0),
                               ("net_forbidden_moves", "turns where the unmasked net chose a forbidden type", 0))


def with_se(rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Add the standard error of the mean score (σ / √players) to each row."""
    for row in rows.values():
        row["se"] = row["sd"] / math.sqrt(row["players"]) if row.get("players") else math.nan
    return rows


def net_spec(model: str | Path | None, mask: bool = True) -> str:
    options = [] if model is None else [f"path={model}"]
    if not mask:
        options.append("mask=false")
    return "ttr-net" + (":" + ",".join(options) if options else "")


def versus(model: str | Path | None = None, variant: str = "study", games: int = 250, seed: int = 2018,
           players: Sequence[int] = ttr_study.PLAYER_COUNTS, store: str | Path | None = None, workers: int = 1,
           on_game: Callable[[str, int, Any], None] | None = None, command: str = "") -> dict[str, Any]:
    """Experiment (a): the network in every seat and, on the same deals (the same seeds), the algorithmic
    player in every seat; both tables, with the study's."""
    spec = net_spec(model)
    net = ttr_study.run(variant, games, seed, spec, players, store, workers, compiled=True, command=command,
                        on_game=None if on_game is None else (lambda k, p: on_game("ttr-net", k, p)))
    algo = ttr_study.run(variant, games, seed, "ttr-algorithmic", players, store, workers, compiled=True, command=command,
                         on_game=None if on_game is None else (lambda k, p: on_game("ttr-algorithmic", k, p)))
    return {"agent": spec, "variant": variant, "games": games, "seed": seed,
            "net": with_se(net_table(net)), "algorithmic": with_se(ttr_study.table(algo)),
            "study_net": STUDY_NET, "study_algorithmic": ttr_study.STUDY, "_games": net}


def markdown(rows: dict[str, dict[str, Any]], study: dict[str, dict[str, float]] | None, lines=NET_LINES) -> str:
    """A table of ``rows`` with the study's value in brackets where it has one."""
    columns = list(rows)
    out = ["| | " + " | ".join("overall" if c == "all" else f"{c} players" for c in columns) + " |",
           "|" + " --- |" * (len(columns) + 1)]
    for key, label, digits in lines:
        cells = []
        for c in columns:
            value = rows[c].get(key)
            text = "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"
            theirs = (study or {}).get(c, {}).get(key)
            if theirs is not None:
                text += f" ({theirs:.{digits}f})"
            cells.append(text)
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


# --- experiment (b) --------------------------------------------------------------------------------------
B_LINES = (("min", "MIN", 0), ("max", "MAX", 0), ("mean", "AVG", 2), ("median", "MED", 1),
           ("completed", "games without a forbidden type (of the unmasked net)", 0),
           ("above_110", "% > 110", 2), ("above_120", "% > 120", 2), ("above_140", "% > 140", 2),
           ("tickets_done", "tickets completed (sum)", 0), ("tickets_failed", "tickets failed (sum)", 0))


def b_rows(by_count: dict[int, list[GameResult]]) -> dict[str, dict[str, Any]]:
    """The study's experiment (b) table: ttr-study's rows with the tickets as sums (the study's) and the
    games the study would have completed (no turn where the unmasked network chose a forbidden type)."""
    rows = net_table(by_count)
    for key, row in rows.items():
        counts = [int(key)] if key != "all" else list(by_count)
        results = [r for k in counts for r in by_count[k]]
        row["tickets_done"] = sum(sum(((r.stats or {}).get("game") or {}).get("tickets_done", [])) for r in results)
        row["tickets_failed"] = sum(sum(((r.stats or {}).get("game") or {}).get("tickets_failed", [])) for r in results)
        row["completed"] = row["games"] - row["net_forbidden_games"]
    return rows


def universal_vs_specific(folder: str | Path, data_config: DataConfig, net_config: Any, games: int = 60,
                          seed: int = 2019, store: str | Path | None = None, workers: int = 1,
                          on_step: Callable[[str], None] | None = None, command: str = "") -> dict[str, Any]:
    """Experiment (b): one model trained on every player count's decisions (universal) against one model per
    player count trained on that count's decisions only (specific), each playing ``games`` games per count.
    The models go to ``folder`` (resumable, as the games in the store)."""
    folder = Path(folder)
    data = dataset(data_config, folder / "data.npz")
    counts = sorted(set(int(k) for k in data_config.players))
    say = on_step or (lambda text: None)
    say("training the universal model")
    universal = train_model(data, net_config, folder / "universal.pt")
    specific_metrics = {}
    for k in counts:
        say(f"training the {k}-player model")
        specific_metrics[str(k)] = train_model(data, net_config, folder / f"players-{k}.pt", players=[k])
    say("playing the universal model")
    uni = ttr_study.run(data_config.variant, games, seed, net_spec(folder / "universal.pt"), counts, store, workers, command=command)
    spec_games: dict[int, list[GameResult]] = {}
    for k in counts:
        say(f"playing the {k}-player model")
        spec_games.update(ttr_study.run(data_config.variant, games, seed, net_spec(folder / f"players-{k}.pt"), [k], store,
                                        workers, command=command))
    return {
        "games": games, "seed": seed, "data": data["meta"],
        "held_out_accuracy": {"universal": universal["test"]["accuracy"],
                              **{k: m["test"]["accuracy"] for k, m in specific_metrics.items()}},
        "universal": b_rows(uni), "specific": b_rows(spec_games),
        "study_universal": STUDY_UNIVERSAL, "study_specific": STUDY_SPECIFIC,
        "_games": {"universal": uni, "specific": spec_games},
    }


def range_plot(results: dict[str, dict[int, list[GameResult]]], path: str | Path, title: str) -> Path:
    """MIN/AVG/MAX per player count of several agents (the study's "Zakres punktów dla badanych modeli")."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, (name, by_count) in enumerate(results.items()):
        counts = sorted(by_count)
        scores = [[s for r in by_count[k] for s in r.points()] for k in counts]
        xs = [k + (i - (len(results) - 1) / 2) * 0.15 for k in counts]
        mean = [float(np.mean(s)) for s in scores]
        ax.errorbar(xs, mean, yerr=[[m - min(s) for m, s in zip(mean, scores)], [max(s) - m for m, s in zip(mean, scores)]],
                    fmt="o", capsize=4, label=f"{name} (MIN, AVG, MAX)")
    ax.set_xticks(sorted({k for by_count in results.values() for k in by_count}))
    ax.set_xlabel("players")
    ax.set_ylabel("score")
    ax.set_title(title)
    ax.legend()
    return _save(fig, path)


def _save(fig: Any, path: str | Path) -> Path:
    import io

    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    write_atomic(Path(path), buffer.getvalue())
    return Path(path)


# --- experiment (c) --------------------------------------------------------------------------------------
C_LINES = (("rows", "decisions trained on", 0), ("loss", "mean deviation (cross-entropy, held-out rows)", 3),
           ("confidence", "mean confidence (held-out rows)", 3), ("accuracy", "held-out accuracy", 3),
           ("aborted", "games the unmasked net would have aborted", 0), ("max", "MAX points", 0), ("min", "MIN points", 0),
           ("finished_players", "players (every game played to the end, masked)", 0), ("mean", "mean points", 2),
           ("turns", "mean turns per player", 2), ("tickets_done", "mean tickets completed", 2),
           ("tickets_failed", "mean tickets failed", 2))

STUDY_PROGRESS = [
    {"rows": 0, "loss": 7.614, "confidence": 0.107, "aborted": 240, "finished_players": 0, "turns": 1.70},
    {"rows": 100, "loss": 0.649, "confidence": 0.689, "aborted": 1, "max": 123, "min": -3,
     "finished_players": 835, "mean": 81.63, "turns": 40.75, "tickets_done": 2.21, "tickets_failed": 0.43},
    {"rows": 200, "loss": 0.490, "confidence": 0.800, "aborted": 32, "max": 144, "min": 26,
     "finished_players": 702, "mean": 87.23, "turns": 42.23, "tickets_done": 2.39, "tickets_failed": 0.33},
    {"rows": 300, "loss": 0.610, "confidence": 0.692, "aborted": 4, "max": 125, "min": 4,
     "finished_players": 824, "mean": 75.69, "turns": 39.44, "tickets_done": 1.9, "tickets_failed": 0.54},
    {"rows": 400, "loss": 0.333, "confidence": 0.885, "aborted": 47, "max": 151, "min": 47,
     "finished_players": 654, "mean": 94.80, "turns": 44.25, "tickets_done": 3.08, "tickets_failed": 0.32},
]


def progress_row(by_count: dict[int, list[GameResult]]) -> dict[str, Any]:
    """Games of one step: those the unmasked network would have aborted (the study's games ended at the
    first forbidden move), and over every game (played to the end, masked) the players, points, turns and
    tickets per player."""
    aborted = 0
    points: list[float] = []
    turns: list[float] = []
    done: list[float] = []
    failed: list[float] = []
    for results in by_count.values():
        for r in results:
            agents = [a or {} for a in (r.stats or {}).get("agents", [])]
            if any(a.get("unmasked_forbidden", 0) for a in agents):
                aborted += 1
            game = (r.stats or {}).get("game") or {}
            points += list(r.points())
            turns += [a.get("net_decisions", 0) for a in agents]
            done += game.get("tickets_done", [])
            failed += game.get("tickets_failed", [])
    row: dict[str, Any] = {"games": sum(len(v) for v in by_count.values()), "aborted": aborted, "finished_players": len(points)}
    if points:
        row.update(max=max(points), min=min(points), mean=float(np.mean(points)), turns=float(np.mean(turns)),
                   tickets_done=float(np.mean(done)), tickets_failed=float(np.mean(failed)))
    return row


def learning_progress(folder: str | Path, data_config: DataConfig, net_config: Any, step: int = 100, steps: int = 5,
                      games: int = 60, seed: int = 2020, store: str | Path | None = None, workers: int = 1,
                      on_step: Callable[[str], None] | None = None, command: str = "") -> dict[str, Any]:
    """Experiment (c): the untrained network, then after each further ``step`` training decisions (one pass
    of AdaGrad batches over ``step`` rows drawn from the training games), the held-out rows' mean
    cross-entropy, confidence and accuracy, and ``games`` games per player count with that network.
    A step larger than the training rows trains on each of them once."""
    from boardlab.studies.tickettoride import training

    folder = Path(folder)
    data = dataset(data_config, folder / "data.npz")
    x_fit, y_fit, x_test, y_test = split(data)
    counts = sorted(set(int(k) for k in data_config.players))
    say = on_step or (lambda text: None)
    run = training.new_run(net_config, {"data": data["meta"]})
    rows = []
    for i in range(steps + 1):
        path = folder / f"step-{i}.pt"
        if path.exists():
            run = training.load(path)
        else:
            if i > 0:
                training.train_steps(run, x_fit, y_fit, rows=step, epoch_seed=i)
            run.epoch = i
            training.save(path, run)
        held = training.evaluate(run.model, x_test, y_test)
        say(f"step {i}: playing")
        by_count = ttr_study.run(data_config.variant, games, seed, net_spec(path), counts, store, workers, command=command)
        row = {"step": i, "rows": i * min(step, len(x_fit)), "loss": held["loss"], "confidence": held["confidence"],
               "accuracy": held["accuracy"], **progress_row(by_count)}
        rows.append(row)
    return {"step": step, "steps": steps, "games": games, "seed": seed, "rows": rows, "study": STUDY_PROGRESS}


def progress_plot(rows: list[dict[str, Any]], path: str | Path) -> Path:
    """Mean, MIN and MAX points and the held-out cross-entropy per step (the study's figure)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    played = [r for r in rows if "mean" in r]
    xs = [r["rows"] for r in played]
    for key, style in (("max", "^-"), ("mean", "o-"), ("min", "v-")):
        ax.plot(xs, [r[key] for r in played], style, label=f"{key} points")
    ax.set_xlabel("decisions trained on")
    ax.set_ylabel("points")
    right = ax.twinx()
    right.plot([r["rows"] for r in rows], [r["loss"] for r in rows], "k--", label="held-out cross-entropy")
    right.set_ylabel("mean cross-entropy")
    lines = ax.get_legend_handles_labels()
    more = right.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], loc="center right")
    ax.set_title("Learning progress of the classifier")
    return _save(fig, path)
