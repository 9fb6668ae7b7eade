"""The PNG shows what the tree is: node colours at the laid-out positions, edges by visits, diff rings."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from boardlab.core.game import UNKNOWN_PLAYER
from boardlab.trees.colors import ADDED_COLOR, PLAYER_COLORS, edge_lut, node_colors, visit_levels
from boardlab.trees.diff import diff
from boardlab.trees.generate import random_mcts_tree
from boardlab.trees.io import load_tree, save_tree
from boardlab.trees.render import render_png


def pixels(path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"))


def test_nodes_are_drawn_in_their_players_colours_at_their_positions(tmp_path) -> None:
    tree = random_mcts_tree(40, seed=3, branching=3)
    info = render_png(tree, tmp_path / "t.png", width=1400, title="test tree")
    img = pixels(tmp_path / "t.png")
    assert img.shape == (info.height, info.width, 3) == (840, 1400, 3)
    assert info.radius >= 2 and not info.by_depth_parity
    for i in range(len(tree)):
        assert tuple(img[info.py[i], info.px[i]]) == tuple(PLAYER_COLORS[tree.player[i]]), i
    # rows are depths, left to right in layout order
    depth = tree.depth()
    assert np.all(np.diff(info.py[np.argsort(depth, kind="stable")]) >= 0)
    # the root's edge to its busiest child is coloured by that child's visits
    child = int(np.flatnonzero(tree.parent == 0)[np.argmax(tree.visits[tree.parent == 0])])
    mid = ((info.px[0] + info.px[child]) // 2, (info.py[0] + info.py[child]) // 2)
    level = visit_levels(tree.visits[[child]], int(tree.visits[1:].max()))[0]
    near = img[mid[1] - 1 : mid[1] + 2, mid[0] - 1 : mid[0] + 2].reshape(-1, 3)
    assert any(tuple(p) == tuple(edge_lut()[level]) for p in near)


def test_trees_from_files_are_coloured_by_depth_parity(tmp_path) -> None:
    save_tree(random_mcts_tree(30, seed=1, branching=3), tmp_path / "t.csv")
    tree = load_tree(tmp_path / "t.csv")
    assert np.all(tree.player == UNKNOWN_PLAYER)  # a tree that names no game
    info = render_png(tree, tmp_path / "t.png", width=1200)
    img = pixels(tmp_path / "t.png")
    assert info.by_depth_parity
    depth = tree.depth()
    for i in range(len(tree)):
        assert tuple(img[info.py[i], info.px[i]]) == tuple(PLAYER_COLORS[depth[i] % 2])
    assert "depth parity" in node_colors(tree.player, depth).legend[0][0]


def test_cut_and_diff_marks(tmp_path) -> None:
    before = random_mcts_tree(60, seed=2, branching=3)
    after = random_mcts_tree(90, seed=2, branching=3)
    changes = diff(before, after)
    assert len(changes.added) == 30
    info = render_png(after, tmp_path / "d.png", width=1600, diff=changes)
    img = pixels(tmp_path / "d.png")
    ring = info.radius + 1
    for i in changes.added:
        assert tuple(img[info.py[i], info.px[i] + ring]) == tuple(ADDED_COLOR)
    pruned = render_png(after, tmp_path / "c.png", width=800, max_depth=2, min_visits=3)
    assert np.all(after.depth()[pruned.kept] <= 2) and np.all(after.visits[pruned.kept[1:]] >= 3)
    assert len(pruned.px) == len(pruned.kept) < len(after)


def test_big_tree_renders_and_tiny_width_is_refused(tmp_path) -> None:
    info = render_png(random_mcts_tree(20_000, seed=5), tmp_path / "b.png", width=1000)
    assert info.radius == 0 and (tmp_path / "b.png").stat().st_size > 0
    with pytest.raises(ValueError):
        render_png(random_mcts_tree(5, seed=5), tmp_path / "x.png", width=50)
