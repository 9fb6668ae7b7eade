"""Training the Dice Wars win-probability networks (:mod:`boardlab.bots.dicewars.network`).

Categorical cross-entropy with Adam, batches of ``batch_size`` (256, the study's). The study trained
a fixed 10 epochs and tested on boards shuffled out of the same games; here training stops when the
loss on a validation set of *held-out games* has not improved for ``patience`` epochs, and the best
epoch's weights are kept.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import torch
from torch import nn

from boardlab.bots.dicewars import network
from boardlab.bots.dicewars.network import NetConfig
from boardlab.core.rng import derive_seed


def mean_log_loss(model: nn.Module, x: np.ndarray, y: np.ndarray) -> float:
    p = network.probabilities(model, x)
    return float(-np.mean(np.log(np.clip(p[np.arange(len(y)), y], 1e-15, 1.0))))


def _derived(model: nn.Module, x: np.ndarray, batch: int = 4096) -> torch.Tensor:
    """``model.derive`` of every row, computed once (it has no weights)."""
    with torch.no_grad():  # not inference_mode: the result is trained on
        parts = [model.derive(torch.from_numpy(np.ascontiguousarray(x[s:s + batch], dtype=np.float32)))
                 for s in range(0, len(x), batch)]
    return torch.cat(parts) if parts else torch.zeros(0)


class AreaShuffle:
    """Renumbers the areas of a batch of 552-input rows, a random permutation per row."""

    def __init__(self, areas: int, players: int, seed: int) -> None:
        self.n, self.players = areas, players
        rows, cols = np.triu_indices(areas, k=1)
        pair = np.full((areas, areas), -1, dtype=np.int64)
        pair[rows, cols] = np.arange(len(rows))
        pair[cols, rows] = np.arange(len(rows))
        self.pair, self.rows, self.cols = torch.from_numpy(pair), torch.from_numpy(rows), torch.from_numpy(cols)
        self.generator = torch.Generator().manual_seed(seed)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        n, k = self.n, self.players
        m = n * (n - 1) // 2
        perm = torch.argsort(torch.rand(len(x), n, generator=self.generator), dim=1)  # new area i is old area perm[i]
        adjacency = torch.gather(x[:, :m], 1, self.pair[perm[:, self.rows], perm[:, self.cols]])
        owners = torch.gather(x[:, m:m + n * k].reshape(-1, n, k), 1, perm[:, :, None].expand(-1, n, k)).reshape(-1, n * k)
        dice = torch.gather(x[:, m + n * k:m + n * k + n], 1, perm)
        return torch.cat([adjacency, owners, dice, x[:, m + n * k + n:]], dim=1)


def train(config: NetConfig, x_train: np.ndarray, y_train: np.ndarray, x_val: np.ndarray, y_val: np.ndarray,
          on_epoch: Callable[[int, dict[str, float]], None] | None = None) -> tuple[nn.Module, dict[str, Any]]:
    """Adam on cross-entropy until the validation loss has not improved for ``patience`` epochs (or
    ``max_epochs``); the best epoch's weights and the history (per epoch: train and validation loss)."""
    torch.manual_seed(derive_seed(config.seed, "dicewars-winprob-init"))
    model = network.build(config)
    optimiser = torch.optim.Adam(model.parameters(), lr=config.lr)
    shuffle = AreaShuffle(config.areas, config.players, derive_seed(config.seed, "dicewars-winprob-areas")) if config.permute_areas else None
    # the fixed stage once per board, not once per epoch (the study network's is the identity; shuffled areas change it)
    xt = torch.from_numpy(np.ascontiguousarray(x_train, dtype=np.float32)) if shuffle else _derived(model, x_train)
    yt = torch.from_numpy(np.asarray(y_train, dtype=np.int64))
    history: dict[str, list[float]] = {"train_loss": [], "validation_loss": []}
    best_loss, best_epoch, best_state = math.inf, 0, None
    for epoch in range(1, config.max_epochs + 1):
        model.train()
        order = torch.randperm(len(xt), generator=torch.Generator().manual_seed(derive_seed(config.seed, "dicewars-winprob-batches", epoch)))
        total = 0.0
        for start in range(0, len(order), config.batch_size):
            index = order[start:start + config.batch_size]
            optimiser.zero_grad()
            batch = xt[index] if shuffle is None else shuffle(xt[index])
            loss = nn.functional.cross_entropy(model.score(batch), yt[index])
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(index)
        val = mean_log_loss(model, x_val, y_val)
        history["train_loss"].append(total / max(1, len(order)))
        history["validation_loss"].append(val)
        if val < best_loss:
            best_loss, best_epoch = val, epoch
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        if on_epoch is not None:
            on_epoch(epoch, {"train_loss": history["train_loss"][-1], "validation_loss": val, "best_epoch": best_epoch})
        if epoch - best_epoch >= config.patience:
            break
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return model, {"history": history, "best_epoch": best_epoch, "epochs": len(history["train_loss"]),
                   "best_validation_loss": best_loss}
