"""The No Thanks! imitation experiments: the study's numbers over seeds, and real games.

(a) :func:`imitation_over_seeds` trains the network on the study's sizes
(1,000 states, 800/200) for several seeds and reports agreement and MSE as
mean and spread; the same at a larger size.

(b) :func:`four_player_table` plays many 4-player games with the seats
rotated through all 24 orders (:func:`seating_for`), and reports each
agent's mean score with a 95 % interval (1.96 standard errors) and win rate
with a 95 % Wilson interval.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.arena.stats import wilson
from boardlab.core.errors import BoardlabError, FormatError
from boardlab.core.files import check_output_file
from boardlab.core.records import write_atomic
from boardlab.core.registry import make
from boardlab.core.rng import derive_seed
from boardlab.studies.nothanks.training import TrainConfig, evaluate_model, load_checkpoint, read_metrics, sidecar, train


def mean_spread(values: Sequence[float]) -> dict[str, float]:
    """Mean, sample standard deviation, min and max."""
    arr = np.asarray(values, dtype=float)
    return {
        "mean": float(arr.mean()),
        "std": float(arr.std(ddof=1)) if len(arr) > 1 else 0.0,
        "min": float(arr.min()),
        "max": float(arr.max()),
    }


def imitation_over_seeds(
    seeds: Sequence[int], base: TrainConfig, on_run: Callable[[int, dict[str, Any]], None] | None = None
) -> dict[str, Any]:
    """Train once per seed with ``base``'s other settings; test agreement and MSE over the seeds."""
    runs = []
    for seed in seeds:
        config = TrainConfig(**{**asdict(base), "seed": seed})
        result = train(config)
        test = result.metrics["test"]
        run = {"seed": seed, "agreement": test["agreement"], "mse": test["mse"],
               "epochs_run": result.metrics["epochs_run"], "best_epoch": result.metrics["best_epoch"]}
        runs.append(run)
        if on_run is not None:
            on_run(seed, run)
    return {
        "config": {k: v for k, v in asdict(base).items() if k != "seed"},
        "seeds": list(seeds),
        "runs": runs,
        "agreement": mean_spread([r["agreement"] for r in runs]),
        "mse": mean_spread([r["mse"] for r in runs]),
    }


#: every order of four agents round the table
SEATINGS = [list(p) for p in itertools.permutations(range(4))]


def seatings(agents: int) -> list[list[int]]:
    """Every ordered choice of 4 of ``agents`` agents (the 24 orders of four when there are four)."""
    return [list(p) for p in itertools.permutations(range(agents), 4)]


def seating_for(index: int, agents: int = 4) -> list[int]:
    """Game ``index``'s seating (seat -> agent index): every order in turn.

    Rotating the seats alone keeps the cyclic order, so an agent would always
    sit behind the same one -- and in No Thanks! the player before you decides
    which cards reach you and with how many chips. Cycling through all 24
    orders puts each agent in each seat and behind each other agent equally
    often (in every block of 24 games). With more than four agents the cycle
    is every ordered choice of four (360 for six), with the same balance, and
    each agent plays 4/N of the games.
    """
    orders = SEATINGS if agents == 4 else seatings(agents)
    return orders[index % len(orders)]


def four_player_table(
    agents: Sequence[str],
    games: int,
    seed: int,
    on_game: Callable[[int], None] | None = None,
    store: str | Path | None = None,
) -> dict[str, Any]:
    """Play ``games`` games of ``nothanks:players=4``, seats cycled through every order.

    Game ``i`` seats the agents by :func:`seating_for` and is seeded by
    ``derive_seed(seed, "nothanks-table", i)``, so any game can be replayed on
    its own. With more than four agents each game seats four of them (every
    ordered choice in turn), so rows compare agents that met the same mix of
    opponents. With ``store`` (a JSON-lines file) each finished game is appended
    as it ends and games already there are not played again: a stopped run
    resumes. Win rate counts a shared win as its share (1/k), so win rates sum to 1
    over the four seats of a game.
    """
    if not 4 <= len(agents) <= 8:
        raise BoardlabError(f"the 4-player table needs 4 to 8 agents, got {len(agents)}")
    game = make("nothanks", players=4)
    players = [make_agent(spec, game) for spec in agents]
    done: dict[int, dict[str, Any]] = {}
    if store is not None:
        store = Path(store)
        if store.exists():
            lines = store.read_text(encoding="utf-8").splitlines()
            for line_no, line in enumerate(lines, 1):
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    if line_no < len(lines):
                        raise FormatError(f"{store}: line {line_no} is not JSON") from None
                    # the last line was cut short by a kill: drop it, that game is played again
                    write_atomic(store, "".join(kept + "\n" for kept in lines[:-1]))
                    break
                if row.get("agents") != list(agents) or row.get("seed") != seed:
                    raise BoardlabError(
                        f"{store}: line {line_no} belongs to another table "
                        f"(agents {row.get('agents')}, seed {row.get('seed')}); use another file"
                    )
                done[int(row["index"])] = row
        store.parent.mkdir(parents=True, exist_ok=True)
    handle = open(store, "a", encoding="utf-8") if store is not None else None
    try:
        for index in range(games):
            if index not in done:
                seating = seating_for(index, len(agents))
                record = play_game(game, [players[a] for a in seating], seed=derive_seed(seed, "nothanks-table", index))
                final = game.state_from_history(record.actions, record.seed)
                row = {"index": index, "seed": seed, "agents": list(agents), "seating": seating,
                       "scores": final.scores(), "returns": record.returns}
                done[index] = row
                if handle is not None:
                    handle.write(json.dumps(row) + "\n")
                    handle.flush()
            if on_game is not None:
                on_game(index)
    finally:
        if handle is not None:
            handle.close()
    scores: list[list[int]] = [[] for _ in agents]
    wins: list[list[float]] = [[] for _ in agents]
    for index in range(games):
        row = done[index]
        for seat, a in enumerate(row["seating"]):
            scores[a].append(row["scores"][seat])
            wins[a].append(row["returns"][seat])
    rows = []
    for a, spec in enumerate(agents):
        s = np.asarray(scores[a], float)
        w = np.asarray(wins[a], float)
        se_score = s.std(ddof=1) / math.sqrt(len(s)) if len(s) > 1 else math.nan
        se_win = w.std(ddof=1) / math.sqrt(len(w)) if len(w) > 1 else math.nan
        rows.append({
            "agent": spec,
            "games": len(s),
            "mean_score": float(s.mean()),
            "score_se": float(se_score),
            "score_ci95": [float(s.mean() - 1.96 * se_score), float(s.mean() + 1.96 * se_score)],
            "win_rate": float(w.mean()),
            "win_se": float(se_win),
            "win_ci95": list(wilson(float(w.sum()), len(w))),
        })
    return {"game": "nothanks:players=4", "games": games, "seed": seed, "rows": rows}


def plot_learning_curve(metrics: dict[str, Any], path: str | Path) -> Path:
    """Training and validation MSE per epoch from a metrics JSON, as a PNG (written atomically)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    history = metrics.get("history")
    if not isinstance(history, dict) or not history.get("train_loss"):
        raise BoardlabError("the metrics have no learning history ('history.train_loss')")
    epochs = range(1, len(history["train_loss"]) + 1)
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
    ax.plot(epochs, history["train_loss"], label="training MSE")
    ax.plot(epochs, history["validation_loss"], label="validation MSE")
    best = metrics.get("best_epoch")
    if best:
        ax.axvline(best, color="grey", linestyle=":", label=f"best epoch {best}")
    test = metrics.get("test", {})
    if "mse" in test:
        ax.axhline(test["mse"], color="black", linewidth=0.8, linestyle="--", label=f"test MSE {test['mse']:.4f}")
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("MSE (log scale)")
    config = metrics.get("config", {})
    ax.set_title(f"No Thanks! imitation: {config.get('states', '?')} states, seed {config.get('seed', '?')}")
    ax.legend()
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    path = Path(path)
    write_atomic(path, buffer.getvalue())
    return path


def agreement_in_play(agents: Sequence[str], games: int, seed: int, model: str | Path | None = None) -> dict[str, Any]:
    """How often the network agrees with the expert on the positions real games reach.

    Plays ``games`` 4-player games of ``agents`` (seatings as in the
    table) and asks both the expert and the network at every decision where
    passing is allowed, whoever is to move. Generated states are only a proxy
    for these; this is the agreement that decides how alike the two play.
    """
    from boardlab.bots.nothanks.net_agent import DEFAULT_MODEL, load_model
    from boardlab.studies.nothanks.training import label

    net = load_model(model or DEFAULT_MODEL)
    labels = load_checkpoint(model or DEFAULT_MODEL)[1].labels  # the reading the net was trained on
    game = make("nothanks", players=4)
    players = [make_agent(spec, game) for spec in agents]
    counts = {"decisions": 0, "agree": 0}

    def on_move(state, player, action) -> None:
        if player < 0 or len(state.legal_actions()) < 2:
            return
        counts["decisions"] += 1
        counts["agree"] += (label(state, labels) > 0.5) == (net.value(state) > 0.5)

    for index in range(games):
        seating = seating_for(index, len(agents))
        play_game(game, [players[a] for a in seating], seed=derive_seed(seed, "nothanks-table", index), on_move=on_move)
    return {**counts, "agreement": counts["agree"] / counts["decisions"] if counts["decisions"] else math.nan}


def evaluate_model_file(model: str | Path, states: int = 1000, seed: int = 2026, plot: str | Path | None = None) -> dict[str, Any]:
    """A trained model's agreement with the expert, MSE and confusion on ``states`` fresh states.

    The states come from ``derive_seed(seed, "nothanks-imitation-eval")``, a stream apart
    from any training data, with the generator and player count the model was trained on.
    With ``plot`` the learning curve is drawn from ``NAME.metrics.json`` beside the model
    into that file; nothing is written otherwise.
    """
    from boardlab.bots.nothanks.expert import generate_states

    if states < 1:
        raise BoardlabError(f"--states must be positive, not {states}")
    model = Path(model)
    net, config, _ = load_checkpoint(model)
    metrics = None
    if plot is not None:  # checked before the long part, so that a mistake fails at once
        check_output_file(plot, "--plot")
        metrics_file = sidecar(model, "metrics.json")
        if not metrics_file.is_file():
            raise BoardlabError(f"{model}: no {metrics_file.name} beside it, so no learning curve to plot")
        metrics = read_metrics(metrics_file)
    held_out = generate_states(states, derive_seed(seed, "nothanks-imitation-eval"), config.players, config.generator)
    report = evaluate_model(net, held_out, config.labels)
    written = str(plot_learning_curve(metrics, plot)) if metrics is not None else None
    return {"model": str(model), "states": states, "seed": seed, "labels": config.labels,
            **{k: report[k] for k in ("agreement", "mse", "confusion")}, "plot": written}
