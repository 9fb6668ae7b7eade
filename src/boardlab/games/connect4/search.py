"""UCT for Connect Four compiled whole with numba: tree arrays, selection and playouts.

Connect Four registers this engine as the ``boardlab.engines`` entry ``connect4.uct``
(the class is the factory, ``(state, seed, c)``); the
:class:`~boardlab.agents.mcts.MCTSAgent` uses it when no option needs the
generic one (leaf evaluators). It follows :class:`boardlab.core.search.SearchEngine` and runs
the same algorithm as the generic engine (UCB1 selection, one node added per
iteration, uniformly random playouts, the same statistics and the same export),
only without a Python object anywhere in the loop.

Children of a node are allocated together when the node is expanded, in a
random order; an unvisited child is tried before any visited one is revisited
(its UCB value is infinite), so the children in slot order are tried first.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from boardlab.core.game import TERMINAL
from boardlab.core.rng import kernel_random, kernel_rng
from boardlab.core.search import ChildStats, SearchSnapshot, grow_columns, subtree_mask
from boardlab.games.connect4 import ConnectFour, ConnectFourState
from boardlab.games.connect4.kernel import Connect4Kernel, _won, playout

NOT_TERMINAL = -2  # ``term`` column: -2 in play, -1 tie, 0 or 1 the winner


@njit(cache=True)
def uct_iterations(
    b0, b1, to_move, bottom, top, column_mask, steps, full,
    parent, first, nch, action, mover, visits, total, wins, created, player, term,
    used, iterations, first_iteration, c, rng,
):
    """Run up to ``iterations`` UCT iterations from the root position (node 0).

    Stops early when the arrays could not hold another expansion; returns the
    number of iterations done. ``used[0]`` is the number of allocated nodes.
    """
    cols = top.shape[0]
    capacity = parent.shape[0]
    path = np.empty(66, dtype=np.int64)
    boards = np.empty(2, dtype=np.uint64)
    order = np.empty(cols, dtype=np.int64)
    done = 0
    for it in range(iterations):
        if used[0] + cols > capacity:
            break
        boards[0] = b0
        boards[1] = b1
        mask = b0 | b1
        p = to_move
        node = 0
        path[0] = 0
        depth = 1
        winner = -1
        while True:
            t = term[node]
            if t != NOT_TERMINAL:
                winner = t
                break
            if first[node] < 0:  # expand: allocate every legal move, shuffled
                k = 0
                for col in range(cols):
                    if mask & top[col] == np.uint64(0):
                        order[k] = col
                        k += 1
                for i in range(k - 1, 0, -1):
                    j = kernel_random(rng) % np.uint64(i + 1)
                    tmp = order[i]
                    order[i] = order[j]
                    order[j] = tmp
                f = used[0]
                for i in range(k):
                    ch = f + i
                    parent[ch] = node
                    first[ch] = -1
                    nch[ch] = 0
                    action[ch] = order[i]
                    mover[ch] = p
                    visits[ch] = 0
                    total[ch] = 0.0
                    wins[ch] = 0
                    created[ch] = -1
                    player[ch] = -1
                    term[ch] = NOT_TERMINAL
                used[0] = f + k
                first[node] = f
                nch[node] = k
            f = first[node]
            k = nch[node]
            best = f
            nv = visits[node]
            scale = c * math.sqrt(math.log(nv)) if nv > 0 else 0.0
            best_value = -np.inf
            for ch in range(f, f + k):
                nc = visits[ch]
                if nc == 0:
                    best = ch
                    break
                value = total[ch] / nc + scale / math.sqrt(nc)
                if value > best_value:
                    best_value = value
                    best = ch
            col = action[best]
            move = (mask + bottom[col]) & column_mask[col]
            boards[p] |= move
            mask |= move
            path[depth] = best
            depth += 1
            if visits[best] == 0:  # the new node: note what it is, then play it out
                created[best] = first_iteration + it
                if _won(boards[p], steps):
                    term[best] = p
                    winner = p
                elif mask == full:
                    term[best] = -1
                    winner = -1
                else:
                    player[best] = p ^ 1
                    winner, _ = playout(boards[0], boards[1], p ^ 1, bottom, top, column_mask, steps, rng)
                break
            node = best
            p ^= 1
        for d in range(depth):
            nd = path[d]
            visits[nd] += 1
            if winner >= 0:
                if mover[nd] == winner:
                    total[nd] += 1.0
                    wins[nd] += 1
                else:
                    total[nd] -= 1.0
        done += 1
    return done


COLUMNS = (
    ("parent", np.int32), ("first", np.int32), ("nch", np.int8), ("action", np.int8), ("mover", np.int8),
    ("visits", np.int32), ("total", np.float64), ("wins", np.int32), ("created", np.int32),
    ("player", np.int8), ("term", np.int8),
)


class CompiledConnect4Search:
    """The tree of one search, in numpy arrays grown by doubling (33 bytes per allocated node:
    the counters are 32-bit, as in the tree file formats)."""

    engine = "compiled"

    def __init__(self, state: ConnectFourState, seed: int, c: float, capacity: int = 4096) -> None:
        game: ConnectFour = state.game
        self.kernel: Connect4Kernel = game.playout_kernel()
        self.full = np.uint64(game.board_mask)
        self.table = [str(col + 1) for col in range(game.cols)]
        self.c = float(c)
        self.rng = kernel_rng(seed)
        self.cols = game.cols
        self.root_state = state.clone()
        self.root_history = list(state.history)
        self.set_root(state)
        self.a = {name: np.zeros(max(capacity, 2 * game.cols + 2), dtype=dtype) for name, dtype in COLUMNS}
        self.used = np.zeros(1, dtype=np.int64)
        a = self.a
        a["parent"][0] = -1
        a["first"][0] = -1
        a["mover"][0] = state.player  # a fresh root's statistics are from its player's view
        a["created"][0] = 0
        a["player"][0] = state.current_player()
        a["term"][0] = NOT_TERMINAL if not state.is_terminal() else state.winner
        self.used[0] = 1
        self.iterations = 0  # iterations run since this root became the root

    def set_root(self, state: ConnectFourState) -> None:
        self.b0 = np.uint64(state.boards[0])
        self.b1 = np.uint64(state.boards[1])
        self.to_move = state.player

    def run(self, iterations: int | None, deadline: float | None, stop=None, max_nodes: int | None = None) -> int:
        """Iterate until ``iterations`` more are done, ``deadline`` (perf_counter) passes,
        ``stop`` (a threading.Event) is set or the tree holds ``max_nodes`` nodes."""
        k = self.kernel
        done = 0
        chunk = 64
        while iterations is None or done < iterations:
            if done > 0 and ((stop is not None and stop.is_set()) or (max_nodes is not None and self.used[0] >= max_nodes)):
                break
            want = chunk if iterations is None else min(chunk, iterations - done)
            if self.used[0] + self.cols * (want + 1) > len(self.a["parent"]):
                grow_columns(self.a, self.used[0] + self.cols * (want + 1))
            a = self.a
            start = time.perf_counter()
            n = uct_iterations(
                self.b0, self.b1, self.to_move, k.bottom, k.top, k.column_mask, k.steps, self.full,
                a["parent"], a["first"], a["nch"], a["action"], a["mover"], a["visits"], a["total"],
                a["wins"], a["created"], a["player"], a["term"], self.used, want, self.iterations + 1,
                self.c, self.rng,
            )
            done += n
            self.iterations += n
            now = time.perf_counter()
            rate = n / max(now - start, 1e-9)
            if deadline is not None:
                left = deadline - now
                if left <= 0:
                    break
                # aim each chunk at a tenth of what is left, so the last one overshoots little
                chunk = int(max(16, min(1 << 20, rate * left / 10)))
            else:
                chunk = min(chunk * 2, 1 << 16)
            # look at stop and max_nodes at least every 50 ms, and never grow far past max_nodes
            chunk = int(max(16, min(chunk, rate * 0.05)))
            if max_nodes is not None:
                chunk = max(1, min(chunk, (max_nodes - int(self.used[0])) // max(1, self.cols) + 1))
        return done

    def root_visits(self) -> int:
        return int(self.a["visits"][0])

    def root_children(self) -> list[ChildStats]:
        a = self.a
        f, k = int(a["first"][0]), int(a["nch"][0])
        if f < 0:
            return []
        out = []
        for ch in range(f, f + k):
            n = int(a["visits"][ch])
            out.append(ChildStats(int(a["action"][ch]), n, int(a["wins"][ch]), float(a["total"][ch]) / n if n else 0.0))
        return out

    def reroot(self, actions: list[int], state: ConnectFourState) -> bool:
        """Keep the subtree reached by ``actions`` from the root; False when it was never visited."""
        a = self.a
        node = 0
        for act in actions:
            f, k = int(a["first"][node]), int(a["nch"][node])
            if f < 0:
                return False
            match = [ch for ch in range(f, f + k) if a["action"][ch] == act]
            if not match or a["visits"][match[0]] == 0:
                return False
            node = match[0]
        used = int(self.used[0])
        parent = a["parent"][:used].astype(np.int64)
        keep = subtree_mask(parent, node)
        new_id = np.cumsum(keep) - 1
        size = len(a["parent"])
        for name, arr in a.items():
            col = np.zeros(size, dtype=arr.dtype)
            col[: int(keep.sum())] = arr[:used][keep]
            a[name] = col
        kept = int(keep.sum())
        par = a["parent"][:kept]
        par[:] = np.where(par >= 0, new_id[np.maximum(par, 0)], -1)
        par[0] = -1
        fst = a["first"][:kept]
        fst[:] = np.where(fst >= 0, new_id[np.maximum(fst, 0)], -1)
        a["created"][:kept] = 0  # existed before this search
        self.used[0] = kept
        self.iterations = 0
        self.root_history = list(state.history)
        self.root_state = state.clone()
        self.set_root(state)
        return True

    def snapshot(self) -> SearchSnapshot:
        """Copies of the used part of the arrays; a node's state label is the root's move
        string followed by the moves into it (Connect Four's notation is its move list)."""
        used = int(self.used[0])
        a = self.a
        visits = a["visits"][:used].copy()
        player = a["player"][:used].copy()
        # the kernel marks a decided node by its term column; the protocol's code for it is TERMINAL
        player[a["term"][:used] != NOT_TERMINAL] = TERMINAL
        root = self.root_state
        path_ok = root.start is None and self.cols <= 9
        return SearchSnapshot(
            root=root.clone(),
            parent=a["parent"][:used].astype(np.int64),
            actions=a["action"][:used].astype(np.int64),
            visits=visits,
            wins=a["wins"][:used].copy(),
            mean=np.divide(a["total"][:used], visits, out=np.zeros(used), where=visits > 0),
            player=player,
            created=a["created"][:used].copy(),
            move_table=self.table,
            path_separator="" if path_ok else None,
            root_notation=root.notation(),
            engine=self.engine,
        )
