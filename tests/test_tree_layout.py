"""The tidy layout keeps every rule of the tree study, equals the plain-Python reference, and scales."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tree_strategies import tree_shapes

from boardlab.trees.generate import random_mcts_tree
from boardlab.trees.layout import cut, reference_layout, tidy_layout
from boardlab.trees.model import Tree

EPS = 1e-9


def shape(parent: list[int]) -> Tree:
    n = len(parent)
    return Tree.from_parents(parent, [""] + ["m"] * (n - 1), [1] * n, [0] * n, [0.0] * n, ["s"] * n)


def assert_tidy(tree: Tree, x: np.ndarray, y: np.ndarray, separation: float, level_height: float) -> None:
    depth = tree.depth()
    parent = tree.parent
    # rows are depths
    np.testing.assert_allclose(y, depth * level_height)
    # a parent is centred over its first and last child
    first = np.full(len(tree), -1)
    last = np.full(len(tree), -1)
    for i in range(len(tree) - 1, 0, -1):
        first[parent[i]] = i
    for i in range(1, len(tree)):
        last[parent[i]] = i
    inner = np.flatnonzero(tree.child_count > 0)
    np.testing.assert_allclose(x[inner], (x[first[inner]] + x[last[inner]]) / 2, atol=EPS)
    for d in np.unique(depth):
        row = np.flatnonzero(depth == d)  # preorder order is left-to-right order on a row
        # separation, and therefore children in their order
        assert np.all(np.diff(x[row]) >= separation - EPS)
        # no crossing edges: going right along a row, parents never go left
        if d > 0:
            assert np.all(np.diff(x[parent[row]]) >= -EPS)
    assert abs(x.min()) < EPS


@given(tree_shapes(max_nodes=60), st.sampled_from([1.0, 0.5, 3.0]), st.sampled_from([1.0, 2.5]))
def test_layout_rules_and_reference(parent: list[int], separation: float, level_height: float) -> None:
    tree = shape(parent)
    x, y = tidy_layout(tree, separation=separation, level_height=level_height)
    assert_tidy(tree, x, y, separation, level_height)
    np.testing.assert_allclose(x, reference_layout(np.array(parent), separation), atol=1e-7)


@pytest.mark.parametrize("seed", range(4))
def test_layout_of_search_shaped_trees(seed: int) -> None:
    tree = random_mcts_tree(3000, seed=seed, branching=2 + 3 * seed, c=0.5 + seed * 0.4)
    x, y = tidy_layout(tree)
    assert_tidy(tree, x, y, 1.0, 1.0)
    np.testing.assert_allclose(x, reference_layout(tree.parent), atol=1e-7)


def test_hand_computed_layouts() -> None:
    # complete binary tree of depth 2: leaves at 0..3, parents over them
    x, _ = tidy_layout(shape([-1, 0, 1, 1, 0, 4, 4]))
    assert x.tolist() == [1.5, 0.5, 0.0, 1.0, 2.5, 2.0, 3.0]
    # two wide subtrees pushed together as far as their contours allow, a leaf centred between them
    x, _ = tidy_layout(shape([-1, 0, 1, 1, 1, 0, 0, 6, 6, 6]))
    assert x.tolist() == [2.5, 1.0, 0.0, 1.0, 2.0, 2.5, 4.0, 3.0, 4.0, 5.0]
    # ... and two leaves between them spread evenly (Walker's apportioning)
    x, _ = tidy_layout(shape([-1, 0, 1, 1, 1, 0, 0, 0, 7, 7, 7]))
    assert x.tolist() == [2.5, 1.0, 0.0, 1.0, 2.0, 2.0, 3.0, 4.0, 3.0, 4.0, 5.0]
    # a lone chain stays straight
    x, y = tidy_layout(shape([-1, 0, 1, 2]))
    assert x.tolist() == [0.0] * 4 and y.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_deep_chain_needs_no_recursion() -> None:
    n = 100_000
    x, y = tidy_layout(shape(list(range(-1, n - 1))))
    assert np.all(x == 0.0) and y[-1] == n - 1


def test_cut_by_depth_and_visits_keeps_whole_paths() -> None:
    tree = random_mcts_tree(2000, seed=1)
    sub, kept = cut(tree, max_depth=3, min_visits=5)
    sub.check()
    depth = tree.depth()
    keep = np.zeros(len(tree), bool)
    keep[0] = True
    for i in range(1, len(tree)):
        keep[i] = keep[tree.parent[i]] and depth[i] <= 3 and tree.visits[i] >= 5
    np.testing.assert_array_equal(kept, np.flatnonzero(keep))
    np.testing.assert_array_equal(sub.visits, tree.visits[kept])
    assert sub.move.to_list() == [tree.move[int(i)] for i in kept]
    assert sub.state.to_list() == [tree.state[int(i)] for i in kept]
    np.testing.assert_array_equal(kept[sub.parent[1:]], tree.parent[kept[1:]])
    assert sub.depth().max() <= 3 and sub.visits[1:].min() >= 5
    same, all_kept = cut(tree)
    assert same is tree and len(all_kept) == len(tree)
