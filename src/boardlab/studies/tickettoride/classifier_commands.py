"""The Ticket to Ride classifier as a recipe and experiments: ``boardlab train ttr-classifier`` and
``boardlab experiment ttr-classifier-*``. The work is in :mod:`boardlab.studies.tickettoride.classifier`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from boardlab.commands.console import console, print_json, progress_bar
from boardlab.commands.plugin import Experiment, Recipe
from boardlab.core.config import build
from boardlab.core.errors import BoardlabError
from boardlab.core.files import check_output_file, output_file


def _counts(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.replace(" ", "").split(",") if part)
    except ValueError:
        raise BoardlabError(f"--players must be player counts separated by commas (2,3,4,5), not {text!r}") from None


def train(
    out: Annotated[Path, typer.Option(
        "--out", "-o", help="Model file; NAME.metrics.json and NAME.curves.png go beside it. An "
        "existing one made with the same settings is trained on (resumed).",
    )] = Path("models/ttr_net.pt"),
    data: Annotated[Optional[Path], typer.Option(
        "--data", help="Dataset file (.npz): read when it exists (its settings must match), else generated and written there. Default: generated, not kept.",
        show_default=False,
    )] = None,
    games: Annotated[int, typer.Option(
        "--games", "-n", help="Games per player count played by ttr-algorithmic to draw decisions from (the study: 250).",
    )] = 250,
    selection: Annotated[str, typer.Option(
        "--selection", help="best (the study: the best player-games, --best per player count, score >= --min-score) or all (every seat of every game).",
    )] = "best",
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
    scale: Annotated[str, typer.Option(
        "--scale", help="none (the study's raw integers) or range (each feature divided by the top of its range in the study's table).",
    )] = "none",
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the weights and the batches.")] = 1,
    fresh: Annotated[bool, typer.Option("--fresh", help="Start over even when --out holds a run of other settings.")] = False,
    json_out: Annotated[bool, typer.Option(
        "--json",
        help="Print one JSON object: model, net {config}, data {format, config, games, test_games, player_games}, epochs, "
        "resumed_from, split {train_rows, test_rows, train_games, test_games}, class_counts, train and test {rows, accuracy, "
        "loss, confidence, confusion}, history, curves.",
    )] = False,
) -> None:
    """Train the study's classifier (26 features, 180-160, 4 action types) on ttr-algorithmic's decisions, \
e.g. [b]boardlab train ttr-classifier --out models/ttr_net.pt[/]."""
    from boardlab.studies.tickettoride.classifier import dataset, train_model
    from boardlab.studies.tickettoride.dataset import DataConfig
    from boardlab.studies.tickettoride.training import NetConfig

    data_config = DataConfig(games=games, selection=selection, best=best, min_score=min_score, players=_counts(players),
                             variant=variant, test_fraction=test_fraction, seed=data_seed)
    data_config.check()
    net_config = build(NetConfig, "boardlab train ttr-classifier", epochs=epochs, batch_size=batch_size, lr=lr, loss=loss,
                       scale=scale, seed=seed)
    output_file(out, "--out")
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
    data: Annotated[Optional[Path], typer.Option(
        "--data", help="Dataset file of the model's settings (read when it exists, else generated and written there). Default: generated, not kept.",
        show_default=False,
    )] = None,
    json_out: Annotated[bool, typer.Option(
        "--json",
        help="Print one JSON object: model, epochs, test {rows, accuracy, loss, confidence, confusion [true][predicted]}, "
        "by_players {K: {rows, accuracy, loss, confidence, confusion}} (held-out games only).",
    )] = False,
) -> None:
    """Held-out accuracy of a classifier on the games its training held out (split by game)."""
    from boardlab.studies.tickettoride.classifier import held_out_report

    report = held_out_report(model, data)
    if json_out:
        print_json(report)
        return
    test = report["test"]
    console.print(f"{model}: held-out accuracy {100 * test['accuracy']:.2f} % of {test['rows']} decisions, loss {test['loss']:.4f}")
    for k, row in report["by_players"].items():
        console.print(f"  {k} players: {100 * row['accuracy']:.2f} % of {row['rows']}")


def _recognises(path: Path) -> bool:
    from boardlab.studies.tickettoride.training import is_checkpoint

    return is_checkpoint(path)


recipe = Recipe(
    train=train,
    summary="Ticket to Ride classifier (26 features, 180-160, 4 action types) imitating ttr-algorithmic, as the study",
    game="tickettoride:variant=study",
    makes="model file NAME.pt (resumable) with NAME.metrics.json and NAME.curves.png beside it (agent ttr-net:path=NAME.pt)",
    evaluate=evaluate,
    recognises=_recognises,
)


def _write(path: Optional[Path], text: str) -> None:
    if path is not None:
        from boardlab.core.records import write_atomic

        write_atomic(path, text)


def _print_table(title: str, rows: dict, study: Optional[dict], lines) -> None:
    from rich.table import Table

    from boardlab.studies.tickettoride.classifier import markdown

    table = Table(title=title)
    text = markdown(rows, study, lines).splitlines()
    for head in text[0].strip("|").split("|"):
        table.add_column(head.strip(), justify="right")
    for line in text[2:]:
        table.add_row(*[cell.strip() for cell in line.strip("|").split("|")])
    console.print(table)


def versus(
    model: Annotated[Optional[Path], typer.Option("--model", help="Model file (default: the committed one).", show_default=False)] = None,
    variant: Annotated[str, typer.Option("--variant", help="study (no longest-path bonus) or official.")] = "study",
    games: Annotated[int, typer.Option("--games", "-n", help="Games per player count (the study: 250).")] = 250,
    players: Annotated[str, typer.Option("--players", help="Player counts, comma-separated.")] = "2,3,4,5",
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the games (player count K uses seed+K); both players get the same deals.")] = 2018,
    store: Annotated[Optional[Path], typer.Option(
        "--store", help="Results store (SQLite); a rerun resumes. Default: boardlab's store.", show_default=False,
    )] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Processes.")] = 1,
    plots: Annotated[Optional[Path], typer.Option(
        "--plots", help="Folder for the network's three figures (as ttr-study draws them).", show_default=False,
    )] = None,
    markdown_out: Annotated[Optional[Path], typer.Option("--markdown", help="Also write both tables in Markdown to this file.", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option(
        "--json",
        help="Print one JSON object: agent, variant, games, seed, net and algorithmic {K|all: {games, players, min, max, mean, "
        "mean_low, mean_high, se, sd, median, above_110, above_120, above_140, tickets_done, tickets_failed, forbidden_games, "
        "forbidden_moves, (net only) net_forbidden_games, net_forbidden_moves, net_forbidden_by_type [pass, cards, tickets, claim]}}, "
        "study_net, study_algorithmic, plots.",
    )] = False,
) -> None:
    """Experiment (a): the network in every seat against the algorithmic player it imitates (same deals), the study's tables beside."""
    import sys

    from boardlab.studies.tickettoride import study as ttr_study
    from boardlab.studies.tickettoride.classifier import NET_LINES, STUDY_NET, markdown
    from boardlab.studies.tickettoride.classifier import versus as run_versus

    for path, option in ((markdown_out, "--markdown"),):
        if path is not None:
            check_output_file(path, option)
    with progress_bar("ttr-net-versus") as progress:
        task = progress.add_task("games", total=None, note="")
        result = run_versus(model, variant, games, seed, _counts(players), store, workers,
                            on_game=lambda who, k, p: progress.update(task, note=f"{who}, {k} players: {p.done}"),
                            command=" ".join(sys.argv))
    played = result.pop("_games")
    written = [str(p) for p in ttr_study.plots(played, plots, title=f"{result['agent']}, {variant} rules")] if plots else []
    result["plots"] = written
    text = (f"### {result['agent']} (the study's network in brackets)\n\n" + markdown(result["net"], STUDY_NET, NET_LINES)
            + "\n\n### ttr-algorithmic on the same deals (the study's algorithm in brackets)\n\n"
            + markdown(result["algorithmic"], ttr_study.STUDY, ttr_study.LINES) + "\n")
    _write(markdown_out, text)
    if json_out:
        print_json(result)
        return
    _print_table(f"{result['agent']}, {games} games per player count (the study's network in brackets)", result["net"], STUDY_NET, NET_LINES)
    _print_table("ttr-algorithmic, the same deals (the study's algorithm in brackets)", result["algorithmic"], ttr_study.STUDY, ttr_study.LINES)
    net, algo = result["net"]["all"], result["algorithmic"]["all"]
    console.print(f"overall mean {net['mean']:.2f} ± {net['se']:.2f} (network) vs {algo['mean']:.2f} ± {algo['se']:.2f} (algorithm)")


def _data_options(games: int, players: str, variant: str, data_seed: int):
    from boardlab.studies.tickettoride.dataset import DataConfig

    config = DataConfig(games=games, players=_counts(players), variant=variant, seed=data_seed)
    config.check()
    return config


def models(
    folder: Annotated[Path, typer.Option(
        "--out", "-o", help="Folder for the data and the five models (made if missing; a rerun resumes).",
    )] = Path("ttr-models"),
    games: Annotated[int, typer.Option("--games", "-n", help="Games per player count each model plays (the study: 60).")] = 60,
    data_games: Annotated[int, typer.Option(
        "--data-games", help="Games per player count the data is drawn from (the study: 250, best 30 player-games each).",
    )] = 250,
    epochs: Annotated[int, typer.Option("--epochs", help="Epochs of each model (the study: 40).")] = 40,
    players: Annotated[str, typer.Option("--players", help="Player counts, comma-separated.")] = "2,3,4,5",
    variant: Annotated[str, typer.Option("--variant", help="study or official.")] = "study",
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the games.")] = 2019,
    data_seed: Annotated[int, typer.Option("--data-seed", help="Seed of the data's games and split.")] = 2018,
    store: Annotated[Optional[Path], typer.Option("--store", help="Results store (SQLite). Default: boardlab's store.", show_default=False)] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Processes.")] = 1,
    markdown_out: Annotated[Optional[Path], typer.Option("--markdown", help="Also write the tables in Markdown to this file.", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option(
        "--json",
        help="Print one JSON object: games, seed, data, held_out_accuracy {universal, K}, universal and specific {K|all: {min, "
        "max, mean, median, completed, above_110, above_120, above_140, tickets_done, tickets_failed, ...}}, study_universal, "
        "study_specific, plot.",
    )] = False,
) -> None:
    """Experiment (b): one universal model against one model per player count, the study's tables beside."""
    import sys

    from boardlab.core.files import output_folder
    from boardlab.studies.tickettoride.classifier import (
        B_LINES,
        STUDY_SPECIFIC,
        STUDY_UNIVERSAL,
        markdown,
        range_plot,
        universal_vs_specific,
    )
    from boardlab.studies.tickettoride.training import NetConfig

    data_config = _data_options(data_games, players, variant, data_seed)
    net_config = build(NetConfig, "boardlab experiment ttr-net-models", epochs=epochs)
    out = output_folder(folder, "--out")
    if markdown_out is not None:
        check_output_file(markdown_out, "--markdown")
    with progress_bar("ttr-net-models") as progress:
        task = progress.add_task("steps", total=None, note="")
        result = universal_vs_specific(out, data_config, net_config, games, seed, store, workers,
                                       on_step=lambda text: progress.update(task, note=text), command=" ".join(sys.argv))
    played = result.pop("_games")
    result["plot"] = str(range_plot({"universal": played["universal"], "specific": played["specific"]}, out / "models-range.png",
                                    "Universal and per-player-count models"))
    text = ("### universal model (the study's in brackets)\n\n" + markdown(result["universal"], STUDY_UNIVERSAL, B_LINES)
            + "\n\n### one model per player count (the study's in brackets)\n\n" + markdown(result["specific"], STUDY_SPECIFIC, B_LINES) + "\n")
    _write(markdown_out, text)
    if json_out:
        print_json(result)
        return
    _print_table(f"universal model, {games} games per player count (the study's in brackets)", result["universal"], STUDY_UNIVERSAL, B_LINES)
    _print_table("one model per player count (the study's in brackets)", result["specific"], STUDY_SPECIFIC, B_LINES)
    console.print("held-out accuracy: " + ", ".join(f"{k} {100 * v:.1f} %" for k, v in result["held_out_accuracy"].items()))
    console.print(f"wrote {result['plot']}")


def progress(
    folder: Annotated[Path, typer.Option(
        "--out", "-o", help="Folder for the data and each step's network (made if missing; a rerun resumes).",
    )] = Path("ttr-progress"),
    step: Annotated[int, typer.Option(
        "--step", help="Training decisions per step (the study's table: 100, a single AdaGrad batch here; see docs/tickettoride-classifier.md).",
    )] = 4000,
    steps: Annotated[int, typer.Option("--steps", help="Steps after the untrained network (the study's table: 4).")] = 6,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per player count after each step (the study: 60).")] = 60,
    data_games: Annotated[int, typer.Option("--data-games", help="Games per player count the data is drawn from.")] = 250,
    players: Annotated[str, typer.Option("--players", help="Player counts, comma-separated.")] = "2,3,4,5",
    variant: Annotated[str, typer.Option("--variant", help="study or official.")] = "study",
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the games.")] = 2020,
    data_seed: Annotated[int, typer.Option("--data-seed", help="Seed of the data's games and split.")] = 2018,
    store: Annotated[Optional[Path], typer.Option("--store", help="Results store (SQLite). Default: boardlab's store.", show_default=False)] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Processes.")] = 1,
    markdown_out: Annotated[Optional[Path], typer.Option("--markdown", help="Also write the table in Markdown to this file.", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option(
        "--json",
        help="Print one JSON object: step, steps, games, seed, rows [{step, rows, loss, confidence, accuracy, games, aborted, "
        "finished_players, max, min, mean, turns, tickets_done, tickets_failed}], study, plot.",
    )] = False,
) -> None:
    """Experiment (c): learning progress in steps of decisions (the study's table beside with --step 100)."""
    import sys

    from boardlab.core.files import output_folder
    from boardlab.studies.tickettoride.classifier import C_LINES, learning_progress, progress_plot
    from boardlab.studies.tickettoride.training import NetConfig

    if step < 1 or steps < 1:
        raise BoardlabError("--step and --steps must be at least 1")
    data_config = _data_options(data_games, players, variant, data_seed)
    out = output_folder(folder, "--out")
    if markdown_out is not None:
        check_output_file(markdown_out, "--markdown")
    with progress_bar("ttr-net-progress") as bar:
        task = bar.add_task("steps", total=None, note="")
        result = learning_progress(out, data_config, NetConfig(), step, steps, games, seed, store, workers,
                                   on_step=lambda text: bar.update(task, note=text), command=" ".join(sys.argv))
    result["plot"] = str(progress_plot(result["rows"], out / "progress.png"))
    columns = {str(r["step"]): r for r in result["rows"]}
    study = {str(i): r for i, r in enumerate(result["study"])} if step == 100 else None
    lines = [("step", "step", 0), *C_LINES]
    from boardlab.studies.tickettoride.classifier import markdown

    text = markdown(columns, study, lines).replace("players |", "|").replace("| overall |", "|")
    _write(markdown_out, text + "\n")
    if json_out:
        print_json(result)
        return
    console.print(text)
    console.print(f"wrote {result['plot']}")


versus_experiment = Experiment(
    run=versus,
    summary="Ticket to Ride classifier (a): the network vs the algorithmic player, the study's tables",
    game="tickettoride:variant=study",
)
models_experiment = Experiment(
    run=models,
    summary="Ticket to Ride classifier (b): one universal model vs one model per player count",
    game="tickettoride:variant=study",
)
progress_experiment = Experiment(
    run=progress,
    summary="Ticket to Ride classifier (c): learning progress in steps of training decisions",
    game="tickettoride:variant=study",
)
