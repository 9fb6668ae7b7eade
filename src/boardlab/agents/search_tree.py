"""Flat search-tree arrays: re-rooting for tree reuse and export to the columnar :class:`Tree`.

Both MCTS engines (the generic one over the State API and the compiled Connect
Four one) keep their nodes in flat arrays where every node's parent has a
smaller index than the node itself (children are created after their parent).
The helpers here rely on that order and never recurse, so trees of millions of
nodes export in linear time.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit

from boardlab.trees.model import Labels, Tree


@njit(cache=True)
def subtree_mask(parent: np.ndarray, root: int) -> np.ndarray:
    """Nodes of the subtree under ``root`` (``parent[i] < i`` for every node but node 0)."""
    n = parent.shape[0]
    keep = np.zeros(n, dtype=np.bool_)
    keep[root] = True
    for i in range(root + 1, n):
        p = parent[i]
        if p >= 0 and keep[p]:
            keep[i] = True
    return keep


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
def path_labels(parent: np.ndarray, move_data: np.ndarray, move_offsets: np.ndarray, root: np.ndarray):
    """Each node's move path (``root`` then the moves from the root, space separated).

    ``parent`` is in preorder (or any order with ``parent[i] < i``); returns the
    UTF-8 buffer and offsets of a :class:`Labels` column.
    """
    n = parent.shape[0]
    length = np.empty(n, dtype=np.int64)
    length[0] = root.shape[0]
    for i in range(1, n):
        own = move_offsets[i + 1] - move_offsets[i]
        above = length[parent[i]]
        length[i] = above + (1 if above > 0 else 0) + own
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
        if pl > 0:
            data[k] = 32  # space
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


def export_tree(
    parent: np.ndarray,
    visits: np.ndarray,
    wins: np.ndarray,
    total: np.ndarray | None,
    player: np.ndarray,
    created: np.ndarray,
    moves: Sequence[str | None] | None = None,
    move_codes: np.ndarray | None = None,
    move_table: Sequence[str] = (),
    root_label: str = "",
    meta: dict | None = None,
    mean: np.ndarray | None = None,
) -> Tree:
    """The visited nodes of a flat search tree as a :class:`Tree` in preorder.

    Arrays are indexed by internal node id (``parent[i] < i``); nodes with zero
    visits (children allocated at expansion but never tried) are left out.
    ``moves`` gives each internal node's move label, or ``move_codes`` index
    ``move_table`` (the compiled engine's actions); ``total`` is the sum of
    payouts, turned into ``mean_payout``.
    """
    parent = np.asarray(parent, dtype=np.int64)
    visits = np.asarray(visits, dtype=np.int64)
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
    if move_codes is not None:
        codes = np.asarray(move_codes, dtype=np.int64)[source]
        codes[0] = -1  # the root has no move
        move_labels = code_labels(codes, move_table)
    else:
        assert moves is not None
        move_labels = Labels.from_strings((moves[int(i)] or "") if i else "" for i in source)
    root_bytes = np.frombuffer(root_label.encode("utf-8"), dtype=np.uint8).copy()
    data, offsets = path_labels(pre_parent, move_labels.data, move_labels.offsets - move_labels.offsets[0], root_bytes)
    node_visits = visits[source]
    if mean is not None:
        mean = np.asarray(mean, dtype=np.float64)[source]
    else:
        mean = np.divide(np.asarray(total, dtype=np.float64)[source], node_visits, out=np.zeros(len(source)), where=node_visits > 0)
    child_count = np.bincount(pre_parent[1:], minlength=len(source)).astype(np.int32)
    return Tree(
        parent=pre_parent.astype(np.int32),
        child_count=child_count,
        move=move_labels,
        visits=node_visits,
        visits2=np.asarray(wins, dtype=np.int64)[source],
        mean_payout=mean,
        player=np.asarray(player, dtype=np.int8)[source],
        state=Labels(data, offsets),
        meta=dict(meta or {}),
        created=np.asarray(created, dtype=np.int64)[source],
    )


def code_labels(codes: np.ndarray, table: Sequence[str]) -> Labels:
    """Labels for integer codes (e.g. actions) through a small table of strings."""
    table_labels = Labels.from_strings(table)
    data, offsets = labels_from_codes(np.asarray(codes, dtype=np.int64), table_labels.data, table_labels.offsets)
    return Labels(data, offsets)
