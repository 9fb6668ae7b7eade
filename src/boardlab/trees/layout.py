"""Tidy tree layout in linear time (Buchheim, Jünger, Leipert's improvement of Walker's algorithm).

The rules the tree study asks for, which this layout keeps:

* each row is one depth: ``y = depth * level_height``;
* children keep their order, left to right;
* a parent is centred over its children (midpoint of its first and last child);
* no two nodes on a row are closer than ``separation``; no edges cross;
* the drawing is as narrow as the algorithm gives (subtrees are pushed
  together as far as their contours allow, and the small subtrees between
  two pushed-apart ones are spread evenly).

:func:`tidy_layout` runs the algorithm iteratively in one compiled pass over the
columnar tree (a post-order "first walk" driven by the preorder arrays, then a
preorder "second walk"), so depth 10^5 is no problem and a million nodes take
well under a second. :func:`reference_layout` is the paper's recursive
pseudo-code in plain Python, kept for tests.
"""

from __future__ import annotations

import math
import sys

import numba
import numpy as np

from boardlab.core.errors import SpecError
from boardlab.trees.model import Tree


@numba.njit(cache=True)
def _children_csr(parent, child_count):
    n = len(parent)
    start = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        start[i + 1] = start[i] + child_count[i]
    fill = start[:-1].copy()
    children = np.empty(max(n - 1, 0), dtype=np.int64)
    number = np.zeros(n, dtype=np.int64)  # 1-based position among siblings
    for i in range(1, n):
        p = parent[i]
        children[fill[p]] = i
        number[i] = fill[p] - start[p] + 1
        fill[p] += 1
    return start, children, number


@numba.njit(cache=True)
def _next_left(v, start, children, thread):
    if start[v + 1] > start[v]:
        return children[start[v]]
    return thread[v]


@numba.njit(cache=True)
def _next_right(v, start, children, thread):
    if start[v + 1] > start[v]:
        return children[start[v + 1] - 1]
    return thread[v]


@numba.njit(cache=True)
def _walk(parent, child_count, distance):
    n = len(parent)
    start, children, number = _children_csr(parent, child_count)
    prelim = np.zeros(n)
    mod = np.zeros(n)
    shift = np.zeros(n)
    change = np.zeros(n)
    thread = np.full(n, -1, dtype=np.int64)
    ancestor = np.arange(n)
    default_ancestor = np.zeros(n, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    top = 0
    stack[0] = 0
    default_ancestor[0] = children[start[0]] if child_count[0] > 0 else 0
    i = 1
    # post-order driven by preorder: a node is finished once the next preorder node is not inside it
    while top >= 0:
        if i < n and parent[i] == stack[top]:
            top += 1
            stack[top] = i
            default_ancestor[i] = children[start[i]] if child_count[i] > 0 else i
            i += 1
            continue
        v = stack[top]
        top -= 1
        # --- first walk of v (its children are finished)
        p = parent[v]
        left = children[start[p] + number[v] - 2] if (p >= 0 and number[v] > 1) else -1
        if child_count[v] == 0:
            prelim[v] = prelim[left] + distance if left >= 0 else 0.0
        else:
            # execute shifts
            s = 0.0
            ch = 0.0
            for k in range(start[v + 1] - 1, start[v] - 1, -1):
                w = children[k]
                prelim[w] += s
                mod[w] += s
                ch += change[w]
                s += shift[w] + ch
            mid = 0.5 * (prelim[children[start[v]]] + prelim[children[start[v + 1] - 1]])
            if left >= 0:
                prelim[v] = prelim[left] + distance
                mod[v] = prelim[v] - mid
            else:
                prelim[v] = mid
        # --- apportion v against its left siblings' subtrees
        if left >= 0:
            vir = v
            vor = v
            vil = left
            vol = children[start[p]]
            sir = mod[vir]
            sor = mod[vor]
            sil = mod[vil]
            sol = mod[vol]
            while True:
                nr = _next_right(vil, start, children, thread)
                nl = _next_left(vir, start, children, thread)
                if nr < 0 or nl < 0:
                    break
                vil = nr
                vir = nl
                vol = _next_left(vol, start, children, thread)
                vor = _next_right(vor, start, children, thread)
                ancestor[vor] = v
                gap = (prelim[vil] + sil) - (prelim[vir] + sir) + distance
                if gap > 0:
                    a = ancestor[vil]
                    wl = a if parent[a] == p else default_ancestor[p]
                    subtrees = number[v] - number[wl]
                    change[v] -= gap / subtrees
                    shift[v] += gap
                    change[wl] += gap / subtrees
                    prelim[v] += gap
                    mod[v] += gap
                    sir += gap
                    sor += gap
                sil += mod[vil]
                sir += mod[vir]
                sol += mod[vol]
                sor += mod[vor]
            nr = _next_right(vil, start, children, thread)
            if nr >= 0 and _next_right(vor, start, children, thread) < 0:
                thread[vor] = nr
                mod[vor] += sil - sor
            nl = _next_left(vir, start, children, thread)
            if nl >= 0 and _next_left(vol, start, children, thread) < 0:
                thread[vol] = nl
                mod[vol] += sir - sol
                default_ancestor[p] = v
    # --- second walk: x = prelim + sum of the ancestors' mods
    x = np.empty(n)
    acc = np.zeros(n)
    x[0] = prelim[0]
    for j in range(1, n):
        q = parent[j]
        acc[j] = acc[q] + mod[q]
        x[j] = prelim[j] + acc[j]
    return x


def tidy_layout(tree: Tree, separation: float = 1.0, level_height: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)`` of every node; the leftmost node is at ``x = 0``, the root at ``y = 0``."""
    for name, value in (("separation", separation), ("level_height", level_height)):
        if not (math.isfinite(value) and value > 0):
            raise SpecError(f"{name} must be a positive number, not {value!r}")
    if len(tree) == 0:
        return np.zeros(0), np.zeros(0)
    x = _walk(np.asarray(tree.parent, dtype=np.int64), np.asarray(tree.child_count, dtype=np.int64), float(separation))
    x -= x.min()
    y = tree.depth().astype(np.float64) * float(level_height)
    return x, y


# ------------------------------------------------------------------ pruning


@numba.njit(cache=True)
def _keep_mask(parent, depth, visits, max_depth, min_visits):
    n = len(parent)
    keep = np.zeros(n, dtype=np.bool_)
    keep[0] = True
    for i in range(1, n):
        keep[i] = keep[parent[i]] and depth[i] <= max_depth and visits[i] >= min_visits
    return keep


def cut(tree: Tree, max_depth: int | None = None, min_visits: int | None = None) -> tuple[Tree, np.ndarray]:
    """The tree without nodes deeper than ``max_depth`` or with fewer than ``min_visits`` visits.

    A removed node takes its whole subtree with it; the root always stays.
    Returns the smaller tree (still in preorder) and ``kept_indices``: for each
    of its nodes, the index of that node in ``tree``.
    """
    for name, value in (("max_depth", max_depth), ("min_visits", min_visits)):
        if value is not None and value < 0:
            raise SpecError(f"{name} must be 0 or more, not {value}")
    n = len(tree)
    depth = tree.depth()
    keep = _keep_mask(
        np.asarray(tree.parent, dtype=np.int64),
        depth,
        np.asarray(tree.visits, dtype=np.int64),
        np.iinfo(np.int64).max if max_depth is None else int(max_depth),
        np.iinfo(np.int64).min if min_visits is None else int(min_visits),
    )
    kept = np.flatnonzero(keep)
    if len(kept) == n:
        return tree, kept
    rank = np.full(n, -1, dtype=np.int64)
    rank[kept] = np.arange(len(kept))
    parent = np.where(kept == 0, -1, rank[np.maximum(tree.parent[kept], 0)]).astype(np.int32)
    child_count = np.bincount(parent[1:], minlength=len(kept)).astype(np.int32)
    sub = Tree(
        parent=parent,
        child_count=child_count,
        move=tree.move.take(kept),
        visits=np.asarray(tree.visits)[kept],
        visits2=np.asarray(tree.visits2)[kept],
        mean_payout=np.asarray(tree.mean_payout)[kept],
        player=np.asarray(tree.player)[kept],
        state=tree.state.take(kept),
        meta=dict(tree.meta, cut={"max_depth": max_depth, "min_visits": min_visits, "of_nodes": n}),
        created=None if tree.created is None else np.asarray(tree.created)[kept],
    )
    return sub, kept


# ------------------------------------------------------- plain-Python reference


class _Node:
    __slots__ = ("children", "parent", "number", "prelim", "mod", "shift", "change", "thread", "ancestor", "x")

    def __init__(self, parent: "_Node | None", number: int) -> None:
        self.children: list[_Node] = []
        self.parent = parent
        self.number = number
        self.prelim = self.mod = self.shift = self.change = 0.0
        self.thread: _Node | None = None
        self.ancestor = self
        self.x = 0.0

    def left_sibling(self) -> "_Node | None":
        return self.parent.children[self.number - 2] if self.parent and self.number > 1 else None

    def next_left(self) -> "_Node | None":
        return self.children[0] if self.children else self.thread

    def next_right(self) -> "_Node | None":
        return self.children[-1] if self.children else self.thread


def reference_layout(parent: np.ndarray, separation: float = 1.0) -> np.ndarray:
    """x of every node, by the recursive pseudo-code of Buchheim, Jünger and Leipert (2002), plain Python."""
    nodes: list[_Node] = []
    for _i, p in enumerate(np.asarray(parent).tolist()):
        up = nodes[p] if p >= 0 else None
        node = _Node(up, len(up.children) + 1 if up else 0)
        if up:
            up.children.append(node)
        nodes.append(node)

    def first_walk(v: _Node) -> None:
        if not v.children:
            w = v.left_sibling()
            v.prelim = w.prelim + separation if w else 0.0
            return
        default_ancestor = v.children[0]
        for w in v.children:
            first_walk(w)
            default_ancestor = apportion(w, default_ancestor)
        execute_shifts(v)
        mid = (v.children[0].prelim + v.children[-1].prelim) / 2
        w = v.left_sibling()
        if w:
            v.prelim = w.prelim + separation
            v.mod = v.prelim - mid
        else:
            v.prelim = mid

    def apportion(v: _Node, default_ancestor: _Node) -> _Node:
        w = v.left_sibling()
        if w is None:
            return default_ancestor
        assert v.parent is not None  # v has a left sibling
        vir = vor = v
        vil, vol = w, v.parent.children[0]
        sir, sor, sil, sol = vir.mod, vor.mod, vil.mod, vol.mod
        while (next_vil := vil.next_right()) and (next_vir := vir.next_left()):
            next_vol, next_vor = vol.next_left(), vor.next_right()
            # the outer contours reach at least as deep as the inner ones
            assert next_vol is not None and next_vor is not None
            vil, vir, vol, vor = next_vil, next_vir, next_vol, next_vor
            vor.ancestor = v
            gap = (vil.prelim + sil) - (vir.prelim + sir) + separation
            if gap > 0:
                wl = vil.ancestor if vil.ancestor.parent is v.parent else default_ancestor
                move_subtree(wl, v, gap)
                sir += gap
                sor += gap
            sil += vil.mod
            sir += vir.mod
            sol += vol.mod
            sor += vor.mod
        if vil.next_right() and not vor.next_right():
            vor.thread = vil.next_right()
            vor.mod += sil - sor
        if vir.next_left() and not vol.next_left():
            vol.thread = vir.next_left()
            vol.mod += sir - sol
            default_ancestor = v
        return default_ancestor

    def move_subtree(wl: _Node, wr: _Node, gap: float) -> None:
        subtrees = wr.number - wl.number
        wr.change -= gap / subtrees
        wr.shift += gap
        wl.change += gap / subtrees
        wr.prelim += gap
        wr.mod += gap

    def execute_shifts(v: _Node) -> None:
        s = ch = 0.0
        for w in reversed(v.children):
            w.prelim += s
            w.mod += s
            ch += w.change
            s += w.shift + ch

    def second_walk(v: _Node, m: float) -> None:
        v.x = v.prelim + m
        for w in v.children:
            second_walk(w, m + v.mod)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * len(nodes) + 100))
    try:
        first_walk(nodes[0])
        second_walk(nodes[0], 0.0)
    finally:
        sys.setrecursionlimit(limit)
    x = np.array([node.x for node in nodes])
    return x - x.min()
