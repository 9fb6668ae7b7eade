"""What every boardlab command shares, the core commands and the studies' alike: the console
(plain text into a pipe, colour and width on a terminal), ``--json`` output, progress bars and
the one-line error for a user's mistake.

This sits below the command line (:mod:`boardlab.cli`) and the studies (:mod:`boardlab.studies`),
so that a study's commands print like the rest without importing the command line itself.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any, NoReturn

import typer
from rich.console import Console, ConsoleDimensions
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from boardlab.core.errors import BoardlabError

#: the width plain output is laid out in when it does not go to a terminal: wide enough
#: that tables never wrap a path or a label (text itself is never wrapped then)
PLAIN_WIDTH = 10_000


class CliConsole(Console):
    """A rich console that writes plain text when its stream is not a terminal.

    Piped or redirected output (and a test's captured output) is neither
    wrapped at 80 columns nor coloured, whatever ``COLUMNS``, ``FORCE_COLOR`` or
    ``TTY_COMPATIBLE`` say: what a script reads must not depend on the terminal
    it was started from. The stream is looked at on every print, so a console
    made at import time follows a ``sys.stdout`` swapped later. ``--json``
    output does not go through a console at all.
    """

    def _plain(self) -> bool:
        isatty = getattr(self.file, "isatty", None)
        try:
            return not (isatty is not None and isatty())
        except ValueError:  # a closed stream
            return True

    @property
    def is_terminal(self) -> bool:  # type: ignore[override]
        return not self._plain() and super().is_terminal

    @property
    def size(self):  # type: ignore[override]
        if self._plain():
            return ConsoleDimensions(PLAIN_WIDTH, 25)
        return Console.size.fget(self)

    @size.setter
    def size(self, new_size) -> None:
        Console.size.fset(self, new_size)

    @property
    def _color_system(self):  # rich reads this on every print: no colour codes into a pipe
        return None if self._plain() else self.__dict__.get("_detected_color_system")

    @_color_system.setter
    def _color_system(self, value) -> None:
        self.__dict__["_detected_color_system"] = value

    def print(self, *objects: Any, **kwargs: Any) -> None:
        if self._plain() and kwargs.get("soft_wrap") is None:
            kwargs["soft_wrap"] = True  # never break a long line (a path) into two
        super().print(*objects, **kwargs)

    def rule(self, title: Any = "", **kwargs: Any) -> None:
        if self._plain():  # a rule as wide as PLAIN_WIDTH would be 10,000 dashes
            super().print(f"── {title} ──" if title else "─" * 40, markup=False)
            return
        super().rule(title, **kwargs)


#: human-readable output; progress bars go to stderr so --json output stays clean
console = CliConsole(highlight=False)
err_console = CliConsole(stderr=True, highlight=False)

JSON_HELP = "Print one JSON document instead of text."


def fail(exc: BaseException) -> NoReturn:
    """Print ``error: ...`` (one line, on stderr) and exit with status 2."""
    err_console.print(f"[bold red]error:[/] {escape(str(exc))}", markup=True, highlight=False, soft_wrap=True)
    raise typer.Exit(2) from None


def progress_bar(label: str, transient: bool = True) -> Progress:
    """A progress bar on stderr; hidden when stderr is not a terminal."""
    return Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[note]}"), TimeElapsedColumn(),
        TimeRemainingColumn(), console=err_console, transient=transient, disable=not err_console.is_terminal,
    )


def positive_number(value: float, option: str) -> float:
    """``value`` if it is a finite number above 0, else a clear error naming ``option``."""
    if not (math.isfinite(value) and value > 0):
        raise BoardlabError(f"{option} must be a positive number, not {value:g}")
    return value


def at_least(value: int | None, low: int, option: str) -> int | None:
    """``value`` (or None) if it is at least ``low``, else a clear error naming ``option``."""
    if value is not None and value < low:
        raise BoardlabError(f"{option} must be {low} or more, not {value}")
    return value


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()
