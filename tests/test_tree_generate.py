"""The random trees have the shape of UCT trees: counts add up the way backpropagation makes them."""

from __future__ import annotations

import numpy as np

from boardlab.trees.generate import random_mcts_tree


def test_counts_add_up_like_backpropagation() -> None:
    tree = random_mcts_tree(5000, seed=9, branching=4)
    tree.check()
    assert len(tree) == 5000
    child_sum = np.bincount(tree.parent[1:], weights=tree.visits[1:], minlength=len(tree)).astype(np.int64)
    # every iteration passes the root and one of its children; a node's own expansion counts once more
    assert tree.visits[0] == child_sum[0]
    assert np.all(tree.visits[1:] >= child_sum[1:] + 1)
    assert np.all(tree.visits2 <= tree.visits)
    assert np.all((tree.mean_payout >= 0) & (tree.mean_payout <= 1))
    # players alternate with depth; creation order starts at the root and is a permutation
    np.testing.assert_array_equal(tree.player, tree.depth() % 2)
    assert tree.created[0] == 0 and sorted(tree.created.tolist()) == list(range(len(tree)))
    # children were created after their parents
    assert np.all(tree.created[1:] > tree.created[tree.parent[1:]])


def test_seeded_and_shaped_by_its_parameters() -> None:
    a, b = random_mcts_tree(2000, seed=1), random_mcts_tree(2000, seed=1)
    np.testing.assert_array_equal(a.parent, b.parent)
    assert a.move == b.move and a.state == b.state
    assert not np.array_equal(a.parent, random_mcts_tree(2000, seed=2).parent)
    narrow = random_mcts_tree(3000, seed=3, branching=2)
    wide = random_mcts_tree(3000, seed=3, branching=12)
    assert narrow.depth().max() > wide.depth().max()
    # sibling moves are distinct labels: a, b, c, ...
    kids = np.flatnonzero(wide.parent == 0)
    assert [wide.move[int(k)] for k in kids] == [chr(ord("a") + i) for i in range(len(kids))]
