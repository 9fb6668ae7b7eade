"""``boardlab train RECIPE``, ``boardlab experiment NAME`` and ``boardlab evaluate MODEL``.

Recipes and experiments are plug-ins (entry points ``boardlab.recipes`` and
``boardlab.experiments``, see :mod:`boardlab.commands.plugin`); these three commands
only find them, list them and hand them their arguments.
"""

# no ``from __future__ import annotations``: typer reads the callback's annotations, made in a closure
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape

from boardlab.cli.app import app, command
from boardlab.commands import plugin
from boardlab.commands.console import console, print_json
from boardlab.core import plugins
from boardlab.core.errors import BoardlabError

LIST_HELP = "List the registered {kinds} and exit."
LIST_JSON_HELP = (
    "With --list: print one JSON document, a list of {{name, summary, game, {extra}target}} "
    "(error instead of summary for a plug-in that does not load)."
)


def _print_listing(group: plugins.PluginGroup, json_out: bool) -> None:
    rows = plugin.listing(group)
    if json_out:
        print_json(rows)
        return
    for row in rows:
        console.print(f"[bold]{escape(row['name'])}[/]" + (f" ({row['game']})" if row["game"] else ""), soft_wrap=True)
        if row["summary"] is None:
            console.print(f"    does not load: {row['error']}", markup=False, soft_wrap=True)
            continue
        console.print(f"    {row['summary']}", markup=False, soft_wrap=True)
        if "makes" in row:
            console.print(f"    makes: {row['makes']}" + ("; boardlab evaluate reads it" if row["evaluates"] else ""),
                          markup=False, soft_wrap=True)


def _group_callback(group: plugins.PluginGroup):
    def callback(
        ctx: typer.Context,
        list_: Annotated[bool, typer.Option("--list", help=LIST_HELP.format(kinds=group.kind + "s"))] = False,
        json_out: Annotated[bool, typer.Option("--json", help=LIST_JSON_HELP.format(
            extra="makes, evaluates, " if group is plugins.recipes else ""))] = False,
    ) -> None:
        if ctx.invoked_subcommand is not None:
            if list_ or json_out:
                raise BoardlabError(
                    f"--list and --json come before the {group.kind}'s name only to list them; "
                    f"a {group.kind}'s own --json goes after its name"
                )
            return
        if not list_:
            if json_out:
                raise BoardlabError("--json goes with --list here")
            console.print(ctx.get_help())
            raise typer.Exit(0)
        _print_listing(group, json_out)

    return callback


train_app = typer.Typer(
    name="train", cls=plugin.RecipeCommands, invoke_without_command=True, no_args_is_help=True,
    add_completion=False, pretty_exceptions_enable=False, rich_markup_mode="rich", subcommand_metavar="RECIPE [OPTIONS]...",
    help="Train a model with a recipe: [b]boardlab train RECIPE [OPTIONS][/]; [b]boardlab train --list[/] shows the recipes, "
    "[b]boardlab train RECIPE --help[/] a recipe's options.",
)
train_app.callback()(_group_callback(plugins.recipes))
app.add_typer(train_app, name="train")

experiment_app = typer.Typer(
    name="experiment", cls=plugin.ExperimentCommands, invoke_without_command=True, no_args_is_help=True,
    add_completion=False, pretty_exceptions_enable=False, rich_markup_mode="rich", subcommand_metavar="NAME [OPTIONS]...",
    help="Run a named, reproducible study: [b]boardlab experiment NAME [OPTIONS][/]; [b]boardlab experiment --list[/] shows them, "
    "[b]boardlab experiment NAME --help[/] an experiment's options.",
)
experiment_app.callback()(_group_callback(plugins.experiments))
app.add_typer(experiment_app, name="experiment")


@command(
    "evaluate",
    context_settings={"allow_extra_args": True, "allow_interspersed_args": False, "help_option_names": []},
    help="Evaluate a trained model with the evaluation of the recipe that made it: [b]boardlab evaluate MODEL [OPTIONS][/].\n\n"
    "The recipe is found from the file itself (its checkpoint format, or a run folder). Each recipe's evaluation prints its figures, "
    "takes [b]--json[/], and writes no file unless asked ([b]--plot PATH[/]; default: no plot), so nothing is written beside the model.",
)
def evaluate(
    ctx: typer.Context,
    model: Annotated[Optional[Path], typer.Argument(
        metavar="MODEL", help="A model file or run folder made by a recipe (boardlab train --list); options after it are the recipe's.",
        show_default=False)] = None,
    recipe: Annotated[Optional[str], typer.Option(
        "--recipe", help="The recipe that made MODEL, when boardlab cannot tell from the file.")] = None,
    help_: Annotated[bool, typer.Option(
        "--help", help="Show this message and exit; [b]boardlab evaluate MODEL --help[/] shows the options of MODEL's recipe.")] = False,
) -> Any:
    """``boardlab evaluate``; its help text is in the decorator (rich help would keep a docstring's line breaks)."""
    if model is None:
        console.print(ctx.get_help())
        raise typer.Exit(0 if help_ else 2)
    rest = list(ctx.args)
    for i, arg in enumerate(rest):  # --recipe after MODEL is still ours, not the recipe's
        if arg == "--recipe" and i + 1 < len(rest):
            recipe = rest[i + 1]
            del rest[i:i + 2]
            break
        if arg.startswith("--recipe="):
            recipe = arg.partition("=")[2]
            del rest[i]
            break
    name = recipe if recipe is not None else plugin.recipe_for(model)
    cmd = plugin.evaluate_command(name)
    args = [str(model), *rest, *(["--help"] if help_ else [])]
    with cmd.make_context("evaluate", args, parent=ctx.parent) as sub:
        return cmd.invoke(sub)
