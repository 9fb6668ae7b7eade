"""The error a failed conformance check raises."""

from __future__ import annotations

from boardlab.core.game import Game, State


class ConformanceError(AssertionError):
    """A game breaks the protocol: the message names the game, the check and the position."""


def where(state: State) -> str:
    """A position for an error message: the game, the moves so far and whose turn it is."""
    return f"{state.game.spec()} after actions {state.history} (player to move {state.current_player()})"


def expect(condition: bool, game: Game | State, check: str, detail: str) -> None:
    if not condition:
        name = game.spec() if isinstance(game, Game) else where(game)
        raise ConformanceError(f"{name}: {check}: {detail}")
