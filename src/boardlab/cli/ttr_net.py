"""The Ticket to Ride classifier as a recipe and experiments: ``boardlab train ttr-classifier`` and
``boardlab experiment ttr-classifier-*``. The work is in :mod:`boardlab.experiments.ttr_classifier`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from boardlab.cli.app import console, print_json, progress_bar
from boardlab.cli.plugin import Recipe
from boardlab.core.errors import BoardlabError
from boardlab.core.files import check_output_file


def _counts(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.replace(" ", "").split(",") if part)
    except ValueError:
        raise BoardlabError(f"--players must be player counts separated by commas (2,3,4,5), not {text!r}") from None


def train(
    out: Annotated[Path, typer.Option("--out", "-o", help="Model file; NAME.metrics.json and NAME.curves.png go beside it. An existing one made with the same settings is trained on (resumed).")] = Path("models/ttr_net.pt"),
    data: Annotated[Optional[Path], typer.Option("--data", help="Dataset file (.npz): read when it exists (its settings must match), else generated and written there. Default: generated, not kept.", show_default=False)] = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per player count played by ttr-algorithmic to draw decisions from (the study: 250).")] = 250,
    selection: Annotated[str, typer.Option("--selection", help="best (the study: the best player-games, --best per player count, score >= --min-score) or all (every seat of every game).")] = "best",
    best: Annotated[int, typer.Option("--best", help="Player-games kept per player count with --selection best (the study: 30).")] = 30,
    min_score: Annotated[int, typer.Option("--min-score", help="Least final score of a kept player-game with --selection best (the study: 120).")] = 120,
    players: Annotated[str, typer.Option("--players", help="Player counts of the games, comma-separated.")] = "2,3,4,5",
    variant: Annotated[str, typer.Option("--variant", help="Rules of the games: study (no longest-path bonus) or official.")] = "study",
    test_fraction: Annotated[float, typer.Option("--test-fraction", help="Share of the games (not decisions) held out for the test.")] = 0.2,
    data_seed: Annotated[int, typer.Option("--data-seed", help="Seed of the games and of the split.")] = 2018,
    epochs: Annotated[int, typer.Option("--epochs", help="Epochs in all (a resumed run trains up to this many).")] = 40,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Decisions per batch (the study: 250).")] = 250,
    lr: Annotated[float, typer.Option("--lr", help="AdaGrad learning rate (TensorFlow's DNNClassifier default: 0.05).")] = 0.05,
    loss: Annotated[str, typer.Option("--loss", help="sum (the study: cross-entropy summed over the batch) or mean.")] = "sum",
    scale: Annotated[str, typer.Option("--scale", help="none (the study's raw integers) or range (each feature divided by the top of its range in the study's table).")] = "none",
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the weights and the batches.")] = 1,
    fresh: Annotated[bool, typer.Option("--fresh", help="Start over even when --out holds a run of other settings.")] = False,
    json_out: Annotated[bool, typer.Option(
        "--json",
        help="Print one JSON object: model, net {config}, data {format, config, games, test_games, player_games}, epochs, "
        "resumed_from, split {train_rows, test_rows, train_games, test_games}, class_counts, train and test {rows, accuracy, "
        "loss, confidence, confusion}, history, curves.",
    )] = False,
) -> None:
    """Train the study's classifier (26 features, 180-160, 4 action types) on ttr-algorithmic's decisions, e.g. [b]boardlab train ttr-classifier --out models/ttr_net.pt[/]."""
    from boardlab.bots.ttr_dataset import DataConfig
    from boardlab.experiments.ttr_classifier import dataset, train_model
    from boardlab.nn.ttr_net import NetConfig

    data_config = DataConfig(games=games, selection=selection, best=best, min_score=min_score, players=_counts(players),
                             variant=variant, test_fraction=test_fraction, seed=data_seed)
    data_config.check()
    net_config = NetConfig(epochs=epochs, batch_size=batch_size, lr=lr, loss=loss, scale=scale, seed=seed)
    net_config.check()
    check_output_file(out, "--out")
    if data is not None:
        check_output_file(data, "--data")
    with progress_bar("ttr-classifier") as progress:
        task = progress.add_task("data", total=None, note="games")
        rows = dataset(data_config, data, lambda what, k, i: progress.update(task, note=f"{what} {k} players: {i}"))
        progress.update(task, total=epochs, completed=0, note="training")
        metrics = train_model(rows, net_config, out, resume=not fresh,
                              on_epoch=lambda e, p: progress.update(task, completed=e, note=f"held-out accuracy {100 * p['test_accuracy']:.1f} %"))
    if json_out:
        print_json(metrics)
        return
    s, test = metrics["split"], metrics["test"]
    console.print(f"{s['train_rows']} training decisions from {s['train_games']} games, {s['test_rows']} held out from "
                  f"{s['test_games']} other games; {metrics['epochs']} epochs")
    console.print(f"held-out accuracy {100 * test['accuracy']:.2f} %, loss {test['loss']:.4f}; training accuracy "
                  f"{100 * metrics['train']['accuracy']:.2f} %")
    console.print(f"wrote {out}{', ' + metrics['curves'] if metrics.get('curves') else ''}")


def evaluate(
    model: Annotated[Path, typer.Argument(metavar="MODEL", help="A model written by boardlab train ttr-classifier.", show_default=False)],
    data: Annotated[Optional[Path], typer.Option("--data", help="Dataset file of the model's settings (read when it exists, else generated and written there). Default: generated, not kept.", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option(
        "--json",
        help="Print one JSON object: model, epochs, test {rows, accuracy, loss, confidence, confusion [true][predicted]}, "
        "by_players {K: {rows, accuracy, loss, confidence, confusion}} (held-out games only).",
    )] = False,
) -> None:
    """Held-out accuracy of a classifier on the games its training held out (split by game)."""
    from boardlab.experiments.ttr_classifier import held_out_report

    report = held_out_report(model, data)
    if json_out:
        print_json(report)
        return
    test = report["test"]
    console.print(f"{model}: held-out accuracy {100 * test['accuracy']:.2f} % of {test['rows']} decisions, loss {test['loss']:.4f}")
    for k, row in report["by_players"].items():
        console.print(f"  {k} players: {100 * row['accuracy']:.2f} % of {row['rows']}")


def _recognises(path: Path) -> bool:
    from boardlab.nn.ttr_net import is_checkpoint

    return is_checkpoint(path)


recipe = Recipe(
    train=train,
    summary="Ticket to Ride classifier (26 features, 180-160, 4 action types) imitating ttr-algorithmic, as the study",
    game="tickettoride:variant=study",
    makes="model file NAME.pt (resumable) with NAME.metrics.json and NAME.curves.png beside it (agent ttr-net:path=NAME.pt)",
    evaluate=evaluate,
    recognises=_recognises,
)
