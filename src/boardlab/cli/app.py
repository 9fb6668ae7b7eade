"""The typer application and the wrapper that turns user errors into one clear line."""

from __future__ import annotations

import functools
import json
import math
import sys
from typing import Any, Callable, NoReturn

import typer
from rich.console import Console, ConsoleDimensions
from rich.cells import cell_len
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text

from boardlab.core.errors import BoardlabError


def _no_placeholder_for_flags() -> None:
    """typer's rich help shows every option's type, flags too (``--json <bool>``, even ``--help <bool>``),
    which reads as if the flag took a value; its plain help already leaves them out (``is_flag``,
    ``count``). Every boardlab command, recipes' included, is built from typer's option class."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich
    if getattr(shown, "boardlab_flags", False):
        return

    def display_type_rich(self, ctx):  # noqa: ANN001
        if self.is_flag or self.count:
            return None
        return shown(self, ctx)

    display_type_rich.boardlab_flags = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


def _brackets_are_text() -> None:
    """In help texts only ``[b]...[/]`` is markup: any other bracket is text (``moves [of each agent]``,
    a proof ``[result, plies]``), where rich markup would swallow it without a word."""
    import re

    from typer import rich_utils

    make = rich_utils._make_rich_text
    if getattr(make, "boardlab_brackets", False):
        return

    def make_rich_text(*, text: str, style: str = "", markup_mode):  # noqa: ANN001
        if markup_mode == "rich":
            text = re.sub(r"(?<!\\)\[(?!/?b\]|/\])", r"\\[", text)
        return make(text=text, style=style, markup_mode=markup_mode)

    make_rich_text.boardlab_brackets = True  # type: ignore[attr-defined]
    rich_utils._make_rich_text = make_rich_text  # type: ignore[assignment]


_no_placeholder_for_flags()
_brackets_are_text()

app = typer.Typer(
    name="boardlab",
    help="boardlab: play board games against AIs, run duels, train agents and inspect search trees.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode="rich",
)

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


class HelpConsole(Console):
    """typer's console for help and usage errors, laid out to fit its text when it goes into a pipe.

    Help printed to a pipe (``boardlab train az --help | less``, a script, a
    test) used to wrap at 80 columns (or at ``$COLUMNS``), breaking option help
    mid-sentence. Each block is now laid out as wide as its longest line, so
    no line of help is broken and the panels' frames fit their text. As for
    all of boardlab's plain output (:class:`CliConsole`), ``$COLUMNS`` does not
    matter in a pipe; typer's own ``TERMINAL_WIDTH`` still sets a width. A
    terminal keeps its own width.
    """

    def _fit(self) -> bool:
        isatty = getattr(self.file, "isatty", None)
        try:
            return not (isatty is not None and isatty())
        except ValueError:  # a closed stream
            return True

    def print(self, *objects: Any, **kwargs: Any) -> None:
        if not self._fit():
            super().print(*objects, **kwargs)
            return
        # typer's tables stretch to the width they are given and their help cells measure as wide
        # as it, so the width the text needs is read off a layout without limits
        given = self._width  # from $COLUMNS
        self._width = PLAIN_WIDTH
        try:
            with self.capture() as wide:
                super().print(*objects, **kwargs)
            self._width = max(1, min(PLAIN_WIDTH, max(map(_text_width, Text.from_ansi(wide.get()).plain.splitlines()), default=1)))
            super().print(*objects, **kwargs)
        finally:
            self._width = given


def _text_width(line: str) -> int:
    """Columns a laid-out line needs: its text without the blanks and frame that stretch it, plus a
    blank and the frame's right edge."""
    core = line.rstrip()
    if core[-1:] in ("│", "╮", "╯", "┃", "┓", "┛"):
        core = core[:-1].rstrip(" ─━")
    return cell_len(core) + 2


def _help_fits_pipes() -> None:
    """Make typer lay its help out with :class:`HelpConsole` (its console factory is private, hence the checks)."""
    from typer import rich_utils

    make = getattr(rich_utils, "_get_rich_console", None)
    if make is None or getattr(make, "boardlab_help", False):
        return

    def get_console(stderr: bool = False) -> Console:
        made = make(stderr=stderr)
        if type(made) is Console and rich_utils.MAX_WIDTH is None:  # typer's settings (theme, colours) stay
            made.__class__ = HelpConsole
        return made

    get_console.boardlab_help = True  # type: ignore[attr-defined]
    rich_utils._get_rich_console = get_console


_help_fits_pipes()

#: human-readable output; progress bars go to stderr so --json output stays clean
console = CliConsole(highlight=False)
err_console = CliConsole(stderr=True, highlight=False)

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
