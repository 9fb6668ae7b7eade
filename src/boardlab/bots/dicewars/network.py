"""Dice Wars win-probability networks on the SUI study's 552 inputs: each seat's chance to win.

Two architectures (``NetConfig.arch``), both reading exactly the study's 552 inputs:

* ``study``: as the study (dicewars-ai.txt) built it in Keras: 552 -> 1024 -> 1024 -> 4, two dense
  layers of LeakyReLU units, each followed by dropout 0.4, and a softmax over the 4 seats.
* ``regions``: the board read as a board. A fixed first stage (no weights) decodes the map, owners
  and dice from the inputs and counts, for every seat, its largest connected region, areas, dice,
  border areas and dice, and number of regions; one small MLP, shared by the seats, scores each
  seat from its own counts and its opponents' in turn order after it (and which seat it is); a
  softmax over the seats. Why: the winner is decided by connected regions, which an MLP over 406
  adjacency bits of a random map cannot compute from a few thousand games (the ``study`` network
  learns the training games instead), and by symmetry a seat's chances depend on its counts, not
  on how the areas are numbered.

Both train on categorical cross-entropy with Adam, batches of 256. The study trained a fixed 10
epochs and tested on boards shuffled out of the same games; here training stops when the loss on
a validation set of *held-out games* has not improved for ``patience`` epochs, and the best
epoch's weights are kept.

A model file is ``torch.save`` of a plain dict (tensors, numbers, strings), read back with
``torch.load(..., weights_only=True)`` through :mod:`boardlab.nn.checkpoint`, so no pickled code
runs. The weights are stored as float32 (about 6.5 MB): the study's size.
"""

from __future__ import annotations

import io
import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from torch import nn

from boardlab.core.errors import BoardlabError, FormatError
from boardlab.core.records import write_atomic
from boardlab.core.rng import derive_seed
from boardlab.nn import checkpoint
from boardlab.nn.dicewars_features import feature_count

CHECKPOINT_FORMAT = "boardlab-dicewars-winprob/1"
ARCHS = ("study", "regions")


@dataclass
class NetConfig:
    """Everything that decides a training run (saved in the model file)."""

    areas: int = 29
    players: int = 4
    arch: str = "study"
    hidden: int = 1024
    dropout: float = 0.4
    slope: float = 0.01  # LeakyReLU's negative slope (Keras' LeakyReLU default is 0.3; the study gave none)
    batch_size: int = 256
    lr: float = 1e-3
    max_epochs: int = 30
    patience: int = 3
    seed: int = 1
    #: renumber the areas of every training board at random (the rules do not care how areas are numbered):
    #: the map can no longer be recognised by its adjacency bits, so a game cannot be learnt by heart
    permute_areas: bool = False

    def check(self) -> None:
        for name in ("areas", "players", "hidden", "batch_size", "max_epochs", "patience"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100_000:
                raise BoardlabError(f"--{name.replace('_', '-')} must be a whole number from 1 to 100000, not {value!r}")
        if not isinstance(self.permute_areas, bool):
            raise BoardlabError(f"permute_areas must be true or false, not {self.permute_areas!r}")
        if self.arch not in ARCHS:
            raise BoardlabError(f"--arch must be one of {', '.join(ARCHS)}, not {self.arch!r}")
        if self.permute_areas and self.arch != "study":
            raise BoardlabError(f"--permute-areas is for --arch study: the {self.arch} network does not see how areas are numbered")
        for name, low, high in (("dropout", 0.0, 0.99), ("slope", 0.0, 1.0), ("lr", 1e-9, 1.0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and low <= value <= high):
                raise BoardlabError(f"--{name.replace('_', '-')} must be a number from {low} to {high}, not {value!r}")

    @classmethod
    def from_dict(cls, raw: Any, where: str) -> "NetConfig":
        if not isinstance(raw, dict):
            raise FormatError(f"{where}: the config is not an object")
        unknown = sorted(set(raw) - {f.name for f in fields(cls)})
        if unknown:
            raise FormatError(f"{where}: unknown config keys {unknown}")
        try:
            config = cls(**raw)
            config.check()
        except (BoardlabError, TypeError) as exc:
            raise FormatError(f"{where}: {exc}") from None
        return config


class WinProbNet(nn.Module):
    """The ``study`` network, 552 -> hidden -> hidden -> players. Every network here is
    ``score(derive(x))``: :meth:`forward` gives logits, :func:`probabilities` the softmax; ``derive``
    is what training may compute once per board (here nothing)."""

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        h = config.hidden
        self.players = config.players
        self.layers = nn.Sequential(
            nn.Linear(feature_count(config.areas, config.players), h), nn.LeakyReLU(config.slope), nn.Dropout(config.dropout),
            nn.Linear(h, h), nn.LeakyReLU(config.slope), nn.Dropout(config.dropout),
            nn.Linear(h, config.players),
        )

    def derive(self, x: torch.Tensor) -> torch.Tensor:
        return x

    def score(self, derived: torch.Tensor) -> torch.Tensor:
        return self.layers(derived)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.score(self.derive(x))


#: per-seat counts of :class:`RegionNet`'s fixed stage, in this order
SEAT_COUNTS = ("largest region / areas", "areas / areas", "dice / all dice", "dice / (8 areas)",
               "border areas / areas", "border dice / all dice", "regions / areas", "alive")


class RegionNet(nn.Module):
    """The ``regions`` network (see the module's doc): fixed counts per seat, then one MLP shared by the seats."""

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        n, k, h = config.areas, config.players, config.hidden
        self.areas, self.players = n, k
        rows, cols = np.triu_indices(n, k=1)
        self.register_buffer("rows", torch.from_numpy(rows), persistent=False)
        self.register_buffer("cols", torch.from_numpy(cols), persistent=False)
        # the squarings that make reachability out of adjacency: paths of up to 2**steps areas
        self.steps = max(1, math.ceil(math.log2(n)))
        width = k * len(SEAT_COUNTS) + 1 + k  # the seat's counts, then each opponent's in turn order; turn fade; seat one-hot
        self.layers = nn.Sequential(
            nn.Linear(width, h), nn.LeakyReLU(config.slope), nn.Dropout(config.dropout),
            nn.Linear(h, h), nn.LeakyReLU(config.slope), nn.Dropout(config.dropout),
            nn.Linear(h, 1),
        )

    def seat_counts(self, x: torch.Tensor) -> torch.Tensor:
        """(batch, players, len(SEAT_COUNTS)) from (batch, 552) inputs."""
        n, k = self.areas, self.players
        m = n * (n - 1) // 2
        batch = len(x)
        adjacency = x.new_zeros(batch, n, n)
        adjacency[:, self.rows, self.cols] = x[:, :m]
        adjacency = adjacency + adjacency.transpose(1, 2)
        owner = x[:, m:m + n * k].reshape(batch, n, k)
        dice = x[:, m + n * k:m + n * k + n] * 8.0
        same = owner @ owner.transpose(1, 2)
        reach = (adjacency * same + torch.eye(n, dtype=x.dtype)).clamp(max=1.0)
        for _ in range(self.steps):
            reach = (reach @ reach).clamp(max=1.0)
        region = reach.sum(dim=2)  # each area's connected region (areas)
        border = ((adjacency * (1.0 - same)).sum(dim=2) > 0).to(x.dtype)
        all_dice = dice.sum(dim=1, keepdim=True).clamp(min=1.0)
        areas = owner.sum(dim=1)
        counts = [
            (region[:, :, None] * owner).amax(dim=1) / n,
            areas / n,
            (dice[:, :, None] * owner).sum(dim=1) / all_dice,
            (dice[:, :, None] * owner).sum(dim=1) / (8.0 * n),
            (border[:, :, None] * owner).sum(dim=1) / n,
            ((border * dice)[:, :, None] * owner).sum(dim=1) / all_dice,
            (owner / region[:, :, None]).sum(dim=1) / n,
            (areas > 0).to(x.dtype),
        ]
        return torch.stack(counts, dim=2)

    def derive(self, x: torch.Tensor) -> torch.Tensor:
        """(batch, players, width): every seat's input row to the shared MLP."""
        k = self.players
        counts = self.seat_counts(x)
        order = (torch.arange(k)[:, None] + torch.arange(k)[None, :]) % k  # seat s, then s+1, s+2, ...
        rows = counts[:, order].reshape(len(x), k, -1)
        fade = x[:, -1:].expand(-1, k)[:, :, None]
        seat = torch.eye(k, dtype=x.dtype).expand(len(x), k, k)
        return torch.cat([rows, fade, seat], dim=2)

    def score(self, derived: torch.Tensor) -> torch.Tensor:
        logits = self.layers(derived).squeeze(-1)
        alive = derived[:, :, len(SEAT_COUNTS) - 1] > 0
        return logits.masked_fill(~alive, -1e9)  # a seat with no area cannot win

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.score(self.derive(x))


def build(config: NetConfig) -> nn.Module:
    """A fresh network of ``config.arch``."""
    return RegionNet(config) if config.arch == "regions" else WinProbNet(config)


def probabilities(model: nn.Module, x: np.ndarray, batch: int = 4096) -> np.ndarray:
    """Each seat's chance to win for every row of ``x`` (float64, rows sum to 1)."""
    model.eval()
    out = []
    with torch.inference_mode():
        for start in range(0, len(x), batch):
            xt = torch.from_numpy(np.ascontiguousarray(x[start:start + batch], dtype=np.float32))
            out.append(torch.softmax(model(xt).double(), dim=1).numpy())
    return np.concatenate(out) if out else np.zeros((0, model.players))


def mean_log_loss(model: nn.Module, x: np.ndarray, y: np.ndarray) -> float:
    p = probabilities(model, x)
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
    config.check()
    torch.manual_seed(derive_seed(config.seed, "dicewars-winprob-init"))
    model = build(config)
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


def save(path: str | Path, model: nn.Module, config: NetConfig, extra: dict[str, Any] | None = None) -> Path:
    payload = {"format": CHECKPOINT_FORMAT, "config": asdict(config),
               "state_dict": {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()},
               "extra": dict(extra or {})}
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    write_atomic(Path(path), buffer.getvalue())
    return Path(path)


def load(path: str | Path) -> tuple[nn.Module, NetConfig, dict[str, Any]]:
    """A model written by :func:`save`; anything else is one error naming the file."""
    path = Path(path)
    payload = checkpoint.read_checkpoint(path, CHECKPOINT_FORMAT, "Dice Wars win-probability network",
                                         missing=f"no Dice Wars win-probability network at {path}")
    config = NetConfig.from_dict(payload.get("config"), str(path))
    model = build(config)
    try:
        model.load_state_dict(payload["state_dict"])
    except (KeyError, TypeError, RuntimeError, ValueError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise FormatError(f"{path}: damaged Dice Wars win-probability network ({first[:200]})") from None
    if not all(torch.isfinite(p).all() for p in model.parameters()):
        raise FormatError(f"{path}: the weights are not all finite numbers")
    model.eval()
    return model, config, dict(payload.get("extra", {}))


def is_checkpoint(path: str | Path) -> bool:
    return checkpoint.is_checkpoint(path, CHECKPOINT_FORMAT)
