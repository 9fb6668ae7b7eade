"""Compiled self-play Q-learning (numba): whole training games per call.

The same algorithm as :class:`boardlab.studies.c4rl.training.Learner` (``"kernel": "numpy"``),
move for move and update for update: Boltzmann choice from the mover's view, the
target ``reward + discount * F`` (``best_known`` or ``mean``, terminal replies worth
their reward or 0), one plain SGD step on the move and its mirror (unless the
position is its own mirror), the study's and the planes encoding. It works in
place on the float32 NumPy views of the torch module's parameters, so
checkpoints, snapshots and model files are those of the NumPy path.

Two things differ, by design: the sums run in another order (float rounding,
~1e-7 relative per step) and the Boltzmann choice reads a uniform number that
the caller draws from the run's NumPy Generator, ``rows*cols`` per game whether
used or not, instead of ``Generator.choice`` (same distribution, another stream).
A fixed count per game keeps the Generator state at a checkpoint independent of
how games were batched, so a resumed run continues bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.typed import List

from boardlab.games.connect4.kernel import Connect4Kernel, _won

#: the kernel's verdicts on a batch (second value returned by :func:`play_games`)
OK, DIVERGED = 0, 1


@njit(cache=True, inline="always")
def _legal(mask, top, legal):
    n = 0
    for c in range(top.shape[0]):
        if mask & top[c] == np.uint64(0):
            legal[n] = c
            n += 1
    return n


@njit(cache=True)
def _cells(own, other, order, cells):
    """The view as cells, top row first: 0 empty, 1 the viewer's stone, 2 the other's."""
    one = np.uint64(1)
    for i in range(order.shape[0]):
        if (own >> order[i]) & one:
            cells[i] = 1
        elif (other >> order[i]) & one:
            cells[i] = 2
        else:
            cells[i] = 0


@njit(cache=True)
def _activate(x, study):
    if study:
        return np.float32(1.0) / (np.float32(1.0) + np.exp(-x))
    return x if x > np.float32(0.0) else np.float32(0.0)


@njit(cache=True)
def _hidden_tail(weights, biases, study, h, tmp):
    """Hidden layers 2.. and the output layer from the first hidden layer's activations ``h``;
    returns the buffer holding the outputs."""
    last = len(weights) - 1
    for k in range(1, last + 1):
        w, b = weights[k], biases[k]
        for j in range(w.shape[0]):
            s = np.float32(0.0)
            for i in range(w.shape[1]):
                s += w[j, i] * h[i]
            s += b[j]
            tmp[j] = _activate(s, study) if k < last else s
        h, tmp = tmp, h
    return h


@njit(cache=True)
def _values(cells, legal, n_legal, weights, biases, study, cols, pre, buf_a, buf_b, out):
    """Q-values of the legal actions (``out[c]`` for ``c`` in ``legal[:n_legal]``) of one view."""
    w0, b0 = weights[0], biases[0]
    n_cells = cells.shape[0]
    hidden = w0.shape[0]
    # first layer: only occupied cells contribute (an empty cell's input is 0); their inputs, once
    inputs = np.empty(n_cells, dtype=np.int64)
    scale = np.empty(n_cells, dtype=np.float32)
    n_in = 0
    for i in range(n_cells):
        c = cells[i]
        if c != 0:
            inputs[n_in] = i if (study or c == 1) else n_cells + i
            scale[n_in] = np.float32(c) if study else np.float32(1.0)
            n_in += 1
    for j in range(hidden):
        s = np.float32(0.0)
        for k in range(n_in):
            s += w0[j, inputs[k]] * scale[k]
        pre[j] = s + b0[j]
    if study:
        # the action number is the last input: one pass of the rest of the net per action
        for k in range(n_legal):
            a = legal[k]
            for j in range(hidden):
                buf_a[j] = _activate(pre[j] + np.float32(a) * w0[j, n_cells], True)
            out[a] = _hidden_tail(weights, biases, True, buf_a, buf_b)[0]
    else:
        for j in range(hidden):
            buf_a[j] = _activate(pre[j], False)
        res = _hidden_tail(weights, biases, False, buf_a, buf_b)
        for c in range(cols):
            out[c] = res[c]


@njit(cache=True)
def _nonzero(acts, n_samples, k, width, on):
    """Indices of layer ``k``'s inputs that are not 0 in some sample, into ``on``; their count."""
    n = 0
    for i in range(width):
        for s in range(n_samples):
            if acts[s, k, i] != np.float32(0.0):
                on[n] = i
                n += 1
                break
    return n


@njit(cache=True)
def _sgd(cells, actions, n_samples, target, weights, biases, study, lr, acts, deltas):
    """One plain SGD step on ``0.5 * sum (Q(view_s, a_s) - target)^2`` over the samples,
    applied in place; the gradients of every layer come from the weights before the step."""
    n_layers = len(weights)
    n_cells = cells.shape[1]
    on = np.empty(acts.shape[2], dtype=np.int64)
    for s in range(n_samples):
        x = acts[s, 0]
        if study:
            for i in range(n_cells):
                x[i] = np.float32(cells[s, i])
            x[n_cells] = np.float32(actions[s])
        else:
            for i in range(n_cells):
                x[i] = np.float32(1.0) if cells[s, i] == 1 else np.float32(0.0)
                x[n_cells + i] = np.float32(1.0) if cells[s, i] == 2 else np.float32(0.0)
    n_inputs = _nonzero(acts, n_samples, 0, weights[0].shape[1], on)  # the inputs are mostly zeros
    for s in range(n_samples):
        for k in range(n_layers):
            w, b = weights[k], biases[k]
            src, dst = acts[s, k], acts[s, k + 1]
            n_on = n_inputs if k == 0 else -1
            for j in range(w.shape[0]):
                v = np.float32(0.0)
                if n_on >= 0:
                    for t in range(n_on):
                        v += w[j, on[t]] * src[on[t]]
                else:
                    for i in range(w.shape[1]):
                        v += w[j, i] * src[i]
                v += b[j]
                dst[j] = _activate(v, study) if k < n_layers - 1 else v
        out = acts[s, n_layers]
        column = 0 if study else actions[s]
        delta = deltas[s, 0]
        for j in range(weights[n_layers - 1].shape[0]):
            delta[j] = np.float32(0.0)
        delta[column] = out[column] - target
    cur = 0
    for k in range(n_layers - 1, -1, -1):
        w, b = weights[k], biases[k]
        if k:  # the next delta first, from this layer's weights before their step
            for s in range(n_samples):
                d, nd, a = deltas[s, cur], deltas[s, 1 - cur], acts[s, k]
                for i in range(w.shape[1]):
                    v = np.float32(0.0)
                    for j in range(w.shape[0]):
                        v += d[j] * w[j, i]
                    slope = a[i] * (np.float32(1.0) - a[i]) if study else (np.float32(1.0) if a[i] > 0 else np.float32(0.0))
                    nd[i] = v * slope
        # an input that is 0 in every sample leaves its weights exactly as they are (w - lr*0 = w)
        # unless a delta is not finite, where the dense update spreads the NaN as NumPy's does
        n_on = _nonzero(acts, n_samples, k, w.shape[1], on)
        for j in range(w.shape[0]):
            gb = np.float32(0.0)
            finite = True
            for s in range(n_samples):
                gb += deltas[s, cur][j]
                finite = finite and np.isfinite(deltas[s, cur][j])
            if finite:
                for t in range(n_on):
                    i = on[t]
                    g = np.float32(0.0)
                    for s in range(n_samples):
                        g += deltas[s, cur][j] * acts[s, k][i]
                    w[j, i] -= lr * g
            else:
                for i in range(w.shape[1]):
                    g = np.float32(0.0)
                    for s in range(n_samples):
                        g += deltas[s, cur][j] * acts[s, k][i]
                    w[j, i] -= lr * g
            b[j] -= lr * gb
        cur = 1 - cur


@njit(cache=True)
def _drop(mask, board, c, bottom, column_mask):
    move = (mask + bottom[c]) & column_mask[c]
    return mask | move, board | move


@njit(cache=True)
def _best_value(own, other, mask, order, top, weights, biases, study, cols, cells, legal, scratch, values):
    """``max_a Q(view, a)`` over the legal actions of a non-terminal position."""
    _cells(own, other, order, cells)
    n = _legal(mask, top, legal)
    _values(cells, legal, n, weights, biases, study, cols, scratch[0], scratch[1], scratch[2], values)
    best = values[legal[0]]
    for k in range(1, n):
        if values[legal[k]] > best:
            best = values[legal[k]]
    return np.float64(best)


@njit(cache=True)
def _future(b_after, mask, player, full, order, bottom, top, column_mask, steps, weights, biases, study, cols,
            best_known, rewards, terminal_reward, cells, legal, legal2, scratch, values):
    """The study's estimate of the mover's best value after its move (listing 5.8)."""
    opp = 1 - player
    # a reply that ends the game: the opponent won (loss) or filled the board (tie)
    n = _legal(mask, top, legal)
    if best_known:
        _cells(b_after[opp], b_after[player], order, cells)
        _values(cells, legal, n, weights, biases, study, cols, scratch[0], scratch[1], scratch[2], values)
        reply = legal[0]
        for k in range(1, n):
            if values[legal[k]] > values[reply]:
                reply = legal[k]
        m2, opp_board = _drop(mask, b_after[opp], reply, bottom, column_mask)
        if _won(opp_board, steps):
            return rewards[1] if terminal_reward else 0.0
        if m2 == full:
            return rewards[2] if terminal_reward else 0.0
        return _best_value(b_after[player], opp_board, m2, order, top, weights, biases, study, cols, cells, legal2, scratch, values)
    terminal_total = 0.0
    open_total = 0.0
    for k in range(n):
        m2, opp_board = _drop(mask, b_after[opp], legal[k], bottom, column_mask)
        if _won(opp_board, steps):
            terminal_total += rewards[1] if terminal_reward else 0.0
        elif m2 == full:
            terminal_total += rewards[2] if terminal_reward else 0.0
        else:
            open_total += _best_value(b_after[player], opp_board, m2, order, top, weights, biases, study, cols,
                                      cells, legal2, scratch, values)
    return (terminal_total + open_total) / n


@njit(cache=True)
def play_games(weights, biases, study, order, bottom, top, column_mask, steps, full, uniforms, lr, temperature,
               discount, rewards, best_known, terminal_reward, winners):
    """Play and learn ``uniforms.shape[0]`` self-play games; ``winners[g]`` gets game g's winner
    (0, 1, -1 a tie). Returns (games finished, OK or DIVERGED: the Q-values of the position
    to move in the next game stopped being finite; that game is not counted)."""
    cols = top.shape[0]
    n_cells = order.shape[0]
    width = n_cells * 2 + 1
    for k in range(len(weights)):
        width = max(width, weights[k].shape[0])
    scratch = np.zeros((3, width), dtype=np.float32)
    values = np.zeros(cols, dtype=np.float32)
    acts = np.zeros((2, len(weights) + 1, width), dtype=np.float32)
    deltas = np.zeros((2, 2, width), dtype=np.float32)
    cells = np.zeros(n_cells, dtype=np.int8)
    samples = np.zeros((2, n_cells), dtype=np.int8)
    actions = np.zeros(2, dtype=np.int64)
    legal = np.zeros(cols, dtype=np.int64)
    legal2 = np.zeros(cols, dtype=np.int64)
    legal3 = np.zeros(cols, dtype=np.int64)
    cdf = np.zeros(cols, dtype=np.float64)
    boards = np.zeros(2, dtype=np.uint64)
    lr32 = np.float32(lr)
    rows = n_cells // cols
    for g in range(uniforms.shape[0]):
        boards[0] = np.uint64(0)
        boards[1] = np.uint64(0)
        mask = np.uint64(0)
        player = 0
        winner = -1
        for move in range(n_cells):
            own, other = boards[player], boards[1 - player]
            _cells(own, other, order, samples[0])
            n = _legal(mask, top, legal)
            _values(samples[0], legal, n, weights, biases, study, cols, scratch[0], scratch[1], scratch[2], values)
            # Boltzmann: exp(Q/T) shifted by the maximum, then the cumulative sum, as Generator.choice
            top_z = -np.inf
            for k in range(n):
                v = values[legal[k]]
                if not np.isfinite(v):
                    return g, DIVERGED
                top_z = max(top_z, np.float64(v) / temperature)
            total = 0.0
            for k in range(n):
                cdf[k] = np.exp(np.float64(values[legal[k]]) / temperature - top_z)
                total += cdf[k]
            running = 0.0
            for k in range(n):
                running += cdf[k] / total
                cdf[k] = running
            for k in range(n):
                cdf[k] /= cdf[n - 1]
            u = uniforms[g, move]
            pick = 0
            while pick < n - 1 and cdf[pick] <= u:
                pick += 1
            action = legal[pick]
            mask, mine = _drop(mask, own, action, bottom, column_mask)
            boards[player] = mine
            won = _won(mine, steps)
            if won:
                reward, over = rewards[0], True
            elif mask == full:
                reward, over = rewards[2], True
            else:
                reward, over = rewards[3], False
            future = 0.0
            if not over:
                future = _future(boards, mask, player, full, order, bottom, top, column_mask, steps, weights, biases,
                                 study, cols, best_known, rewards, terminal_reward, cells, legal2, legal3, scratch, values)
            target = np.float32(reward + discount * future)
            actions[0] = action
            mirrored = True
            for r in range(rows):
                for c in range(cols):
                    samples[1, r * cols + c] = samples[0, r * cols + cols - 1 - c]
                    if samples[1, r * cols + c] != samples[0, r * cols + c]:
                        mirrored = False
            actions[1] = cols - 1 - action
            _sgd(samples, actions, 1 if mirrored else 2, target, weights, biases, study, lr32, acts, deltas)
            if over:
                winner = player if won else -1
                break
            player ^= 1
        winners[g] = winner
    return uniforms.shape[0], OK


class CompiledSelfPlay:
    """The board tables and the network's weight views, handed to :func:`play_games`."""

    def __init__(self, game, net) -> None:
        tables = Connect4Kernel(game)
        self.bottom, self.top, self.column_mask, self.steps = tables.bottom, tables.top, tables.column_mask, tables.steps
        self.full = np.uint64(game.board_mask)
        height = game.rows + 1
        self.order = np.array([c * height + (game.rows - 1 - r) for r in range(game.rows) for c in range(game.cols)], dtype=np.uint64)
        self.net = net
        self.study = net.encoding == "study"
        self._layers = None

    def _weights(self):
        layers = self.net._layers()  # NumPy views of the live parameters (re-made if torch reallocated them)
        if self._layers is not layers:
            self._layers = layers
            self._typed = (List([w for w, _ in layers]), List([b for _, b in layers]))
        return self._typed

    def play(self, cfg, uniforms: np.ndarray) -> tuple[np.ndarray, int, bool]:
        """Train on ``len(uniforms)`` games; (winners of the finished games, games finished, diverged)."""
        weights, biases = self._weights()
        winners = np.full(len(uniforms), -1, dtype=np.int64)
        rewards = np.array([cfg.reward_win, cfg.reward_loss, cfg.reward_tie, cfg.reward_move], dtype=np.float64)
        done, verdict = play_games(
            weights, biases, self.study, self.order, self.bottom, self.top, self.column_mask, self.steps, self.full,
            uniforms, cfg.learning_rate, cfg.temperature, cfg.discount_factor, rewards,
            cfg.future_value == "best_known", cfg.terminal_reply_value == "reward", winners,
        )
        return winners[:done], done, verdict == DIVERGED

    # --- the kernel's pieces on views, for tests that hold them against the NumPy path ---

    def values(self, views: np.ndarray) -> np.ndarray:
        """Q-values ``(n, cols)`` of views ``(n, 2, R, C)`` by the compiled forward pass."""
        weights, biases = self._weights()
        cols = self.top.shape[0]
        every = np.arange(cols, dtype=np.int64)
        width = max(2 * self.order.shape[0] + 1, *(w.shape[0] for w in weights))
        scratch = np.zeros((3, width), dtype=np.float32)
        out = np.zeros((len(views), cols), dtype=np.float32)
        for n, cells in enumerate(_cells_of_views(views)):
            _values(cells, every, cols, weights, biases, self.study, cols, scratch[0], scratch[1], scratch[2], out[n])
        return out

    def sgd_step(self, views: np.ndarray, actions, target: float, lr: float) -> None:
        """The compiled SGD step on one or two samples (a move and its mirror) of one target."""
        weights, biases = self._weights()
        width = max(2 * self.order.shape[0] + 1, *(w.shape[0] for w in weights))
        acts = np.zeros((2, len(weights) + 1, width), dtype=np.float32)
        deltas = np.zeros((2, 2, width), dtype=np.float32)
        samples = np.zeros((2, self.order.shape[0]), dtype=np.int8)
        samples[: len(views)] = _cells_of_views(views)
        chosen = np.zeros(2, dtype=np.int64)
        chosen[: len(views)] = actions
        _sgd(samples, chosen, len(views), np.float32(target), weights, biases, self.study, np.float32(lr), acts, deltas)


def _cells_of_views(views: np.ndarray) -> np.ndarray:
    return (views[:, 0] + 2 * views[:, 1]).reshape(len(views), -1).astype(np.int8)
