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
* ``player[i]``: player to move at the node (``-1`` terminal or unknown; the
  file formats do not store it, so trees read from files have ``-1`` everywhere
  unless a sidecar supplies it);
* ``state[i]``: a label of the node's state (FEN, a move list...);
* ``created[i]`` (optional): the search iteration that added the node.

Strings are kept as :class:`Labels` (one UTF-8 buffer plus offsets), never one
Python object per node: this is what makes a million nodes cheap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np


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
        return [self[i] for i in range(len(self))]

    def take(self, indices: np.ndarray) -> "Labels":
        """The labels of ``indices``, in that order."""
        return Labels.from_strings(self[int(i)] for i in indices)

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
            player=np.full(len(parent_arr), -1, np.int8) if player is None else np.asarray(player, dtype=np.int8),
            state=Labels.from_strings(state),
            meta=dict(meta or {}),
        )

    def depth(self) -> np.ndarray:
        """Depth of every node (root 0); parents precede children in preorder."""
        depth = np.zeros(len(self), dtype=np.int32)
        parent = self.parent
        for i in range(1, len(self)):  # replaced by a compiled loop where speed matters
            depth[i] = depth[parent[i]] + 1
        return depth

    def children(self, index: int) -> np.ndarray:
        return np.flatnonzero(self.parent == index)
