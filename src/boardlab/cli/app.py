"""The typer application, its help laid out for terminals and pipes alike, and the wrapper that
turns user errors into one clear line (the shared console is :mod:`boardlab.commands.console`)."""

from __future__ import annotations

import functools
from typing import Any, Callable

import typer
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from boardlab.commands.console import PLAIN_WIDTH, fail
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


def command_group(name: str, help: str) -> typer.Typer:
    """A sub-command group such as ``boardlab tree``; add commands with ``command(..., group=...)``."""
    group = typer.Typer(name=name, help=help, no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False)
    app.add_typer(group, name=name)
    return group
