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
    """Random valid trees: any labels (unicode, commas, quotes, newlines, empty), any 32-bit counts
    that a search could give (the second counter any signed 32-bit value) (no node visited more than its parent), any finite payouts."""
    parent = draw(tree_shapes(max_nodes))
    n = len(parent)
    label = st.text(max_size=8)
    visits = [draw(st.integers(0, 2**31 - 1))]
    for p in parent[1:]:
        visits.append(draw(st.integers(0, visits[p])))
    return Tree.from_parents(
        parent,
        [""] + draw(st.lists(label, min_size=n - 1, max_size=n - 1)),
        visits,
        draw(st.lists(st.integers(-(2**31), 2**31 - 1), min_size=n, max_size=n)),  # visits2 may be negative
        draw(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=n, max_size=n)),
        draw(st.lists(label, min_size=n, max_size=n)),
    )
