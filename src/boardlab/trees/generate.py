"""Random search trees shaped like the ones UCT builds, for tests, benchmarks and the viewer.

:func:`random_mcts_tree` runs a real UCT loop on a synthetic game: every node
has a random number of legal moves (``branching`` on average; zero makes it
terminal) and a hidden win probability for the player who moved into it.
Each iteration selects by UCB1, expands one child and plays out one Bernoulli
result, so visit counts split among children the way they do in a search:
strong moves get deep, narrow lines; weak ones stay shallow. One node per
iteration, all in one compiled loop (a million nodes in about a second).
"""

from __future__ import annotations

import numba
import numpy as np

from boardlab.trees.model import Labels, Tree

_LETTERS = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)
_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
STATE_CHARS = 12


@numba.njit(cache=True)
def _grow(n_nodes, seed, branching, c, draw_p, max_iter):
    np.random.seed(seed)
    parent = np.full(n_nodes, -1, dtype=np.int64)
    move_index = np.zeros(n_nodes, dtype=np.int64)  # which legal move led here
    legal = np.zeros(n_nodes, dtype=np.int64)
    n_children = np.zeros(n_nodes, dtype=np.int64)
    first_child = np.full(n_nodes, -1, dtype=np.int64)
    next_sibling = np.full(n_nodes, -1, dtype=np.int64)
    last_child = np.full(n_nodes, -1, dtype=np.int64)
    value = np.zeros(n_nodes, dtype=np.float64)  # hidden win chance of the mover into the node
    visits = np.zeros(n_nodes, dtype=np.int64)
    wins = np.zeros(n_nodes, dtype=np.int64)
    payout = np.zeros(n_nodes, dtype=np.float64)
    depth = np.zeros(n_nodes, dtype=np.int64)
    path = np.empty(n_nodes + 1, dtype=np.int64)
    # exhausted: terminal, or fully expanded with every child exhausted (a solved subtree):
    # selection skips these so the loop always finds somewhere to grow
    exhausted = np.zeros(n_nodes, dtype=np.bool_)
    legal[0] = np.random.randint(1, 2 * branching)
    value[0] = 0.5
    n = 1
    iteration = 0
    while n < n_nodes and iteration < max_iter and not exhausted[0]:
        iteration += 1
        node = 0
        length = 0
        path[length] = 0
        length += 1
        # selection: descend through fully expanded nodes by UCB1
        while legal[node] > 0 and n_children[node] == legal[node]:
            best = -1
            best_score = -1.0
            log_n = np.log(visits[node] + 1.0)
            child = first_child[node]
            while child >= 0:
                if not exhausted[child]:
                    score = payout[child] / visits[child] + c * np.sqrt(log_n / visits[child])
                    if score > best_score:
                        best_score = score
                        best = child
                child = next_sibling[child]
            if best < 0:
                exhausted[node] = True
                break
            node = best
            path[length] = node
            length += 1
        if exhausted[node]:
            continue
        # expansion: one new child, unless the node is terminal
        if legal[node] > 0:
            child = n
            n += 1
            parent[child] = node
            move_index[child] = n_children[node]
            depth[child] = depth[node] + 1
            # a few strong moves, many weak ones, drifting with the parent's value
            value[child] = min(0.98, max(0.02, (1.0 - value[node]) * 0.5 + np.random.random() ** 2 * 0.6))
            # the number of legal moves shrinks slowly with depth; zero means terminal
            if np.random.random() < 0.03 + 0.002 * depth[child]:
                legal[child] = 0
                exhausted[child] = True
            else:
                legal[child] = np.random.randint(1, 2 * branching)
            if last_child[node] >= 0:
                next_sibling[last_child[node]] = child
            else:
                first_child[node] = child
            last_child[node] = child
            n_children[node] += 1
            node = child
            path[length] = node
            length += 1
        # simulation: one Bernoulli playout from the leaf, from the leaf mover's view
        r = np.random.random()
        draw = r < draw_p
        leaf_mover_wins = (not draw) and np.random.random() < value[node]
        # backpropagation, flipping the point of view at every level
        for k in range(length - 1, -1, -1):
            v = path[k]
            visits[v] += 1
            same_side = (length - 1 - k) % 2 == 0
            if draw:
                payout[v] += 0.5
            elif leaf_mover_wins == same_side:
                payout[v] += 1.0
                wins[v] += 1
    return n, parent, move_index, first_child, next_sibling, visits, wins, payout, depth


@numba.njit(cache=True)
def _to_preorder(n, first_child, next_sibling, parent):
    """Creation order -> preorder: ``order[k]`` is the creation index of the k-th node in preorder."""
    order = np.empty(n, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    top = 0
    stack[0] = 0
    k = 0
    tmp = np.empty(n, dtype=np.int64)
    while top >= 0:
        v = stack[top]
        top -= 1
        order[k] = v
        k += 1
        # push children in reverse so the first child comes out first
        m = 0
        child = first_child[v]
        while child >= 0:
            tmp[m] = child
            m += 1
            child = next_sibling[child]
        for j in range(m - 1, -1, -1):
            top += 1
            stack[top] = tmp[j]
    rank = np.empty(n, dtype=np.int64)
    for i in range(n):
        rank[order[i]] = i
    new_parent = np.empty(n, dtype=np.int32)
    for i in range(n):
        p = parent[order[i]]
        new_parent[i] = -1 if p < 0 else rank[p]
    return order, new_parent


@numba.njit(cache=True)
def _labels(order, move_index, parent_pre, letters, hexdigits, state_chars, seed):
    n = len(order)
    # moves: "a".."z" for the first 26 legal moves, then "z26", "z27"...
    move_off = np.zeros(n + 1, dtype=np.int64)
    for i in range(1, n):
        k = move_index[order[i]]
        move_off[i + 1] = move_off[i] + (1 if k < 26 else 3 if k < 100 else 4)
    move_data = np.empty(move_off[n], dtype=np.uint8)
    for i in range(1, n):
        k = move_index[order[i]]
        o = move_off[i]
        if k < 26:
            move_data[o] = letters[k]
        else:
            move_data[o] = letters[25]
            d = 2 if k < 100 else 3
            for j in range(d, 0, -1):
                move_data[o + j] = 48 + k % 10
                k //= 10
    # states: a hash of the move path, as hex (like a position key)
    key = np.empty(n, dtype=np.uint64)
    key[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    for i in range(1, n):
        h = key[parent_pre[i]] ^ (np.uint64(move_index[order[i]] + 1) * np.uint64(0xBF58476D1CE4E5B9))
        h = (h ^ (h >> np.uint64(31))) * np.uint64(0x94D049BB133111EB)
        key[i] = h ^ (h >> np.uint64(29))
    state_data = np.empty(n * state_chars, dtype=np.uint8)
    for i in range(n):
        h = key[i]
        for j in range(state_chars):
            state_data[i * state_chars + j] = hexdigits[np.int64(h & np.uint64(15))]
            h = h >> np.uint64(4)
    return move_data, move_off, state_data


def random_mcts_tree(
    n_nodes: int,
    seed: int = 0,
    branching: int = 7,
    c: float = 1.4,
    draw_probability: float = 0.05,
    players: int = 2,
) -> Tree:
    """A tree of exactly ``n_nodes`` nodes (fewer only if the synthetic game runs out of moves).

    ``branching`` is the mean number of legal moves per node, ``c`` the UCB1
    exploration constant (smaller: deeper, narrower lines). ``player`` alternates
    over ``players`` players by depth; ``created`` holds the iteration that added
    each node, for growth animations.
    """
    if n_nodes < 1:
        raise ValueError("a tree needs at least one node")
    if branching < 1:
        raise ValueError("branching must be at least 1")
    n, parent, move_index, first_child, next_sibling, visits, wins, payout, depth = _grow(
        int(n_nodes), int(seed) & 0xFFFFFFFF, int(branching), float(c), float(draw_probability), 50 * int(n_nodes) + 1000
    )
    order, parent_pre = _to_preorder(n, first_child[:n], next_sibling[:n], parent[:n])
    child_count = np.bincount(parent_pre[1:], minlength=n).astype(np.int32)
    move_data, move_off, state_data = _labels(order, move_index[:n], parent_pre, _LETTERS, _HEX, STATE_CHARS, int(seed) & 0xFFFFFFFF)
    v = visits[:n][order]
    mean = np.divide(payout[:n][order], v, out=np.zeros(n), where=v > 0)
    return Tree(
        parent=parent_pre,
        child_count=child_count,
        move=Labels(move_data, move_off),
        visits=v,
        visits2=wins[:n][order],
        mean_payout=mean,
        player=(depth[:n][order] % players).astype(np.int8),
        state=Labels(state_data, np.arange(n + 1, dtype=np.int64) * STATE_CHARS),
        meta={"generator": "random_mcts_tree", "seed": int(seed), "branching": int(branching), "c": float(c)},
        created=order.astype(np.int64),
    )
