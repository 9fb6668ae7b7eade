"""Training the Ticket to Ride study's classifier (:mod:`boardlab.bots.tickettoride.network`) by AdaGrad.

As the study (Łabno 2018) trained it with TensorFlow's ``DNNClassifier``:
cross-entropy summed over a batch of 250 decisions (``tf.losses.Reduction.SUM``),
AdaGrad with TensorFlow's defaults for that estimator (learning rate 0.05,
initial accumulator 0.1). The inputs are the study's raw integers by default
(``scale="none"``); ``scale="range"`` divides each by the upper end of its range
in the study's table.

Training is resumable: after every epoch the whole run (weights, the optimiser's
accumulators, the epoch, the history) is written atomically to the checkpoint,
and a rerun with the same config continues from it. The batches of epoch ``e``
come from a generator seeded by ``(seed, e)``, so a resumed run makes exactly
the batches an uninterrupted one would.

A checkpoint is ``torch.save`` of a plain dict (tensors, numbers, strings),
loaded with ``torch.load(..., weights_only=True)``: no pickled code runs.
The rows come from :mod:`boardlab.studies.tickettoride.dataset` as arrays: this module
plays no game.
"""

from __future__ import annotations

import io
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any, Callable, Literal

import numpy as np
import pydantic.dataclasses
import torch
from pydantic import Field
from torch import nn

from boardlab.bots.tickettoride.network import (
    CHECKPOINT_FORMAT,
    NUM_CLASSES,
    Scale,
    TTRNet,
    Width,
    damaged,
    read,
    restore,
)
from boardlab.core.config import STRICT
from boardlab.core.config import load as load_config
from boardlab.core.errors import BoardlabError
from boardlab.core.records import write_atomic
from boardlab.core.rng import derive_seed
from boardlab.nn import checkpoint

#: epochs and decisions per batch
Count = Annotated[int, Field(ge=1, le=100_000)]


@pydantic.dataclasses.dataclass(config=STRICT)
class NetConfig:
    """Everything that decides a training run (saved in the checkpoint)."""

    hidden1: Width = 180
    hidden2: Width = 160
    epochs: Count = 40
    batch_size: Count = 250
    lr: Annotated[float, Field(gt=0, allow_inf_nan=False)] = 0.05
    initial_accumulator: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.1
    loss: Literal["sum", "mean"] = "sum"  # sum (the study) or mean over the batch
    scale: Scale = "none"                 # none (the study's raw integers) or range
    seed: int = 1


def evaluate(model: TTRNet, x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """On rows ``x`` with classes ``y``: accuracy, mean cross-entropy (``loss``), mean confidence (the
    probability the net gives its own choice), and the confusion matrix [true][predicted]."""
    if len(x) == 0:
        return {"rows": 0, "accuracy": math.nan, "loss": math.nan, "confidence": math.nan,
                "confusion": [[0] * NUM_CLASSES for _ in range(NUM_CLASSES)]}
    model.eval()
    with torch.no_grad():
        logits = model(torch.from_numpy(np.asarray(x, dtype=np.float32)))
        target = torch.from_numpy(np.asarray(y, dtype=np.int64))
        loss = float(nn.functional.cross_entropy(logits, target))
        probs = torch.softmax(logits, dim=1)
        chosen = probs.argmax(dim=1)
        confidence = float(probs.max(dim=1).values.mean())
    confusion = np.zeros((NUM_CLASSES, NUM_CLASSES), dtype=np.int64)
    np.add.at(confusion, (np.asarray(y), chosen.numpy()), 1)
    return {"rows": int(len(x)), "accuracy": float((chosen == target).float().mean()), "loss": loss,
            "confidence": confidence, "confusion": confusion.tolist()}


@dataclass
class Run:
    """A training run in progress or done: what a checkpoint holds."""

    model: TTRNet
    optimiser: torch.optim.Optimizer
    config: NetConfig
    epoch: int
    history: dict[str, list[float]]
    extra: dict[str, Any]


def new_run(config: NetConfig, extra: dict[str, Any] | None = None) -> Run:
    torch.manual_seed(derive_seed(config.seed, "ttr-net-init"))
    model = TTRNet(config.hidden1, config.hidden2, config.scale)
    optimiser = torch.optim.Adagrad(model.parameters(), lr=config.lr, initial_accumulator_value=config.initial_accumulator)
    history: dict[str, list[float]] = {k: [] for k in ("train_loss", "train_accuracy", "test_loss", "test_accuracy")}
    return Run(model, optimiser, config, 0, history, dict(extra or {}))


def train_steps(run: Run, x: np.ndarray, y: np.ndarray, rows: int | None = None, epoch_seed: int = 0) -> float:
    """Batches over ``x`` in the order of ``epoch_seed`` (all rows, or the first ``rows`` of that order);
    the mean loss per row."""
    config = run.config
    run.model.train()
    xt = torch.from_numpy(np.asarray(x, dtype=np.float32))
    yt = torch.from_numpy(np.asarray(y, dtype=np.int64))
    order = torch.randperm(len(xt), generator=torch.Generator().manual_seed(derive_seed(config.seed, "ttr-net-batches", epoch_seed)))
    if rows is not None:
        order = order[:rows]
    total = 0.0
    for start in range(0, len(order), config.batch_size):
        index = order[start:start + config.batch_size]
        run.optimiser.zero_grad()
        loss = nn.functional.cross_entropy(run.model(xt[index]), yt[index], reduction=config.loss)
        loss.backward()
        run.optimiser.step()
        total += float(loss.detach()) * (1 if config.loss == "sum" else len(index))
    return total / max(1, len(order))


def train(run: Run, x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, y_test: np.ndarray,
          checkpoint: str | Path | None = None, on_epoch: Callable[[int, dict[str, float]], None] | None = None) -> Run:
    """Train to ``run.config.epochs`` from ``run.epoch`` on (a resumed run goes on where it stopped),
    writing the checkpoint after every epoch."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a network this small loses time to thread hand-offs
    try:
        while run.epoch < run.config.epochs:
            train_steps(run, x_train, y_train, epoch_seed=run.epoch + 1)
            run.epoch += 1
            fit = evaluate(run.model, x_train, y_train)
            test = evaluate(run.model, x_test, y_test)
            point = {"train_loss": fit["loss"], "train_accuracy": fit["accuracy"], "test_loss": test["loss"],
                     "test_accuracy": test["accuracy"]}
            for key, value in point.items():
                run.history[key].append(value)
            if checkpoint is not None:
                save(checkpoint, run)
            if on_epoch is not None:
                on_epoch(run.epoch, point)
    finally:
        torch.set_num_threads(threads)
    run.model.eval()
    return run


def save(path: str | Path, run: Run) -> None:
    """Write the run atomically (weights, optimiser, epoch, history, extra facts)."""
    payload = {
        "format": CHECKPOINT_FORMAT,
        "config": asdict(run.config),
        "state_dict": {k: v.detach().clone() for k, v in run.model.state_dict().items()},
        "optimiser": run.optimiser.state_dict(),
        "epoch": run.epoch,
        "history": run.history,
        "extra": run.extra,
    }
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    write_atomic(Path(path), buffer.getvalue())


def load(path: str | Path) -> Run:
    """A run written by :func:`save` (``weights_only=True``); any other file is a FormatError naming it."""
    path = Path(path)
    payload = read(path)
    config = load_config(NetConfig, payload.get("config"), str(path))
    run = new_run(config)
    restore(run.model, payload, path)
    try:
        if "optimiser" in payload:
            run.optimiser.load_state_dict(payload["optimiser"])
        run.epoch = int(payload.get("epoch", 0))
        run.history = {k: [float(v) for v in vs] for k, vs in dict(payload.get("history", {})).items()}
        run.extra = dict(payload.get("extra", {}))
    except (KeyError, TypeError, RuntimeError, ValueError) as exc:
        raise damaged(path, exc) from None
    return run


def is_checkpoint(path: str | Path) -> bool:
    return checkpoint.is_checkpoint(path, CHECKPOINT_FORMAT)


def curves_png(history: dict[str, list[float]], path: str | Path, title: str = "") -> Path:
    """The learning curves (loss and accuracy, training and held-out games, per epoch) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = list(range(1, len(history.get("train_loss", [])) + 1))
    if not epochs:
        raise BoardlabError("no epoch to plot")
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(epochs, history["train_loss"], label="training games")
    left.plot(epochs, history["test_loss"], label="held-out games")
    left.set_xlabel("epoch")
    left.set_ylabel("cross-entropy per decision")
    left.legend()
    right.plot(epochs, [100 * a for a in history["train_accuracy"]], label="training games")
    right.plot(epochs, [100 * a for a in history["test_accuracy"]], label="held-out games")
    right.set_xlabel("epoch")
    right.set_ylabel("decisions classified as the algorithm did (%)")
    right.legend()
    if title:
        fig.suptitle(title)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    write_atomic(Path(path), buffer.getvalue())
    return Path(path)
