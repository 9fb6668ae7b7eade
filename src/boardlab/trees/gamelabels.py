"""Trees that remember their game, inside the study's fixed file formats.

The formats store one string per node, its *state label*. boardlab writes
there the game's own notation of the node's position, side to move included
(FEN for chess, a Kalah notation, the Connect Four move string: see each
game's ``State.notation``), and starts the root's label with the game spec in
brackets::

    [mancala] 4,4,4,4,4,4/0/4,4,4,4,4,4/0 S
    [connect4] 445
    [chess:max_moves=200] rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1

So a reopened file knows its game: :func:`identify` makes the game from the
root label, :func:`restore_players` reads whose turn it is at every node from
the labels, and a viewer can draw any node's board and play on from it.
Files from other tools (no bracket, or a spec boardlab does not know) stay
readable; their nodes keep the player code "unknown".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from boardlab.core.errors import BoardlabError
from boardlab.core.game import UNKNOWN_PLAYER, Game
from boardlab.core.registry import make

if TYPE_CHECKING:
    from boardlab.trees.model import Tree


def root_label(spec: str, notation: str) -> str:
    """The root's state label: ``[spec] notation``."""
    if "]" in spec:
        raise BoardlabError(f"game spec {spec!r} cannot be written in a tree file (it holds ']')")
    return f"[{spec}] {notation}"


def split_root_label(label: str) -> tuple[str | None, str]:
    """``(spec, notation)`` of a root label; ``(None, label)`` when it names no game."""
    if label.startswith("["):
        end = label.find("]")
        if end > 1 and label[end + 1: end + 2] in (" ", ""):
            return label[1:end], label[end + 2:]
    return None, label


def identify(tree: "Tree") -> tuple[Game | None, str]:
    """The game a tree was searched in (from its root label) and why not when it is None."""
    if len(tree) == 0:
        return None, "the tree is empty"
    spec, _ = split_root_label(tree.state[0])
    if spec is None:
        return None, "its root label names no game (a file from another tool or an older boardlab)"
    try:
        return make(spec), ""
    except BoardlabError as exc:
        return None, f"its root label names game {spec!r}, which cannot be made here ({exc})"


def node_notation(tree: "Tree", node: int) -> str:
    """The notation of a node's position (the root's without the game spec)."""
    label = tree.state[node]
    return split_root_label(label)[1] if node == 0 else label


def restore_players(tree: "Tree", game: Game | None = None) -> bool:
    """Fill ``tree.player`` from the state labels when it is unknown (trees read from files).

    Returns whether the tree knows its game; then every node gets the player
    the game reads from its notation (a seat, CHANCE or TERMINAL), and labels
    the game cannot read stay "unknown".
    """
    if game is None:
        game, _ = identify(tree)
    if game is None:
        return False
    player = np.asarray(tree.player)
    if len(player) and np.all(player == UNKNOWN_PLAYER):
        texts = tree.state.to_list()
        texts[0] = split_root_label(texts[0])[1]
        tree.player = np.asarray(game.players_of_notations(texts), dtype=np.int8)
    tree.meta.setdefault("game", game.spec())
    return True


def state_at(tree: "Tree", node: int, game: Game | None = None):
    """The state at a node (for its board and to play on from it); BoardlabError when the
    game is unknown or the game's notation does not fix a state (hidden information)."""
    if game is None:
        game, why = identify(tree)
        if game is None:
            raise BoardlabError(f"cannot show this tree's positions: {why}")
    return game.state_from_notation(node_notation(tree, node))
