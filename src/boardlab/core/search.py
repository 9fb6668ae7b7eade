"""What a tree-search engine offers, so that a game can ship a compiled one.

:class:`~boardlab.agents.mcts.MCTSAgent` runs either its generic engine over
the State API or one that the game offers (``game.compiled_search(state,
seed, c)``, e.g. Connect Four's numba UCT). Both follow :class:`SearchEngine`
and hand back the same shapes: :class:`ChildStats` for the root's moves and a
:class:`SearchSnapshot` of every node for the tree viewer and the tree files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, Sequence

import numpy as np
from numba import njit

if TYPE_CHECKING:
    import threading

    from boardlab.core.game import State


@dataclass(frozen=True)
class ChildStats:
    """One move of the search root: how often it was tried and what it brought.

    ``wins`` counts playouts won by the player who made the move; ``mean`` is
    the mean payout from that player's view.
    """

    action: int
    visits: int
    wins: int
    mean: float


@dataclass
class SearchSnapshot:
    """Every node of a search tree, indexed by the engine's node id (``parent[i] < i``; node 0 is the root).

    ``player`` uses the game's codes (a seat, CHANCE, TERMINAL); ``created`` is
    the iteration that added a node (0: there before this search). Labels:

    * ``moves``: the label of the move into each node (``action_to_string`` where
      it was played); None means ``move_table[actions[i]]``;
    * ``states``: each node's position in the game's notation when the engine
      noted it; None means the exporter derives them, by joining move labels
      to ``root_notation`` with ``path_separator`` when that is set (a notation
      that is a move list, as Connect Four's), else by replaying ``actions``
      from ``root``.
    """

    root: "State"
    parent: np.ndarray
    actions: np.ndarray
    visits: np.ndarray
    wins: np.ndarray
    mean: np.ndarray
    player: np.ndarray
    created: np.ndarray
    moves: Sequence[str | None] | None = None
    move_table: Sequence[str] = ()
    states: Sequence[str | None] | None = None
    path_separator: str | None = None
    root_notation: str = ""
    engine: str = ""
    extra: dict = field(default_factory=dict)


class SearchEngine(Protocol):
    """One growing UCT tree rooted at a state."""

    #: a short name shown to users ("generic", "compiled")
    engine: str
    #: the actions from the game's start (or set-up position) to the root
    root_history: list[int]

    def run(self, iterations: int | None, deadline: float | None, stop: "threading.Event | None" = None,
            max_nodes: int | None = None) -> int:
        """Iterate until ``iterations`` more are done, ``time.perf_counter()`` passes ``deadline``,
        ``stop`` is set or the tree holds ``max_nodes`` nodes (at least one iteration runs);
        return how many ran."""

    def root_visits(self) -> int: ...

    def root_children(self) -> list[ChildStats]: ...

    def reroot(self, actions: list[int], state: "State") -> bool:
        """Keep the subtree reached from the root by ``actions`` (now at ``state``);
        False when that subtree was never visited (the caller starts afresh)."""

    def snapshot(self) -> SearchSnapshot:
        """A copy of the tree as it is now (cheap: labels are derived only on export)."""


@njit(cache=True)
def subtree_mask(parent: np.ndarray, root: int) -> np.ndarray:
    """Nodes of the subtree under ``root`` in a flat tree where ``parent[i] < i`` (for re-rooting)."""
    n = parent.shape[0]
    keep = np.zeros(n, dtype=np.bool_)
    keep[root] = True
    for i in range(root + 1, n):
        p = parent[i]
        if p >= 0 and keep[p]:
            keep[i] = True
    return keep
