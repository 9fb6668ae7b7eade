"""The typer application and the wrapper that turns user errors into one clear line."""

from __future__ import annotations

import functools
import json
import sys
from typing import Any, Callable, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from boardlab.core.errors import BoardlabError

app = typer.Typer(
    name="boardlab",
    help="boardlab: play board games against AIs, run duels, train agents and inspect search trees.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode="rich",
)

#: human-readable output; progress bars go to stderr so --json output stays clean
console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

JSON_HELP = "Print one JSON document instead of text."


def command(*args: Any, group: typer.Typer | None = None, **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Like ``app.command`` but prints a :class:`BoardlabError` as ``error: ...`` and exits 2.

    ``group`` registers the command on a sub-application (``boardlab tree ...``)
    made with :func:`command_group`.
    """

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(*a: Any, **kw: Any) -> Any:
            try:
                return func(*a, **kw)
            except BoardlabError as exc:
                fail(exc)

        return (group or app).command(*args, **kwargs)(wrapper)

    return decorate


def fail(exc: BaseException) -> NoReturn:
    """Print ``error: ...`` (one line, on stderr) and exit with status 2."""
    err_console.print(f"[bold red]error:[/] {escape(str(exc))}", markup=True, highlight=False, soft_wrap=True)
    raise typer.Exit(2) from None


def deprecated(old: str, new: str) -> None:
    """One line on stderr (never stdout, so --json output stays one document) naming the new spelling."""
    sys.stderr.write(f"warning: '{old}' is deprecated and will be removed in the next release; use '{new}'\n")
    sys.stderr.flush()


def progress_bar(label: str, transient: bool = True) -> Progress:
    """A progress bar on stderr; hidden when stderr is not a terminal."""
    return Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[note]}"), TimeElapsedColumn(),
        TimeRemainingColumn(), console=err_console, transient=transient, disable=not err_console.is_terminal,
    )


def command_group(name: str, help: str) -> typer.Typer:
    """A sub-command group such as ``boardlab tree``; add commands with ``command(..., group=...)``."""
    group = typer.Typer(name=name, help=help, no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False)
    app.add_typer(group, name=name)
    return group


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()
