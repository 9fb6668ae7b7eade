"""Leaf evaluators for search: ``fn(state) -> list[float]``, a payoff per player in [-1, 1].

Evaluators live with their games (``boardlab.games.chess:evaluate_material``);
this registry names them for agent specs such as ``mcts:eval=chess_material``
and imports each one only when it is first used.
"""

from __future__ import annotations

import importlib
from typing import Callable

from boardlab.core.errors import SpecError
from boardlab.core.game import State

Evaluator = Callable[[State], "list[float]"]

#: evaluator name -> "package.module:function"
EVALUATORS: dict[str, str] = {
    "chess_material": "boardlab.games.chess:evaluate_material",
    "mancala_store": "boardlab.games.mancala:evaluate_store",
}


def register_evaluator(name: str, target: str) -> None:
    """Name an evaluator ``"package.module:function"`` so agents can use ``eval=name``."""
    if ":" not in target:
        raise SpecError(f"evaluator {name!r}: target {target!r} must be 'package.module:function'")
    EVALUATORS[name] = target


def evaluator_names() -> list[str]:
    return sorted(EVALUATORS)


def check_evaluator_name(name: str) -> None:
    if name not in EVALUATORS:
        raise SpecError(f"unknown evaluator {name!r} (known evaluators: {', '.join(evaluator_names())})")


def get_evaluator(name: str) -> Evaluator:
    """The evaluator function named ``name``; a clear :class:`SpecError` when it is unknown or missing."""
    check_evaluator_name(name)
    target = EVALUATORS[name]
    module_name, _, func_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SpecError(f"evaluator {name!r}: cannot import {module_name} ({exc})") from None
    try:
        return getattr(module, func_name)
    except AttributeError:
        raise SpecError(f"evaluator {name!r}: {module_name} has no function {func_name!r}") from None
