"""The Ticket to Ride study's classifier network, and reading one from its checkpoint to play with it.

26 features -> 180 -> 160 -> 4 classes (pass, draw cards, draw tickets, claim), as the study
(Łabno 2018) built it with TensorFlow's ``DNNClassifier``: two hidden ReLU layers, four outputs
whose softmax is the class probability. The inputs are the study's raw integers (``scale="none"``)
or each divided by the upper end of its range in the study's table (``scale="range"``); the divisor
is a buffer, saved with the weights.

A checkpoint is ``torch.save`` of a plain dict (tensors, numbers, strings), loaded with
``torch.load(..., weights_only=True)``: no pickled code runs. The study writes them
(:mod:`boardlab.studies.tickettoride.training`); the ``ttr-net`` agent reads only the network.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import torch
from pydantic import Field
from pydantic.dataclasses import dataclass
from torch import nn

from boardlab.core import config
from boardlab.core.errors import FormatError
from boardlab.nn import checkpoint

CHECKPOINT_FORMAT = "boardlab-ttr-net/1"
NUM_FEATURES = 26
NUM_CLASSES = 4
#: the upper end of each feature's range in the study's table, in the order of boardlab.bots.tickettoride.features.FEATURE_NAMES
RANGES = (100, 120, 5, 120, 120, 30, 30, 45, 200, 120, 40, 40, 40, 40, 5,
          45, 45, 45, 45, 45, 45, 45, 45, 30, 30, 200)

#: the units of a hidden layer
Width = Annotated[int, Field(ge=1, le=100_000)]
#: the inputs: none (the study's raw integers) or range (each divided by the top of its range)
Scale = Literal["none", "range"]


@dataclass(config=config.STRICT)
class Shape:
    """The part of a checkpoint's config that decides the network (the rest only decided its training)."""

    hidden1: Width = 180
    hidden2: Width = 160
    scale: Scale = "none"


SHAPE_KEYS = frozenset(f.name for f in fields(Shape))


class TTRNet(nn.Module):
    """26 -> hidden1 -> hidden2 -> 4 with ReLU; the input scale is a buffer, saved with the weights."""

    def __init__(self, hidden1: int = 180, hidden2: int = 160, scale: str = "none") -> None:
        super().__init__()
        divisor = torch.tensor(RANGES, dtype=torch.float32) if scale == "range" else torch.ones(NUM_FEATURES)
        self.register_buffer("divisor", divisor)
        self.layers = nn.Sequential(
            nn.Linear(NUM_FEATURES, hidden1), nn.ReLU(),
            nn.Linear(hidden1, hidden2), nn.ReLU(),
            nn.Linear(hidden2, NUM_CLASSES),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x / self.divisor)

    def numpy_weights(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The layers as (W, b) float64 arrays with the divisor folded into the first, for torch-free play."""
        linears = [m for m in self.layers if isinstance(m, nn.Linear)]
        out = []
        for i, layer in enumerate(linears):
            w = layer.weight.detach().double().numpy().copy()
            if i == 0:
                w = w / self.divisor.double().numpy()[None, :]
            out.append((w, layer.bias.detach().double().numpy().copy()))
        return out


def read(path: str | Path) -> dict[str, Any]:
    """The payload of the checkpoint at ``path``; a missing file or any other file is an error naming it."""
    return checkpoint.read_checkpoint(path, CHECKPOINT_FORMAT, "Ticket to Ride network",
                                      missing=f"no Ticket to Ride network at {path}")


def damaged(path: str | Path, exc: Exception) -> FormatError:
    """The error for a checkpoint whose contents do not fit what it claims to be."""
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return FormatError(f"{path}: damaged Ticket to Ride network ({first[:200]})")


def restore(model: TTRNet, payload: dict[str, Any], path: str | Path) -> TTRNet:
    """``model`` with the payload's weights, ready to play; damaged or non-finite weights are a
    FormatError naming ``path``."""
    try:
        model.load_state_dict(payload["state_dict"])
    except (KeyError, TypeError, RuntimeError, ValueError) as exc:
        raise damaged(path, exc) from None
    if not all(torch.isfinite(p).all() for p in model.parameters()):
        raise FormatError(f"{path}: the weights are not all finite numbers")
    model.eval()
    return model


def load_model(path: str | Path) -> TTRNet:
    """The network of the checkpoint at ``path`` (its shape checked, its weights finite)."""
    payload = read(path)
    raw = payload.get("config")
    if isinstance(raw, dict):
        # the training settings stored beside the shape are the study's to check
        raw = {key: value for key, value in raw.items() if key in SHAPE_KEYS}
    shape = config.load(Shape, raw, str(path))
    return restore(TTRNet(shape.hidden1, shape.hidden2, shape.scale), payload, path)
