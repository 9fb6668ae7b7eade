"""A game's compiled engines and solvers, found by game and kind through entry points.

A game that declares one of these capabilities in ``GameType.provides`` registers its
factory in the ``boardlab.engines`` entry-point group under ``GAME.KIND``::

    [project.entry-points."boardlab.engines"]
    connect4.uct = "boardlab.games.connect4.search:CompiledConnect4Search"
    connect4.puct = "boardlab.games.connect4.puct:CompiledConnect4PUCT"
    connect4.grading = "boardlab.games.connect4.grading:grade_on_set"
    connect4.grading_set = "boardlab.games.connect4.grading:load_grading_set"

=========  ==================  =====================================================================
kind       capability          the factory
=========  ==================  =====================================================================
uct        ``compiled_uct``    ``(state, seed, c) -> SearchEngine``: UCT with random playouts
puct       ``compiled_puct``   ``(state, network, settings, rng) -> PUCTEngine``: a :class:`DenseNetwork`
                               guides it, :class:`PUCTSettings` say how it searches
grading    ``grading_solver``  ``(agent, game, seed, on_position, positions) -> Grades``: the agent's
                               moves on a set of solved positions (``positions``, from the game's
                               ``grading_set``; None: the set the game ships)
grading_   ``grading_solver``  ``(path) -> positions``: a set of solved positions read from a file
set                            in the game's format (None: the set the game ships); a malformed
                               file raises an error naming the file and the line
=========  ==================  =====================================================================

The search code owns the protocols (:mod:`boardlab.core.search`); a game only implements
them. Generic code asks :func:`engine_for` (or the typed lookups below), which answers None
for a game that does not declare the capability, so it never needs to know which game it has.
"""

from __future__ import annotations

from collections.abc import Callable, Sized
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from boardlab.core.errors import SpecError
from boardlab.core.plugins import engines

if TYPE_CHECKING:
    from boardlab.core.game import Game, State
    from boardlab.core.search import DenseNetwork, PUCTEngine, PUCTSettings, SearchEngine

#: the kinds of engine, each with the capability a game declares it by
ENGINE_KINDS = {"uct": "compiled_uct", "puct": "compiled_puct", "grading": "grading_solver", "grading_set": "grading_solver"}


class Grades(Protocol):
    """What a grading answers: the shares of the agent's moves that were optimal and that kept the result."""

    positions: int

    @property
    def share(self) -> float | None: ...

    @property
    def kept_share(self) -> float | None: ...


UCTFactory = Callable[["State", int, float], "SearchEngine"]
PUCTFactory = Callable[["State", "DenseNetwork", "PUCTSettings", np.random.Generator], "PUCTEngine"]
GradingFactory = Callable[..., Grades]


def engine_name(game: Game, kind: str) -> str:
    """The entry-point name of ``game``'s engine of ``kind``: ``connect4.uct``."""
    return f"{game.name}.{kind}"


def engine_for(game: Game, kind: str) -> Any | None:
    """The factory ``game`` registers for ``kind`` (see the module docstring), or None when the game
    does not provide that capability; a game that declares it but registers nothing is an error."""
    if kind not in ENGINE_KINDS:
        raise SpecError(f"engine kind {kind!r} is not one of {', '.join(ENGINE_KINDS)}")
    if ENGINE_KINDS[kind] not in game.provides:
        return None
    name = engine_name(game, kind)
    if name not in engines:
        raise SpecError(f"game {game.spec()} provides {ENGINE_KINDS[kind]} but registers no boardlab.engines entry {name!r}")
    return engines.load(name)


def uct_engine(game: Game) -> UCTFactory | None:
    """``game``'s compiled UCT (``(state, seed, c) -> SearchEngine``), or None."""
    return engine_for(game, "uct")


def puct_engine(game: Game) -> PUCTFactory | None:
    """``game``'s compiled PUCT (``(state, network, settings, rng) -> PUCTEngine``), or None."""
    return engine_for(game, "puct")


def grading_engine(game: Game) -> GradingFactory | None:
    """``game``'s grading (``(agent, game, seed=0, on_position=None, positions=None) -> Grades``), or None."""
    return engine_for(game, "grading")


def grading_set_loader(game: Game) -> Callable[[Path | None], Sized] | None:
    """``game``'s reader of sets of solved positions (``(path or None) -> positions`` for its grading), or None."""
    return engine_for(game, "grading_set")
