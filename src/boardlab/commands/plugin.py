"""Recipes and experiments: what the ``boardlab.recipes`` and ``boardlab.experiments`` entry points name.

An entry point of ``boardlab.recipes`` names a :class:`Recipe`, one of
``boardlab.experiments`` an :class:`Experiment`. Each holds a plain function
(or a ``typer.Typer``) that typer turns into the command ``boardlab train
NAME`` / ``boardlab experiment NAME``: its parameters are the command's
options, its docstring the help. The function parses nothing itself and does
no work of its own; it calls the library (``boardlab.nn``,
``boardlab.experiments``, ...) and prints. docs/commands.md has an example a
third-party package can copy.

:class:`PluginCommands` is the click group behind ``boardlab train`` and
``boardlab experiment``: it lists the entry points' names and imports a
recipe's module only when that recipe is asked for (its help, its run, or
``--list``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import typer
from typer.core import TyperGroup

from boardlab.commands.console import fail
from boardlab.core import plugins
from boardlab.core.errors import BoardlabError, SpecError

#: what a recipe or experiment runs: a function typer turns into one command, or a typer app
Runnable = Callable[..., Any] | typer.Typer


@dataclass(frozen=True)
class Recipe:
    """A way to train a model: ``boardlab train NAME``, and optionally ``boardlab evaluate MODEL``.

    ``train``: the command (its parameters are the options), or a ``typer.Typer`` whose
    sub-commands are the recipe's modes (``boardlab train c4-qlearning new | resume | runs |
    export``), each with only its own options. ``summary``: one line for
    ``--list``. ``game``: the game spec the models play (``"connect4"``,
    ``"nothanks:players=4"``). ``makes``: what it writes (``"model file (.pt) with
    NAME.config.json and NAME.metrics.json"``). ``evaluate``: the command ``boardlab
    evaluate MODEL`` runs for this recipe's files; its first parameter is the MODEL
    argument. ``recognises(path)``: whether this recipe made the file or folder at
    ``path`` (cheap, never raises for a foreign file); ``boardlab evaluate`` asks every
    recipe.
    """

    train: Runnable
    summary: str
    game: str
    makes: str
    evaluate: Runnable | None = None
    recognises: Callable[[Path], bool] | None = None


@dataclass(frozen=True)
class Experiment:
    """A named, reproducible study: ``boardlab experiment NAME``.

    ``run``: the command (a function, or a ``typer.Typer`` with sub-commands).
    ``summary``: one line for ``--list``. ``game``: the game spec it is about ("" for none).
    """

    run: Runnable
    summary: str
    game: str = ""


def as_command(runnable: Runnable, name: str, summary: str = "") -> Any:
    """The click command typer makes of a function or a typer app (a fresh one per call)."""
    if isinstance(runnable, typer.Typer):
        cmd = typer.main.get_command(runnable)
    elif callable(runnable):
        wrapper = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode="rich")
        wrapper.command(name=name)(runnable)
        cmd = typer.main.get_command(wrapper)
    else:
        raise SpecError(f"{name!r}: expected a function or a typer.Typer, not {type(runnable).__name__}")
    cmd.name = name
    if summary:
        cmd.short_help = summary
    return cmd


def load(group: plugins.PluginGroup, name: str, kind: type) -> Any:
    """The :class:`Recipe` or :class:`Experiment` registered as ``name``; anything else is a SpecError."""
    found = group.load(name)
    if not isinstance(found, kind):
        raise SpecError(
            f"{group.kind} {name!r}: {group.target(name)} is a {type(found).__name__}, "
            f"not a boardlab.commands.plugin.{kind.__name__}"
        )
    return found


def recipe(name: str) -> Recipe:
    return load(plugins.recipes, name, Recipe)


def experiment(name: str) -> Experiment:
    return load(plugins.experiments, name, Experiment)


def train_command(name: str) -> Any:
    found = recipe(name)
    return as_command(found.train, name, found.summary)


def experiment_command(name: str) -> Any:
    found = experiment(name)
    return as_command(found.run, name, found.summary)


def evaluate_command(name: str) -> Any:
    found = recipe(name)
    if found.evaluate is None:
        raise SpecError(f"recipe {name!r} has no evaluation")
    return as_command(found.evaluate, "evaluate", found.summary)


def listing(group: plugins.PluginGroup) -> list[dict[str, Any]]:
    """One row per registered name: ``name``, ``summary``, ``game``, ``target`` and, for recipes,
    ``makes`` and ``evaluates``; a plug-in that does not load has ``error`` instead of a summary."""
    rows = []
    for name in group.names():
        row: dict[str, Any] = {"name": name}
        try:
            found = recipe(name) if group is plugins.recipes else experiment(name)
        except BoardlabError as exc:
            row.update(summary=None, game=None, error=str(exc))
        else:
            row.update(summary=found.summary, game=found.game or None)
            if isinstance(found, Recipe):
                row.update(makes=found.makes, evaluates=found.evaluate is not None)
        row["target"] = group.target(name)
        rows.append(row)
    return rows


def recipe_for(path: Path) -> str:
    """The name of the one recipe that recognises ``path``; otherwise an error naming the file."""
    if not path.exists():
        raise BoardlabError(f"{path}: no such file or folder")
    claims, evaluators = [], []
    for name in plugins.recipes.names():
        try:
            found = recipe(name)
        except BoardlabError:
            continue  # a broken plug-in cannot have made the file; 'boardlab train --list' shows it
        if found.evaluate is None or found.recognises is None:
            continue
        evaluators.append(name)
        try:
            mine = bool(found.recognises(path))
        except Exception:  # noqa: BLE001  a recogniser that trips on a foreign file has not recognised it
            mine = False
        if mine:
            claims.append(name)
    if not claims:
        raise BoardlabError(
            f"{path}: cannot tell which recipe made it (none of {', '.join(evaluators) or 'no recipe'} "
            f"recognises it); give --recipe NAME"
        )
    if len(claims) > 1:
        raise BoardlabError(f"{path}: recipes {' and '.join(claims)} both recognise it; give --recipe NAME")
    return claims[0]


class PluginCommands(TyperGroup):
    """A group whose sub-commands are the entries of a plug-in group, loaded when asked for.

    A :class:`~boardlab.core.errors.BoardlabError` raised by a sub-command (or an unknown
    or broken name) is printed as one ``error: ...`` line with exit status 2.
    """

    plugin_group: plugins.PluginGroup
    make_command: Callable[[str], Any]

    def list_commands(self, ctx: Any) -> list[str]:
        return sorted(set(self.commands) | set(self.plugin_group.names()))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        if cmd_name not in self.plugin_group:
            return None
        try:
            return type(self).make_command(cmd_name)
        except BoardlabError as exc:
            return _broken(cmd_name, exc)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0]
        if not name.startswith("-") and name not in self.commands:
            self.plugin_group.target(name)  # an unknown name: SpecError listing the known ones
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except BoardlabError as exc:
            fail(exc)


def _broken(name: str, exc: BoardlabError) -> Any:
    """A stand-in for a plug-in that does not load: listed in help, and running it prints the error."""

    def broken() -> None:
        raise exc

    return as_command(broken, name, f"(does not load: {exc})")


class RecipeCommands(PluginCommands):
    plugin_group = plugins.recipes
    make_command = staticmethod(train_command)


class ExperimentCommands(PluginCommands):
    plugin_group = plugins.experiments
    make_command = staticmethod(experiment_command)
