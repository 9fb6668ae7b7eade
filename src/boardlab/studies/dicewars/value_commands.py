"""``boardlab train dicewars-value``: the weights of dw-emm's trained board value (``leaf=value``).

The work is in :mod:`.value_tuning`. Resumable: the run's state is written after
every generation to NAME.run-Pp.json beside the weights file, and the same command goes on from it.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated, Optional

import typer

from boardlab.commands.console import console, print_json, progress_bar
from boardlab.commands.plugin import Recipe
from boardlab.core.files import output_file


def train(
    out: Annotated[Path, typer.Option(
        "--out", "-o", help="Weights file (JSON). A file that exists keeps its entries for other numbers of players; "
        "NAME-Pp.png (the curve) and NAME.run-Pp.json (the run's state, for resuming) go beside it.",
    )] = Path("models/dicewars-value.json"),
    players: Annotated[int, typer.Option("--players", "-k", min=2, max=8, help="Players per game; the weights are kept under this number.")] = 4,
    opponent: Annotated[Optional[list[str]], typer.Option(
        "--opponent", "-a", help="A reference bot at the table (repeat it, players - 1 times; each needs a "
        "compiled twin). Default: dw-ste dw-sdc dw-wpm (4 players), dw-ste (2).",
        show_default=False,
    )] = None,
    generations: Annotated[int, typer.Option("--generations", "-g", min=1, help="Generations of the cross-entropy method.")] = 40,
    population: Annotated[int, typer.Option("--population", min=3, help="Weight vectors tried per generation (the first is the current mean).")] = 24,
    elite: Annotated[int, typer.Option("--elite", min=2, help="The best this many of a generation move the mean and spread.")] = 6,
    boards: Annotated[int, typer.Option(
        "--boards", "-n", min=1, help="Boards per generation; every candidate plays each in every rotation (the same games for all).",
    )] = 300,
    validation_boards: Annotated[int, typer.Option(
        "--validation-boards", min=1, help="Boards of the validation games the mean plays after every generation (maps never used in training).",
    )] = 1000,
    maps: Annotated[int, typer.Option("--maps", min=1, help="Maps of each side (training, validation); board i is played on map i mod MAPS.")] = 400,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Seed of the candidates and of the games.")] = 1,
    json_out: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object per generation ({generation, best_candidate, mean_before, validation_wins, "
        "validation_games, validation_win_rate}), then one with the result: out, players, weights {TERM: weight}, "
        "validation {boards, games, wins, win_rate, win_low, win_high, reference {agent, wins, games, win_rate}}, "
        "command, curve_png.")] = False,
) -> None:
    """Tune the board value of [b]dw-emm:leaf=value[/] by the games its greedy bot wins against the reference bots \
(compiled, seat-fair, the same games for every candidate), e.g. [b]boardlab train dicewars-value --players 4[/] and [b]--players 2[/] into one file."""
    from boardlab.arena.tournament import game_for_players
    from boardlab.studies.dicewars import value_tuning as recipe_work

    opponents = tuple(opponent) if opponent else recipe_work.DEFAULT_OPPONENTS.get(players, ("dw-ste",) * (players - 1))
    config = recipe_work.TuneConfig(players=players, opponents=opponents, generations=generations, population=population,
                                    elite=elite, boards=boards, validation_boards=validation_boards, maps=maps, seed=seed)
    config.check()
    output_file(out, "--out")
    run_file = out.with_name(f"{out.stem}.run-{players}p.json")
    png = out.with_name(f"{out.stem}-{players}p.png")
    game = game_for_players("dicewars", players)
    command = "boardlab train dicewars-value " + shlex.join(
        ["--players", str(players), *[x for o in opponents for x in ("--opponent", o)], "--generations", str(generations),
         "--population", str(population), "--elite", str(elite), "--boards", str(boards), "--validation-boards",
         str(validation_boards), "--maps", str(maps), "--seed", str(seed)])
    with progress_bar("dicewars-value") as progress:
        task = progress.add_task("generations", total=generations, note="compiling the games")

        def on_generation(row: dict) -> None:
            progress.update(task, completed=row["generation"],
                            note=f"validation {100 * row['validation_win_rate']:.1f} %")
            if json_out:
                print_json(row)

        state = recipe_work.tune(config, game, run_file, on_generation)
        reference = recipe_work.baseline(config, game)
    entry = recipe_work.model_entry(state, config, command, reference)
    recipe_work.save_model(out, players, entry)
    recipe_work.curve_png(state.history, reference, png, f"dicewars-value, {players} players, against {' '.join(opponents)}")
    v = entry["validation"]
    if json_out:
        print_json({"out": str(out), "players": players, "weights": dict(zip(recipe_work.V.TERMS, state.mean)),
                    "validation": v, "command": command, "curve_png": str(png)})
        return
    for term, w in zip(recipe_work.V.TERMS, state.mean):
        console.print(f"  {term:<18} {w:+.4f}")
    console.print(f"validation: the greedy bot of these weights won {v['wins']} of {v['games']} games "
                  f"({100 * v['win_rate']:.1f} %, 95 % {100 * v['win_low']:.1f}-{100 * v['win_high']:.1f}); "
                  f"{reference['agent']} in its seat won {100 * reference['win_rate']:.1f} % of the same games")
    console.print(f"wrote {out} (players {players}), {png}")


def _recognises(path: Path) -> bool:
    import json

    from boardlab.bots.dicewars.value import FORMAT

    if path.suffix != ".json" or not path.is_file():
        return False
    try:
        return json.loads(path.read_text()).get("format") == FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def evaluate(
    model: Annotated[Path, typer.Argument(metavar="MODEL", help="A weights file written by boardlab train dicewars-value.", show_default=False)],
    json_out: Annotated[bool, typer.Option(
        "--json", help="Print the file's entries: {players: {weights {TERM: weight}, opponents, validation, command}}.",
    )] = False,
) -> None:
    """The weights file's entries: weights, the validation games they won and the command that made them."""
    from boardlab.bots.dicewars.value import TERMS, read_model

    data = read_model(model)
    entries = {k: {"weights": dict(zip(TERMS, e["weights"])), **{x: e.get(x) for x in ("opponents", "validation", "command")}}
               for k, e in data["players"].items()}
    if json_out:
        print_json(entries)
        return
    for players, e in entries.items():
        console.print(f"[b]{players} players[/] against {' '.join(e['opponents'] or [])}")
        for term, w in e["weights"].items():
            console.print(f"  {term:<18} {w:+.4f}")
        v = e["validation"] or {}
        if v:
            console.print(f"  validation: {v['wins']} of {v['games']} games ({100 * v['win_rate']:.1f} %); "
                          f"{v['reference']['agent']} in the same seat {100 * v['reference']['win_rate']:.1f} %")
        console.print(f"  command: {e['command']}")


recipe = Recipe(
    train=train,
    summary="Dice Wars board value for dw-emm:leaf=value: weights tuned by the cross-entropy method on compiled games against the reference bots",
    game="dicewars",
    makes="weights file NAME.json (one entry per number of players), NAME-Pp.png beside it",
    evaluate=evaluate,
    recognises=_recognises,
)
