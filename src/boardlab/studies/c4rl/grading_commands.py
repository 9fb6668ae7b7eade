"""Building a Connect Four grading set as an experiment (entry point ``c4-grading-set``).

The work is in :mod:`boardlab.studies.c4rl.grading_set`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, List, Optional

import typer

from boardlab.commands.console import JSON_HELP, console, err_console, print_json
from boardlab.commands.plugin import Experiment
from boardlab.core.errors import BoardlabError
from boardlab.core.files import check_output_file

DEFAULT_OUT = Path("src/boardlab/data/connect4_grading.txt")


def _pair(text: str) -> tuple[str, str]:
    first, sep, second = text.partition(" vs ")
    if not sep or not first.strip() or not second.strip():
        raise BoardlabError(f"--pair {text!r}: write two agent specs as 'A vs B'")
    return first.strip(), second.strip()


def run(
    out: Annotated[Path, typer.Option(
        "--out", "-o", help="Grading set to write (MOVES BEST S1..S7 per line). The default is the shipped set, relative to a source checkout.",
    )] = DEFAULT_OUT,
    games_per_pair: Annotated[int, typer.Option("--games-per-pair", help="Games played per pair of agents.")] = 4,
    per_phase: Annotated[int, typer.Option("--per-phase", help="Most positions drawn per phase (opening <= 14 stones, middle 15-28, end > 28).")] = 40,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Seed of the games and the draw.")] = 7,
    pair: Annotated[Optional[List[str]], typer.Option(
        "--pair", help="A pair of agents whose games give positions, as 'A vs B'; repeat it. Default: random, perfect:depth=2/4 and "
        "mcts:iterations=1000 against each other (six pairs).", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option(
        "--json", help=JSON_HELP + " Keys: out, positions, phases {opening, middle, end}, command (the line that regenerates the set).",
    )] = False,
) -> None:
    """Build a Connect Four grading set: positions from games between different agents, every move scored by the solver."""
    from boardlab.games.connect4.grading import PHASES, phase_of
    from boardlab.studies.c4rl.grading_set import DEFAULT_PAIRS, build_grading_set, regenerate_command

    pairs = tuple(_pair(p) for p in pair) if pair else DEFAULT_PAIRS
    check_output_file(out, "--out")  # before minutes of games and solving
    labelled = build_grading_set(out, pairs, games_per_pair, per_phase, seed, report=lambda line: err_console.print(line, markup=False))
    phases = {phase: sum(1 for p in labelled if phase_of(p.stones) == phase) for phase in PHASES}
    result = {"out": str(out), "positions": len(labelled), "phases": phases,
              "command": regenerate_command(out, pairs, games_per_pair, per_phase, seed)}
    if json_out:
        print_json(result)
    else:
        console.print(f"wrote {out}: {len(labelled)} positions ({', '.join(f'{n} {phase}' for phase, n in phases.items())})",
                      markup=False, highlight=False, soft_wrap=True)


experiment = Experiment(
    run=run,
    summary="build a Connect Four grading set: positions from games between agents, labelled by the solver",
    game="connect4",
)
