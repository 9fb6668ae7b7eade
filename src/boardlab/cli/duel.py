"""``boardlab duel``: two agents, N games, alternating who starts."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from boardlab.arena.duel import duel as run_duel
from boardlab.cli.app import command
from boardlab.commands.console import console, err_console, print_json
from boardlab.core.errors import BoardlabError
from boardlab.core.files import check_output_folder, output_folder
from boardlab.core.registry import make


@command("duel")
def duel(
    agent_a: str = typer.Argument(..., help="First agent spec, e.g. random or mcts:iterations=2000."),
    agent_b: str = typer.Argument(..., help="Second agent spec."),
    game: str = typer.Option("connect4", "--game", "-g", help="Game spec, e.g. connect4:rows=5,cols=6."),
    games: int = typer.Option(100, "--games", "-n", help="Number of games; the first agent starts games 1, 3, 5, ..."),
    seed: int = typer.Option(0, "--seed", "-s", min=0, help="Seed; the same seed replays the same duel."),
    records: Path = typer.Option(None, "--records", help="Write each game's record into this folder as game-NNNNN.json (the folder is made if missing; "
                                 "its parent must exist)."),
    workers: int = typer.Option(1, "--workers", "-w", min=1, help="Processes playing the games at once (one core each; "
                                "the same games as with 1, their times per move measured side by side)."),
    backend: str = typer.Option("process", "--backend", help="process (a local pool of --workers) or ray."),
    address: Optional[str] = typer.Option(None, "--address", help="Ray cluster address (with --backend ray); default: start a local Ray."),
    json_out: bool = typer.Option(
        False, "--json",
        help="Print one JSON object: game, agents, seed, games, wins, draws, losses, "
        "by_seat [{seat, games, wins, draws, losses} of the first agent in seat 0 and 1], first_player_win_rate, "
        "moves [of each agent], seconds_per_move [each agent's mean wall time per decision].",
    ),
) -> None:
    """Play AGENT_A against AGENT_B and print [b]W D L[/]: A's wins, draws, B's wins; then results by seat."""
    the_game = make(game)
    if records is not None:
        check_output_folder(records, "--records")  # made when the first game is saved
        earlier = sorted(records.glob("game-*.json")) if records.is_dir() else []
        if earlier:
            raise BoardlabError(f"--records {records} already holds {len(earlier)} records ({earlier[0].name}, ...); "
                                "give an empty or new folder so that no record is overwritten")

    def save(index: int, record) -> None:
        if records is not None:
            record.save(output_folder(records, "--records") / f"game-{index + 1:05d}.json")

    with Progress(
        TextColumn("duel"), BarColumn(), MofNCompleteColumn(), TextColumn("games"), TimeRemainingColumn(),
        console=err_console, transient=True, disable=games < 50 or not err_console.is_terminal,
    ) as progress:
        task = progress.add_task("duel", total=games)

        def on_game(index: int, record) -> None:
            save(index, record)
            progress.advance(task)

        result = run_duel(the_game, agent_a, agent_b, games, seed, on_game=on_game, workers=workers, backend=backend, address=address)
    if json_out:
        print_json(result.to_dict())
        return
    console.print(f"{result.wins} {result.draws} {result.losses}")
    console.print(
        f"{result.agents[0]} vs {result.agents[1]} on {result.game}: {result.games} games, seed {seed}"
    )
    table = Table("first agent", "games", "wins", "draws", "losses", "win %")
    for seat, label in enumerate(("moving first", "moving second")):
        r = result.by_seat[seat]
        table.add_row(label, str(r.games), str(r.wins), str(r.draws), str(r.losses), f"{100 * r.wins / r.games:.1f}" if r.games else "-")
    console.print(table)
    console.print(
        f"the player moving first won {100 * result.first_player_wins / result.games:.1f} % "
        f"({result.first_player_wins} of {result.games})"
    )
    console.print("time per move: " + ", ".join(
        f"{spec} " + (f"{1e6 * per:.0f} µs" if per < 1e-3 else f"{1000 * per:.1f} ms")
        for spec, per in zip(result.agents, result.seconds_per_move) if per is not None))
