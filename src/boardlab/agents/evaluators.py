"""Leaf evaluators by name, for agent specs such as ``mcts:eval=chess_material``.

Evaluators live with their games (``boardlab.games.chess:MATERIAL``, an
:class:`~boardlab.core.evaluation.Evaluator`) and are found through the
``boardlab.evaluators`` entry points; each is imported only when first used.
An evaluator names the game it judges, so asking for another game's evaluator
is a clear error before any search starts.
"""

from __future__ import annotations

from boardlab.core.errors import SpecError
from boardlab.core.evaluation import Evaluator
from boardlab.core.game import Game
from boardlab.core.plugins import evaluators as _evaluators

#: the ``eval=`` value that forces random playouts even when the game has a default evaluator
NO_EVALUATOR = "none"


def register_evaluator(name: str, target: str) -> None:
    """Name an evaluator ``"package.module:OBJECT"`` for this process (packages use the
    ``boardlab.evaluators`` entry points)."""
    _evaluators.register(name, target)


def evaluator_names(game: Game | None = None) -> list[str]:
    """Every evaluator's name, or only those that judge ``game``."""
    if game is None:
        return _evaluators.names()
    return [name for name in _evaluators.names() if get_evaluator(name).applies_to(game)]


def check_evaluator_name(name: str) -> None:
    if name not in _evaluators:
        raise SpecError(f"unknown evaluator {name!r} (known evaluators: {', '.join(evaluator_names())}, or none)")


def get_evaluator(name: str) -> Evaluator:
    """The evaluator named ``name``; a clear :class:`SpecError` when it is unknown or broken."""
    found = _evaluators.load(name)
    if not isinstance(found, Evaluator):
        raise SpecError(f"evaluator {name!r}: {_evaluators.target(name)} is not a boardlab Evaluator")
    return found


def evaluator_for(game: Game, name: str | None) -> Evaluator | None:
    """The evaluator a search on ``game`` uses: ``name``, the game's default when ``name`` is None,
    or none at all for ``"none"``. Another game's evaluator is refused."""
    if name == NO_EVALUATOR:
        return None
    if name is None:
        name = game.default_evaluator()
        if name is None:
            return None
    check_evaluator_name(name)
    evaluator = get_evaluator(name)
    if not evaluator.applies_to(game):
        own = ", ".join(evaluator_names(game)) or "none"
        raise SpecError(
            f"evaluator {name!r} judges {evaluator.game} positions, not {game.name} "
            f"({game.name}'s evaluators: {own}; eval=none plays random playouts)"
        )
    return evaluator
