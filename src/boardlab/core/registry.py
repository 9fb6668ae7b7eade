"""The game registry: names to game classes, imported only when first used.

Games are found through the ``boardlab.games`` entry points (see
:mod:`boardlab.core.plugins`); boardlab's own are declared in its
``pyproject.toml`` like any other package's. Lazy import keeps ``boardlab
games`` fast and means a game's heavy dependency (python-chess, say) is loaded
only by those who play it.
"""

from __future__ import annotations

from typing import Any

from boardlab.core.errors import SpecError
from boardlab.core.game import Game
from boardlab.core.params import parse_spec, positional_option, spec_name
from boardlab.core.plugins import games as _games


def register_game(name: str, target: str) -> None:
    """Register ``name`` for the class at ``"package.module:ClassName"`` in this process
    (a package registers its games for good with a ``boardlab.games`` entry point)."""
    _games.register(name, target)


def game_names() -> list[str]:
    return _games.names()


def game_target(name: str) -> str:
    """The ``"package.module:ClassName"`` a game name stands for (for worker processes)."""
    return _games.target(name)


def game_class(name: str) -> type[Game]:
    cls = _games.load(name)
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise SpecError(f"game {name!r}: {_games.target(name)} is not a boardlab Game class")
    return cls


def parse_game_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``(name, raw options)`` of a game spec, the positional option of a game family
    included (``openspiel:hex:board_size=7``)."""
    cls = game_class(spec_name(spec))
    return parse_spec(spec, positional_option(cls.parameters))


def make(name: str, /, **params: Any) -> Game:
    """Make a game by name: ``make("connect4", rows=6, cols=7, k=4)``.

    ``name`` may also be a full spec, ``"connect4:rows=5,cols=6"`` or ``"openspiel:hex:board_size=7"``.
    """
    base, raw = parse_game_spec(name)
    overlap = set(raw) & set(params)
    if overlap:
        raise SpecError(f"game {base!r}: option {sorted(overlap)[0]!r} given twice")
    return game_class(base)(**raw, **params)
