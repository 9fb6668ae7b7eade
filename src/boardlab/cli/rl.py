"""``boardlab rl``: train Connect Four Q-networks by self-play, list the runs, rank them."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from boardlab.cli.app import JSON_HELP, command, command_group, console, err_console, print_json
from boardlab.core.errors import BoardlabError

rl = command_group("rl", "Reinforcement learning for Connect Four: self-play Q-learning with a neural Q-function (the study's method).")

RUNS_HELP = "Folder holding the runs (<config>-<n>/)."


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
    )


@command("train", group=rl)
def train(
    config: Optional[Path] = typer.Argument(None, help="JSON config with the study's keys (see docs/c4-rl.md)."),
    resume: Optional[str] = typer.Option(None, "--resume", "-r", help="Carry on the run of this name (or path) from its last checkpoint."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help=RUNS_HELP),
    stop_after: Optional[int] = typer.Option(None, "--stop-after", help="Stop (with a checkpoint) once this many games are played in all."),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP + " Keys: run, path, games_played, games_to_play, checkpoint."),
) -> None:
    """Train a Q-network by self-play; the run is named [b]<config>-<n>[/] and checkpoints every saving_rate games."""
    from boardlab.nn.qlearning import find_run, load_config, new_run, train_run

    if (config is None) == (resume is None):
        raise BoardlabError("give a CONFIG file to start a run, or --resume RUN to carry one on (not both)")
    if resume is not None:
        run = find_run(resume, runs_dir)
        cfg = load_config(run.config_file)
    else:
        run, cfg = new_run(config, runs_dir)
    if not json_out:
        err_console.print(f"run {run.name} in {run.path.parent}")
    goal = cfg.games_to_play if stop_after is None else min(stop_after, cfg.games_to_play)
    with _progress() as progress:
        task = progress.add_task(run.name, total=goal)

        def tick(learner) -> None:
            progress.update(task, completed=learner.games_played)

        try:
            learner = train_run(run, stop_after=stop_after, on_game=tick)
        except KeyboardInterrupt:
            err_console.print(f"stopped; 'boardlab rl train --resume {run.name}' continues from the last checkpoint")
            raise typer.Exit(130) from None
    result = {
        "run": run.name,
        "path": str(run.path),
        "games_played": learner.games_played,
        "games_to_play": cfg.games_to_play,
        "checkpoint": str(run.checkpoint),
    }
    if json_out:
        print_json(result)
    else:
        console.print(f"{run.name}: {learner.games_played}/{cfg.games_to_play} games, checkpoint {run.checkpoint}")


@command("runs", group=rl)
def runs(
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help=RUNS_HELP),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP + " Keys: run, config, games_played, games_to_play, agent."),
) -> None:
    """List the training runs and the agent spec that plays each."""
    from boardlab.nn.qlearning import list_runs, load_config

    rows = []
    for run in list_runs(runs_dir):
        try:
            cfg = load_config(run.config_file)
            total = cfg.games_to_play
        except BoardlabError:
            total = None
        rows.append({"run": run.name, "config": run.config_name, "games_played": run.games_played(),
                     "games_to_play": total, "agent": f"qnet:run={run.name}"})
    if json_out:
        print_json(rows)
        return
    if not rows:
        console.print(f"no runs in {runs_dir}")
        return
    table = Table("run", "config", "games", "agent")
    for row in rows:
        table.add_row(row["run"], row["config"], f"{row['games_played']}/{row['games_to_play']}", row["agent"])
    console.print(table)


rank = typer.Typer(name="rank", help="Rank trained runs as in the study's tables (win percentages per configuration).", no_args_is_help=True, add_completion=False)
rl.add_typer(rank, name="rank")

RANK_JSON = " Keys: kind, games, ranking [{config, mean, max, min, optimal_mean, optimal_max, optimal_min, agents [{run, win_percent, games, by_seat, optimal_percent}]}]; percentages of games won (optimal_*: % optimal moves, with --positions)."


def _print_ranking(title: str, ranking: list[dict]) -> None:
    graded = any("optimal_mean" in row for row in ranking)
    table = Table("configuration", "mean", "max", "min", "agents", *(["optimal moves (mean)"] if graded else []), title=title)
    for row in ranking:
        extra = [f"{row['optimal_mean']:.1f}%"] if graded else []
        table.add_row(row["config"], f"{row['mean']:.2f}%", f"{row['max']:.2f}%", f"{row['min']:.2f}%", str(len(row["agents"])), *extra)
    console.print(table)


def _load_positions(path: Optional[Path]):
    if path is None:
        return None
    from boardlab.solvers.grading import load_grading_set

    return load_grading_set(path)


@command("all-play-all", group=rank)
def rank_all_play_all(
    runs: List[str] = typer.Argument(..., help="Run names (or paths); a run's configuration is its name without -<n>."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help=RUNS_HELP),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP + RANK_JSON),
) -> None:
    """Every agent plays every agent of another configuration once in each seat."""
    from boardlab.experiments.c4_rl import all_play_all, load_agents

    result = all_play_all(load_agents(runs, runs_dir))
    if json_out:
        print_json({"kind": "all-play-all", "games": 1, "ranking": result})
    else:
        _print_ranking("all play all: games won", result)


@command("with-random", group=rank)
def rank_with_random(
    runs: List[str] = typer.Argument(..., help="Run names (or paths)."),
    games: int = typer.Option(1000, "--games", "-n", help="Games per agent as first player, and again as second."),
    seed: int = typer.Option(0, "--seed", help="Seed of the random player's moves."),
    positions: Optional[Path] = typer.Option(None, "--positions", help="Grading set (boardlab grade's format): also give each agent's % of optimal moves."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help=RUNS_HELP),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP + RANK_JSON),
) -> None:
    """Every agent plays the random player GAMES times as first and GAMES times as second player."""
    from boardlab.experiments.c4_rl import load_agents, with_random

    graded = _load_positions(positions)
    result = with_random(load_agents(runs, runs_dir), games, seed, graded)
    if json_out:
        print_json({"kind": "with-random", "games": games, "ranking": result})
    else:
        _print_ranking(f"against random ({games} games per seat): games won", result)


experiment = typer.Typer(name="experiment", help="The study's experiments, scaled to this machine.", no_args_is_help=True, add_completion=False)
rl.add_typer(experiment, name="experiment")


@command("c4-stages", group=experiment)
def c4_stages(
    out: Path = typer.Option(Path("runs/c4-stages"), "--out", help="Folder for runs/, results.json, tables.md and stage_one.png; re-running resumes."),
    games: int = typer.Option(1000, "--games", help="Training games per agent (stage 1 also ranks the snapshots at 1/8, 1/4, 1/2)."),
    agents: int = typer.Option(2, "--agents", help="Agents (seeds) trained per configuration (the study: 5)."),
    eval_games: int = typer.Option(200, "--eval-games", help="Games against random per agent and seat (the study: 1000)."),
    workers: int = typer.Option(1, "--workers", help="Training processes."),
    stages: int = typer.Option(6, "--stages", min=1, max=6, help="Run stages 1..STAGES."),
    positions: Optional[Path] = typer.Option(None, "--positions", help="Grading set (boardlab grade's format): also give each agent's % of optimal moves."),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP + " Keys: games, agents, eval_games, base, stages [{stage, all_play_all, with_random, score, chosen}], final_config."),
) -> None:
    """Train and rank the study's six stages (future value and games, hidden neurons, temperature, discount, learning rate, rewards)."""
    from boardlab.core.records import write_atomic
    from boardlab.experiments.c4_stages import plot_stage_one, run_stages, tables_markdown

    if games < 8:
        raise BoardlabError("--games must be at least 8 (stage 1 ranks snapshots at games/8)")
    results = run_stages(out, games=games, agents=agents, eval_games=eval_games, workers=workers, stages=stages,
                         positions=_load_positions(positions), log=lambda line: err_console.print(line))
    tables = tables_markdown(results)
    write_atomic(out / "tables.md", tables)
    plot_stage_one(results, out / "stage_one.png")
    if json_out:
        print_json(results)
    else:
        console.print(tables)


@command("curve", group=rl)
def curve(
    runs: List[str] = typer.Argument(..., help="Run names (or paths); every snapshot of each is evaluated."),
    games: int = typer.Option(200, "--games", "-n", help="Games against random per snapshot and seat."),
    png: Optional[Path] = typer.Option(None, "--png", help="Also draw the curves to this PNG."),
    positions: Optional[Path] = typer.Option(None, "--positions", help="Grading set (boardlab grade's format): also give each agent's % of optimal moves."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help=RUNS_HELP),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP + " Keys: run -> [{games_played, first, second, optimal}] (% won against random; % optimal moves with --positions)."),
) -> None:
    """Learning curves: win percentage against random at each snapshot, as first and as second player."""
    from boardlab.experiments.c4_rl import learning_curve, plot_curves
    from boardlab.nn.qlearning import find_run

    graded = _load_positions(positions)
    curves = {name: learning_curve(find_run(name, runs_dir), games, positions=graded) for name in runs}
    if png is not None:
        plot_curves(curves, png, f"win rate against random ({games} games per seat)")
    if json_out:
        print_json(curves)
        return
    table = Table("run", "games played", "first %", "second %", "optimal moves %")
    for name, points in curves.items():
        for p in points:
            optimal = f"{p['optimal']:.1f}" if "optimal" in p else "-"
            table.add_row(name, str(p["games_played"]), f"{p['first']:.1f}", f"{p['second']:.1f}", optimal)
    console.print(table)


@command("export", group=rl)
def export(
    run: str = typer.Argument(..., help="Run name (or path)."),
    out: Path = typer.Option(..., "--out", "-o", help="Model file to write (config and weights, no optimizer or random states)."),
    snapshot: Optional[int] = typer.Option(None, "--snapshot", help="Export the snapshot at this many games instead of the latest checkpoint."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help=RUNS_HELP),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP + " Keys: run, games_played, out, bytes."),
) -> None:
    """Write a run's network as a model file for [b]qnet:path=FILE[/] (the committed default agent is one)."""
    from boardlab.nn.qlearning import Learner, export_model, find_run

    found = find_run(run, runs_dir)
    source = found.checkpoint
    if snapshot is not None:
        snaps = dict(found.snapshots())
        if snapshot not in snaps:
            raise BoardlabError(f"run {found.name} has no snapshot at {snapshot} games (it has: {', '.join(map(str, snaps)) or 'none'})")
        source = snaps[snapshot]
    learner = Learner.load(source)
    export_model(learner, out)
    result = {"run": found.name, "games_played": learner.games_played, "out": str(out), "bytes": out.stat().st_size}
    if json_out:
        print_json(result)
    else:
        console.print(f"{found.name} after {learner.games_played} games -> {out} ({result['bytes']} bytes)")
