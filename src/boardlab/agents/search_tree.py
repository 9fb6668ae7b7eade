"""Export of a search to the columnar :class:`Tree`: what the viewer draws and the files hold.

Every search engine (the generic one over the State API, a game's compiled one)
hands back a :class:`~boardlab.core.search.SearchSnapshot`: flat arrays where
every node's parent has a smaller index than the node itself. The helpers here
rely on that order and never recurse, so trees of millions of nodes export in
linear time. Export is lazy (:class:`SearchTreeHandle`): a duel that never
looks at its trees never pays for their labels.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

import numpy as np
from numba import njit

from boardlab.core.search import SearchSnapshot
from boardlab.trees.gamelabels import root_label
from boardlab.trees.model import Labels, Tree


@njit(cache=True)
def preorder_positions(parent: np.ndarray) -> np.ndarray:
    """Depth-first preorder position of every node; children keep their index order.

    Subtree sizes come from one backward pass, positions from one forward pass:
    a child's position is its parent's next free slot, which then skips the
    child's whole subtree.
    """
    n = parent.shape[0]
    size = np.ones(n, dtype=np.int64)
    for i in range(n - 1, 0, -1):
        size[parent[i]] += size[i]
    pos = np.empty(n, dtype=np.int64)
    free = np.empty(n, dtype=np.int64)
    if n == 0:
        return pos
    pos[0] = 0
    free[0] = 1
    for i in range(1, n):
        p = parent[i]
        pos[i] = free[p]
        free[p] += size[i]
        free[i] = pos[i] + 1
    return pos


@njit(cache=True)
def path_labels(parent: np.ndarray, move_data: np.ndarray, move_offsets: np.ndarray, root: np.ndarray, sep: np.ndarray):
    """Each node's move path: ``root`` then the moves from the root, joined by ``sep``
    (zero or one byte; no separator after an empty prefix).

    ``parent`` is in preorder (or any order with ``parent[i] < i``); returns the
    UTF-8 buffer and offsets of a :class:`Labels` column.
    """
    n = parent.shape[0]
    gap = sep.shape[0]
    length = np.empty(n, dtype=np.int64)
    length[0] = root.shape[0]
    for i in range(1, n):
        own = move_offsets[i + 1] - move_offsets[i]
        above = length[parent[i]]
        length[i] = above + (gap if above > 0 else 0) + own
    offsets = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        offsets[i + 1] = offsets[i] + length[i]
    data = np.empty(offsets[n], dtype=np.uint8)
    for j in range(root.shape[0]):
        data[j] = root[j]
    for i in range(1, n):
        start = offsets[i]
        ps = offsets[parent[i]]
        pl = length[parent[i]]
        for j in range(pl):
            data[start + j] = data[ps + j]
        k = start + pl
        if pl > 0 and gap > 0:
            data[k] = sep[0]
            k += 1
        for j in range(move_offsets[i], move_offsets[i + 1]):
            data[k] = move_data[j]
            k += 1
    return data, offsets


@njit(cache=True)
def labels_from_codes(codes: np.ndarray, table_data: np.ndarray, table_offsets: np.ndarray):
    """A label column where node ``i`` gets the table entry ``codes[i]`` (-1: empty)."""
    n = codes.shape[0]
    offsets = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        c = codes[i]
        offsets[i + 1] = offsets[i] + (table_offsets[c + 1] - table_offsets[c] if c >= 0 else 0)
    data = np.empty(offsets[n], dtype=np.uint8)
    for i in range(n):
        c = codes[i]
        if c >= 0:
            s = table_offsets[c]
            for j in range(table_offsets[c + 1] - s):
                data[offsets[i] + j] = table_data[s + j]
    return data, offsets


class SearchTreeHandle:
    """One search's tree as the engine left it, exported to a :class:`Tree` on first use."""

    def __init__(self, snapshot: SearchSnapshot, meta: dict[str, Any]) -> None:
        self.snapshot: SearchSnapshot | None = snapshot
        self.meta = meta
        self.nodes = int(np.count_nonzero(snapshot.visits > 0)) or 1
        self._tree: Tree | None = None
        self._lock = threading.Lock()

    @classmethod
    def of_tree(cls, tree: Tree) -> "SearchTreeHandle":
        """A handle on a tree that is already exported (agents that build a :class:`Tree` themselves)."""
        handle = cls.__new__(cls)
        handle.snapshot, handle.meta, handle.nodes = None, tree.meta, len(tree)
        handle._tree, handle._lock = tree, threading.Lock()
        return handle

    def tree(self) -> Tree:
        with self._lock:
            if self._tree is None:
                assert self.snapshot is not None
                self._tree = snapshot_to_tree(self.snapshot, self.meta)
                self.snapshot = None  # the arrays now live in the tree
            return self._tree


def snapshot_to_tree(snapshot: SearchSnapshot, meta: dict[str, Any] | None = None) -> Tree:
    """The visited nodes of a search as a :class:`Tree` in preorder.

    Nodes with zero visits (children allocated at expansion but never tried)
    are left out. State labels are the game's notation of each node's
    position; the root's is prefixed with the game spec (see
    :mod:`boardlab.trees.gamelabels`).
    """
    parent = np.asarray(snapshot.parent, dtype=np.int64)
    visits = np.asarray(snapshot.visits, dtype=np.int64)
    keep = visits > 0
    keep[0] = True
    index = np.flatnonzero(keep)
    new_id = np.full(len(parent), -1, dtype=np.int64)
    new_id[index] = np.arange(len(index))
    kept_parent = parent[index]
    kept_parent = np.where(kept_parent >= 0, new_id[np.maximum(kept_parent, 0)], -1)
    kept_parent[0] = -1
    pos = preorder_positions(kept_parent)
    order = np.empty_like(pos)
    order[pos] = np.arange(len(pos))  # order[k]: kept node at preorder position k
    source = index[order]  # internal id at each preorder position
    pre_parent = np.full(len(order), -1, dtype=np.int64)
    pre_parent[1:] = pos[kept_parent[order[1:]]]
    if snapshot.moves is None:
        codes = np.asarray(snapshot.actions, dtype=np.int64)[source]
        codes[0] = -1  # the root has no move
        move_labels = code_labels(codes, snapshot.move_table)
    else:
        moves = snapshot.moves
        move_labels = Labels.from_strings((moves[int(i)] or "") if i else "" for i in source)
    states = _state_labels(snapshot, source, pre_parent, move_labels)
    root = snapshot.root
    states = _with_root_label(states, root_label(root.game.spec(), states[0]))
    meta = dict(meta or {})
    meta.setdefault("game", root.game.spec())
    return Tree(
        parent=pre_parent.astype(np.int32),
        child_count=np.bincount(pre_parent[1:], minlength=len(source)).astype(np.int32),
        move=move_labels,
        visits=visits[source],
        visits2=np.asarray(snapshot.wins, dtype=np.int64)[source],
        mean_payout=np.asarray(snapshot.mean, dtype=np.float64)[source],
        player=np.asarray(snapshot.player, dtype=np.int8)[source],
        state=states,
        meta=meta,
        created=np.asarray(snapshot.created, dtype=np.int64)[source],
    )


def _state_labels(snapshot: SearchSnapshot, source: np.ndarray, pre_parent: np.ndarray, move_labels: Labels) -> Labels:
    """Each node's notation: as the engine noted it, as a move path, or by replaying the moves."""
    if snapshot.states is not None:
        states = snapshot.states
        labels = [states[int(i)] or "" for i in source]
        labels[0] = snapshot.root_notation
        return Labels.from_strings(labels)
    if snapshot.path_separator is not None:
        root_bytes = np.frombuffer(snapshot.root_notation.encode("utf-8"), dtype=np.uint8).copy()
        sep = np.frombuffer(snapshot.path_separator.encode("utf-8"), dtype=np.uint8).copy()
        data, offsets = path_labels(pre_parent, move_labels.data, move_labels.offsets - move_labels.offsets[0], root_bytes, sep)
        return Labels(data, offsets)
    # replay depth first, keeping only the states of the current path
    actions = np.asarray(snapshot.actions, dtype=np.int64)[source]
    labels = [snapshot.root_notation]
    path: list[tuple[int, Any]] = [(0, snapshot.root)]
    for k in range(1, len(source)):
        up = pre_parent[k]
        while path[-1][0] != up:
            path.pop()
        state = path[-1][1].clone()
        state.apply_action(int(actions[k]))
        labels.append(state.notation())
        path.append((k, state))
    return Labels.from_strings(labels)


def _with_root_label(labels: Labels, first: str) -> Labels:
    """``labels`` with the first entry replaced by ``first``."""
    head = np.frombuffer(first.encode("utf-8"), dtype=np.uint8)
    offsets = labels.offsets - labels.offsets[0]
    rest = np.asarray(labels.data)[labels.offsets[1]: labels.offsets[-1]]
    data = np.concatenate([head, rest])
    new_offsets = offsets.copy()
    new_offsets[1:] = offsets[1:] - offsets[1] + len(head)
    return Labels(data, new_offsets)


def code_labels(codes: np.ndarray, table: Sequence[str]) -> Labels:
    """Labels for integer codes (e.g. actions) through a small table of strings."""
    table_labels = Labels.from_strings(table)
    data, offsets = labels_from_codes(np.asarray(codes, dtype=np.int64), table_labels.data, table_labels.offsets)
    return Labels(data, offsets)
