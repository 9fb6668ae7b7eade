"""The agent protocol: ``agent.step(state) -> action``.

``reset(game, player, seed)`` is called before each game; the arena passes a
seed derived from the game's seed and the seat, so that every game replays
exactly, whatever order games are played in.

Search agents (``searches = True``) also describe their last search in
``last_search`` and hand back the tree they built with :meth:`Agent.last_tree`;
setting ``agent.stop`` from another thread ends a search early (it still
returns its best move so far), which is how the web app cancels a move
nobody waits for any more.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

import numpy as np

from boardlab.core.game import Game, State
from boardlab.core.params import Option, format_spec, resolve_options
from boardlab.core.rng import derive_seed

if TYPE_CHECKING:
    from pathlib import Path

    from boardlab.agents.search_tree import SearchTreeHandle


class Agent:
    """Base class. Subclasses set ``name``, ``options`` and implement :meth:`step`."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    options: ClassVar[Mapping[str, Option]] = {}
    #: games the agent can play (None: every game)
    games: ClassVar[tuple[str, ...] | None] = None
    #: whether a person answers (the arena refuses these in unattended play)
    interactive: ClassVar[bool] = False
    #: whether it searches a tree it can hand back (``last_search``, :meth:`last_tree`)
    searches: ClassVar[bool] = False
    #: whether ``time`` and ``iterations`` bound one search together (whichever ends first);
    #: False where ``time``, when given, replaces ``iterations`` (the web server then adds no time cap)
    time_with_iterations: ClassVar[bool] = True
    #: the option that counts a search's iterations (simulations, playouts), which servers bound
    iterations_option: ClassVar[str] = "iterations"
    #: whether the iterations option, left unset, still bounds the search when a time is given (``az``: the
    #: model file's count, else 200); False where an unset one becomes unlimited next to a time (``mcts``)
    unset_iterations_bound_with_time: ClassVar[bool] = False
    #: options added after tournaments of the agent may have been stored, each with the value that
    #: plays exactly as the agent did before the option existed; a stored record without such an
    #: option reads as that value, so adding an option does not refuse to resume those tournaments
    options_added_since: ClassVar[Mapping[str, Any]] = {}

    def __init__(self, **options: Any) -> None:
        self.config = resolve_options(f"agent {self.name!r}", self.options, options)
        self.spec = self.make_spec()
        self.game: Game | None = None
        self.player = 0
        self.rng = np.random.default_rng(self.config.get("seed"))
        #: set from another thread to end a search in progress early
        self.stop = threading.Event()
        #: facts about the last search (search agents): engine, simulations, seconds, children...
        self.last_search: dict[str, Any] = {}

    def make_spec(self) -> str:
        return format_spec(self.name, self.config, self.options)

    def play_budget(self) -> Mapping[str, Any]:
        """The options as this agent searches with them, where an unset one is filled from elsewhere (``az``'s
        simulations from its model file, once loaded). A web server checks these against its limits after
        :meth:`reset`, besides the options as given."""
        return self.config

    def model_files(self, game: Game) -> dict[str, "Path"]:
        """The model files this agent plays ``game`` with, by the option that names each (its default
        file where the option is unset); none for agents without one. The arena records a digest of
        each, so that a tournament is not resumed with another network behind the same spec."""
        return {}

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

    @classmethod
    def plays(cls, game: Game) -> str | None:
        """None when the agent can play ``game``, else why not (agents for one game declare
        ``games``; an agent with narrower needs, such as one board size, overrides this)."""
        if cls.games is None or game.name in cls.games:
            return None
        return f"agent {cls.name!r} plays only {', '.join(cls.games)}, not {game.name}"

    @classmethod
    def plays_by_default(cls, game: Game) -> str | None:
        """None when the agent plays ``game`` with its default options, else why not. Agents whose
        default is a model committed per game (``az``) override this; the web, whose requests may not
        name files, offers only the agents for which it is None."""
        return cls.plays(game)

    def last_tree(self) -> "SearchTreeHandle | None":
        """The tree of the last search (search agents), exported when first asked for."""
        return None

    def statistics(self) -> dict[str, Any] | None:
        """Counts about the agent's play in the game since :meth:`reset` (JSON ready), or None.
        The arena stores them with each game (the Ticket to Ride player counts its forbidden decisions)."""
        return None

    @classmethod
    def compiled_match(cls, game: Game, agents: list["Agent"], seed: int) -> "CompiledMatch | None":
        """Play a whole game of ``game`` from ``new_initial_state(seed)`` between ``agents`` (one per
        seat, all of this class) in compiled code, or None when this agent has no compiled play for
        them. It must make exactly the moves the agents' :meth:`step` would; the arena uses it to
        play tournaments of such agents faster."""
        return None

    def __repr__(self) -> str:
        return f"<agent {self.spec}>"


@dataclass
class CompiledMatch:
    """A game played by :meth:`Agent.compiled_match`: the actions, and each seat's agent statistics."""

    actions: list[int]
    statistics: list[dict[str, Any] | None]
