"""Connect Four self-play Q-learning (the study's method) as a recipe and three experiments.

``boardlab train c4-qlearning new | resume | runs | export`` (start, resume, list and export runs), ``boardlab
evaluate RUN-or-MODEL``, ``boardlab experiment c4-stages | c4-ranking | c4-curves``.
The work is in :mod:`boardlab.studies.c4rl.training`, :mod:`boardlab.studies.c4rl.ranking` and
:mod:`boardlab.studies.c4rl.stages`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, List, Optional

import typer
from rich.table import Table

from boardlab.commands.console import JSON_HELP, console, err_console, print_json, progress_bar
from boardlab.commands.plugin import Experiment, Recipe
from boardlab.core.errors import BoardlabError
from boardlab.core.files import check_output_file, output_file

RUNS_HELP = "Folder holding the runs (<config>-<n>/)."
POSITIONS_HELP = "Grading set (boardlab grade's format): also give each agent's % of optimal moves."

RunsDir = Annotated[Path, typer.Option("--runs-dir", help=RUNS_HELP)]
Positions = Annotated[Optional[Path], typer.Option("--positions", help=POSITIONS_HELP, show_default=False)]


def _positions(path: Optional[Path]):
    if path is None:
        return None
    from boardlab.games.connect4.grading import load_grading_set

    return load_grading_set(path)


def _print_runs(rows: list[dict], runs_dir: Path) -> None:
    if not rows:
        console.print(f"no runs in {runs_dir}")
        return
    table = Table("run", "config", "games", "agent")
    for row in rows:
        table.add_row(row["run"], row["config"], f"{row['games_played']}/{row['games_to_play']}", row["agent"])
    console.print(table)


training = typer.Typer(
    name="c4-qlearning", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, rich_markup_mode="rich",
    help="Train Connect Four Q-networks by self-play: [b]new CONFIG[/] starts run [b]<config>-<n>[/] (checkpoints every saving_rate "
    "games; [b]--agents N[/] starts N of them with distinct seeds), [b]resume RUN[/] carries one on bit for bit (after a kill too), "
    "[b]runs[/] lists them, [b]export RUN[/] writes a model file.",
)

Workers = Annotated[int, typer.Option("--workers", "-w", min=1, help="Runs trained at once (one process each; one run uses one core).")]
Backend = Annotated[str, typer.Option(
    "--backend", help="Where several runs train: 'process' (a local pool of --workers) or 'ray' "
    "(a local Ray instance of --workers CPUs, or the cluster at --address).",
)]
Address = Annotated[Optional[str], typer.Option("--address", help="With --backend ray: the Ray cluster's address.", show_default=False)]
StopAfter = Annotated[Optional[int], typer.Option("--stop-after", help="Stop (with a checkpoint) once this many games are played in all.", show_default=False)]
TRAIN_JSON = (JSON_HELP + " One run: {run, path, games_played, games_to_play, checkpoint}; several runs: a list of "
              "{run, path, games_played, games_to_play, error, diverged} (error: null, or why that run stopped).")


@training.command("new")
def train_new(
    config: Annotated[Path, typer.Argument(metavar="CONFIG", help="JSON config with the study's keys (see docs/c4-rl.md).", show_default=False)],
    agents: Annotated[int, typer.Option(
        "--agents", min=1, help="Train this many agents, runs <config>-<n> with distinct seeds derived from "
        "the base seed (the study: 5 per configuration). 1 keeps the base seed itself.",
    )] = 1,
    seed: Annotated[Optional[int], typer.Option("--seed", min=0, help="The base seed, instead of the config's 'seed' (default 0).", show_default=False)] = None,
    workers: Workers = 1,
    backend: Backend = "process",
    address: Address = None,
    runs_dir: RunsDir = Path("runs"),
    stop_after: StopAfter = None,
    kernel: Annotated[Optional[str], typer.Option(
        "--kernel", help="The training kernel instead of the config's 'kernel': 'numpy' (default) "
        "or 'compiled' (numba, several times faster, another random stream).",
        show_default=False,
    )] = None,
    json_out: Annotated[bool, typer.Option("--json", help=TRAIN_JSON + " Several runs: --agents N.")] = False,
) -> None:
    """Start new runs of a config: run [b]<config>-<n>[/] (the next free number), or N of them with [b]--agents N[/]."""
    from boardlab.studies.c4rl.training import new_runs

    _check_training(backend, stop_after, kernel)
    runs = [run for run, _ in new_runs(config, runs_dir, agents=agents, seed=seed, kernel=kernel)]
    _train(runs, stop_after, workers, backend, address, json_out, kernel)


@training.command("resume")
def train_resume(
    runs: Annotated[List[str], typer.Argument(
        metavar="RUN...", help="Runs to carry on from their last checkpoints, by name (or path); a "
        "config's name (no run of that name) resumes all its runs <config>-<n>.",
        show_default=False,
    )],
    workers: Workers = 1,
    backend: Backend = "process",
    address: Address = None,
    runs_dir: RunsDir = Path("runs"),
    stop_after: StopAfter = None,
    kernel: Annotated[Optional[str], typer.Option(
        "--kernel", help="The kernel the runs train with: must be the one each started with (the kernels' random streams differ); a check only.",
        show_default=False,
    )] = None,
    json_out: Annotated[bool, typer.Option("--json", help=TRAIN_JSON + " Several runs: more than one RUN, or a config's name.")] = False,
) -> None:
    """Carry runs on bit for bit from their last checkpoints (after a kill too); a resumed run keeps the seed and kernel in its config.json."""
    from boardlab.studies.c4rl.training import find_runs

    _check_training(backend, stop_after, kernel)
    found = [run for name in runs for run in find_runs(name, runs_dir)]
    if len({run.path for run in found}) != len(found):
        raise BoardlabError("resume names the same run twice")
    _train(found, stop_after, workers, backend, address, json_out, kernel)


@training.command("runs")
def train_runs(
    runs_dir: RunsDir = Path("runs"),
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP + " A list of {run, config, games_played, games_to_play, agent}.")] = False,
) -> None:
    """List the runs in --runs-dir, their progress and the agent spec that plays each; train nothing."""
    from boardlab.studies.c4rl.training import run_summaries

    rows = run_summaries(runs_dir)
    if json_out:
        print_json(rows)
    else:
        _print_runs(rows, runs_dir)


@training.command("export")
def train_export(
    run: Annotated[str, typer.Argument(metavar="RUN", help="The run (name or path) whose network to write.", show_default=False)],
    out: Annotated[Path, typer.Option(
        "--out", "-o", help="The model file to write (config and weights, no optimizer or random states), for [b]qnet:path=FILE[/].", show_default=False,
    )],
    snapshot: Annotated[Optional[int], typer.Option(
        "--snapshot", help="The snapshot at this many games instead of the latest checkpoint.", show_default=False,
    )] = None,
    runs_dir: RunsDir = Path("runs"),
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP + " Keys: run, games_played, out, bytes.")] = False,
) -> None:
    """Write a run's network as a model file for [b]qnet:path=FILE[/]; train nothing."""
    from boardlab.bots.connect4.qnet_files import find_run
    from boardlab.studies.c4rl.training import export_run

    output_file(out, "--out")
    result = export_run(find_run(run, runs_dir), out, snapshot)
    if json_out:
        print_json(result)
    else:
        console.print(f"{result['run']} after {result['games_played']} games -> {out} ({result['bytes']} bytes)")


def _check_training(backend: str, stop_after: Optional[int], kernel: Optional[str]) -> None:
    """The options of new and resume, checked before a run folder is made or a checkpoint read."""
    from boardlab.studies.c4rl.training import check_kernel

    if backend not in ("process", "ray"):
        raise BoardlabError(f"--backend must be 'process' or 'ray', not {backend!r}")
    if kernel is not None:
        check_kernel(kernel, "--kernel")
    if stop_after is not None and stop_after < 0:
        raise BoardlabError(f"--stop-after must not be negative, not {stop_after}")


def _train(runs: list, stop_after: Optional[int], workers: int, backend: str, address: Optional[str], json_out: bool,
           kernel: Optional[str]) -> None:
    """Train ``runs``: one in this process with a progress bar, several (or any on a pool) with :func:`_train_batch`."""
    from boardlab.bots.connect4.qnet_files import load_config
    from boardlab.studies.c4rl.training import train_run

    if len(runs) > 1 or workers > 1 or backend != "process":
        _train_batch(runs, stop_after, workers, backend, address, json_out, kernel)
        return
    run = runs[0]
    cfg = load_config(run.config_file)
    if not json_out:
        err_console.print(f"run {run.name} in {run.path.parent}")
    goal = cfg.games_to_play if stop_after is None else min(stop_after, cfg.games_to_play)
    with progress_bar(run.name, transient=False) as progress:
        task = progress.add_task(run.name, total=goal, note="")
        try:
            learner = train_run(run, stop_after=stop_after, kernel=kernel,
                                on_game=lambda lrn: progress.update(task, completed=lrn.games_played))
        except KeyboardInterrupt:
            err_console.print(f"stopped; 'boardlab train c4-qlearning resume {run.name}' continues from the last checkpoint")
            raise typer.Exit(130) from None
    result = {"run": run.name, "path": str(run.path), "games_played": learner.games_played,
              "games_to_play": cfg.games_to_play, "checkpoint": str(run.checkpoint)}
    if json_out:
        print_json(result)
    else:
        console.print(f"{run.name}: {learner.games_played}/{cfg.games_to_play} games, checkpoint {run.checkpoint}")


def _train_batch(runs: list, stop_after: Optional[int], workers: int, backend: str, address: Optional[str], json_out: bool,
                 kernel: Optional[str] = None) -> None:
    """Several runs at once, one per worker; each finished run is reported as it ends."""
    from functools import partial

    from boardlab.arena.backends import map_tasks
    from boardlab.studies.c4rl.training import train_run_job

    if not json_out:
        err_console.print(f"training {len(runs)} runs in {runs[0].path.parent} ({', '.join(r.name for r in runs)}) "
                          f"with {workers} worker(s); 'resume {runs[0].config_name}' carries them on if stopped")
    results = []
    try:
        for result in map_tasks(partial(train_run_job, stop_after=stop_after, kernel=kernel), [str(r.path) for r in runs], workers, backend, address):
            results.append(result)
            if not json_out:
                line = f"{result['run']}: {result['games_played']}/{result['games_to_play']} games"
                console.print(line + (f" [red]stopped: {result['error']}[/]" if result["error"] else ""))
    except KeyboardInterrupt:
        err_console.print(f"stopped; 'boardlab train c4-qlearning resume {runs[0].config_name}' continues every run from its last checkpoint")
        raise typer.Exit(130) from None
    order = {str(r.path): i for i, r in enumerate(runs)}
    results.sort(key=lambda r: order[r["path"]])
    if json_out:
        print_json(results)
    failed = [r for r in results if r["error"]]
    if failed:
        raise BoardlabError(f"{len(failed)} of {len(results)} runs stopped early: " + "; ".join(f"{r['run']}: {r['error']}" for r in failed))


def evaluate(
    model: Annotated[Path, typer.Argument(
        metavar="MODEL", help="A run folder (its latest checkpoint), a checkpoint, a snapshot or an exported model file.", show_default=False,
    )],
    games: Annotated[int, typer.Option("--games", "-n", help="Games against random as first player, and again as second.")] = 200,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Seed of the random player's moves.")] = 0,
    positions: Positions = None,
    plot: Annotated[Optional[Path], typer.Option(
        "--plot", help="Run folders: also evaluate every snapshot and draw the learning curve to this PNG. Default: no plot, no file written.",
        show_default=False)] = None,
    json_out: Annotated[bool, typer.Option(
        "--json",
        help=JSON_HELP + " Keys: model, run (or null), board {rows, cols, k}, games_played, games, seed, seats [{seat, games, wins, "
        "draws, losses, win_percent}], optimal_percent (or null), curve ([{games_played, first, second, optimal}] with --plot, "
        "else null), plot (the PNG written, or null).",
    )] = False,
) -> None:
    """Win percentage of the greedy Q-player against random in each seat, and its share of optimal moves with --positions."""
    from boardlab.studies.c4rl.ranking import evaluate_q_model, plot_curves

    if plot is not None:
        check_output_file(plot, "--plot")  # before every snapshot is played
    result = evaluate_q_model(model, games, seed, _positions(positions), curve=plot is not None)
    result["plot"] = None
    if plot is not None:
        plot_curves({result["run"]: result["curve"]}, plot, f"win rate against random ({games} games per seat)")
        result["plot"] = str(plot)
    if json_out:
        print_json(result)
        return
    board = result["board"]
    console.print(f"{model}: {result['games_played']} training games, {board['rows']}x{board['cols']} board, k={board['k']}")
    table = Table("seat", "games", "wins", "draws", "losses", "won %")
    for seat in result["seats"]:
        table.add_row("first" if seat["seat"] == 0 else "second", str(seat["games"]), str(seat["wins"]), str(seat["draws"]),
                      str(seat["losses"]), f"{seat['win_percent']:.1f}")
    console.print(table)
    if result["optimal_percent"] is not None:
        console.print(f"optimal moves: {result['optimal_percent']:.1f} % of {positions}")
    if result["plot"]:
        console.print(f"learning curve ({len(result['curve'])} snapshots): {result['plot']}")


def _recognises(path: Path) -> bool:
    from boardlab.studies.c4rl.training import is_qlearning_model

    return is_qlearning_model(path)


recipe = Recipe(
    train=training,
    summary="Connect Four Q-network learned by self-play Q-learning with Boltzmann exploration (the study's method)",
    game="connect4",
    makes="run folder RUNS/<config>-<n>/ (config.json, checkpoint.pt, snapshots/); export RUN writes a model file (agent qnet:path=FILE)",
    evaluate=evaluate,
    recognises=_recognises,
)


# --- experiments -----------------------------------------------------------------------------


def stages(
    out: Annotated[Path, typer.Option(
        "--out", help="Folder for runs/, results.json, tables.md and stage_one.png; re-running "
        "resumes (finished runs and the rankings of unchanged stages are kept).",
    )] = Path("runs/c4-stages"),
    scale: Annotated[Optional[str], typer.Option(
        "--scale", help="A preset: 'study' (5 agents, stage 1 at 5k-150k games, 1000 games per seat against random, the listing's update rule, later stages at "
        "stage 1's choice: hours on many cores) or 'fast' (the same procedure in a minute or two, for CI). Options given explicitly override it.",
        show_default=False,
    )] = None,
    games: Annotated[Optional[int], typer.Option(
        "--games", help="Training games per agent (stage 1 also ranks the snapshots at 1/8, 1/4, 1/2 unless --stage-one-games). Default 1000.",
        show_default=False,
    )] = None,
    stage_one_games: Annotated[Optional[str], typer.Option(
        "--stage-one-games", help="Stage 1's game counts, comma-separated (the study: "
        "5000,10000,50000,100000,150000); runs of the largest are ranked at each count.",
        show_default=False,
    )] = None,
    carry_games: Annotated[Optional[bool], typer.Option(
        "--carry-games/--fixed-games", help="Choose stage 1's winner among every method and game count and train later stages that many games "
        "(the study), or choose the method only and train --games. Default: carry with --stage-one-games.",
        show_default=False,
    )] = None,
    terminal_reply_value: Annotated[Optional[str], typer.Option(
        "--terminal-reply-value", help="'zero': the study's update (a reply that ends the game is worth 0, as in its listing); 'reward': "
        "that reply's reward (loss or tie). Default: the base config's (reward), 'zero' with --scale.",
        show_default=False,
    )] = None,
    agents: Annotated[Optional[int], typer.Option(
        "--agents", min=1, help="Agents (seeds) trained per configuration (the study: 5). Default 2.", show_default=False,
    )] = None,
    eval_games: Annotated[Optional[int], typer.Option(
        "--eval-games", min=1, help="Games against random per agent and seat (the study: 1000). Default 200.", show_default=False,
    )] = None,
    workers: Annotated[int, typer.Option(
        "--workers", min=1, help="Runs trained at once (one process each), as train c4-qlearning new --agents N --workers W.",
    )] = 1,
    backend: Annotated[str, typer.Option("--backend", help="'process' (a local pool) or 'ray' (a local Ray instance).")] = "process",
    seed: Annotated[int, typer.Option(
        "--seed", min=0, help="Base seed: each configuration's agents get the seeds of train c4-qlearning new --agents N --seed SEED.",
    )] = 0,
    stages: Annotated[int, typer.Option(
        "--stages", min=1, max=8, help="Run stages 1..STAGES. 6 is the study's; 7 adds an encoding stage that is not in the study (the carried network against "
        "the planes encoding at each learning rate of stage 5), 8 chooses the hidden neurons again (stage 2's sizes) for the encoding stage 7 chose.",
    )] = 6,
    kernel: Annotated[Optional[str], typer.Option(
        "--kernel", help="Training kernel of every run: 'numpy' or 'compiled' (numba, several times faster, another random stream). "
        "Default: 'numpy', 'compiled' with --scale study. Re-running must keep the kernel the runs started with.",
        show_default=False,
    )] = None,
    positions: Positions = None,
    json_out: Annotated[bool, typer.Option(
        "--json", help=JSON_HELP + " Keys: games, agents, eval_games, seed, stage_one_games, carry_games, base, stages [{stage, key (digest of the "
        "ranking's inputs: a re-run on equal ones reuses it), all_play_all, with_random, score, chosen, diverged}], reward_sets "
        "(table 6.11, with --stages 6 or more: [{set, win, loss, tie, each_move}]), final_config, scale, wall_seconds.",
    )] = False,
) -> None:
    """Train and rank the study's six stages (future value and games, hidden neurons, temperature, discount, learning rate, rewards), \
each configured from the previous stage's winner; --stages 7 adds the state encoding and --stages 8 the width for it, which the study did not compare."""
    import time

    from boardlab.studies.c4rl.stages import PRESETS, run_stages, write_reports

    if backend not in ("process", "ray"):
        raise BoardlabError(f"--backend must be 'process' or 'ray', not {backend!r}")
    if scale is not None and scale not in PRESETS:
        raise BoardlabError(f"--scale must be one of {', '.join(PRESETS)}, not {scale!r}")
    preset = dict(PRESETS[scale]) if scale else {}
    counts = preset.get("stage_one_games")
    if stage_one_games is not None:
        try:
            counts = [int(x) for x in stage_one_games.split(",") if x.strip()]
        except ValueError:
            raise BoardlabError(f"--stage-one-games must be whole numbers separated by commas, not {stage_one_games!r}") from None
    if terminal_reply_value is not None and terminal_reply_value not in ("zero", "reward"):
        raise BoardlabError(f"--terminal-reply-value must be 'zero' or 'reward', not {terminal_reply_value!r}")
    if kernel is not None:
        from boardlab.studies.c4rl.training import check_kernel

        check_kernel(kernel, "--kernel")
    settings = {
        "games": games if games is not None else 1000,
        "agents": agents if agents is not None else preset.get("agents", 2),
        "eval_games": eval_games if eval_games is not None else preset.get("eval_games", 200),
        "stage_one_games": counts,
        "terminal_reply_value": terminal_reply_value if terminal_reply_value is not None else preset.get("terminal_reply_value"),
        "carry_games": carry_games if carry_games is not None else preset.get("carry_games", counts is not None),
        "kernel": kernel if kernel is not None else preset.get("kernel"),
    }
    started = time.monotonic()
    results = run_stages(out, workers=workers, stages=stages, positions=_positions(positions),
                         log=lambda line: err_console.print(line), seed=seed, backend=backend, **settings)
    results["scale"] = scale
    results["wall_seconds"] = round(time.monotonic() - started, 1)  # this invocation's (a resumed run counts only its own part)
    reports = write_reports(out, results)
    if json_out:
        print_json(results)
    else:
        console.print(reports["tables"])


RANK_JSON = (" Keys: kind, games, ranking [{config, mean, max, min, optimal_mean, optimal_max, optimal_min, agents [{run, "
             "win_percent, games, by_seat, optimal_percent}]}]; percentages of games won (optimal_*: % optimal moves, with --positions).")

ranking = typer.Typer(
    name="c4-ranking", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, rich_markup_mode="rich",
    help="Rank trained runs as in the study's tables (win percentages per configuration): all-play-all or with-random.",
)


def _print_ranking(title: str, rows: list[dict]) -> None:
    graded = any("optimal_mean" in row for row in rows)
    table = Table("configuration", "mean", "max", "min", "agents", *(["optimal moves (mean)"] if graded else []), title=title)
    for row in rows:
        extra = [f"{row['optimal_mean']:.1f}%"] if graded else []
        table.add_row(row["config"], f"{row['mean']:.2f}%", f"{row['max']:.2f}%", f"{row['min']:.2f}%", str(len(row["agents"])), *extra)
    console.print(table)


@ranking.command("all-play-all")
def rank_all_play_all(
    runs: Annotated[List[str], typer.Argument(
        metavar="RUN...", help="Run names (or paths); a run's configuration is its name without -<n>.", show_default=False,
    )],
    runs_dir: RunsDir = Path("runs"),
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP + RANK_JSON)] = False,
) -> None:
    """Every agent plays every agent of another configuration once in each seat."""
    from boardlab.studies.c4rl.ranking import all_play_all, load_agents

    result = all_play_all(load_agents(runs, runs_dir))
    if json_out:
        print_json({"kind": "all-play-all", "games": 1, "ranking": result})
    else:
        _print_ranking("all play all: games won", result)


@ranking.command("with-random")
def rank_with_random(
    runs: Annotated[List[str], typer.Argument(metavar="RUN...", help="Run names (or paths).", show_default=False)],
    games: Annotated[int, typer.Option("--games", "-n", help="Games per agent as first player, and again as second.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the random player's moves.")] = 0,
    positions: Positions = None,
    runs_dir: RunsDir = Path("runs"),
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP + RANK_JSON)] = False,
) -> None:
    """Every agent plays the random player GAMES times as first and GAMES times as second player."""
    from boardlab.studies.c4rl.ranking import load_agents, with_random

    result = with_random(load_agents(runs, runs_dir), games, seed, _positions(positions))
    if json_out:
        print_json({"kind": "with-random", "games": games, "ranking": result})
    else:
        _print_ranking(f"against random ({games} games per seat): games won", result)


def curves(
    runs: Annotated[List[str], typer.Argument(metavar="RUN...", help="Run names (or paths); every snapshot of each is evaluated.", show_default=False)],
    games: Annotated[int, typer.Option("--games", "-n", help="Games against random per snapshot and seat.")] = 200,
    plot: Annotated[Optional[Path], typer.Option("--plot", "--png", help="Also draw the curves to this PNG (default: no plot).", show_default=False)] = None,
    positions: Positions = None,
    runs_dir: RunsDir = Path("runs"),
    json_out: Annotated[bool, typer.Option(
        "--json", help=JSON_HELP + " Keys: run -> [{games_played, first, second, optimal}] (% won against random; % optimal moves with --positions).",
    )] = False,
) -> None:
    """Learning curves: win percentage against random at each snapshot, as first and as second player."""
    from boardlab.bots.connect4.qnet_files import find_run
    from boardlab.studies.c4rl.ranking import learning_curve, plot_curves

    if plot is not None:
        check_output_file(plot, "--plot")
    graded = _positions(positions)
    found = {name: learning_curve(find_run(name, runs_dir), games, positions=graded) for name in runs}
    if plot is not None:
        plot_curves(found, plot, f"win rate against random ({games} games per seat)")
    if json_out:
        print_json(found)
        return
    table = Table("run", "games played", "first %", "second %", "optimal moves %")
    for name, points in found.items():
        for p in points:
            optimal = f"{p['optimal']:.1f}" if "optimal" in p else "-"
            table.add_row(name, str(p["games_played"]), f"{p['first']:.1f}", f"{p['second']:.1f}", optimal)
    console.print(table)


stages_experiment = Experiment(
    run=stages,
    summary="the Q-learning study's six stages, scaled: train and rank configurations stage by stage",
    game="connect4",
)
ranking_experiment = Experiment(
    run=ranking,
    summary="rank trained Q-learning runs as in the study's tables: all-play-all, or against random",
    game="connect4",
)
curves_experiment = Experiment(
    run=curves,
    summary="learning curves of Q-learning runs: win rate against random at every snapshot",
    game="connect4",
)
