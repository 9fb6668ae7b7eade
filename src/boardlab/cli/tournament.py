"""``boardlab tournament`` and ``boardlab report``: many agents, many games, one results store."""

from __future__ import annotations

import math
import shlex
import time
from pathlib import Path
from typing import Any, List, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from boardlab.arena.store import default_store_path
from boardlab.cli.app import command
from boardlab.commands.console import console, err_console, print_json
from boardlab.core.errors import BoardlabError
from boardlab.core.files import check_output_file, check_output_folder

GAME_KEYS = (
    "type ('game'), tournament, index, seed, seats, agents, returns, scores, seconds, done, total, "
    "stored (false when another process running this tournament stored the game first), and stats ({game: "
    "state.statistics(), agents: [agent.statistics()], decisions: [[decisions, wall seconds of their steps] of each "
    "seat]}; decisions left out, and stats absent when there is nothing else, for a game played in compiled code)"
)
SUMMARY_KEYS = (
    "type ('summary'), tournament, store, config {game, agents, players, games, format, seed, resolved_agents "
    "(each agent's every option, defaults included, as recorded when the tournament began; absent for tournaments "
    "stored before boardlab recorded them)}, total_games, "
    "already_stored (when it started), played (by this process), stored_by_others (of those played, the games another "
    "process running this tournament stored first), seconds, games_per_second, agent_table [{agent, games, wins, draws, losses, win_rate, "
    "win_low, win_high, mean_rank, rank_low, rank_high}], rating_model ('elo' or 'openskill'), ratings "
    "(elo: {model, ratings [{agent, elo, low, high, games}], first_seat_advantage {elo, low, high}, bootstrap}; "
    "openskill: {model, ratings [{agent, mu, sigma, low, high, ordinal, games}]}), endings [{end, games, share, "
    "no_winner}] (how the games ended: state.end_reason())"
)


class GamesPerSecondColumn(ProgressColumn):
    def render(self, task: Any) -> Text:
        speed = task.finished_speed or task.speed
        return Text("- games/s" if speed is None else f"{speed:.1f} games/s")


def _print_tables(section: dict[str, Any], thresholds: list[float]) -> None:
    from boardlab.arena.report import TABLE_TITLES, table_rows

    console.print(
        f"[bold]tournament {section['id']}[/]: {section['game']}, {section['format']}, "
        f"{section['players']} players per game, {section['finished_games']}/{section['total_games']} games"
    )
    for key, (header, rows) in table_rows(section, thresholds).items():
        if not rows:
            continue
        title = TABLE_TITLES[key]
        if key == "scores" and section["score_source"] == "returns":
            title += " (returns)"
        table = Table(*header, title=title, title_justify="left")
        for row in rows:
            table.add_row(*row)
        console.print(table)
    if section.get("rating_model") == "elo":
        adv = section["ratings"]["first_seat_advantage"]
        console.print(f"first-seat advantage: {adv['elo']:.0f} Elo (95 %: {adv['low']:.0f} – {adv['high']:.0f})")


MAX_BOOTSTRAP = 100_000


def _thresholds(text: str) -> list[float]:
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise BoardlabError(f"--thresholds must be numbers separated by commas, not {text!r}") from None
    if not all(math.isfinite(v) for v in values):
        raise BoardlabError(f"--thresholds must be finite numbers, not {text!r}")
    return values


@command(
    "tournament",
    context_settings={"allow_extra_args": True},
)
def tournament(
    ctx: typer.Context,
    game: str = typer.Option("connect4", "--game", "-g", help="Game spec, e.g. connect4 or nothanks."),
    agents: List[str] = typer.Option(
        [], "--agents", "-a",
        help="Agent specs: --agents A B C (the agents follow the flag), or --agents repeated. "
        "The first agent is the gauntlet's challenger.",
    ),
    players: Optional[int] = typer.Option(
        None, "--players-per-game", "-k",
        help="Players per game; default: the game's own number. A game with a 'players' parameter is made with players=K.",
    ),
    games: int = typer.Option(
        10, "--games", "-n",
        help="round-robin and gauntlet: games per group of K agents (per unordered pairing for two players), "
        "seatings rotated game by game (A B, B A, ...), so each agent sits in every seat equally often "
        "when N is a multiple of K. random-seating: N games in all. rotations, rotations-under-test: N boards, K games each.",
    ),
    fmt: str = typer.Option(
        "round-robin", "--format", "-f",
        help="round-robin: every group of K agents; gauntlet: the first agent with every group of K-1 others; "
        "random-seating: N games, each with K agents drawn and seated at random. "
        "rotations (seat-fair): per board one group in every rotation, the same seed (board and chance) for all; "
        "rotations-under-test: the same with the first agent in every group (the Dice Wars course's --ai-under-test).",
    ),
    seed: int = typer.Option(0, "--seed", "-s", min=0, help="Tournament seed; game i is played with seed derive_seed(S, i)."),
    store_path: Optional[Path] = typer.Option(
        None, "--store", help="Results store (SQLite); default $XDG_DATA_HOME/boardlab/results.sqlite or ~/.local/share/boardlab/results.sqlite."
    ),
    workers: Optional[int] = typer.Option(
        None, "--workers", "-w", help="Parallel workers; default: the CPU cores. 1 plays in this process."
    ),
    backend: str = typer.Option("process", "--backend", help="process (a local process pool) or ray."),
    address: Optional[str] = typer.Option(None, "--address", help="Ray cluster address (with --backend ray); default: start a local Ray."),
    json_out: bool = typer.Option(
        False, "--json",
        help=f"Print one JSON object per finished game ({GAME_KEYS}), then a summary object ({SUMMARY_KEYS}).",
    ),
) -> None:
    """Play a tournament and store every game as it finishes.

    The same command run again resumes the tournament (its id is a hash of game, agents, K, games, format and
    seed) and plays only the games that are missing; it refuses when an agent's options (defaults included, which
    the specs leave out) are no longer those the tournament was begun with. Then prints results and ratings; [b]boardlab report[/] gives the
    full tables and plots.
    """
    # imported here: scipy and the process pool machinery would slow down every other command
    from boardlab.arena.backends import check_backend, default_workers
    from boardlab.arena.report import tournament_section
    from boardlab.arena.store import ResultStore
    from boardlab.arena.tournament import play_missing, prepare

    specs = list(agents) + list(ctx.args)
    if ctx.args and len(agents) > 1:
        raise BoardlabError("write all agents after one --agents flag, or repeat --agents before each agent, not both")
    stray = [a for a in specs if a.startswith("-")]
    if stray:
        raise BoardlabError(f"unknown option {stray[0]!r}")
    check_backend(backend, address)
    if store_path is not None:
        check_output_file(store_path, "--store")  # a new store's folder must exist (the default one is made)
    config = prepare(game, specs, players, games, fmt, seed)
    workers = workers if workers is not None else default_workers()
    command_line = "boardlab tournament " + shlex.join(
        ["--game", config.game, "--agents", *config.agents, "--players-per-game", str(config.players),
         "--games", str(config.games), "--format", config.format, "--seed", str(config.seed)]
    )
    tid = config.id
    start = time.perf_counter()
    with ResultStore(store_path) as store:
        total = len(config.schedule())
        with Progress(
            TextColumn(f"tournament {tid}"), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
            GamesPerSecondColumn(), TimeRemainingColumn(),
            console=err_console, transient=True, disable=not err_console.is_terminal,
        ) as progress:
            task = progress.add_task("tournament", total=total)

            def on_game(update) -> None:
                progress.update(task, completed=update.done)
                if json_out:
                    print_json({"type": "game", "tournament": tid, **update.result.to_dict(),
                                "done": update.done, "total": update.total, "stored": update.stored})

            try:
                already, played, others = play_missing(config, store, command_line, workers, backend, address, on_game)
            except KeyboardInterrupt:
                stored = len(store.finished_indices(tid))
                err_console.print(
                    f"interrupted: {stored} of {total} games are stored in {store.path}; "
                    "run the same command again to play the rest"
                )
                raise typer.Exit(130) from None
            progress.update(task, completed=min(total, already + played))
        seconds = time.perf_counter() - start
        info = store.tournament(tid)
        section = tournament_section(info, store.games(tid), bootstrap=200)
    if json_out:
        print_json({
            # the stored config: its agents' options as recorded when it began (none for an old store)
            "type": "summary", "tournament": tid, "store": str(store.path), "config": info.config,
            "total_games": total, "already_stored": already, "played": played, "stored_by_others": others, "seconds": seconds,
            "games_per_second": played / seconds if seconds > 0 else None,
            "agent_table": section["agent_table"], "rating_model": section.get("rating_model"),
            "ratings": section.get("ratings"), "endings": section["endings"],
        })
        return
    rate = f", {played / seconds:.1f} games/s" if played and seconds > 0 else ""
    if others:
        stored_here = played - others
        which = f"all {others} of them" if others == played else f"{others} of them"
        console.print(
            f"played {played} games ({already} already stored when it started; another process running this tournament "
            f"stored {which} first, so this run stored {stored_here or 'none'}){rate}; store {store.path}"
        )
    else:
        console.print(f"played {played} games ({already} already stored){rate}; store {store.path}")
    _print_tables({**section, "score_table": []}, [])  # scores: see boardlab report


@command("report")
def report(
    store_path: Optional[Path] = typer.Argument(None, help="Results store; "
                                                "default $XDG_DATA_HOME/boardlab/results.sqlite or ~/.local/share/boardlab/results.sqlite."),
    tournament_ids: List[str] = typer.Option(
        [], "--tournament", "-t", help="Tournament id or its first digits; repeat for several; default: the latest."
    ),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Folder for report.md and the PNG plots (made if missing; its parent must exist); "
                                       "default ./report-<id>."),
    thresholds: str = typer.Option("", "--thresholds", help="Score thresholds for 'share above', e.g. 110,120,140."),
    bootstrap: int = typer.Option(400, "--bootstrap", help="Bootstrap resamples for the Elo intervals (0 to 100,000)."),
    json_out: bool = typer.Option(
        False, "--json",
        help="Print one JSON object: store, thresholds, files, tournaments [{id, game, players, format, seed, agents, "
        "resolved_agents (each agent's every option, defaults included, as recorded when the tournament began; absent "
        "for tournaments stored before boardlab recorded them), total_games, finished_games, command, created, agent_table, rating_model, "
        "ratings, pair_table (two players), seat_table, score_source, score_table}].",
    ),
) -> None:
    """Print a tournament's tables and write a Markdown report with plots (ratings, score histograms, seats)."""
    from boardlab.arena.report import build_report, write_report
    from boardlab.arena.store import ResultStore

    limits = _thresholds(thresholds)
    if out is not None:
        check_output_folder(out, "--out")
    path = store_path if store_path is not None else default_store_path()
    if not path.exists():
        raise BoardlabError(f"no results store at {path}")
    if not 0 <= bootstrap <= MAX_BOOTSTRAP:
        raise BoardlabError(f"--bootstrap must be between 0 and {MAX_BOOTSTRAP:,}, not {bootstrap}")
    with ResultStore(path) as store:
        data, games = build_report(store, tournament_ids or [None], limits, bootstrap)
    folder = out if out is not None else Path(f"report-{data['tournaments'][0]['id']}")
    files = write_report(data, games, folder)
    if json_out:
        print_json({**data, "files": [str(f) for f in files]})
        return
    for section in data["tournaments"]:
        _print_tables(section, limits)
    console.print(f"wrote {', '.join(str(f) for f in files)}")
