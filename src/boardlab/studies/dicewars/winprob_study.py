"""Training and judging the Dice Wars win-probability network on held-out games.

The data are every board of seat-fair reference-bot games (:mod:`.winprob_data`), cancelled
games left out (no winner to learn). The split is **by board group**: the rotations of one
schedule board share its map, first position and dice stream, so all of them go to the same side
and no game (nor its rotated twins) is seen both in training and in the test. ``split="board"``
is the study's split instead: boards shuffled and cut, so a game's boards land on both sides.
The validation set that stops training is carved the same way out of the training side.

Every forecast (the network and the baselines of :mod:`.winprob_baselines`) is judged
on the same test boards: log-loss, Brier score, accuracy, ECE, overall and per phase. Two
phase cuts, because they mean different things: the number of players still alive (4, 3, 2:
the game's structure changes with each elimination, and a 2-player endgame is mostly decided),
and the round (every player's turn once: 0-2 the opening where the initial deal dominates,
3-5, 6-9, 10 and later; the quartiles of the reference bots' boards, whose games last 12 rounds
at the median).
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

import numpy as np

from boardlab.bots.dicewars.features import features
from boardlab.core.errors import BoardlabError, FormatError
from boardlab.studies.dicewars import winprob_baselines as baselines
from boardlab.studies.dicewars import winprob_metrics as metrics
from boardlab.studies.dicewars.winprob_data import COURSE_POOL, generate, split_by_board, split_by_game

SPLITS = ("game", "board")
ALIVE_PHASES = {4: "4 alive", 3: "3 alive", 2: "2 alive"}
ROUND_EDGES = (3, 6, 10)
ROUND_PHASES = {0: "rounds 0-2", 1: "rounds 3-5", 2: "rounds 6-9", 3: "rounds 10+"}
DATA_KEYS = ("owner", "dice", "turns", "game", "winner", "adjacency", "seed")


def dataset(boards: int, seed: int, path: Path | None = None, on_note: Callable[[str], None] | None = None) -> dict[str, np.ndarray]:
    """The boards of ``boards`` schedule boards (4 games each) of the course's pool on ``seed``: read from
    ``path`` when it holds them (made with the same settings), else generated (and written there)."""
    if path is not None and path.exists():
        try:
            with np.load(path, allow_pickle=False) as z:
                data = {k: z[k] for k in DATA_KEYS}
                made = (int(z["boards"]), int(z["data_seed"]))
        except (OSError, KeyError, ValueError) as exc:
            raise FormatError(f"{path}: not a Dice Wars win-probability dataset ({str(exc)[:120]})") from None
        if made != (boards, seed):
            raise BoardlabError(f"{path}: made with --boards {made[0]} --data-seed {made[1]}, not {boards} and {seed}; "
                                "give another --data file or the same settings")
        return data
    if on_note:
        on_note(f"playing {4 * boards} games")
    data = generate(boards, seed, COURSE_POOL)
    if path is not None:
        import io

        from boardlab.core.records import write_atomic

        buffer = io.BytesIO()
        np.savez_compressed(buffer, boards=boards, data_seed=seed, **data)
        write_atomic(path, buffer.getvalue())
    return data


def prepared(data: dict[str, np.ndarray], players: int = 4, every: int = 1) -> dict[str, np.ndarray]:
    """Inputs, winners, groups and phases of the boards of games that ended with a winner, less each
    game's last board (one player owns it all: the game is over, and a search never asks); with
    ``every`` k, only every k-th board of each game (its first, its (k+1)-th, ...)."""
    alive = (data["owner"][:, :, None] == np.arange(players)[None, None, :]).any(axis=1).sum(axis=1)
    won = (data["winner"][data["game"]] >= 0) & (alive > 1)
    if every > 1:
        first = np.searchsorted(data["game"], data["game"])  # the boards of a game are consecutive
        won &= (np.arange(len(data["game"])) - first) % every == 0
    game = data["game"][won]
    owner, dice, turns = data["owner"][won], data["dice"][won], data["turns"][won]
    x = features(data["adjacency"][game], owner, dice, turns, players)
    alive = alive[won]
    rounds = turns // players
    return {"x": x, "y": data["winner"][game].astype(np.int64), "game": game, "group": data["seed"][game],
            "owner": owner, "dice": dice, "alive": alive, "round_phase": np.searchsorted(ROUND_EDGES, rounds, side="right"),
            "areas": owner.shape[1], "cancelled": int((data["winner"] < 0).sum()), "games": int(len(data["winner"]))}


def split(rows: dict[str, np.ndarray], how: str, test_fraction: float, validation_fraction: float,
          seed: int) -> dict[str, np.ndarray]:
    """Row indices of ``train``, ``validation`` and ``test`` (by board group, or the study's by board)."""
    if how not in SPLITS:
        raise BoardlabError(f"--split must be one of {', '.join(SPLITS)}, not {how!r}")
    for name, value in (("--test-fraction", test_fraction), ("--validation-fraction", validation_fraction)):
        if not 0 < value < 0.5:
            raise BoardlabError(f"{name} must be between 0 and 0.5, not {value}")
    if how == "game":
        rest, test = split_by_game(rows["group"], test_fraction, seed)
        inner_train, inner_val = split_by_game(rows["group"][rest], validation_fraction, seed + 1)
    else:
        rest, test = split_by_board(len(rows["y"]), test_fraction, seed)
        inner_train, inner_val = split_by_board(len(rest), validation_fraction, seed + 1)
    return {"train": rest[inner_train], "validation": rest[inner_val], "test": test}


def judge(forecasts: dict[str, np.ndarray], rows: dict[str, np.ndarray], index: np.ndarray) -> dict[str, Any]:
    """Every forecast's scores on the boards ``index``: overall, by players alive, by round."""
    y = rows["y"][index]
    out = {}
    for name, p in forecasts.items():
        out[name] = {"all": metrics.scores(p, y),
                     "alive": metrics.by_phase(p, y, rows["alive"][index], ALIVE_PHASES),
                     "round": metrics.by_phase(p, y, rows["round_phase"][index], ROUND_PHASES),
                     "reliability": metrics.reliability(p, y)}
    return out


def gaps(forecasts: dict[str, np.ndarray], rows: dict[str, np.ndarray], index: np.ndarray) -> dict[str, Any]:
    """The network's log-loss minus each baseline's on the boards ``index``, with a 95 % interval from a
    bootstrap over board groups (a game and its rotated twins move together)."""
    y, groups = rows["y"][index], rows["group"][index]
    return {name: metrics.log_loss_gap(forecasts["net"], p, y, groups) for name, p in forecasts.items() if name != "net"}


def run(data: dict[str, np.ndarray], config, how: str = "game", test_fraction: float = 0.2,
        validation_fraction: float = 0.1, split_seed: int = 0, every: int = 1,
        on_epoch: Callable[[int, dict], None] | None = None) -> tuple[Any, dict[str, Any]]:
    """Train the network on one split of ``data`` and judge it and the baselines on the test side.
    Returns the model and the metrics (JSON-ready)."""
    import torch

    from boardlab.bots.dicewars import network
    from boardlab.studies.dicewars import winprob_training

    if every < 1:
        raise BoardlabError(f"--every must be 1 or more, not {every}")
    rows = prepared(data, config.players, every)
    parts = split(rows, how, test_fraction, validation_fraction, split_seed)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the house rule: one core for long jobs
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        model, fit = winprob_training.train(config, rows["x"][parts["train"]], rows["y"][parts["train"]],
                                           rows["x"][parts["validation"]], rows["y"][parts["validation"]], on_epoch)
        train_cpu, train_wall = time.process_time() - cpu, time.perf_counter() - wall
        test = parts["test"]
        forecasts = {"net": network.probabilities(model, rows["x"][test])}
    finally:
        torch.set_num_threads(threads)
    fitted = parts["train"]  # the baselines fit on the network's training boards (its validation boards unused)
    region, dice = baselines.regions_and_dice(rows["owner"], rows["dice"], rows["game"], data["adjacency"], config.players)
    weights = baselines.fit_all(region[fitted], dice[fitted], rows["y"][fitted], rows["areas"])
    forecasts.update(baselines.predict_all(weights, region[test], dice[test], rows["areas"]))
    games = {k: int(len(np.unique(rows["game"][v]))) for k, v in parts.items()}
    shared = len(set(rows["game"][parts["test"]].tolist()) & set(rows["game"][parts["train"]].tolist()))
    result = {
        "split": how, "every": every, "config": asdict(config),
        "data": {"games": rows["games"], "cancelled": rows["cancelled"], "boards": int(len(rows["y"]))},
        "sizes": {k: {"boards": int(len(v)), "games": games[k]} for k, v in parts.items()},
        "test_games_also_in_training": shared,
        "training": {**fit, "cpu_seconds": train_cpu, "wall_seconds": train_wall,
                     "train_log_loss": winprob_training.mean_log_loss(model, rows["x"][parts["train"]], rows["y"][parts["train"]])},
        "baseline_weights": weights,
        "test": judge(forecasts, rows, test),
        "test_gap": gaps(forecasts, rows, test),
    }
    return model, result


FORECAST_NAMES = {"net": "network", "wpm": "wpm logistic (refitted)", "share": "region/dice share",
                  "wpm-course": "wpm logistic (course's weights)"}
METRICS = (("log_loss", "log-loss", "{:.3f}"), ("brier", "Brier score", "{:.3f}"), ("ece", "ECE", "{:.3f}"),
           ("accuracy", "accuracy", "{:.1%}"))


def markdown(result: dict[str, Any]) -> str:
    """The held-out figures as Markdown tables, one per measure: phases down, forecasts across."""
    test = result["test"]
    names = [n for n in FORECAST_NAMES if n in test]
    phases = [("all boards", lambda r: r["all"])]
    phases += [(k, lambda r, k=k: r["alive"][k]) for k in ALIVE_PHASES.values()]
    phases += [(k, lambda r, k=k: r["round"][k]) for k in ROUND_PHASES.values()]
    out = []
    for key, title, fmt in METRICS:
        out.append(f"**{title}** (held-out boards, split by {result['split']})\n")
        out.append("| boards | count | " + " | ".join(FORECAST_NAMES[n] for n in names) + " |")
        out.append("| --- | ---: | " + " | ".join("---:" for _ in names) + " |")
        for label, pick in phases:
            count = pick(test["net"]).get("boards", 0)
            cells = [fmt.format(pick(test[n])[key]) if count else "" for n in names]
            out.append(f"| {label} | {count:,} | " + " | ".join(cells) + " |")
        out.append("")
    if result.get("test_gap"):
        out.append("**The network's log-loss minus each baseline's** (all held-out boards; 95 % interval from a bootstrap over "
                   "board groups)\n")
        out.append("| baseline | gap | 95 % interval |")
        out.append("| --- | ---: | --- |")
        for name, g in result["test_gap"].items():
            if g.get("boards"):
                out.append(f"| {FORECAST_NAMES[name]} | {g['gap']:+.3f} | {g['low']:+.3f} to {g['high']:+.3f} |")
        out.append("")
    return "\n".join(out)


def held_out(model_path: Path, data_path: Path | None = None) -> dict[str, Any]:
    """A saved model's figures on the test side of the split it was trained with (the games are played
    again from the seeds in the model file, or read from ``data_path``), beside the baselines refitted
    on its training side."""
    from boardlab.bots.dicewars import network

    model, config, extra = network.load(model_path)
    try:
        boards, data_seed, how = int(extra["boards"]), int(extra["data_seed"]), str(extra["split"])
        every = int(extra.get("every", 1))
    except (KeyError, TypeError, ValueError):
        raise FormatError(f"{model_path}: the model does not say which games it was trained on") from None
    test_fraction, validation_fraction = float(extra.get("test_fraction", 0.2)), float(extra.get("validation_fraction", 0.1))
    data = dataset(boards, data_seed, data_path)
    rows = prepared(data, config.players, every)
    parts = split(rows, how, test_fraction, validation_fraction, config.seed)
    test, fitted = parts["test"], parts["train"]
    forecasts = {"net": network.probabilities(model, rows["x"][test])}
    region, dice = baselines.regions_and_dice(rows["owner"], rows["dice"], rows["game"], data["adjacency"], config.players)
    weights = baselines.fit_all(region[fitted], dice[fitted], rows["y"][fitted], rows["areas"])
    forecasts.update(baselines.predict_all(weights, region[test], dice[test], rows["areas"]))
    return {"model": str(model_path), "split": how, "every": every, "command": extra.get("command"),
            "sizes": {k: {"boards": int(len(v)), "games": int(len(np.unique(rows["game"][v])))} for k, v in parts.items()},
            "test": judge(forecasts, rows, test), "test_gap": gaps(forecasts, rows, test)}
