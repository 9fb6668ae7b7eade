"""``boardlab train dicewars-winprob``: a win-probability network on the SUI study's inputs, judged on held-out games.

The work is in :mod:`.winprob_study`. Not resumable, because it need
not be: the games take seconds (compiled bots) and can be kept with ``--data``, and the default
run is under 4 minutes of one core (136 s of it training, docs/dicewars-winprob.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from boardlab.commands.console import console, print_json, progress_bar
from boardlab.commands.plugin import Recipe
from boardlab.core.errors import BoardlabError
from boardlab.core.files import check_output_file, output_file

FORECASTS = ("net", "wpm", "share", "wpm-course")
#: --hidden, --dropout and --every when not given: the study's sizes for its network, and every 8th board
#: (it learns games by heart); for the regions network, what did best on validation games
#: (docs/dicewars-winprob.md)
ARCH_DEFAULTS = {"study": {"hidden": 1024, "dropout": 0.4, "every": 8}, "regions": {"hidden": 256, "dropout": 0.1, "every": 2}}


def _table(result: dict) -> None:
    from rich.table import Table

    test = result["test"]
    table = Table(title=f"held-out boards (split by {result['split']}): log-loss / Brier / accuracy / ECE")
    table.add_column("boards")
    for name in FORECASTS:
        table.add_column(name, justify="right")
    phases = [("all", test["net"]["all"])] + [(k, v) for k, v in test["net"]["alive"].items()] + list(test["net"]["round"].items())
    for label, _ in phases:
        cells = []
        for name in FORECASTS:
            row = test[name]["all"] if label == "all" else {**test[name]["alive"], **test[name]["round"]}[label]
            cells.append("-" if not row.get("boards") else
                         f"{row['log_loss']:.3f} / {row['brier']:.3f} / {100 * row['accuracy']:.1f} % / {row['ece']:.3f}")
        count = (test["net"]["all"] if label == "all" else {**test["net"]["alive"], **test["net"]["round"]}[label]).get("boards", 0)
        table.add_row(f"{label} ({count})", *cells)
    console.print(table)
    for name, gap in result.get("test_gap", {}).items():
        if gap.get("boards"):
            console.print(f"net minus {name}: log-loss {gap['gap']:+.3f} (95 % interval {gap['low']:+.3f} to {gap['high']:+.3f}, "
                          f"bootstrap over {gap['groups']} board groups)")


def train(
    out: Annotated[Path, typer.Option(
        "--out", "-o", help="Model file; NAME.metrics.json and NAME.reliability.png go beside it.",
    )] = Path("models/dicewars-winprob.pt"),
    boards: Annotated[int, typer.Option(
        "--boards", "-n", min=1, help="Schedule boards of the course's five bots; each is 4 games (one group's rotations).",
    )] = 2400,
    data_seed: Annotated[int, typer.Option("--data-seed", min=0, help="Seed of the tournament the boards come from.")] = 2020,
    data: Annotated[Optional[Path], typer.Option(
        "--data", help="Dataset file (.npz): read when it exists (same --boards and --data-seed), "
        "else generated and written there. Default: generated, not kept.",
        show_default=False,
    )] = None,
    every: Annotated[Optional[int], typer.Option(
        "--every", min=1, help="Keep every k-th board of each game (a game's boards are nearly one board with one "
        "label: more games for the same training time). Default: 2 (regions), 8 (study).",
        show_default=False,
    )] = None,
    split: Annotated[str, typer.Option(
        "--split", help="game: whole games (and their rotated twins on the same board) on one side; board: the study's shuffled boards, which leaks.",
    )] = "game",
    test_fraction: Annotated[float, typer.Option("--test-fraction", help="Share held out for the test (the study: 1/5).")] = 0.2,
    validation_fraction: Annotated[float, typer.Option("--validation-fraction", help="Share of the training side held out to stop training.")] = 0.1,
    arch: Annotated[str, typer.Option(
        "--arch", help="regions: fixed counts per seat (largest region, dice, borders, ...) computed from the "
        "552 inputs, then one MLP shared by the seats; study: the study's 552-1024-1024-4 MLP.",
    )] = "regions",
    hidden: Annotated[Optional[int], typer.Option(
        "--hidden", help="Units of each hidden layer. Default: 256 (regions), 1024 (study, as the study).", show_default=False,
    )] = None,
    dropout: Annotated[Optional[float], typer.Option(
        "--dropout", help="Dropout after each hidden layer. Default: 0.1 (regions), 0.4 (study, as the study).", show_default=False,
    )] = None,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Boards per batch (the study: 256).")] = 256,
    lr: Annotated[float, typer.Option("--lr", help="Adam learning rate (Keras' default, as the study used).")] = 1e-3,
    max_epochs: Annotated[int, typer.Option("--max-epochs", help="Most epochs (the study: 10, no early stopping).")] = 30,
    patience: Annotated[int, typer.Option("--patience", help="Stop after this many epochs without a better validation log-loss.")] = 3,
    permute_areas: Annotated[bool, typer.Option(
        "--permute-areas", help="--arch study: renumber the areas of every training board at random, so that no map (and no game) can be learnt by heart.",
    )] = False,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Seed of the split, the weights and the batches.")] = 1,
    markdown: Annotated[Optional[Path], typer.Option("--markdown", help="Also write the held-out tables (Markdown) to this file.", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option(
        "--json",
        help="Print one JSON object: model, metrics_file, reliability_png, split, config, data {games, cancelled, boards}, "
        "sizes {train, validation, test: {boards, games}}, test_games_also_in_training, training {history {train_loss, "
        "validation_loss}, best_epoch, epochs, best_validation_loss, train_log_loss, cpu_seconds, wall_seconds}, "
        "baseline_weights {wpm, wpm-course, share}, test {net, wpm, share, wpm-course: {all, alive {4 alive, 3 alive, "
        "2 alive}, round {rounds 0-2, ...}: {boards, log_loss, brier, accuracy, ece}, reliability {count, forecast, observed}}}, "
        "test_gap {wpm, share, wpm-course: {boards, groups, gap, low, high}} (the net's log-loss minus the baseline's, 95 % interval).",
    )] = False,
) -> None:
    """Train a network on the study's 552 inputs from the boards of seat-fair reference-bot games and judge it on held-out games \
against two baselines, e.g. [b]boardlab train dicewars-winprob --out models/dicewars-winprob.pt[/] (the regions network) \
or [b]--arch study[/] (the study's 552-1024-1024-4)."""
    from boardlab.bots.dicewars import network
    from boardlab.core.config import build
    from boardlab.core.records import write_atomic
    from boardlab.studies.dicewars import winprob_study as study
    from boardlab.studies.dicewars.winprob_metrics import reliability_png

    if arch not in ARCH_DEFAULTS:
        raise BoardlabError(f"--arch must be one of {', '.join(ARCH_DEFAULTS)}, not {arch!r}")
    hidden = ARCH_DEFAULTS[arch]["hidden"] if hidden is None else hidden
    dropout = ARCH_DEFAULTS[arch]["dropout"] if dropout is None else dropout
    every = ARCH_DEFAULTS[arch]["every"] if every is None else every
    config = build(network.NetConfig, "train dicewars-winprob", arch=arch, hidden=hidden, dropout=dropout, batch_size=batch_size,
                   lr=lr, max_epochs=max_epochs, patience=patience, seed=seed, permute_areas=permute_areas)
    if split not in study.SPLITS:
        raise BoardlabError(f"--split must be one of {', '.join(study.SPLITS)}, not {split!r}")
    output_file(out, "--out")
    for path, option in ((data, "--data"), (markdown, "--markdown")):
        if path is not None:
            check_output_file(path, option)
    with progress_bar("dicewars-winprob") as progress:
        task = progress.add_task("data", total=None, note="games")
        rows = study.dataset(boards, data_seed, data, lambda note: progress.update(task, note=note))
        progress.update(task, total=max_epochs, completed=0, note="training")
        model, result = study.run(rows, config, split, test_fraction, validation_fraction, split_seed=seed, every=every,
                                  on_epoch=lambda e, p: progress.update(
                                      task, completed=e, note=f"validation log-loss {p['validation_loss']:.4f} (best epoch {p['best_epoch']})"))
    metrics_file = out.with_name(out.stem + ".metrics.json")
    png = out.with_name(out.stem + ".reliability.png")
    command = (f"boardlab train dicewars-winprob --boards {boards} --data-seed {data_seed} --every {every} --split {split} "
               f"--seed {seed} --arch {arch} --hidden {hidden} --dropout {dropout} --max-epochs {max_epochs} --patience {patience}"
               + (" --permute-areas" if permute_areas else ""))
    result = {"model": str(out), "metrics_file": str(metrics_file), "reliability_png": str(png),
              "command": command, **result}
    network.save(out, model, config, {"split": split, "boards": boards, "data_seed": data_seed, "every": every,
                                      "test_fraction": test_fraction, "validation_fraction": validation_fraction,
                                      "command": command})
    reliability_png({name: result["test"][name]["reliability"] for name in FORECASTS}, png,
                    f"held-out boards, split by {split}")
    import json

    write_atomic(metrics_file, json.dumps(result, indent=1) + "\n")
    if markdown is not None:
        write_atomic(markdown, study.markdown(result) + "\n")
    if json_out:
        print_json(result)
        return
    s, t = result["sizes"], result["training"]
    console.print(f"{s['train']['boards']} training boards from {s['train']['games']} games, {s['test']['boards']} test boards "
                  f"from {s['test']['games']} games ({result['test_games_also_in_training']} of them also in training); "
                  f"{t['epochs']} epochs, best {t['best_epoch']}, {t['cpu_seconds']:.0f} s of CPU")
    _table(result)
    console.print(f"wrote {out}, {metrics_file}, {png}")


def evaluate(
    model: Annotated[Path, typer.Argument(metavar="MODEL", help="A model written by boardlab train dicewars-winprob.", show_default=False)],
    data: Annotated[Optional[Path], typer.Option(
        "--data", help="Dataset file of the model's games (read when it exists, else generated and written there). Default: generated, not kept.",
        show_default=False,
    )] = None,
    markdown: Annotated[Optional[Path], typer.Option("--markdown", help="Also write the held-out tables (Markdown) to this file.", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object: model, split, every, command, sizes {train, validation, test: {boards, games}}, "
        "test {net, wpm, share, wpm-course: {all, alive, round, reliability}} (as the training's metrics).")] = False,
) -> None:
    """The model's held-out figures again: its test games (played again from its seeds) and the baselines refitted on its training games."""
    from boardlab.core.records import write_atomic
    from boardlab.studies.dicewars import winprob_study as study

    for path, option in ((data, "--data"), (markdown, "--markdown")):
        if path is not None:
            check_output_file(path, option)
    with progress_bar("dicewars-winprob") as progress:
        progress.add_task("held-out games", total=None, note="")
        result = study.held_out(model, data)
    if markdown is not None:
        write_atomic(markdown, study.markdown(result) + "\n")
    if json_out:
        print_json(result)
        return
    _table(result)


def _recognises(path: Path) -> bool:
    from boardlab.bots.dicewars.network import is_checkpoint

    return is_checkpoint(path)


recipe = Recipe(
    train=train,
    summary="Dice Wars win-probability network on the SUI study's 552 inputs (regions network, or the study's 552-1024-1024-4), "
    "judged on held-out games against two baselines",
    game="dicewars",
    makes="model file NAME.pt with NAME.metrics.json and NAME.reliability.png beside it (leaf of dw-emm:leaf=net,net=NAME.pt)",
    evaluate=evaluate,
    recognises=_recognises,
)
