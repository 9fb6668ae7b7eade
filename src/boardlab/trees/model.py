"""The columnar search tree: numpy arrays in depth-first preorder.

Node ``0`` is the root. For node ``i``:

* ``parent[i]``: index of its parent (``-1`` for the root); always ``< i``;
* ``child_count[i]``: number of children; they follow in preorder;
* ``move[i]``: label of the move that led into the node (``""`` for the root);
* ``visits[i]``: visit count;
* ``visits2[i]``: the second counter: playouts won by the player who made
  the move into the node (for the root: by the player to move there's opponent,
  i.e. whatever the search recorded; viewers show it as given);
* ``mean_payout[i]``: mean payout of the playouts through the node, from the view
  of the player who made the move into it;
* ``player[i]``: player to move at the node (``0..n-1``), or one of the codes
  of :mod:`boardlab.core.game`: ``CHANCE`` (-1) at a chance node, ``TERMINAL``
  (-4) once the game is over, ``UNKNOWN_PLAYER`` (-3) when nobody knows. The
  file formats do not store it; :func:`boardlab.trees.gamelabels.restore_players`
  reads it back from the state labels of a tree that names its game;
* ``state[i]``: the node's position in its game's notation (FEN, a move
  list...); the root's label starts with ``[game spec]`` (see
  :mod:`boardlab.trees.gamelabels`);
* ``created[i]`` (optional): the search iteration that added the node.

Strings are kept as :class:`Labels` (one UTF-8 buffer plus offsets), never one
Python object per node: this is what makes a million nodes cheap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numba
import numpy as np

from boardlab.core.errors import FormatError
from boardlab.core.game import UNKNOWN_PLAYER


class Labels:
    """A column of strings stored as UTF-8 bytes plus ``offsets`` (length n + 1)."""

    __slots__ = ("data", "offsets")

    def __init__(self, data: bytes | np.ndarray, offsets: np.ndarray) -> None:
        self.data = np.frombuffer(data, dtype=np.uint8) if isinstance(data, (bytes, bytearray, memoryview)) else data
        self.offsets = np.asarray(offsets, dtype=np.int64)

    @classmethod
    def from_strings(cls, strings: Iterable[str]) -> "Labels":
        encoded = [s.encode("utf-8") for s in strings]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        if encoded:
            np.cumsum([len(b) for b in encoded], out=offsets[1:])
        return cls(b"".join(encoded), offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, index: int) -> str:
        start, end = self.offsets[index], self.offsets[index + 1]
        return self.data[start:end].tobytes().decode("utf-8")

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def to_list(self) -> list[str]:
        data = np.asarray(self.data)[self.offsets[0] : self.offsets[-1]]
        bounds = (self.offsets - self.offsets[0]).tolist()
        if not data.size or int(data.max()) < 128:
            # ASCII (FENs, move lists): one decode and string slices, about 5x faster than a decode per label
            text = data.tobytes().decode("ascii")
            return [text[start:end] for start, end in zip(bounds[:-1], bounds[1:])]
        raw = data.tobytes()
        return [raw[start:end].decode("utf-8") for start, end in zip(bounds[:-1], bounds[1:])]

    def take(self, indices: np.ndarray) -> "Labels":
        """The labels of ``indices``, in that order (one compiled gather, no Python strings)."""
        indices = np.asarray(indices, dtype=np.int64)
        starts = self.offsets[indices]
        lengths = self.offsets[indices + 1] - starts
        offsets = np.zeros(len(indices) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        data = np.empty(int(offsets[-1]), dtype=np.uint8)
        _gather_bytes(np.asarray(self.data), starts, offsets, data)
        return Labels(data, offsets)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Labels)
            and np.array_equal(self.offsets - self.offsets[0], other.offsets - other.offsets[0])
            and bytes(self.data[self.offsets[0] : self.offsets[-1]]) == bytes(other.data[other.offsets[0] : other.offsets[-1]])
        )


@dataclass
class Tree:
    parent: np.ndarray  # int32
    child_count: np.ndarray  # int32
    move: Labels
    visits: np.ndarray  # int64 in memory; the formats hold 32-bit values
    visits2: np.ndarray  # int64
    mean_payout: np.ndarray  # float64
    player: np.ndarray  # int8
    state: Labels
    #: free-form facts about the search: game spec, agent spec, move number...
    meta: dict = field(default_factory=dict)
    #: optional: the search iteration at which each node was added (for growth animations)
    created: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.parent)

    @property
    def size(self) -> int:
        return len(self.parent)

    @classmethod
    def from_parents(
        cls,
        parent: Sequence[int],
        move: Sequence[str],
        visits: Sequence[int],
        visits2: Sequence[int],
        mean_payout: Sequence[float],
        state: Sequence[str],
        player: Sequence[int] | None = None,
        meta: dict | None = None,
    ) -> "Tree":
        """Build from per-node sequences already in preorder (handy in tests and small exports)."""
        parent_arr = np.asarray(parent, dtype=np.int32)
        child_count = np.bincount(parent_arr[1:], minlength=len(parent_arr)).astype(np.int32) if len(parent_arr) else np.zeros(0, np.int32)
        return cls(
            parent=parent_arr,
            child_count=child_count,
            move=Labels.from_strings(move),
            visits=np.asarray(visits, dtype=np.int64),
            visits2=np.asarray(visits2, dtype=np.int64),
            mean_payout=np.asarray(mean_payout, dtype=np.float64),
            player=np.full(len(parent_arr), UNKNOWN_PLAYER, np.int8) if player is None else np.asarray(player, dtype=np.int8),
            state=Labels.from_strings(state),
            meta=dict(meta or {}),
        )

    def depth(self) -> np.ndarray:
        """Depth of every node (root 0); parents precede children in preorder."""
        return _depths(np.asarray(self.parent, dtype=np.int32))

    def check(self, name: str = "tree") -> None:
        """Raise :class:`FormatError` unless the columns describe one tree in preorder.

        Writers call this first: the formats store only child counts, so a tree
        whose ``parent`` and ``child_count`` disagree would be written as garbage.
        """
        n = len(self.parent)
        if n == 0:
            raise FormatError(f"{name}: a tree needs at least its root")
        for column in ("child_count", "visits", "visits2", "mean_payout", "player"):
            if len(getattr(self, column)) != n:
                raise FormatError(f"{name}: column {column} has {len(getattr(self, column))} entries for {n} nodes")
        for column in ("move", "state"):
            if len(getattr(self, column)) != n:
                raise FormatError(f"{name}: labels {column} have {len(getattr(self, column))} entries for {n} nodes")
        bad = _preorder_violation(np.asarray(self.parent, dtype=np.int32), np.asarray(self.child_count, dtype=np.int32))
        if bad >= 0:
            raise FormatError(f"{name}: node {bad} breaks depth-first preorder (parent/child_count disagree)")

    def subtree(self, index: int) -> "Tree":
        """The subtree rooted at ``index`` (a contiguous slice in preorder), as its own tree."""
        end = _subtree_end(np.asarray(self.child_count, dtype=np.int64), int(index))
        part = slice(int(index), end)
        parent = np.asarray(self.parent[part], dtype=np.int32) - int(index)
        parent[0] = -1
        move = self.move.take(np.arange(index, end))
        return Tree(
            parent=parent,
            child_count=np.asarray(self.child_count[part]).copy(),
            move=_blank_first(move),
            visits=np.asarray(self.visits[part]).copy(),
            visits2=np.asarray(self.visits2[part]).copy(),
            mean_payout=np.asarray(self.mean_payout[part]).copy(),
            player=np.asarray(self.player[part]).copy(),
            state=self.state.take(np.arange(index, end)),
            meta=dict(self.meta, subtree_of=int(index)),
            created=None if self.created is None else np.asarray(self.created[part]).copy(),
        )

    def children(self, index: int) -> np.ndarray:
        return np.flatnonzero(self.parent == index)


@numba.njit(cache=True)
def _gather_bytes(data, starts, out_offsets, out):
    for k in range(len(starts)):
        start = starts[k]
        o = out_offsets[k]
        for j in range(out_offsets[k + 1] - o):
            out[o + j] = data[start + j]


@numba.njit(cache=True)
def _depths(parent):
    depth = np.zeros(len(parent), dtype=np.int32)
    for i in range(1, len(parent)):
        depth[i] = depth[parent[i]] + 1
    return depth


@numba.njit(cache=True)
def _preorder_violation(parent, child_count):
    """First node whose parent is not the node preorder puts above it (or whose children are missing), else -1."""
    n = len(parent)
    if parent[0] != -1 or child_count[0] < 0:
        return 0
    stack = np.empty(n, dtype=np.int64)
    remaining = np.empty(n, dtype=np.int64)
    top = 0
    stack[0] = 0
    remaining[0] = child_count[0]
    for i in range(1, n):
        while top >= 0 and remaining[top] == 0:
            top -= 1
        if top < 0 or parent[i] != stack[top] or child_count[i] < 0:
            return i
        remaining[top] -= 1
        top += 1
        stack[top] = i
        remaining[top] = child_count[i]
    while top >= 0:
        if remaining[top] != 0:
            return stack[top]
        top -= 1
    return -1


def _blank_first(labels: Labels) -> Labels:
    """The same labels with the first one emptied (a new root has no move into it)."""
    start = labels.offsets[1]
    return Labels(np.asarray(labels.data)[start : labels.offsets[-1]].copy(), np.concatenate([[0], labels.offsets[1:] - start]))


@numba.njit(cache=True)
def _subtree_end(child_count, root):
    """One past the last node of ``root``'s subtree (subtrees are contiguous in preorder)."""
    pending = 1
    i = root
    while pending > 0:
        pending += child_count[i] - 1
        i += 1
    return i
