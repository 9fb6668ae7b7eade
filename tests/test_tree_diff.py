"""Diffs match nodes by their move paths, exactly, including subtree reuse and repeated labels."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.core.errors import BoardlabError
from boardlab.trees import diff as diff_module
from boardlab.trees.diff import diff
from boardlab.trees.generate import random_mcts_tree
from boardlab.trees.layout import cut
from boardlab.trees.model import Tree


def paths(tree: Tree) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = [()]
    for i in range(1, len(tree)):
        out.append(out[tree.parent[i]] + (tree.move[i],))
    return out


def test_a_grown_tree_against_its_earlier_self() -> None:
    before = random_mcts_tree(3000, seed=7)
    after = random_mcts_tree(4000, seed=7)
    d = diff(before, after)
    s = d.summary()
    assert s["matched"] == 3000 and s["added"] == 1000 and s["gone"] == 0
    assert s["root_visits_delta"] == int(after.visits[0] - before.visits[0])
    # every match joins nodes with the same move path, and the visit deltas are right
    pb, pa = paths(before), paths(after)
    for i, j in enumerate(d.old_to_new):
        assert pa[j] == pb[i]
    matched = d.new_to_old >= 0
    np.testing.assert_array_equal(d.visits_delta[matched], after.visits[matched] - before.visits[d.new_to_old[matched]])
    np.testing.assert_array_equal(d.changed, np.flatnonzero(matched & (d.visits_delta != 0)))


def test_pruned_tree_reports_gone_nodes() -> None:
    tree = random_mcts_tree(2000, seed=1)
    small, kept = cut(tree, min_visits=4)
    d = diff(tree, small)
    np.testing.assert_array_equal(d.new_to_old, kept)
    assert set(d.gone.tolist()) == set(range(len(tree))) - set(kept.tolist())
    assert len(d.changed) == 0


def test_subtree_reuse_by_state_or_by_moves() -> None:
    tree = random_mcts_tree(3000, seed=3)
    child = int(np.flatnonzero(tree.parent == 0)[2])
    sub = tree.subtree(child)
    for d in (diff(tree, sub), diff(tree, sub, via=[tree.move[child]])):
        assert d.old_root == child and d.summary()["matched"] == len(sub)
        np.testing.assert_array_equal(d.new_to_old, np.arange(child, child + len(sub)))
    with pytest.raises(BoardlabError, match="no move 'zz'"):
        diff(tree, sub, via=["zz"])


def test_repeated_sibling_labels_match_in_order() -> None:
    before = Tree.from_parents([-1, 0, 0, 0], ["", "x", "x", "y"], [9, 3, 2, 4], [0] * 4, [0.0] * 4, ["r", "a", "b", "c"])
    after = Tree.from_parents([-1, 0, 0, 1], ["", "x", "x", "z"], [12, 5, 2, 1], [0] * 4, [0.0] * 4, ["r", "a", "b", "d"])
    d = diff(before, after)
    assert d.new_to_old.tolist() == [0, 1, 2, -1]
    assert d.gone.tolist() == [3] and d.added.tolist() == [3]
    assert d.changed.tolist() == [0, 1]


def test_hash_collisions_cannot_produce_wrong_matches(monkeypatch) -> None:
    # force every path hash to collide: matching must still be exact
    monkeypatch.setattr(diff_module, "_path_hashes", lambda parent, *a: np.zeros(len(parent), dtype=np.uint64))
    before = random_mcts_tree(300, seed=4)
    after = random_mcts_tree(400, seed=4)
    d = diff(before, after)
    pb, pa = paths(before), paths(after)
    assert d.summary()["matched"] == 300
    for j, i in enumerate(d.new_to_old):
        if i >= 0:
            assert pb[i] == pa[j]


def test_the_later_root_is_found_by_its_position_not_its_label() -> None:
    """A root's label names the game ('[connect4] 44'), an inner node's is the position alone ('4453')."""
    before = Tree.from_parents([-1, 0, 1, 1], ["", "5", "3", "4"], [9, 8, 5, 3], [0] * 4, [0.0] * 4,
                               ["[connect4] 44", "445", "4453", "4454"])
    after = Tree.from_parents([-1, 0, 0], ["", "1", "2"], [20, 12, 8], [0] * 3, [0.0] * 3, ["[connect4] 4453", "44531", "44532"])
    d = diff(before, after)
    assert d.old_root == 2 and d.new_to_old.tolist() == [2, -1, -1] and d.summary()["root_visits_delta"] == 15
    assert d.notes == ["later root's state found at earlier node 2 (subtree reuse)"]
    other_game = Tree.from_parents([-1, 0], ["", "1"], [3, 3], [0, 0], [0.0, 0.0], ["[connect4:rows=5] 4453", "44531"])
    d = diff(before, other_game)
    assert d.old_root == 0 and d.notes == ["the trees are of different games (connect4, connect4:rows=5); matched root to root"]
