"""Dice Wars win-probability networks on the SUI study's 552 inputs: each seat's chance to win.

Two architectures (``NetConfig.arch``), both reading exactly the study's 552 inputs:

* ``study``: as the study (the Dice Wars study, docs/references.md) built it in Keras:
  552 -> 1024 -> 1024 -> 4, two dense layers of LeakyReLU units, each followed by dropout 0.4,
  and a softmax over the 4 seats.
* ``regions``: the board read as a board. A fixed first stage (no weights) decodes the map, owners
  and dice from the inputs and counts, for every seat, its largest connected region, areas, dice,
  border areas and dice, and number of regions; one small MLP, shared by the seats, scores each
  seat from its own counts and its opponents' in turn order after it (and which seat it is); a
  softmax over the seats. Why: the winner is decided by connected regions, which an MLP over 406
  adjacency bits of a random map cannot compute from a few thousand games (the ``study`` network
  learns the training games instead), and by symmetry a seat's chances depend on its counts, not
  on how the areas are numbered.

Both train on categorical cross-entropy with Adam (:mod:`boardlab.studies.dicewars.winprob_training`);
:class:`NetConfig` holds everything that decides a run.

A model file is ``torch.save`` of a plain dict (tensors, numbers, strings), read back with
``torch.load(..., weights_only=True)`` through :mod:`boardlab.nn.checkpoint`, so no pickled code
runs. The weights are stored as float32 (about 6.5 MB): the study's size.
"""

from __future__ import annotations

import io
import math
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import numpy as np
import torch
from pydantic import Field
from pydantic.dataclasses import dataclass
from torch import nn

from boardlab.bots.dicewars.features import feature_count
from boardlab.core import config as checked
from boardlab.core.errors import FormatError
from boardlab.core.records import write_atomic
from boardlab.nn import checkpoint

CHECKPOINT_FORMAT = "boardlab-dicewars-winprob/1"
Arch = Literal["study", "regions"]
ARCHS: tuple[str, ...] = get_args(Arch)
#: the whole-number settings' range
Count = Annotated[int, Field(ge=1, le=100_000)]


@dataclass(config=checked.STRICT)
class NetConfig:
    """Everything that decides a training run (saved in the model file)."""

    areas: Count = 29
    players: Count = 4
    arch: Arch = "study"
    hidden: Count = 1024
    dropout: Annotated[float, Field(ge=0.0, le=0.99)] = 0.4
    slope: Annotated[float, Field(ge=0.0, le=1.0)] = 0.01  # LeakyReLU's negative slope (Keras' LeakyReLU default is 0.3; the study gave none)
    batch_size: Count = 256
    lr: Annotated[float, Field(ge=1e-9, le=1.0)] = 1e-3
    max_epochs: Count = 30
    patience: Count = 3
    seed: int = 1
    #: renumber the areas of every training board at random (the rules do not care how areas are numbered):
    #: the map can no longer be recognised by its adjacency bits, so a game cannot be learnt by heart
    permute_areas: bool = False

    def __post_init__(self) -> None:
        if self.permute_areas and self.arch != "study":
            raise ValueError(f"permute_areas is for arch study: the {self.arch} network does not see how areas are numbered")


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
    config = checked.load(NetConfig, payload.get("config"), str(path))
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
