"""A boardlab game's OpenSpiel twin: the same rules in OpenSpiel, so that OpenSpiel's bots play natively.

A game offers its twin through the ``boardlab.openspiel_twins`` entry-point group, keyed by
the game's name, pointing at a function of the game's module::

    [project.entry-points."boardlab.openspiel_twins"]
    connect4 = "boardlab.games.connect4.rules:openspiel_twin"

The function takes the game and returns a plain mapping with the fields of
:class:`OpenSpielTwin` (``game``, ``to_openspiel`` and ``from_openspiel`` at least), or None
when these parameters have no twin (Kalah on another board). A game never imports the adapter
(it sits below it); :func:`twin_of` turns the mapping into an :class:`OpenSpielTwin`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from boardlab.core.errors import SpecError
from boardlab.core.game import Game, State
from boardlab.core.plugins import openspiel_twins


@dataclass(frozen=True)
class OpenSpielTwin:
    """How a boardlab game maps onto an OpenSpiel game with the same rules.

    The adapter loads ``pyspiel.load_game(game)``, starts it from
    ``new_initial_state(start(initial))`` (or ``new_initial_state()`` when that is None)
    and replays a boardlab history there, translating each action; so OpenSpiel's own
    bots can play the boardlab game at native speed, and the tests can compare both rule
    sets move for move. The callables take the boardlab state (before the move), the
    action, and the OpenSpiel state in the same position; a game's module holds them, the
    adapter names no game.

    ``seats[p]`` is OpenSpiel's number of boardlab's seat ``p`` (chess: OpenSpiel
    numbers Black 0 and White 1); ``start(initial)`` raises BoardlabError for a
    start OpenSpiel cannot take (a set-up board). ``differences`` says, for
    people, where the rule sets part (chess: the draw rules), and
    ``diverged(state, twin_state)`` whether two states in the same position have
    reached such a point (the twin's game ended where boardlab's goes on, or the
    other way round): the adapter then stops using the twin for that game.
    """

    game: str
    to_openspiel: Callable[[State, int, Any], int]
    from_openspiel: Callable[[State, int, Any], int]
    start: Callable[[State], str | None] = lambda initial: None
    seats: tuple[int, ...] = (0, 1)
    differences: str = ""
    diverged: Callable[[State, Any], bool] = lambda state, twin_state: False


FIELDS = tuple(f.name for f in fields(OpenSpielTwin))


def twin_of(game: Game) -> OpenSpielTwin | None:
    """``game``'s OpenSpiel twin, or None when it registers none or has none for its parameters."""
    if game.name not in openspiel_twins:
        return None
    described = openspiel_twins.load(game.name)(game)
    if described is None:
        return None
    where = f"the OpenSpiel twin of {game.spec()} ({openspiel_twins.target(game.name)})"
    unknown = sorted(set(described) - set(FIELDS))
    if unknown:
        raise SpecError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(FIELDS)})")
    missing = [key for key in ("game", "to_openspiel", "from_openspiel") if key not in described]
    if missing:
        raise SpecError(f"{where}: missing key {missing[0]!r}")
    return OpenSpielTwin(**described)
