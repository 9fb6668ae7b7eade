"""The agent protocol: ``agent.step(state) -> action``.

``reset(game, player, seed)`` is called before each game; the arena passes a
seed derived from the game's seed and the seat, so that every game replays
exactly, whatever order games are played in.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

import numpy as np

from boardlab.core.game import Game, State
from boardlab.core.params import Option, resolve_options
from boardlab.core.rng import derive_seed


class Agent:
    """Base class. Subclasses set ``name``, ``options`` and implement :meth:`step`."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    options: ClassVar[Mapping[str, Option]] = {}
    #: games the agent can play (None: every game)
    games: ClassVar[tuple[str, ...] | None] = None
    #: whether a person answers (the arena refuses these in unattended play)
    interactive: ClassVar[bool] = False

    def __init__(self, **options: Any) -> None:
        self.config = resolve_options(f"agent {self.name!r}", self.options, options)
        self.spec = self.make_spec()
        self.game: Game | None = None
        self.player = 0
        self.rng = np.random.default_rng(self.config.get("seed"))

    def make_spec(self) -> str:
        changed = {k: v for k, v in self.config.items() if v != self.options[k].default}
        if not changed:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in changed.items())

    def reset(self, game: Game, player: int, seed: int | None = None) -> None:
        """Prepare for a new game in seat ``player``; reseed from ``seed`` when given.

        An explicit ``seed`` option of the agent is mixed in, so ``random:seed=1``
        and ``random:seed=2`` still differ in the same game.
        """
        self.game = game
        self.player = player
        if seed is not None:
            own = self.config.get("seed")
            self.rng = np.random.default_rng(derive_seed(seed, own) if own is not None else seed)

    def step(self, state: State) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<agent {self.spec}>"
