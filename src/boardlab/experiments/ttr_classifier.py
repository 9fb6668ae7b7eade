"""The Ticket to Ride study's classifier: data, training, and its three experiments.

* :func:`train_model`: the dataset (:mod:`boardlab.bots.ttr_dataset`) and the
  network (:mod:`boardlab.nn.ttr_net`) trained on its training games, checked on
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
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from boardlab.arena.store import GameResult
from boardlab.bots import ttr_dataset
from boardlab.bots.ttr_dataset import DataConfig
from boardlab.core.errors import BoardlabError
from boardlab.core.records import write_atomic
from boardlab.experiments import ttr_study

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
    "2": {"min": 41, "max": 157, "mean": 101.66, "median": 99.5, "completed": 60, "above_110": 28.33, "above_120": 18.33, "above_140": 4.17, "tickets_done": 467, "tickets_failed": 63},
    "3": {"min": 48, "max": 140, "mean": 99.4, "median": 101, "completed": 55, "above_110": 24.24, "above_120": 10.30, "above_140": 0.00, "tickets_done": 575, "tickets_failed": 66},
    "4": {"min": 46, "max": 148, "mean": 97.36, "median": 100, "completed": 60, "above_110": 25.00, "above_120": 8.75, "above_140": 0.42, "tickets_done": 873, "tickets_failed": 102},
    "5": {"min": 41, "max": 142, "mean": 92.05, "median": 91, "completed": 56, "above_110": 18.57, "above_120": 8.21, "above_140": 0.36, "tickets_done": 951, "tickets_failed": 135},
    "all": {"min": 41, "max": 157, "mean": 96.57, "median": 97, "completed": 231, "above_110": 23.11, "above_120": 10.31, "above_140": 0.87, "tickets_done": 2866, "tickets_failed": 366},
}
STUDY_UNIVERSAL = {
    "2": {"min": 45, "max": 154, "mean": 108.12, "median": 108, "completed": 60, "above_110": 43.33, "above_120": 25.00, "above_140": 3.33, "tickets_done": 515, "tickets_failed": 41},
    "3": {"min": 49, "max": 133, "mean": 96.51, "median": 97, "completed": 60, "above_110": 24.44, "above_120": 7.78, "above_140": 0.00, "tickets_done": 603, "tickets_failed": 90},
    "4": {"min": 54, "max": 144, "mean": 97.69, "median": 99.5, "completed": 59, "above_110": 23.73, "above_120": 8.05, "above_140": 1.27, "tickets_done": 855, "tickets_failed": 83},
    "5": {"min": 37, "max": 143, "mean": 94.88, "median": 96.5, "completed": 56, "above_110": 21.07, "above_120": 7.14, "above_140": 0.71, "tickets_done": 939, "tickets_failed": 111},
    "all": {"min": 37, "max": 154, "mean": 98.00, "median": 99, "completed": 235, "above_110": 25.86, "above_120": 10.17, "above_140": 1.10, "tickets_done": 2912, "tickets_failed": 325},
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
    from boardlab.nn import ttr_net

    out = Path(out)
    x_fit, y_fit, x_test, y_test = split(data, players)
    if len(x_fit) == 0:
        raise BoardlabError("the dataset has no training rows for these player counts")
    extra = {"data": data["meta"], "players": list(players) if players else None}
    run = None
    if resume and out.exists():
        run = ttr_net.load(out)
        same = dict(run.config.__dict__, epochs=0) == dict(net_config.__dict__, epochs=0)
        if not same or json.loads(json.dumps(run.extra.get("data"))) != json.loads(json.dumps(extra["data"])):
            raise BoardlabError(f"{out} was trained with other settings; pass --fresh to replace it, or name another --out")
        run.config = net_config  # only the epochs may differ: train on to the new count
    if run is None:
        run = ttr_net.new_run(net_config, extra)
    start = run.epoch
    ttr_net.train(run, x_fit, y_fit, x_test, y_test, checkpoint=out, on_epoch=on_epoch)
    if run.epoch == start == 0:
        ttr_net.save(out, run)
    metrics = {
        "model": str(out), "net": run.config.__dict__, "data": data["meta"], "epochs": run.epoch, "resumed_from": start,
        "split": {"train_rows": int(len(x_fit)), "test_rows": int(len(x_test)),
                  "train_games": int(len(np.unique(data["game"][~data["test"].astype(bool)]))),
                  "test_games": int(len(np.unique(data["game"][data["test"].astype(bool)])))},
        "class_counts": np.bincount(data["y"], minlength=4).tolist(),
        "train": ttr_net.evaluate(run.model, x_fit, y_fit),
        "test": ttr_net.evaluate(run.model, x_test, y_test),
        "history": run.history,
    }
    write_atomic(sidecar(out, "metrics.json"), json.dumps(metrics, indent=1) + "\n")
    if run.history.get("train_loss"):
        metrics["curves"] = str(ttr_net.curves_png(run.history, sidecar(out, "curves.png"),
                                                   f"ttr-classifier, {len(x_fit)} training decisions"))
    return metrics


def held_out_report(model: str | Path, data_path: str | Path | None = None) -> dict[str, Any]:
    """The model's accuracy on the games its dataset held out, overall and per player count."""
    from boardlab.nn import ttr_net

    run = ttr_net.load(model)
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
        by_players[str(k)] = ttr_net.evaluate(run.model, data["x"][keep], data["y"][keep])
    return {"model": str(model), "epochs": run.epoch, "test": ttr_net.evaluate(run.model, x_test, y_test),
            "by_players": by_players}


# --- experiment (a) --------------------------------------------------------------------------------------
def net_table(by_count: dict[int, list[GameResult]]) -> dict[str, dict[str, Any]]:
    """ttr-study's rows, plus the turns where the unmasked network chose a forbidden type and the games
    with such a turn (``net_forbidden_moves``, ``net_forbidden_games``)."""
    rows = ttr_study.table(by_count)
    total_moves = total_games = 0
    for k, results in by_count.items():
        moves = games = 0
        for result in results:
            count = sum((a or {}).get("unmasked_forbidden", 0) for a in (result.stats or {}).get("agents", []))
            moves += count
            games += 1 if count else 0
        if str(k) in rows:
            rows[str(k)].update(net_forbidden_moves=moves, net_forbidden_games=games)
        total_moves += moves
        total_games += games
    if "all" in rows:
        rows["all"].update(net_forbidden_moves=total_moves, net_forbidden_games=total_games)
    return rows


NET_LINES = ttr_study.LINES + (("net_forbidden_games", "games where the unmasked net chose a forbidden type", 0),
                               ("net_forbidden_moves", "turns where the unmasked net chose a forbidden type", 0))
