"""The game registry: names to game classes, imported only when first used.

Lazy import keeps ``boardlab games`` fast and means a game's heavy dependency
(python-chess, say) is loaded only by those who play it.
"""

from __future__ import annotations

import importlib
from typing import Any

from boardlab.core.errors import SpecError
from boardlab.core.game import Game
from boardlab.core.params import parse_spec

#: built-in games; other packages add theirs with register_game
_GAMES: dict[str, str] = {
    "connect4": "boardlab.games.connect4:ConnectFour",
    "mancala": "boardlab.games.mancala:Mancala",
    "chess": "boardlab.games.chess:Chess",
    "nothanks": "boardlab.games.nothanks:NoThanks",
}


def register_game(name: str, target: str) -> None:
    """Register ``name`` for the class at ``"package.module:ClassName"``."""
    _GAMES[name] = target


def game_names() -> list[str]:
    return sorted(_GAMES)


def game_class(name: str) -> type[Game]:
    try:
        target = _GAMES[name]
    except KeyError:
        known = ", ".join(game_names())
        raise SpecError(f"unknown game {name!r} (known games: {known})") from None
    module_name, _, class_name = target.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def make(name: str, **params: Any) -> Game:
    """Make a game by name: ``make("connect4", rows=6, cols=7, k=4)``.

    ``name`` may also be a full spec, ``"connect4:rows=5,cols=6"``.
    """
    base, raw = parse_spec(name)
    overlap = set(raw) & set(params)
    if overlap:
        raise SpecError(f"game {base!r}: option {sorted(overlap)[0]!r} given twice")
    return game_class(base)(**raw, **params)
