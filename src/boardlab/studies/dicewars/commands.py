"""``boardlab experiment dicewars-tournament``: the Dice Wars course's seat-fair tournament, and
``boardlab experiment dicewars-emm``: dw-emm against the course's bots.

The work is in :mod:`.tournament` and :mod:`.emm_experiment`.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from boardlab.commands.console import JSON_HELP, console, err_console, print_json
from boardlab.commands.plugin import Experiment


def run(
    boards: Annotated[int, typer.Option("--boards", "-n", min=1, help="Boards; each is played in every rotation of its group (K games).")] = 100,
    players: Annotated[int, typer.Option("--players", "-k", help="Players per game (2..8).")] = 4,
    agents: Annotated[Optional[List[str]], typer.Option(
        "--agent", "-a", help="A bot in the pool (repeat it). Default: the course's five, dw-ste dw-sdc dw-wpm dw-template dw-rand.",
        show_default=False)] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Tournament seed: board b is played with derive_seed(S, 'board', b).")] = 2020,
    game: Annotated[str, typer.Option("--game", help="Game spec (e.g. dicewars:preset=web).")] = "dicewars",
    store_path: Annotated[Optional[Path], typer.Option("--store", help="Results store (SQLite); default: the arena's.")] = None,
    workers: Annotated[Optional[int], typer.Option("--workers", "-w", help="Parallel workers; default: the CPU cores.")] = None,
    compiled_boards: Annotated[int, typer.Option("--compiled-boards", min=0, help="Also play the protocol on this many boards with the "
                                                 "compiled twins of the bots (a large-sample estimate; 0: skip).")] = 0,
    markdown: Annotated[Optional[Path], typer.Option("--markdown", help="Also write the comparison table (Markdown) to this file.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP + " Keys: tournament, config, games, boards, endings "
                                           "{won, stalled, battle-limit}, bots [{agent, course_name, games, wins, win_rate, win_low, "
                                           "win_high, cancelled, stalled, battle_limit, course_win_rate, difference, reproduced, search (bots that report "
                                           "their searches, dw-emm: decisions, searched, as_ste, nodes, seconds, timeouts, max_seconds, max_nodes, "
                                           "seconds_per_decision, nodes_per_search, clock_min)}], "
                                           "tolerance, store, seconds, played, compiled (with --compiled-boards: boards, games, bots [{agent, games, wins, "
                                           "win_rate, win_low, win_high, course_win_rate, difference}]), "
                                           "arena (the report's section: ratings, seats, endings).")] = False,
) -> None:
    """Play the course's tournament protocol (per board every rotation of the same bots, same dice) and compare with its result.

    Resumable: the same command again plays only the games missing from the store.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from boardlab.arena.backends import default_workers
    from boardlab.arena.store import ResultStore
    from boardlab.core.files import check_output_file
    from boardlab.core.records import write_atomic
    from boardlab.studies.dicewars.tournament import DEFAULT_AGENTS, configure, full_report, markdown_table
    from boardlab.studies.dicewars.tournament import run as play

    if store_path is not None:
        check_output_file(store_path, "--store")  # a new store's folder must exist (the default one is made)
    if markdown is not None:
        check_output_file(markdown, "--markdown")
    config = configure(boards, tuple(agents) if agents else DEFAULT_AGENTS, players, seed, game)
    if compiled_boards > 0:
        from boardlab.studies.dicewars.tournament import kernel_policy

        for spec in config.agents:
            kernel_policy(spec)  # every bot needs a compiled twin: say so before any game is played
    command = "boardlab experiment dicewars-tournament " + shlex.join(
        ["--boards", str(boards), "--players", str(players), "--seed", str(seed), "--game", game,
         *[x for a in config.agents for x in ("--agent", a)]])
    start = time.perf_counter()
    with ResultStore(store_path) as store:
        total = len(config.schedule())
        with Progress(TextColumn(f"dicewars tournament {config.id}"), BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn(), console=err_console, transient=True,
                      disable=not err_console.is_terminal) as progress:
            task = progress.add_task("games", total=total)
            _, played = play(config, store, workers if workers is not None else default_workers(), command,
                             on_game=lambda update: progress.update(task, completed=update.done))
        report = full_report(store, config)
        report["store"] = str(store.path)
    if compiled_boards > 0:
        from boardlab.studies.dicewars.tournament import compiled_estimate

        report["compiled"] = compiled_estimate(compiled_boards, config.agents, players, seed, game)
    report["seconds"] = time.perf_counter() - start
    report["played"] = played
    table = markdown_table(report)
    if markdown is not None:
        write_atomic(markdown, table + "\n")
    if json_out:
        print_json(report)
        return
    console.print(f"tournament {config.id}: {report['games']} games on {boards} boards, {played} played now; "
                  f"endings {report['endings']}", markup=False, highlight=False, soft_wrap=True)
    console.print(table, markup=False, highlight=False, soft_wrap=True)


experiment = Experiment(
    run=run,
    summary="Dice Wars: the course's seat-fair tournament of its reference bots, compared with the course's own result",
    game="dicewars",
)


def emm(
    boards: Annotated[int, typer.Option("--boards", "-n", min=1, help="Boards of each 4-player tournament (4 games each).")] = 100,
    duel_boards: Annotated[Optional[int], typer.Option("--duel-boards", min=1, help="Boards of the 2-player duel (2 games each); default: --boards.")] = None,
    agent: Annotated[str, typer.Option("--agent", "-a", help="The agent under test.")] = "dw-emm",
    ablations: Annotated[Optional[List[str]], typer.Option(
        "--ablation", help="Another spec of the agent, played in its place in the paired setting (repeat it), "
        "e.g. dw-emm:leaf=score or dw-emm:turns=1.", show_default=False)] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Tournament seed (the same for every tournament, so their games pair).")] = 2020,
    game: Annotated[str, typer.Option("--game", help="Game spec.")] = "dicewars",
    store_path: Annotated[Optional[Path], typer.Option("--store", help="Results store (SQLite); default: the arena's.")] = None,
    workers: Annotated[Optional[int], typer.Option("--workers", "-w", help="Parallel workers; default: the CPU cores.")] = None,
    markdown: Annotated[Optional[Path], typer.Option("--markdown", help="Also write the tables (Markdown) to this file.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help=JSON_HELP + " Keys: tournaments {course, course-baseline, four-player, duel, paired-baseline, "
                                           "paired-agent, ablation:SPEC: {agent, games, wins, win_rate, win_low, win_high, search, "
                                           "tournament}}, paired {paired-agent, ablation:SPEC: {agent, games, boards, base_wins, wins, "
                                           "base_rate, rate, difference, low, high, games_changed}}, played, seconds, store, "
                                           "reports (each tournament's full report, as dicewars-tournament --json gives it).")] = False,
) -> None:
    """Measure a Dice Wars agent (dw-emm) against the course's reference bots: graded as the course graded a student's bot, \
4-player against the strongest three, duel vs dw-ste, paired test, ablations.

    Resumable: the same command again plays only the games missing from the store.
    """
    from boardlab.arena.backends import default_workers
    from boardlab.arena.store import ResultStore
    from boardlab.core.files import check_output_file
    from boardlab.core.records import write_atomic
    from boardlab.studies.dicewars.emm_experiment import configs, run_all
    from boardlab.studies.dicewars.emm_experiment import markdown as tables

    if store_path is not None:
        check_output_file(store_path, "--store")
    if markdown is not None:
        check_output_file(markdown, "--markdown")
    cfgs = configs(agent, boards, seed, tuple(ablations or ()), duel_boards, game)
    command = "boardlab experiment dicewars-emm " + shlex.join(
        ["--boards", str(boards), "--seed", str(seed), "--agent", agent, "--game", game,
         *(["--duel-boards", str(duel_boards)] if duel_boards else []), *[x for a in ablations or () for x in ("--ablation", a)]])
    start = time.perf_counter()
    with ResultStore(store_path) as store:
        def note(name, update):
            if err_console.is_terminal:
                err_console.print(f"{name}: {update.done}/{update.total}", end="\r")

        result = run_all(cfgs, store, workers if workers is not None else default_workers(), command, note)
        result["store"] = str(store.path)
    result["seconds"] = time.perf_counter() - start
    text = tables(result)
    if markdown is not None:
        write_atomic(markdown, text + "\n")
    if json_out:
        print_json(result)
        return
    console.print(text, markup=False, highlight=False, soft_wrap=True)


emm_experiment = Experiment(
    run=emm,
    summary="Dice Wars: an agent (dw-emm) against the reference bots: 4-player, duel vs dw-ste, paired in dt.ste's place, ablations",
    game="dicewars",
)
