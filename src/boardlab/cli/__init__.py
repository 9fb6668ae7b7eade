"""The ``boardlab`` command. Each module of this package adds one group of commands."""

from boardlab.cli import catalogue, duel, play, serve, tour  # noqa: F401  (registers commands)
from boardlab.cli import search  # noqa: F401  (registers commands)
from boardlab.cli import tree  # noqa: F401  (boardlab tree ...)
from boardlab.cli import tournament  # noqa: F401
from boardlab.cli import nothanks  # noqa: F401  (train, evaluate, experiment)
from boardlab.cli import solve  # noqa: F401  (registers commands)
from boardlab.cli import rl  # noqa: F401  (boardlab rl ...)
from boardlab.cli.app import app


def main() -> None:
    app()


__all__ = ["app", "main"]
