"""PUCT (AlphaZero's search) for Connect Four compiled whole with numba, the network's forward pass included.

Connect Four registers this engine as the ``boardlab.engines`` entry ``connect4.puct``
(a :class:`boardlab.core.search.PUCTEngine`) for a policy-value MLP given as plain
arrays (:class:`boardlab.core.search.DenseNetwork`); the ``az`` agent and self-play use it instead of
:class:`boardlab.agents.puct.PUCTSearch`, whose every simulation crosses from
Python to torch and back. It is the same search: the same selection
(``Q + c * P * sqrt(N) / (1 + n)``, the first best child in column order),
the same backup (``discount`` included), first-play value (``fpu``), visit contract and tree export, and the same draws from the
caller's generator (the root's Dirichlet noise when the root is evaluated,
then the move). Only the network's arithmetic differs, in float32 rounding:
BLAS matrix-vector products here, torch's there.

A node is created the first time a simulation walks into it: a won or full
board is terminal and backs up its result at every visit; any other position
is judged by the network at once, which gives its children their priors.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from boardlab.core.errors import BoardlabError
from boardlab.core.game import TERMINAL
from boardlab.core.search import (
    ChildStats,
    DenseNetwork,
    PUCTSettings,
    SearchSnapshot,
    choose_by_visits,
    grow_columns,
    run_in_chunks,
    visit_policy,
)
from boardlab.games.connect4 import ConnectFour, ConnectFourState
from boardlab.games.connect4.kernel import Connect4Kernel, _won

NOT_TERMINAL = -2  # ``term`` column: -2 in play, -1 tie, 0 or 1 the winner
UNPROVEN = -2  # ``proof`` column: -2 not proven, else -1, 0 or 1, the result for the node's mover with best play


@njit(cache=True)
def evaluate(mine, theirs, mask, top, cell_bits, w_in, b_in, w_hidden, b_hidden, w_policy, b_policy, w_value, b_value,
             priors):
    """The network's verdict on a position where the owner of ``mine`` is to move: its value
    (returned) and, in ``priors``, the softmax of the logits over the legal columns (0 elsewhere)."""
    cells = cell_bits.shape[0]
    x = np.zeros(3 * cells, dtype=np.float32)
    for i in range(cells):
        if mine & cell_bits[i]:
            x[i] = 1.0
        elif theirs & cell_bits[i]:
            x[cells + i] = 1.0
        x[2 * cells + i] = 1.0  # the plane that says "your move"
    zero = np.float32(0.0)
    h = np.maximum(np.dot(w_in, x) + b_in, zero)
    for layer in range(w_hidden.shape[0]):
        h = np.maximum(np.dot(w_hidden[layer], h) + b_hidden[layer], zero)
    logits = np.dot(w_policy, h) + b_policy
    value = np.float64(np.float32(math.tanh(np.dot(w_value, h)[0] + b_value[0])))  # float32, as torch's
    # a float32 softmax over the legal columns, as torch's masked one, then in float64
    top_logit = -np.inf
    for col in range(top.shape[0]):
        if mask & top[col] == np.uint64(0) and logits[col] > top_logit:
            top_logit = logits[col]
    total = np.float32(0.0)
    for col in range(top.shape[0]):
        if mask & top[col] == np.uint64(0):
            e = np.float32(math.exp(logits[col] - top_logit))
            priors[col] = e
            total += e
        else:
            priors[col] = 0.0
    for col in range(top.shape[0]):
        priors[col] = np.float64(np.float32(priors[col]) / total)
    return value


@njit(cache=True)
def _expand(node, mask, top, priors, parent, first, nch, action, mover_of_children, prior, visits, mean, wins, created,
            player, term, mover, proof, dist, used):
    """Allocate ``node``'s children (its legal columns, in order) with the priors renormalised over them."""
    total = 0.0
    legal = 0
    for col in range(top.shape[0]):
        if mask & top[col] == np.uint64(0):
            total += priors[col]
            legal += 1
    f = used[0]
    k = 0
    for col in range(top.shape[0]):
        if mask & top[col] != np.uint64(0):
            continue
        ch = f + k
        parent[ch] = node
        first[ch] = -1
        nch[ch] = 0
        action[ch] = col
        mover[ch] = mover_of_children
        prior[ch] = priors[col] / total if total > 0 else 1.0 / legal
        visits[ch] = 0
        mean[ch] = 0.0
        wins[ch] = 0
        created[ch] = -1
        player[ch] = -1
        term[ch] = NOT_TERMINAL
        proof[ch] = UNPROVEN
        dist[ch] = 0
        k += 1
    used[0] = f + k
    first[node] = f
    nch[node] = k


@njit(cache=True)
def puct_simulations(
    b0, b1, to_move, bottom, top, column_mask, steps, full, cell_bits,
    w_in, b_in, w_hidden, b_hidden, w_policy, b_policy, w_value, b_value,
    parent, first, nch, action, mover, prior, visits, mean, wins, created, player, term, proof, dist,
    used, simulations, done_before, c, discount, fpu_mean, solve,
):
    """Run up to ``simulations`` simulations from the root (node 0, already expanded).

    With ``solve``, results are proven as in :mod:`boardlab.core.search` (MCTS-Solver).
    Stops early when the arrays could not hold another expansion; returns the number done.
    """
    cols = top.shape[0]
    capacity = parent.shape[0]
    path = np.empty(cell_bits.shape[0] + 2, dtype=np.int64)
    boards = np.empty(2, dtype=np.uint64)
    priors = np.empty(cols, dtype=np.float64)
    done = 0
    for sim in range(simulations):
        if used[0] + cols > capacity:
            break
        boards[0] = b0
        boards[1] = b1
        mask = b0 | b1
        p = to_move
        node = 0
        path[0] = 0
        depth = 1
        value = 0.0  # for the player ``leaf_player``
        leaf_player = 0
        beyond = 0  # plies from the leaf to the end of the game, when the leaf is proven
        while True:
            f = first[node]
            k = nch[node]
            scale = c * math.sqrt(max(visits[node], 1))
            unvisited = 0.0
            if fpu_mean:  # the visit-weighted mean of the visited siblings, as the generic search
                seen = 0
                total = 0.0
                for ch in range(f, f + k):
                    seen += visits[ch]
                    total += mean[ch] * visits[ch]
                if seen:
                    unvisited = total / seen
            best = f
            best_score = -np.inf
            for ch in range(f, f + k):
                if solve and proof[ch] == -1:  # proven lost for the player choosing: never worth a simulation
                    continue
                n = visits[ch]
                score = (mean[ch] if n else unvisited) + scale * prior[ch] / (1 + n)
                if score > best_score:
                    best = ch
                    best_score = score
            path[depth] = best
            depth += 1
            if visits[best] == 0:  # a position never seen: note what it is
                col = action[best]
                move = (mask + bottom[col]) & column_mask[col]
                boards[p] |= move
                mask |= move
                created[best] = done_before + sim + 1
                if _won(boards[p], steps):
                    term[best] = p
                    player[best] = TERMINAL
                    value = 1.0
                    leaf_player = p
                    if solve:
                        proof[best] = 1
                elif mask == full:
                    term[best] = -1
                    player[best] = TERMINAL
                    value = 0.0
                    leaf_player = p
                    if solve:
                        proof[best] = 0
                elif solve and _wins_at_once(boards[p ^ 1], mask, bottom, column_mask, top, steps):
                    # the player to move there wins at once: proven, with no need of the network
                    player[best] = p ^ 1
                    proof[best] = -1
                    dist[best] = 1
                    value = -1.0
                    leaf_player = p
                    beyond = 1
                elif solve and _loses_at_once(boards[p], mask, bottom, column_mask, top, steps):
                    # whatever the player to move there plays, the other wins at once
                    player[best] = p ^ 1
                    proof[best] = 1
                    dist[best] = 2
                    value = 1.0
                    leaf_player = p
                    beyond = 2
                else:
                    player[best] = p ^ 1
                    value = evaluate(boards[p ^ 1], boards[p], mask, top, cell_bits, w_in, b_in, w_hidden, b_hidden,
                                     w_policy, b_policy, w_value, b_value, priors)
                    leaf_player = p ^ 1
                    _expand(best, mask, top, priors, parent, first, nch, action, p ^ 1, prior, visits, mean, wins,
                            created, player, term, mover, proof, dist, used)
                break
            if solve and proof[best] != UNPROVEN:  # its result is known: back it up as a finished game's
                value = float(proof[best])
                leaf_player = p
                beyond = dist[best]
                break
            if term[best] != NOT_TERMINAL:  # a finished game, seen before: its result again
                t = term[best]
                value = 0.0 if t < 0 else 1.0
                leaf_player = p
                break
            col = action[best]
            move = (mask + bottom[col]) & column_mask[col]
            boards[p] |= move
            mask |= move
            node = best
            p ^= 1
        for d in range(depth):
            nd = path[d]
            r = value if mover[nd] == leaf_player else -value
            if discount != 1.0:
                r *= discount ** (depth - 1 - d + beyond)
            n = visits[nd] + 1
            visits[nd] = n
            mean[nd] += (r - mean[nd]) / n
            if r > 0:  # two seats, opposite values: the mover strictly first
                wins[nd] += 1
        if solve and proof[path[depth - 1]] != UNPROVEN:
            for d in range(depth - 2, -1, -1):
                if not _prove(path[d], first, nch, mover, player, proof, dist):
                    break
        done += 1
    return done


@njit(cache=True)
def _wins_at_once(mine, mask, bottom, column_mask, top, steps):
    """Whether the owner of ``mine``, to move, has a column that wins at once."""
    for col in range(top.shape[0]):
        if mask & top[col] == np.uint64(0) and _won(mine | ((mask + bottom[col]) & column_mask[col]), steps):
            return True
    return False


@njit(cache=True)
def _loses_at_once(theirs, mask, bottom, column_mask, top, steps):
    """Whether every column the player to move (who has no winning column) can play
    lets the owner of ``theirs`` win at once."""
    for col in range(top.shape[0]):
        if mask & top[col] == np.uint64(0):
            move = (mask + bottom[col]) & column_mask[col]
            if not _wins_at_once(theirs, mask | move, bottom, column_mask, top, steps):
                return False
    return True


@njit(cache=True)
def _prove(node, first, nch, mover, player, proof, dist):
    """Prove ``node`` from its children's proofs if they settle it (see
    :func:`boardlab.core.search.settled_result`, the same rule); returns whether they did."""
    f = first[node]
    win_plies = 1 << 30
    other = -2  # the best proven result short of a win, for the player choosing
    other_plies = 0
    still_open = False
    for ch in range(f, f + nch[node]):
        v = proof[ch]
        if v == UNPROVEN:
            still_open = True
        elif v == 1:
            win_plies = min(win_plies, dist[ch])
        elif v > other or (v == other and v < 0 and dist[ch] > other_plies):
            other = v
            other_plies = dist[ch]
    if win_plies < (1 << 30):
        result, plies = 1, win_plies
    elif still_open:
        return False
    else:
        result, plies = other, other_plies
    proof[node] = result if mover[node] == player[node] else -result
    dist[node] = plies + 1
    return True


COLUMNS = (
    ("parent", np.int32), ("first", np.int32), ("nch", np.int8), ("action", np.int8), ("mover", np.int8),
    ("prior", np.float64), ("visits", np.int32), ("mean", np.float64), ("wins", np.int32), ("created", np.int32),
    ("player", np.int8), ("term", np.int8), ("proof", np.int8), ("dist", np.int16),
)


class CompiledConnect4PUCT:
    """One PUCT tree rooted at ``state``, in numpy arrays grown by doubling; the API of
    :class:`boardlab.agents.puct.PUCTSearch` that the ``az`` agent and self-play use."""

    engine = "compiled-puct"

    def __init__(self, state: ConnectFourState, network: DenseNetwork, settings: PUCTSettings,
                 rng: np.random.Generator) -> None:
        if state.is_terminal():
            raise BoardlabError("puct: there is no move to choose in this state (terminal or chance node)")
        game: ConnectFour = state.game
        weights = network.arrays()
        if weights[0].shape[1] != 3 * game.rows * game.cols or weights[4].shape[0] != game.cols or weights[6].shape[0] != 1:
            raise BoardlabError(f"puct: this network does not fit {game.spec()} (inputs {weights[0].shape[1]}, "
                                f"actions {weights[4].shape[0]}, values {weights[6].shape[0]})")
        self.weights = weights
        self.kernel: Connect4Kernel = game.playout_kernel()
        self.full = np.uint64(game.board_mask)
        self.cell_bits = np.ascontiguousarray(game._cell_bits.reshape(-1))
        self.table = [str(col + 1) for col in range(game.cols)]
        self.c = float(settings.c)
        self.rng = rng
        self.noise = settings.noise
        self.discount = float(settings.discount)
        if settings.discount_toward != 0.0:
            raise BoardlabError("puct: Connect Four's values are zero-sum (one value, the other seat's is its negation), "
                                f"so a discount fades toward 0 only, not toward {settings.discount_toward}")
        self.fpu = settings.fpu
        self.solve = bool(settings.solve)
        self.cols = game.cols
        self.root = state.clone()
        self.root_history = list(state.history)
        self.b0, self.b1, self.to_move = np.uint64(state.boards[0]), np.uint64(state.boards[1]), state.player
        self.a = {name: np.zeros(4 * game.cols + 2, dtype=dtype) for name, dtype in COLUMNS}
        a = self.a
        a["parent"][0] = a["action"][0] = a["first"][0] = -1
        a["prior"][0] = 1.0
        a["mover"][0] = state.player
        a["player"][0] = state.player
        a["term"][0] = NOT_TERMINAL
        a["proof"][0] = UNPROVEN
        self.used = np.zeros(1, dtype=np.int64)
        self.used[0] = 1
        self.simulations = 0

    def _evaluate_root(self) -> None:
        """The root's own evaluation (no simulation): its children's priors, with the noise mixed in."""
        k = self.kernel
        priors = np.zeros(self.cols, dtype=np.float64)
        mine, theirs = (self.b0, self.b1) if self.to_move == 0 else (self.b1, self.b0)
        evaluate(mine, theirs, self.b0 | self.b1, k.top, self.cell_bits, *self.weights, priors)
        legal = [col for col in range(self.cols) if (int(self.b0 | self.b1) & int(k.top[col])) == 0]
        p = priors[legal]
        total = p.sum()
        p = p / total if total > 0 else np.full(len(legal), 1.0 / len(legal))
        if self.noise is not None and len(legal) > 1:
            alpha, weight = self.noise
            p = (1 - weight) * p + weight * self.rng.dirichlet(np.full(len(legal), alpha))
        a = self.a
        a["first"][0], a["nch"][0] = 1, len(legal)
        for i, col in enumerate(legal):  # what _expand writes, with these priors as they are
            ch = 1 + i
            a["parent"][ch], a["first"][ch], a["action"][ch], a["mover"][ch] = 0, -1, col, self.to_move
            a["prior"][ch], a["created"][ch], a["player"][ch], a["term"][ch] = p[i], -1, -1, NOT_TERMINAL
            a["proof"][ch], a["dist"][ch] = UNPROVEN, 0
        if self.solve:  # the root's moves that win at once are proven before any simulation
            mine = self.b0 if self.to_move == 0 else self.b1
            mask = self.b0 | self.b1
            for ch in range(1, 1 + len(legal)):
                col = int(a["action"][ch])
                if _won(mine | ((mask + k.bottom[col]) & k.column_mask[col]), k.steps):
                    a["proof"][ch] = 1
        self.used[0] = 1 + len(legal)

    def run(self, simulations: int | None, deadline: float | None = None, stop=None) -> int:
        """Simulate until ``simulations`` more are done, ``deadline`` (perf_counter) passes or
        ``stop`` (a threading.Event) is set; the root is always evaluated first, and a deadline
        already past or a stop already set leaves it at that (the priors choose the move)."""
        if self.a["first"][0] < 0:
            self._evaluate_root()
        # as the generic search: the root's evaluation first, then the clock and the stop
        return run_in_chunks(self._simulate, simulations, deadline, stop)

    def _simulate(self, want: int) -> int:
        k = self.kernel
        need = int(self.used[0]) + self.cols * (want + 1)
        if need > len(self.a["parent"]):
            grow_columns(self.a, need)
        a = self.a
        done = puct_simulations(
            self.b0, self.b1, self.to_move, k.bottom, k.top, k.column_mask, k.steps, self.full, self.cell_bits,
            *self.weights,
            a["parent"], a["first"], a["nch"], a["action"], a["mover"], a["prior"], a["visits"], a["mean"],
            a["wins"], a["created"], a["player"], a["term"], a["proof"], a["dist"], self.used, want, self.simulations,
            self.c, self.discount, self.fpu == "mean", self.solve,
        )
        self.simulations += done
        return done

    # --- results, as PUCTSearch gives them -------------------------------------------
    def root_visits(self) -> int:
        return int(self.a["visits"][0])

    def root_children(self) -> list[ChildStats]:
        a = self.a
        f, k = int(a["first"][0]), int(a["nch"][0])
        if f < 0:
            return []
        return [ChildStats(int(a["action"][ch]), int(a["visits"][ch]), int(a["wins"][ch]), float(a["mean"][ch]))
                for ch in range(f, f + k)]

    def immediate_wins(self) -> list[int]:
        a = self.a
        f, k = int(a["first"][0]), int(a["nch"][0])
        return [int(a["action"][ch]) for ch in range(f, f + k) if f >= 0 and a["term"][ch] == a["mover"][ch]]

    def root_value(self) -> float:
        return float(self.a["mean"][0])

    def root_proofs(self) -> dict[int, tuple[int, int]]:
        a = self.a
        f, k = int(a["first"][0]), int(a["nch"][0])
        return {int(a["action"][ch]): (int(a["proof"][ch]), int(a["dist"][ch]))
                for ch in range(f, f + k) if f >= 0 and a["proof"][ch] != UNPROVEN}

    def root_priors(self) -> dict[int, float]:
        a = self.a
        f, k = int(a["first"][0]), int(a["nch"][0])
        return {int(a["action"][ch]): float(a["prior"][ch]) for ch in range(f, f + k)} if f >= 0 else {}

    def policy(self, actions: int) -> np.ndarray:
        return visit_policy(self.root_children(), actions)

    def choose(self, temperature: float) -> int:
        return choose_by_visits(self.root_children(), self.root_priors(), self.simulations, temperature, self.rng,
                                self.root_proofs() if self.solve else None)

    def snapshot(self) -> SearchSnapshot:
        used = int(self.used[0])
        a = self.a
        root = self.root
        return SearchSnapshot(
            root=root.clone(),
            parent=a["parent"][:used].astype(np.int64),
            actions=a["action"][:used].astype(np.int64),
            visits=a["visits"][:used].astype(np.int64),
            wins=a["wins"][:used].astype(np.int64),
            mean=a["mean"][:used].copy(),
            player=a["player"][:used].copy(),
            created=a["created"][:used].astype(np.int64),
            move_table=self.table,
            path_separator="" if root.start is None and self.cols <= 9 else None,
            root_notation=root.notation(),
            engine=self.engine,
            extra={"priors": a["prior"][:used].copy()},
        )
