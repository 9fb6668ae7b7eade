"""Hypothesis strategies for search trees of any shape (shared by the tree tests)."""

from __future__ import annotations

from hypothesis import strategies as st

from boardlab.trees.model import Tree


@st.composite
def tree_shapes(draw: st.DrawFn, max_nodes: int = 40) -> list[int]:
    """A preorder parent array: each new node hangs under some node of the current rightmost path."""
    n = draw(st.integers(1, max_nodes))
    parent = [-1]
    path = [0]
    for i in range(1, n):
        depth = draw(st.integers(0, len(path) - 1))
        del path[depth + 1 :]
        parent.append(path[-1])
        path.append(i)
    return parent


@st.composite
def trees(draw: st.DrawFn, max_nodes: int = 40) -> Tree:
    """Random trees with any labels (unicode, commas, quotes, newlines, empty) and any 32-bit counts."""
    parent = draw(tree_shapes(max_nodes))
    n = len(parent)
    label = st.text(max_size=8)
    count = st.integers(0, 2**31 - 1)
    return Tree.from_parents(
        parent,
        [""] + draw(st.lists(label, min_size=n - 1, max_size=n - 1)),
        draw(st.lists(count, min_size=n, max_size=n)),
        draw(st.lists(count, min_size=n, max_size=n)),
        draw(st.lists(st.floats(allow_nan=False), min_size=n, max_size=n)),
        draw(st.lists(label, min_size=n, max_size=n)),
    )
