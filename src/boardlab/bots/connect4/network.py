"""Q-networks for Connect Four: the study's network and a better-encoded one.

Positions reach the networks as *views*: float arrays of shape ``(2, rows, cols)``,
row 0 at the top, where plane 0 holds the stones of the player whose action
values are wanted and plane 1 the other player's. The learner always values
actions "as the first player": for the second player the stones are swapped
(the study's ``switch_players`` convention), so one network serves both seats.

Two encodings:

* ``study`` (Młokosiewicz 2016, section 5.5.1): ``rows*cols + 1`` inputs, the
  cells top to bottom and left to right (0 empty, 1 the viewing player, 2 the
  other), then the action (column number); one sigmoid hidden layer, one linear
  output: the value of that one action. Weights start uniform in [-1, 1].
* ``planes``: the two planes as ``2*rows*cols`` zero/one inputs, ReLU hidden
  layer(s), and ``cols`` outputs, the values of every action at once.

Both expose :meth:`QNet.all_values` (``(n, 2, R, C) -> (n, cols)``) and
:meth:`QNet.selected_values` (one action per view, differentiable).
"""

from __future__ import annotations

from typing import Literal, Sequence, get_args

import numpy as np
import torch
from torch import nn

Encoding = Literal["study", "planes"]
ENCODINGS = get_args(Encoding)


def bit_order(rows: int, cols: int) -> np.ndarray:
    """Bit index of each cell of a Pons-layout bitboard, top row first, left to right."""
    height = rows + 1
    return np.array([c * height + (rows - 1 - r) for r in range(rows) for c in range(cols)], dtype=np.uint64)


def views_from_boards(own: Sequence[int], other: Sequence[int], rows: int, cols: int, order: np.ndarray | None = None) -> np.ndarray:
    """Views ``(n, 2, rows, cols)`` from bitboards: ``own[i]`` is the viewing player's stones."""
    if order is None:
        order = bit_order(rows, cols)
    boards = np.array([own, other], dtype=np.uint64).T  # (n, 2)
    bits = (boards[:, :, None] >> order[None, None, :]) & np.uint64(1)
    return bits.astype(np.float32).reshape(len(own), 2, rows, cols)


def view_of(state, player: int) -> np.ndarray:
    """The view of a :class:`~boardlab.games.connect4.ConnectFourState` for ``player``.

    For player 1 this is the study's ``switch_players()``: the same cells with
    the stones' owners exchanged, so player 1 sees itself as the first player.
    """
    game = state.game
    return views_from_boards([state.boards[player]], [state.boards[1 - player]], game.rows, game.cols)[0]


def mirror_view(view: np.ndarray) -> np.ndarray:
    """The view reflected about the centre column (``ConnectFourState.mirror()``)."""
    return np.ascontiguousarray(view[..., ::-1])


def is_own_mirror_view(view: np.ndarray) -> bool:
    return bool(np.array_equal(view, view[..., ::-1]))


class QNet(nn.Module):
    """Common interface of the Q-networks."""

    encoding: str = ""

    def __init__(self, rows: int, cols: int) -> None:
        super().__init__()
        self.rows, self.cols = rows, cols

    def all_values(self, views: torch.Tensor) -> torch.Tensor:  # (n, 2, R, C) -> (n, cols)
        raise NotImplementedError

    def selected_values(self, views: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:  # -> (n,)
        raise NotImplementedError

    def numpy_values(self, views: np.ndarray) -> np.ndarray:
        """:meth:`all_values` computed in NumPy on the live weights (no autograd, ~10x less overhead).

        The arrays share memory with the parameters, which the optimizer and
        ``load_state_dict`` update in place, so they always see current weights.
        """
        raise NotImplementedError

    def sgd_step(self, views: np.ndarray, actions: np.ndarray, targets: np.ndarray, lr: float) -> float:
        """One step of plain SGD on ``0.5 * sum((Q(view, action) - target)^2)``; returns that loss.

        The same update as ``torch.optim.SGD`` after ``loss.backward()`` (a test
        checks it), with the backward pass written out in NumPy and applied in
        place to the module's parameters: for networks this small, autograd's
        per-call overhead was two thirds of the training time.
        """
        layers = self._layers()
        x = self._first_inputs(views, actions)
        acts = [x]
        h = x
        for w, b in layers[:-1]:
            h = self._activate(h @ w.T + b)
            acts.append(h)
        w, b = layers[-1]
        out = h @ w.T + b
        grad_out = np.zeros_like(out)
        rows = np.arange(len(views))
        column = np.zeros(len(views), dtype=np.int64) if out.shape[1] == 1 else actions
        err = out[rows, column] - targets
        grad_out[rows, column] = err
        grads = []
        delta = grad_out
        for index in range(len(layers) - 1, -1, -1):
            w, b = layers[index]
            grads.append((delta.T @ acts[index], delta.sum(axis=0)))
            if index:
                delta = (delta @ w) * self._activation_slope(acts[index])
        for (w, b), (gw, gb) in zip(reversed(layers), grads):
            w -= lr * gw
            b -= lr * gb
        return float(0.5 * (err**2).sum())

    def _first_inputs(self, views: np.ndarray, actions: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _activate(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _activation_slope(self, activated: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        linears = [m for m in self.body if isinstance(m, nn.Linear)]
        cached = self.__dict__.get("_np_layers")
        if cached is None or any(w.ctypes.data != m.weight.data_ptr() for (w, _), m in zip(cached, linears)):
            cached = [(m.weight.detach().numpy(), m.bias.detach().numpy()) for m in linears]
            self.__dict__["_np_layers"] = cached
        return cached


class StudyQNet(QNet):
    """The study's network: cells and action in, one value out."""

    encoding = "study"

    def __init__(self, rows: int, cols: int, hidden: Sequence[int]) -> None:
        super().__init__(rows, cols)
        sizes = [rows * cols + 1, *hidden]
        layers: list[nn.Module] = []
        for a, b in zip(sizes, sizes[1:]):
            layers += [nn.Linear(a, b), nn.Sigmoid()]
        layers.append(nn.Linear(sizes[-1], 1))
        self.body = nn.Sequential(*layers)
        # the study draws every initial weight uniformly from [-1, 1] (PyBrain's default)
        with torch.no_grad():
            for p in self.parameters():
                p.uniform_(-1.0, 1.0)

    def _inputs(self, views: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        cells = (views[:, 0] + 2.0 * views[:, 1]).reshape(len(views), -1)
        return torch.cat([cells, actions.to(cells.dtype).unsqueeze(1)], dim=1)

    def all_values(self, views: torch.Tensor) -> torch.Tensor:
        n = len(views)
        actions = torch.arange(self.cols).repeat(n)
        out = self.body(self._inputs(views.repeat_interleave(self.cols, dim=0), actions))
        return out.reshape(n, self.cols)

    def selected_values(self, views: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        return self.body(self._inputs(views, actions)).squeeze(1)

    def _first_inputs(self, views: np.ndarray, actions: np.ndarray) -> np.ndarray:
        cells = (views[:, 0] + 2.0 * views[:, 1]).reshape(len(views), -1)
        return np.concatenate([cells, np.asarray(actions, dtype=np.float32)[:, None]], axis=1)

    def _activate(self, x: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):  # exp overflow means a sigmoid of exactly 0: harmless
            return 1.0 / (1.0 + np.exp(-x))

    def _activation_slope(self, activated: np.ndarray) -> np.ndarray:
        return activated * (1.0 - activated)

    def numpy_values(self, views: np.ndarray) -> np.ndarray:
        layers = self._layers()
        w1, b1 = layers[0]
        n_cells = self.rows * self.cols
        cells = (views[:, 0] + 2.0 * views[:, 1]).reshape(len(views), n_cells)
        # first layer split: W [cells, a] = W_cells cells + a * w_action, for every action at once
        pre = (cells @ w1[:, :n_cells].T + b1)[:, None, :] + np.arange(self.cols, dtype=np.float32)[None, :, None] * w1[:, n_cells]
        h = self._activate(pre)
        for w, b in layers[1:-1]:
            h = self._activate(h @ w.T + b)
        w, b = layers[-1]
        return (h @ w.T + b)[..., 0]


class PlanesQNet(QNet):
    """Two one-hot planes in, every action's value out."""

    encoding = "planes"

    def __init__(self, rows: int, cols: int, hidden: Sequence[int]) -> None:
        super().__init__(rows, cols)
        sizes = [2 * rows * cols, *hidden]
        layers: list[nn.Module] = []
        for a, b in zip(sizes, sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        layers.append(nn.Linear(sizes[-1], cols))
        self.body = nn.Sequential(*layers)

    def all_values(self, views: torch.Tensor) -> torch.Tensor:
        return self.body(views.reshape(len(views), -1))

    def selected_values(self, views: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        return self.all_values(views).gather(1, actions.long().unsqueeze(1)).squeeze(1)

    def _first_inputs(self, views: np.ndarray, actions: np.ndarray) -> np.ndarray:
        return views.reshape(len(views), -1)

    def _activate(self, x: np.ndarray) -> np.ndarray:
        return np.maximum(x, 0.0)

    def _activation_slope(self, activated: np.ndarray) -> np.ndarray:
        return (activated > 0).astype(activated.dtype)

    def numpy_values(self, views: np.ndarray) -> np.ndarray:
        h = views.reshape(len(views), -1)
        layers = self._layers()
        for w, b in layers[:-1]:
            h = np.maximum(h @ w.T + b, 0.0)
        w, b = layers[-1]
        return h @ w.T + b


def make_qnet(encoding: str, rows: int, cols: int, hidden: Sequence[int]) -> QNet:
    if encoding == "study":
        return StudyQNet(rows, cols, hidden)
    if encoding == "planes":
        return PlanesQNet(rows, cols, hidden)
    raise ValueError(f"unknown encoding {encoding!r} (known: {', '.join(ENCODINGS)})")


def q_function(net: QNet):
    """A plain function ``views (n, 2, R, C) ndarray -> values (n, cols) ndarray`` without gradients."""

    def values(views: np.ndarray) -> np.ndarray:
        return net.numpy_values(np.asarray(views, dtype=np.float32))

    return values


def greedy_actions(q, states: Sequence) -> list[int]:
    """The greedy action of each state for the player to move (values seen from its side)."""
    game = states[0].game
    players = [s.current_player() for s in states]
    views = views_from_boards([s.boards[p] for s, p in zip(states, players)], [s.boards[1 - p] for s, p in zip(states, players)], game.rows, game.cols)
    values = q(views)
    out = []
    for i, s in enumerate(states):
        legal = s.legal_actions()
        out.append(legal[int(np.argmax(values[i, legal]))])
    return out
