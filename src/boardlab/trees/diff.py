"""What changed between two search trees: the tree before a move and the tree after it.

Nodes are matched by their path of move labels from the root. When the later
search reused a subtree (its root is a node of the earlier tree, reached by the
moves played in between), the matching starts there: pass ``via=["e4", ...]``,
or let :func:`diff` find the earlier node that holds the later root's position
when the two roots' positions differ (:func:`later_root`).

Vectorised and exact: every node gets a 64-bit hash of its label path (computed
in preorder, siblings with equal labels told apart by their rank), the later
tree is sorted by hash, and each earlier node looks up candidates with its
hash. A candidate is only accepted when its parent is the match of the earlier
node's parent and its move label is byte-for-byte equal, so a hash collision
can never produce a wrong match (at worst, for two sibling labels whose 64-bit
label hashes collide, a pair is reported as gone + added).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numba
import numpy as np

from boardlab.core.errors import BoardlabError
from boardlab.trees.gamelabels import split_root_label
from boardlab.trees.model import Tree, _subtree_end


@dataclass
class TreeDiff:
    #: for each node of the earlier tree: its match in the later tree, or -1
    old_to_new: np.ndarray
    #: for each node of the later tree: its match in the earlier tree, or -1
    new_to_old: np.ndarray
    #: nodes of the later tree without a match
    added: np.ndarray
    #: nodes of the earlier tree without a match
    gone: np.ndarray
    #: for each node of the later tree: visits now minus visits before (all its visits if added)
    visits_delta: np.ndarray
    #: matched nodes of the later tree whose visit count changed
    changed: np.ndarray
    #: the node of the earlier tree that the later root matched
    old_root: int = 0
    sizes: tuple[int, int] = (0, 0)
    notes: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        matched = int(np.count_nonzero(self.new_to_old >= 0))
        return {
            "nodes_before": self.sizes[0],
            "nodes_after": self.sizes[1],
            "matched": matched,
            "added": int(len(self.added)),
            "gone": int(len(self.gone)),
            "changed": int(len(self.changed)),
            # visits the later root has beyond the earlier node it matched (the new search's work)
            "root_visits_delta": int(self.visits_delta[0]) if self.sizes[1] else 0,
            "old_root": self.old_root,
            "notes": list(self.notes),
        }


@numba.njit(cache=True)
def _label_hashes(data, offsets):
    n = len(offsets) - 1
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        h = np.uint64(0xCBF29CE484222325)
        for k in range(offsets[i], offsets[i + 1]):
            h = (h ^ np.uint64(data[k])) * np.uint64(0x100000001B3)
        out[i] = h
    return out


@numba.njit(cache=True)
def _mix(h):
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


@numba.njit(cache=True)
def _path_hashes(parent, label_hash, rank, root, end):
    """Hashes of the label paths from ``root`` for the nodes of its subtree ``[root, end)``."""
    h = np.zeros(len(parent), dtype=np.uint64)
    h[root] = np.uint64(0x243F6A8885A308D3)
    for i in range(root + 1, end):
        h[i] = _mix(h[parent[i]] ^ _mix(label_hash[i] + np.uint64(rank[i]) * np.uint64(0x9E3779B97F4A7C15)))
    return h


@numba.njit(cache=True)
def _sibling_ranks(parent, label_hash, order):
    """Rank of each node among earlier siblings with the same label hash (``order`` sorts by (parent, hash), stably)."""
    rank = np.zeros(len(parent), dtype=np.int64)
    for k in range(1, len(order)):
        a = order[k - 1]
        b = order[k]
        if parent[a] == parent[b] and label_hash[a] == label_hash[b]:
            rank[b] = rank[a] + 1
    return rank


@numba.njit(cache=True)
def _labels_equal(da, oa, i, db, ob, j):
    la = oa[i + 1] - oa[i]
    if la != ob[j + 1] - ob[j]:
        return False
    for k in range(la):
        if da[oa[i] + k] != db[ob[j] + k]:
            return False
    return True


@numba.njit(cache=True)
def _match(old_parent, old_hash, old_rank, old_data, old_off, root, end,
           new_parent, new_rank, new_data, new_off, sorted_hash, order):
    old_to_new = np.full(len(old_parent), -1, dtype=np.int64)
    new_to_old = np.full(len(new_parent), -1, dtype=np.int64)
    old_to_new[root] = 0
    new_to_old[0] = root
    for i in range(root + 1, end):
        target = old_to_new[old_parent[i]]
        if target < 0:
            continue  # an unmatched parent has no matched children
        k = np.searchsorted(sorted_hash, old_hash[i])
        while k < len(sorted_hash) and sorted_hash[k] == old_hash[i]:
            j = order[k]
            if (new_to_old[j] < 0 and new_parent[j] == target and new_rank[j] == old_rank[i]
                    and _labels_equal(old_data, old_off, i, new_data, new_off, j)):
                old_to_new[i] = j
                new_to_old[j] = i
                break
            k += 1
    return old_to_new, new_to_old


def _hashes_and_ranks(tree: Tree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    parent = np.asarray(tree.parent, dtype=np.int64)
    label_hash = _label_hashes(np.asarray(tree.move.data), np.asarray(tree.move.offsets, dtype=np.int64))
    order = np.lexsort((label_hash, parent))  # stable: siblings keep preorder within equal labels
    return parent, label_hash, _sibling_ranks(parent, label_hash, order)


def _find_state(tree: Tree, label: str) -> int:
    """Shallowest node whose state label is ``label`` (ties broken by preorder index), else -1.
    The root's label, which carries the game, is compared whole: see :func:`later_root`."""
    target = label.encode("utf-8")
    lengths = tree.state.lengths()
    candidates = np.flatnonzero(lengths == len(target))
    data = np.asarray(tree.state.data)
    hits = [int(i) for i in candidates if bytes(data[tree.state.offsets[i] : tree.state.offsets[i + 1]]) == target]
    if not hits:
        return -1
    depth = tree.depth()
    return min(hits, key=lambda i: (depth[i], i))


def later_root(before: Tree, after: Tree) -> tuple[int, str]:
    """The node of ``before`` holding the position ``after``'s search started from, and a note for the
    reader ("" when the roots hold the same position). 0, with a note saying so, when it is not there.

    The CLI's ``tree diff`` and ``tree render --diff`` and the viewer's differences all come here. A
    root's state label starts with the game (``[connect4] 445``, :mod:`boardlab.trees.gamelabels`)
    and an inner node's is the notation alone (``445``), so the later root's notation is looked for
    among the earlier tree's inner nodes; trees that name two different games never match.
    """
    if not len(after) or not len(before) or after.state[0] == before.state[0]:
        return 0, ""
    game_before, position_before = split_root_label(before.state[0])
    game_after, position_after = split_root_label(after.state[0])
    if game_before is not None and game_after is not None and game_before != game_after:
        return 0, f"the trees are of different games ({game_before}, {game_after}); matched root to root"
    if position_after == position_before:
        return 0, ""
    found = _find_state(before, position_after)
    if found > 0:
        return found, f"later root's state found at earlier node {found} (subtree reuse)"
    return 0, "root states differ and the later root's state is not in the earlier tree; matched root to root"


def _follow(tree: Tree, moves: Sequence[str]) -> int:
    node = 0
    for move in moves:
        children = np.flatnonzero(np.asarray(tree.parent) == node)
        found = [int(c) for c in children if tree.move[int(c)] == move]
        if not found:
            raise BoardlabError(f"diff: the earlier tree has no move {move!r} below node {node} (via {list(moves)})")
        node = found[0]
    return node


def diff(before: Tree, after: Tree, via: Sequence[str] | None = None) -> TreeDiff:
    """Match ``after`` against ``before`` by move paths; see the module docstring for ``via``."""
    notes: list[str] = []
    if via is not None:
        root = _follow(before, via)
        if via:
            notes.append(f"later root matched to the earlier node reached by {' '.join(via)}")
    else:
        root, note = later_root(before, after)
        if note:
            notes.append(note)
    old_parent, old_lh, old_rank = _hashes_and_ranks(before)
    new_parent, new_lh, new_rank = _hashes_and_ranks(after)
    old_child_count = np.asarray(before.child_count, dtype=np.int64)
    end = _subtree_end(old_child_count, root)
    old_hash = _path_hashes(old_parent, old_lh, old_rank, root, end)
    new_hash = _path_hashes(new_parent, new_lh, new_rank, 0, len(after))
    order = np.argsort(new_hash, kind="stable")
    old_to_new, new_to_old = _match(
        old_parent, old_hash, old_rank, np.asarray(before.move.data), np.asarray(before.move.offsets, dtype=np.int64), root, end,
        new_parent, new_rank, np.asarray(after.move.data), np.asarray(after.move.offsets, dtype=np.int64), new_hash[order], order,
    )
    matched_new = new_to_old >= 0
    delta = np.asarray(after.visits, dtype=np.int64).copy()
    delta[matched_new] -= np.asarray(before.visits, dtype=np.int64)[new_to_old[matched_new]]
    return TreeDiff(
        old_to_new=old_to_new,
        new_to_old=new_to_old,
        added=np.flatnonzero(~matched_new),
        gone=np.flatnonzero(old_to_new < 0),
        visits_delta=delta,
        changed=np.flatnonzero(matched_new & (delta != 0)),
        old_root=int(root),
        sizes=(len(before), len(after)),
        notes=notes,
    )
