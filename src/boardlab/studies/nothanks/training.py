"""The No Thanks! imitation study's training: the network of :mod:`boardlab.bots.nothanks.network`
taught the expert's values.

As in the study (the No Thanks! study in docs/references.md, its section 3):
mean squared error, Adam, up to 500 epochs. The study does not say how it
stopped "at convergence"; here a validation split carved from the training
states stops training when its loss has not improved for ``patience`` epochs,
and the best epoch's weights are kept.

A trained model is a checkpoint (:mod:`boardlab.bots.nothanks.network` describes
the file) with two JSON files beside it: ``NAME.config.json`` (the
:class:`TrainConfig`) and ``NAME.metrics.json`` (the metrics with the learning history).
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, Sequence, get_args

import numpy as np
import pydantic
import torch
from pydantic import Field
from torch import nn

from boardlab.bots.nothanks.expert import Generator, expert_value, generate_states
from boardlab.bots.nothanks.network import (
    CHECKPOINT_FORMAT,
    HIDDEN,
    MAX_HIDDEN,
    NoThanksNet,
    feature_matrix,
    read_checkpoint,
)
from boardlab.core.config import STRICT, load
from boardlab.core.errors import FormatError, SpecError
from boardlab.core.files import read_json
from boardlab.core.records import write_atomic
from boardlab.core.rng import derive_seed
from boardlab.games.nothanks import NoThanksState

#: how the expert's values become targets (see TrainConfig.labels)
Labels = Literal["as-written", "flipped"]
LABELS: tuple[str, ...] = get_args(Labels)


@pydantic.dataclasses.dataclass(config=STRICT)
class TrainConfig:
    """Everything that decides a training run; saved in the checkpoint and the metrics.

    Built with :func:`boardlab.core.config.build` (a command's options) or read with
    :func:`boardlab.core.config.load` (a stored config), so that a bad setting names its key."""

    states: Annotated[int, Field(ge=10)] = 1000  # generated states, split into training and test
    test_fraction: Annotated[float, Field(gt=0, lt=1)] = 0.2  # the study's 800/200
    validation_fraction: Annotated[float, Field(gt=0, lt=1)] = 0.1  # of the training states, for early stopping
    epochs: Annotated[int, Field(ge=1)] = 500
    patience: Annotated[int, Field(ge=1)] = 50  # epochs without a better validation loss before stopping
    batch_size: Annotated[int, Field(ge=1)] = 16
    lr: Annotated[float, Field(gt=0, allow_inf_nan=False)] = 1e-3
    #: "none", or "plateau": halve the learning rate after 10 epochs without a better validation loss
    schedule: Literal["none", "plateau"] = "none"
    hidden: Annotated[int, Field(ge=1, le=MAX_HIDDEN)] = HIDDEN
    players: Annotated[int, Field(ge=3, le=7)] = 4
    #: state generator: "plausible" (mixed habits) or "random" (see generate_state)
    generator: Generator = "plausible"
    seed: Annotated[int, Field(ge=0, lt=2**63)] = 1
    #: the expert's values as the study wrote them ("as-written": 1 = PASS), or read the other
    #: way round ("flipped": the target is 1 - value, the reading of nothanks-expert:read=flipped)
    labels: Labels = "as-written"

    def split_sizes(self) -> tuple[int, int, int]:
        """(fit, validation, test) counts: 1000 states give (720, 80, 200)."""
        test = max(1, round(self.states * self.test_fraction))
        train = self.states - test
        validation = max(1, round(train * self.validation_fraction))
        return train - validation, validation, test


def label(state: NoThanksState, labels: str = "as-written") -> float:
    """The target of ``state``: the expert's value, or 1 minus it with ``labels="flipped"``.

    Either way a value above 0.5 means PASS to the agent that reads it, so
    ``nothanks-net`` plays the reading it was trained on: flipped, it copies
    ``nothanks-expert:read=flipped`` (which passes when the value is below 0.5).
    """
    value = expert_value(state)
    return 1.0 - value if labels == "flipped" else value


def labelled(states: Sequence[NoThanksState], labels: str = "as-written") -> tuple[torch.Tensor, torch.Tensor]:
    if labels not in LABELS:
        raise SpecError(f"labels must be {' or '.join(LABELS)}, not {labels!r}")
    x = torch.from_numpy(feature_matrix(states))
    y = torch.tensor([label(s, labels) for s in states], dtype=torch.float32)
    return x, y


def evaluate_model(model: NoThanksNet, states: Sequence[NoThanksState], labels: str = "as-written") -> dict[str, Any]:
    """Agreement with the expert's TAKE/PASS (threshold 0.5) in the reading ``labels``, MSE and the confusion table.

    ``confusion[e][n]`` counts states where the expert says ``e`` and the net
    ``n`` (0 TAKE, 1 PASS).
    """
    x, y = labelled(states, labels)
    model.eval()
    with torch.no_grad():
        pred = model(x)
    expert_pass = (y > 0.5).long()
    net_pass = (pred > 0.5).long()
    confusion = [[int(((expert_pass == e) & (net_pass == n)).sum()) for n in (0, 1)] for e in (0, 1)]
    return {
        "states": len(states),
        "agreement": float((expert_pass == net_pass).float().mean()) if len(states) else math.nan,
        "mse": float(((pred - y) ** 2).mean()) if len(states) else math.nan,
        "confusion": confusion,
    }


@dataclass
class TrainResult:
    model: NoThanksNet
    config: TrainConfig
    metrics: dict[str, Any]


def train(config: TrainConfig, on_epoch: Callable[[int, float, float], None] | None = None) -> TrainResult:
    """Generate and label states, train with early stopping, evaluate on the test split.

    The states come from ``derive_seed(seed, "nothanks-imitation-data")``, the
    weights and batch order from ``torch.manual_seed(seed)``: the same config
    gives the same model. ``on_epoch(epoch, train_loss, validation_loss)``
    reports progress.
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a net this small only loses time to thread hand-offs
    try:
        return _train(config, on_epoch)
    finally:
        torch.set_num_threads(threads)


def _train(config: TrainConfig, on_epoch: Callable[[int, float, float], None] | None) -> TrainResult:
    fit_n, val_n, test_n = config.split_sizes()
    states = generate_states(
        config.states, derive_seed(config.seed, "nothanks-imitation-data"), config.players, config.generator
    )
    order = np.random.default_rng(derive_seed(config.seed, "nothanks-imitation-split")).permutation(len(states))
    states = [states[i] for i in order]
    fit_states, val_states, test_states = states[:fit_n], states[fit_n:fit_n + val_n], states[fit_n + val_n:]
    x_fit, y_fit = labelled(fit_states, config.labels)
    x_val, y_val = labelled(val_states, config.labels)

    torch.manual_seed(config.seed)
    batches = torch.Generator().manual_seed(config.seed)
    model = NoThanksNet(config.hidden)
    optimiser = torch.optim.Adam(model.parameters(), lr=config.lr)
    loss_fn = nn.MSELoss()
    plateau = (
        torch.optim.lr_scheduler.ReduceLROnPlateau(optimiser, factor=0.5, patience=10)
        if config.schedule == "plateau" else None
    )
    history: dict[str, list[float]] = {"train_loss": [], "validation_loss": []}
    best = (math.inf, 0, {k: v.clone() for k, v in model.state_dict().items()})
    for epoch in range(1, config.epochs + 1):
        model.train()
        perm = torch.randperm(fit_n, generator=batches)
        total = 0.0
        for start in range(0, fit_n, config.batch_size):
            index = perm[start:start + config.batch_size]
            optimiser.zero_grad()
            loss = loss_fn(model(x_fit[index]), y_fit[index])
            loss.backward()
            optimiser.step()
            total += loss.item() * len(index)
        model.eval()
        with torch.no_grad():
            val_loss = float(loss_fn(model(x_val), y_val))
        if plateau is not None:
            plateau.step(val_loss)
        history["train_loss"].append(total / fit_n)
        history["validation_loss"].append(val_loss)
        if on_epoch is not None:
            on_epoch(epoch, total / fit_n, val_loss)
        if val_loss < best[0]:
            best = (val_loss, epoch, {k: v.clone() for k, v in model.state_dict().items()})
        elif epoch - best[1] >= config.patience:
            break
    model.load_state_dict(best[2])
    model.eval()
    metrics = {
        "experiment": "nothanks-imitation",
        "config": asdict(config),
        "split": {"fit": fit_n, "validation": val_n, "test": test_n},
        "epochs_run": len(history["train_loss"]),
        "best_epoch": best[1],
        "history": history,
        "train": evaluate_model(model, fit_states, config.labels),
        "test": evaluate_model(model, test_states, config.labels),
    }
    return TrainResult(model, config, metrics)


def save_checkpoint(path: str | Path, model: NoThanksNet, config: TrainConfig, metrics: dict[str, Any] | None = None) -> None:
    """Write the model atomically; ``metrics`` keeps only its plain summary (no history)."""
    summary = {k: v for k, v in (metrics or {}).items() if k in ("split", "epochs_run", "best_epoch", "test")}
    payload = {
        "format": CHECKPOINT_FORMAT,
        "config": asdict(config),
        "state_dict": {k: v.detach().clone() for k, v in model.state_dict().items()},
        "metrics": summary,
    }
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    write_atomic(Path(path), buffer.getvalue())


def load_checkpoint(path: str | Path) -> tuple[NoThanksNet, TrainConfig, dict[str, Any]]:
    """Read a checkpoint written by :func:`save_checkpoint`, its stored config checked; any other file is a FormatError."""
    model, stored, metrics = read_checkpoint(path)
    return model, load(TrainConfig, stored, f"{path}: config"), metrics


def sidecar(model: str | Path, kind: str) -> Path:
    """``models/nothanks.pt`` -> ``models/nothanks.<kind>`` (``config.json``, ``metrics.json``)."""
    model = Path(model)
    return model.with_name(model.stem + "." + kind)


def save_model_files(path: str | Path, result: TrainResult) -> dict[str, Path]:
    """Write a trained model and its two sidecars: ``NAME.pt``, ``NAME.config.json`` (the
    :class:`TrainConfig`) and ``NAME.metrics.json`` (the full metrics with the learning history)."""

    path = Path(path)
    save_checkpoint(path, result.model, result.config, result.metrics)
    files = {"model": path, "config": sidecar(path, "config.json"), "metrics": sidecar(path, "metrics.json")}
    write_atomic(files["config"], json.dumps(asdict(result.config), indent=1) + "\n")
    write_atomic(files["metrics"], json.dumps(result.metrics, indent=1) + "\n")
    return files


def load_train_config(path: str | Path) -> TrainConfig:
    """A training config from a JSON file (e.g. the ``NAME.config.json`` written beside a model)."""
    return load(TrainConfig, read_json(path, "training config"), str(path))


def read_metrics(path: str | Path) -> dict[str, Any]:
    """The metrics written beside a model (``NAME.metrics.json``), checked as far as the learning curve reads them:
    ``history.train_loss`` and ``history.validation_loss`` are lists of finite numbers of one length,
    ``best_epoch`` a count, ``test.mse`` a finite number, ``config`` an object."""
    metrics = read_json(path, "metrics file")

    def bad(what: str) -> FormatError:
        return FormatError(f"{path}: {what}")

    def number(x: Any) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)

    if not isinstance(metrics, dict):
        raise bad("metrics are a JSON object")
    history = metrics.get("history")
    if not isinstance(history, dict):
        raise bad("'history' must be an object with train_loss and validation_loss")
    curves = [history.get("train_loss"), history.get("validation_loss")]
    if not all(isinstance(c, list) and all(map(number, c)) for c in curves):
        raise bad("'history.train_loss' and 'history.validation_loss' must be lists of finite numbers")
    if len(curves[0]) != len(curves[1]):
        raise bad("'history.train_loss' and 'history.validation_loss' differ in length")
    best = metrics.get("best_epoch")
    if best is not None and (not isinstance(best, int) or isinstance(best, bool) or not 0 <= best <= len(curves[0])):
        raise bad("'best_epoch' must be an epoch number")
    test = metrics.get("test", {})
    if not isinstance(test, dict) or ("mse" in test and not number(test["mse"])):
        raise bad("'test' must be an object whose 'mse' is a finite number")
    if not isinstance(metrics.get("config", {}), dict):
        raise bad("'config' must be an object")
    return metrics
