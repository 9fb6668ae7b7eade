"""The No Thanks! imitation study as a recipe and an experiment (entry points ``nothanks-imitation``).

``boardlab train nothanks-imitation``, ``boardlab evaluate MODEL`` (for its model
files) and ``boardlab experiment nothanks-imitation``. The work is in
:mod:`boardlab.studies.nothanks.training` and :mod:`boardlab.studies.nothanks.experiments`.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from boardlab.commands.console import console, print_json, progress_bar
from boardlab.commands.plugin import Experiment, Recipe
from boardlab.core.config import build
from boardlab.core.errors import SpecError
from boardlab.core.files import check_output_file, output_file


def train(
    states: Annotated[int, typer.Option("--states", help="Generated states, split into training and test.")] = 1000,
    epochs: Annotated[int, typer.Option("--epochs", help="Most epochs; early stopping may end sooner.")] = 500,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Seed of the states, the split, the weights and the batches.")] = 1,
    out: Annotated[Path, typer.Option("--out", "-o", help="Model file; NAME.config.json and NAME.metrics.json go beside it.")] = Path("models/nothanks.pt"),
    test_fraction: Annotated[float, typer.Option("--test-fraction", help="Share of states held out for the test (the study: 200 of 1000).")] = 0.2,
    patience: Annotated[int, typer.Option("--patience", help="Stop after this many epochs without a better validation loss.")] = 50,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Minibatch size.")] = 16,
    lr: Annotated[float, typer.Option("--lr", help="Adam learning rate.")] = 1e-3,
    generator: Annotated[str, typer.Option("--generator", help="State generator: plausible (mixed habits, default) or random.")] = "plausible",
    schedule: Annotated[str, typer.Option("--schedule", help="none, or plateau: halve the rate after 10 epochs without progress.")] = "none",
    labels: Annotated[str, typer.Option(
        "--labels", help="as-written: the expert's values as the study wrote them (1 = PASS, the study's default); flipped: "
        "read the other way round (1 = TAKE), the expert that plays well (nothanks-expert:read=flipped).",
    )] = "as-written",
    json_out: Annotated[bool, typer.Option(
        "--json",
        help="Print one JSON object: model, config, metrics_file, split {fit, validation, test}, epochs_run, best_epoch, "
        "test {states, agreement, mse, confusion}.",
    )] = False,
) -> None:
    """Train the 8-32-32-1 network on the expert's TAKE/PASS values, \
e.g. [b]boardlab train nothanks-imitation --states 1000 --seed 1 --out models/nothanks.pt[/]."""
    from boardlab.studies.nothanks.training import TrainConfig, save_model_files
    from boardlab.studies.nothanks.training import train as run_training

    config = build(TrainConfig, "nothanks-imitation training", SpecError, states=states, epochs=epochs, seed=seed,
                   test_fraction=test_fraction, patience=patience, batch_size=batch_size, lr=lr, schedule=schedule,
                   generator=generator, labels=labels)
    output_file(out, "--out")  # before training (models/ is made in a fresh folder)
    with progress_bar("training") as progress:
        task = progress.add_task("train", total=epochs, note="")

        def on_epoch(epoch: int, train_loss: float, val_loss: float) -> None:
            progress.update(task, completed=epoch, note=f"train {train_loss:.4f} val {val_loss:.4f}")

        result = run_training(config, on_epoch=on_epoch)
    files = save_model_files(out, result)
    metrics = result.metrics
    summary = {
        "model": str(out), "config": asdict(config), "metrics_file": str(files["metrics"]),
        "split": metrics["split"], "epochs_run": metrics["epochs_run"], "best_epoch": metrics["best_epoch"],
        "test": metrics["test"],
    }
    if json_out:
        print_json(summary)
        return
    test = metrics["test"]
    console.print(
        f"trained nothanks-imitation on {metrics['split']['fit']} states (+{metrics['split']['validation']} validation), "
        f"{metrics['epochs_run']} epochs, best {metrics['best_epoch']}"
    )
    console.print(f"test: agreement {100 * test['agreement']:.1f} % of {test['states']}, MSE {test['mse']:.4f}")
    console.print(f"wrote {files['model']}, {files['config']}, {files['metrics']}")


def _confusion_table(confusion: list[list[int]]) -> Table:
    table = Table("expert \\ net", "TAKE", "PASS")
    for label, row in zip(("TAKE", "PASS"), confusion):
        table.add_row(label, str(row[0]), str(row[1]))
    return table


def evaluate(
    model: Annotated[Path, typer.Argument(metavar="MODEL", help="A model written by boardlab train nothanks-imitation.", show_default=False)],
    states: Annotated[int, typer.Option("--states", help="Held-out states to generate and label.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Seed of the held-out states (a stream apart from any training data).")] = 2026,
    plot: Annotated[Optional[Path], typer.Option(
        "--plot", help="Also draw the learning curve (from NAME.metrics.json beside the model) to this PNG. Default: no plot, no file written.",
        show_default=False)] = None,
    json_out: Annotated[bool, typer.Option(
        "--json",
        help="Print one JSON object: model, states, seed, labels (the reading the model learned), agreement, mse, "
        "confusion [[expert TAKE: net TAKE, net PASS], [expert PASS: ...]], plot (the PNG written, or null).",
    )] = False,
) -> None:
    """Agreement with the expert (TAKE/PASS at 0.5), MSE and confusion on fresh states."""
    from boardlab.studies.nothanks.experiments import evaluate_model_file

    result = evaluate_model_file(model, states, seed, plot)
    if json_out:
        print_json(result)
        return
    console.print(f"{model}: agreement {100 * result['agreement']:.1f} % ({states} held-out states, seed {seed}), MSE {result['mse']:.4f}")
    console.print(_confusion_table(result["confusion"]))
    if result["plot"]:
        console.print(f"learning curve: {result['plot']}")


def _recognises(path: Path) -> bool:
    from boardlab.bots.nothanks.network import is_checkpoint

    return is_checkpoint(path)


recipe = Recipe(
    train=train,
    summary="No Thanks! network (8 features, 32-32, 1 output) imitating the rule-based expert's TAKE/PASS",
    game="nothanks",
    makes="model file NAME.pt with NAME.config.json and NAME.metrics.json beside it (agent nothanks-net:path=NAME.pt)",
    evaluate=evaluate,
    recognises=_recognises,
)


def run_experiment(
    part: Annotated[str, typer.Option("--part", help="imitation, table or all.")] = "all",
    seeds: Annotated[int, typer.Option("--seeds", help="Training seeds 1..N for the study-size runs.")] = 5,
    states: Annotated[int, typer.Option("--states", help="States per study-size run (split 800/200).")] = 1000,
    big_states: Annotated[int, typer.Option("--big-states", help="States of the one large run (0: skip it).")] = 20000,
    games: Annotated[int, typer.Option("--games", "-n", help="4-player games in the table; seats cycle through all 24 orders (2016 = 84 x 24).")] = 2016,
    agents: Annotated[str, typer.Option(
        "--agents", help="Four to eight agent specs (each game seats four), comma-separated; use ';' between specs with options.",
    )] = "nothanks-expert,nothanks-net,random,random",
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Seed of the table's games.")] = 1,
    generator: Annotated[str, typer.Option("--generator", help="State generator of the imitation runs: plausible or random.")] = "plausible",
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Also write the JSON results to this file.", show_default=False)] = None,
    store: Annotated[Optional[Path], typer.Option("--store", help="JSON-lines file of the table's games; a rerun resumes from it.", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option(
        "--json",
        help="Print one JSON object: imitation {study {runs, agreement, mse}, large {...}} and table {games, seed, rows "
        "[{agent, games, mean_score, score_se, score_ci95, win_rate, win_se, win_ci95}]}.",
    )] = False,
) -> None:
    """Run the No Thanks! imitation study: (a) accuracy over seeds, (b) a 4-player table of real games."""
    for path, option in ((out, "--out"), (store, "--store")):
        if path is not None:
            check_output_file(path, option)  # before hours of training and games
    import json

    from boardlab.core.records import write_atomic
    from boardlab.studies.nothanks.experiments import four_player_table, imitation_over_seeds
    from boardlab.studies.nothanks.training import TrainConfig

    if part not in ("imitation", "table", "all"):
        raise SpecError(f"--part must be imitation, table or all, not {part!r}")
    results: dict = {}
    if part in ("imitation", "all"):
        results["imitation"] = {}
        with progress_bar("imitation") as progress:
            task = progress.add_task("seeds", total=seeds, note="")
            study = imitation_over_seeds(
                range(1, seeds + 1), build(TrainConfig, "nothanks-imitation experiment", SpecError, states=states, generator=generator),
                on_run=lambda s, run: progress.update(task, advance=1, note=f"seed {s}: {100 * run['agreement']:.1f} %"),
            )
        results["imitation"]["study"] = study
        if big_states:
            large = build(TrainConfig, "nothanks-imitation experiment (--big-states)", SpecError,
                          states=big_states, batch_size=128, generator=generator)
            results["imitation"]["large"] = imitation_over_seeds([1], large)
    if part in ("table", "all"):
        specs = [s.strip() for s in (agents.split(";") if ";" in agents else agents.split(","))]
        with progress_bar("table") as progress:
            task = progress.add_task("games", total=games, note="")
            results["table"] = four_player_table(specs, games, seed, on_game=lambda i: progress.advance(task), store=store)
    if out is not None:
        write_atomic(out, json.dumps(results, indent=1) + "\n")
    if json_out:
        print_json(results)
        return
    if "imitation" in results:
        for key, label in (("study", f"{states} states"), ("large", f"{big_states} states")):
            if key in results["imitation"]:
                r = results["imitation"][key]
                a, m = r["agreement"], r["mse"]
                console.print(
                    f"{label}, seeds {', '.join(map(str, r['seeds']))}: agreement {100 * a['mean']:.1f} % ± {100 * a['std']:.1f}, "
                    f"MSE {m['mean']:.4f} ± {m['std']:.4f}"
                )
    if "table" in results:
        t = results["table"]
        table = Table("agent", "games", "mean score (95 % CI)", "win rate (95 % CI)")
        for row in t["rows"]:
            table.add_row(
                row["agent"], str(row["games"]),
                f"{row['mean_score']:.2f} ({row['score_ci95'][0]:.2f}..{row['score_ci95'][1]:.2f})",
                f"{100 * row['win_rate']:.1f} % ({100 * row['win_ci95'][0]:.1f}..{100 * row['win_ci95'][1]:.1f})",
            )
        console.print(f"4-player No Thanks!, {t['games']} games, seats rotated through all 24 orders, seed {t['seed']}")
        console.print(table)


experiment = Experiment(
    run=run_experiment,
    summary="No Thanks! imitation: accuracy over seeds, and a 4-player table of real games",
    game="nothanks:players=4",
)
