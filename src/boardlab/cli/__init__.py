"""The ``boardlab`` command. Each module of this package adds one group of commands.

``train``, ``experiment`` and ``evaluate`` (:mod:`boardlab.cli.concepts`) find their
recipes and experiments through entry points; the modules that define boardlab's own
(:mod:`~boardlab.studies.nothanks.commands`, :mod:`~boardlab.studies.c4rl.commands`, :mod:`~boardlab.studies.c4rl.book_commands`,
:mod:`~boardlab.studies.c4rl.grading_commands`) are imported only when one of them is used.
Top-level commands a study adds (``boardlab solve`` and ``grade``, the Connect Four solver's) are
named by ``boardlab.commands`` entry points.
"""

from boardlab.cli import (  # noqa: F401  (registers commands)
    catalogue,
    concepts,  # noqa: F401  (train, experiment, evaluate)
    duel,
    play,
    search,  # noqa: F401  (registers commands)
    serve,
    tour,
    tournament,  # noqa: F401
    tree,  # noqa: F401  (boardlab tree ...)
)
from boardlab.cli.app import app, command
from boardlab.core import plugins

# the studies' own top-level commands (boardlab solve, boardlab grade), as their entry points name them
for _name in plugins.commands.names():
    command(_name)(plugins.commands.load(_name))


def main() -> None:
    app()


__all__ = ["app", "main"]
