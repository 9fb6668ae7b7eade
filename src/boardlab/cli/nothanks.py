"""``boardlab train``, ``boardlab evaluate`` and ``boardlab experiment`` for the No Thanks! imitation study.

``train`` and ``experiment`` take the experiment's name as their argument so
that other trainers can be added beside ``nothanks-imitation`` later.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from boardlab.cli.app import command, console, err_console, print_json
from boardlab.core.errors import SpecError
from boardlab.core.files import check_output_file
from boardlab.core.records import write_atomic
from boardlab.core.rng import derive_seed

TRAINERS = ("nothanks-imitation",)
EXPERIMENTS = ("nothanks-imitation",)


def _check_name(name: str, known: tuple[str, ...], what: str) -> None:
    if name not in known:
        raise SpecError(f"unknown {what} {name!r} (known: {', '.join(known)})")


def sidecar(model: Path, kind: str) -> Path:
    """``models/nothanks.pt`` -> ``models/nothanks.<kind>``: config.json, metrics.json, curve.png."""
    return model.with_name(model.stem + "." + kind)


def _progress(label: str, total: int) -> Progress:
    return Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[note]}"), TimeRemainingColumn(),
        console=err_console, transient=True, disable=not err_console.is_terminal,
    )


@command("train")
def train_command(
    name: str = typer.Argument(..., help="What to train; one of: " + ", ".join(TRAINERS) + "."),
    states: int = typer.Option(1000, "--states", help="Generated states, split into training and test."),
    epochs: int = typer.Option(500, "--epochs", help="Most epochs; early stopping may end sooner."),
    seed: int = typer.Option(1, "--seed", "-s", help="Seed of the states, the split, the weights and the batches."),
    out: Path = typer.Option(Path("models/nothanks.pt"), "--out", "-o", help="Model file; NAME.config.json and NAME.metrics.json go beside it."),
    test_fraction: float = typer.Option(0.2, "--test-fraction", help="Share of states held out for the test (the study: 200 of 1000)."),
    patience: int = typer.Option(50, "--patience", help="Stop after this many epochs without a better validation loss."),
    batch_size: int = typer.Option(16, "--batch-size", help="Minibatch size."),
    lr: float = typer.Option(1e-3, "--lr", help="Adam learning rate."),
    generator: str = typer.Option("plausible", "--generator", help="State generator: plausible (mixed habits, default) or random."),
    schedule: str = typer.Option("none", "--schedule", help="none, or plateau: halve the rate after 10 epochs without progress."),
    json_out: bool = typer.Option(
        False, "--json",
        help="Print one JSON object: model, config, metrics_file, split {fit, validation, test}, epochs_run, best_epoch, "
        "test {states, agreement, mse, confusion}.",
    ),
) -> None:
    """Train a model, e.g. [b]boardlab train nothanks-imitation --states 1000 --seed 1 --out models/nothanks.pt[/]."""
    _check_name(name, TRAINERS, "trainer")
    from boardlab.nn.nothanks_net import TrainConfig, save_checkpoint, train

    config = TrainConfig(states=states, epochs=epochs, seed=seed, test_fraction=test_fraction,
                         patience=patience, batch_size=batch_size, lr=lr, schedule=schedule, generator=generator)
    config.check()
    check_output_file(out, "--out")  # before training: its folder must exist
    with _progress("training", epochs) as progress:
        task = progress.add_task("train", total=epochs, note="")

        def on_epoch(epoch: int, train_loss: float, val_loss: float) -> None:
            progress.update(task, completed=epoch, note=f"train {train_loss:.4f} val {val_loss:.4f}")

        result = train(config, on_epoch=on_epoch)
    metrics = result.metrics
    save_checkpoint(out, result.model, config, metrics)
    write_atomic(sidecar(out, "config.json"), json.dumps(asdict(config), indent=1) + "\n")
    write_atomic(sidecar(out, "metrics.json"), json.dumps(metrics, indent=1) + "\n")
    summary = {
        "model": str(out), "config": asdict(config), "metrics_file": str(sidecar(out, "metrics.json")),
        "split": metrics["split"], "epochs_run": metrics["epochs_run"], "best_epoch": metrics["best_epoch"],
        "test": metrics["test"],
    }
    if json_out:
        print_json(summary)
        return
    test = metrics["test"]
    console.print(
        f"trained {name} on {metrics['split']['fit']} states (+{metrics['split']['validation']} validation), "
        f"{metrics['epochs_run']} epochs, best {metrics['best_epoch']}"
    )
    console.print(f"test: agreement {100 * test['agreement']:.1f} % of {test['states']}, MSE {test['mse']:.4f}")
    console.print(f"wrote {out}, {sidecar(out, 'config.json')}, {sidecar(out, 'metrics.json')}")


def _confusion_table(confusion: list[list[int]]) -> Table:
    table = Table("expert \\ net", "TAKE", "PASS")
    for label, row in zip(("TAKE", "PASS"), confusion):
        table.add_row(label, str(row[0]), str(row[1]))
    return table


@command("evaluate")
def evaluate_command(
    model: Path = typer.Argument(..., help="A model written by boardlab train nothanks-imitation."),
    states: int = typer.Option(1000, "--states", help="Held-out states to generate and label."),
    seed: int = typer.Option(2026, "--seed", "-s", help="Seed of the held-out states (a stream apart from any training data)."),
    json_out: bool = typer.Option(
        False, "--json",
        help="Print one JSON object: model, states, seed, agreement, mse, confusion [[expert TAKE: net TAKE, net PASS], "
        "[expert PASS: ...]], curve (the learning-curve PNG written, or null).",
    ),
) -> None:
    """Agreement with the expert (TAKE/PASS at 0.5), MSE and confusion on fresh states; draws the learning curve."""
    from boardlab.games.nothanks_expert import generate_states
    from boardlab.nn.nothanks_net import evaluate_model, load_checkpoint, read_metrics

    if states < 1:
        raise SpecError(f"--states must be positive, not {states}")
    net, config, _ = load_checkpoint(model)
    held_out = generate_states(states, derive_seed(seed, "nothanks-imitation-eval"), config.players, config.generator)
    report = evaluate_model(net, held_out)
    curve = None
    metrics_file = sidecar(model, "metrics.json")
    if metrics_file.is_file():
        from boardlab.experiments.nothanks import plot_learning_curve

        curve = str(plot_learning_curve(read_metrics(metrics_file), sidecar(model, "curve.png")))
    result = {"model": str(model), "states": states, "seed": seed, **{k: report[k] for k in ("agreement", "mse", "confusion")}, "curve": curve}
    if json_out:
        print_json(result)
        return
    console.print(f"{model}: agreement {100 * report['agreement']:.1f} % ({states} held-out states, seed {seed}), MSE {report['mse']:.4f}")
    console.print(_confusion_table(report["confusion"]))
    console.print(f"learning curve: {curve}" if curve else f"no {metrics_file.name} beside the model: no learning curve drawn")


@command("experiment")
def experiment_command(
    name: str = typer.Argument(..., help="Experiment; one of: " + ", ".join(EXPERIMENTS) + "."),
    part: str = typer.Option("all", "--part", help="imitation, table or all."),
    seeds: int = typer.Option(5, "--seeds", help="Training seeds 1..N for the study-size runs."),
    states: int = typer.Option(1000, "--states", help="States per study-size run (split 800/200)."),
    big_states: int = typer.Option(20000, "--big-states", help="States of the one large run (0: skip it)."),
    games: int = typer.Option(2016, "--games", "-n", help="4-player games in the table; seats cycle through all 24 orders (2016 = 84 x 24)."),
    agents: str = typer.Option("nothanks-expert,nothanks-net,random,random", "--agents", help="Four agent specs, comma-separated; use ';' between specs with options."),
    seed: int = typer.Option(1, "--seed", "-s", help="Seed of the table's games."),
    generator: str = typer.Option("plausible", "--generator", help="State generator of the imitation runs: plausible or random."),
    out: Path = typer.Option(None, "--out", "-o", help="Also write the JSON results to this file."),
    store: Path = typer.Option(None, "--store", help="JSON-lines file of the table's games; a rerun resumes from it."),
    json_out: bool = typer.Option(
        False, "--json",
        help="Print one JSON object: imitation {study {runs, agreement, mse}, large {...}} and table {games, seed, rows "
        "[{agent, games, mean_score, score_se, score_ci95, win_rate, win_se, win_ci95}]}.",
    ),
) -> None:
    """Run the No Thanks! imitation study: (a) accuracy over seeds, (b) a 4-player table of real games."""
    _check_name(name, EXPERIMENTS, "experiment")
    if part not in ("imitation", "table", "all"):
        raise SpecError(f"--part must be imitation, table or all, not {part!r}")
    from boardlab.experiments.nothanks import four_player_table, imitation_over_seeds
    from boardlab.nn.nothanks_net import TrainConfig

    results: dict = {}
    if part in ("imitation", "all"):
        results["imitation"] = {}
        with _progress("imitation", seeds) as progress:
            task = progress.add_task("seeds", total=seeds, note="")
            study = imitation_over_seeds(
                range(1, seeds + 1), TrainConfig(states=states, generator=generator),
                on_run=lambda s, run: progress.update(task, advance=1, note=f"seed {s}: {100 * run['agreement']:.1f} %"),
            )
        results["imitation"]["study"] = study
        if big_states:
            results["imitation"]["large"] = imitation_over_seeds([1], TrainConfig(states=big_states, batch_size=128, generator=generator))
    if part in ("table", "all"):
        specs = [s.strip() for s in (agents.split(";") if ";" in agents else agents.split(","))]
        with _progress("table", games) as progress:
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
