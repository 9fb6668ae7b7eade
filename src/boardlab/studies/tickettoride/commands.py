"""The Ticket to Ride study as an experiment (entry point ``ttr-study``): ``boardlab experiment ttr-study``.

The work is in :mod:`boardlab.studies.tickettoride.study`; this module only wires the command.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from boardlab.commands.console import console, print_json, progress_bar
from boardlab.commands.plugin import Experiment
from boardlab.core.errors import BoardlabError
from boardlab.core.files import output_folder


def _counts(text: str) -> list[int]:
    try:
        return [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise BoardlabError(f"--players must be player counts separated by commas (2,3,4,5), not {text!r}") from None


def run(
    variant: Annotated[str, typer.Option("--variant", help="study (no longest-path bonus, as the study played) or official.")] = "study",
    games: Annotated[int, typer.Option("--games", "-n", help="Games per player count (the study: 250).")] = 250,
    players: Annotated[str, typer.Option("--players", help="Player counts, comma-separated.")] = "2,3,4,5",
    agent: Annotated[str, typer.Option("--agent", help="The agent in every seat (its spec without seed=).")] = "ttr-algorithmic",
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the games (player count K uses seed+K).")] = 2018,
    store: Annotated[Optional[Path], typer.Option(
        "--store", help="Results store (SQLite); default: boardlab's store in your data folder. A rerun resumes.", show_default=False,
    )] = None,
    workers: Annotated[Optional[int], typer.Option("--workers", "-w", help="Processes (default: every core this process may use).", show_default=False)] = None,
    backend: Annotated[str, typer.Option("--backend", help="process (a local pool) or ray.")] = "process",
    address: Annotated[Optional[str], typer.Option("--address", help="Ray cluster address (with --backend ray).", show_default=False)] = None,
    engine: Annotated[str, typer.Option(
        "--engine", help="auto (compiled games where the agent offers them) or python (every move through the Python engine; the same games, slower).",
    )] = "auto",
    plots: Annotated[Optional[Path], typer.Option(
        "--plots", help="Folder for the three PNG figures (scores by player count, overall with a fitted normal, MIN/AVG/MED/MAX). Default: no files.",
        show_default=False,
    )] = None,
    json_out: Annotated[bool, typer.Option(
        "--json",
        help="Print one JSON object: variant, agent, games, seed, tournaments {K: id}, rows {K|all: {games, players, min, max, "
        "mean, mean_low, mean_high, sd, median, above_110, above_120, above_140, tickets_done, tickets_failed, "
        "forbidden_games, forbidden_moves}}, study (the study's rows), plots, seconds.",
    )] = False,
) -> None:
    """The Ticket to Ride study's experiment: games per player count, the study's table beside ours, \
e.g. [b]boardlab experiment ttr-study --variant study --games 250[/]."""
    import time

    from boardlab.arena.backends import default_workers
    from boardlab.studies.tickettoride import study as ttr_study

    if engine not in ("auto", "python"):
        raise BoardlabError(f"--engine must be auto or python, not {engine!r}")
    counts = _counts(players)
    plan = ttr_study.configs(variant, games, seed, agent, counts)  # checks everything before any game
    if plots is not None:
        output_folder(plots)  # before the games: a folder that cannot be made fails now
    start = time.perf_counter()
    with progress_bar("ttr-study") as progress:
        tasks = {k: progress.add_task(f"{k} players", total=len(c.schedule()), note=f"{k} players") for k, c in plan.items()}

        def on_game(k: int, state) -> None:
            progress.update(tasks[k], completed=state.done)

        by_count = ttr_study.run(variant, games, seed, agent, counts, store, workers or default_workers(), backend,
                                 address, compiled=engine == "auto", on_game=on_game, command=" ".join(sys.argv))
    seconds = time.perf_counter() - start
    rows = ttr_study.table(by_count)
    written = [str(p) for p in ttr_study.plots(by_count, plots, title=f"{agent}, {variant} rules")] if plots else []
    if json_out:
        print_json({"variant": variant, "agent": agent, "games": games, "seed": seed,
                    "tournaments": {str(k): c.id for k, c in plan.items()}, "rows": rows, "study": ttr_study.STUDY,
                    "plots": written, "seconds": seconds})
        return
    table = Table(title=f"{agent}, {variant} rules, {games} games per player count (the study's value in brackets)")
    table.add_column("")
    for key in rows:
        table.add_column("overall" if key == "all" else f"{key} players", justify="right")
    for key, label, digits in ttr_study.LINES:
        cells = []
        for column in rows:
            value = rows[column].get(key)
            text = "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"
            theirs = ttr_study.STUDY.get(column, {}).get(key)
            cells.append(text + (f" ({theirs:.{digits}f})" if theirs is not None else ""))
        table.add_row(label, *cells)
    console.print(table)
    console.print(f"{sum(len(r) for r in by_count.values())} games in the store; {seconds:.1f} s")
    for path in written:
        console.print(f"wrote {path}")


experiment = Experiment(
    run=run,
    summary="the Ticket to Ride study: N games per player count, MAX/MIN/AVG/σ/MED, % over 110/120/140, tickets, forbidden moves",
    game="tickettoride",
)
