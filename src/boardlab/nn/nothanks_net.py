"""The No Thanks! imitation network: 8 features -> 32 -> 32 -> 1, trained on the expert.

As in the imitation study (the study material's ``studies/no-thanks-imitation.txt``,
section 3): eight features of the player to move, two hidden layers of 32 ReLU
units, one linear output that predicts the expert's value (0 strong TAKE,
1 strong PASS), mean squared error, Adam, up to 500 epochs. The study does not
say how it stopped "at convergence"; here a validation split carved from the
training states stops training when its loss has not improved for
``patience`` epochs, and the best epoch's weights are kept.

The features (all in [0, 1]; chip counts are divided by 55, the number of
chips in the box, so that a threshold such as "fewer than 5 chips" sits at the
same input value whatever the number of players):

1. ``card``: face-up card / 35
2. ``pot``: chips on the card normalised by the card's value, capped at twice
   the value and halved (``min(pot / card, 2) / 2``). The study only says
   "normalised"; dividing by the card is the normalisation its expert reads
   (every threshold is a share of the card's value), and past 2 nothing the
   expert decides changes.
3. ``own_chips``: the player's chips / 55
4. ``own_cards``: the player's card count / 24
5. ``own_neighbour``: the player holds the card one below or above (0/1)
6. ``opponent_neighbour``: some opponent holds such a card (0/1)
7. ``opponent_broke``: some opponent has no chips (0/1)
8. ``max_opponent_chips``: most chips of one opponent / 55

A checkpoint is ``torch.save`` of a plain dict ``{"format", "config",
"state_dict", "metrics"}`` (tensors, numbers, strings only), loaded with
``torch.load(..., weights_only=True)``: no pickled code runs.
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import torch
from torch import nn

from boardlab.core.errors import BoardlabError, FormatError, SpecError
from boardlab.core.files import read_json
from boardlab.core.records import write_atomic
from boardlab.core.rng import derive_seed
from boardlab.nn import checkpoint
from boardlab.games.nothanks import STACK, NoThanksState
from boardlab.games.nothanks_expert import GENERATORS, expert_value, generate_states

CHECKPOINT_FORMAT = "boardlab-nothanks-net/1"
#: how the expert's values become targets (see TrainConfig.labels)
LABELS = ("as-written", "flipped")
FEATURE_NAMES = (
    "card", "pot", "own_chips", "own_cards", "own_neighbour", "opponent_neighbour",
    "opponent_broke", "max_opponent_chips",
)
#: the widest network a config may ask for (two hidden layers of this many units)
MAX_HIDDEN = 4096
CHIP_SCALE = 55.0  # chips in the box
CARD_SCALE = 35.0  # highest card
POT_RATIO_CAP = 2.0  # chips worth twice the card or more: every rule has decided by then


def features(state: NoThanksState) -> np.ndarray:
    """The eight study features of the player to move, as float32 in [0, 1]."""
    me = state.current_player()
    card = state.card()
    if card is None:
        raise BoardlabError("features describe a face-up card; this game is over")
    neighbours = (1 << (card - 1)) | (1 << (card + 1))
    opponents = [p for p in range(state.game.players) if p != me]
    return np.array(
        [
            card / CARD_SCALE,
            min(state.pot / card, POT_RATIO_CAP) / POT_RATIO_CAP,
            state.chips[me] / CHIP_SCALE,
            bin(state.hands[me]).count("1") / STACK,
            1.0 if state.hands[me] & neighbours else 0.0,
            1.0 if any(state.hands[p] & neighbours for p in opponents) else 0.0,
            1.0 if any(state.chips[p] == 0 for p in opponents) else 0.0,
            max(state.chips[p] for p in opponents) / CHIP_SCALE,
        ],
        dtype=np.float32,
    )


def feature_matrix(states: Sequence[NoThanksState]) -> np.ndarray:
    return np.stack([features(s) for s in states]) if states else np.zeros((0, 8), np.float32)


class NoThanksNet(nn.Module):
    """8 -> hidden -> hidden -> 1, ReLU, linear output (the study's 32/32 by default)."""

    def __init__(self, hidden: int = 32) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(len(FEATURE_NAMES), hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, 1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x).squeeze(-1)

    def value(self, state: NoThanksState) -> float:
        """Predicted expert value of ``state`` (0 TAKE .. 1 PASS; may stray outside)."""
        with torch.no_grad():
            return float(self(torch.from_numpy(features(state)).unsqueeze(0))[0])


@dataclass
class TrainConfig:
    """Everything that decides a training run; saved in the checkpoint and the metrics."""

    states: int = 1000  # generated states, split into training and test
    test_fraction: float = 0.2  # the study's 800/200
    validation_fraction: float = 0.1  # of the training states, for early stopping
    epochs: int = 500
    patience: int = 50  # epochs without a better validation loss before stopping
    batch_size: int = 16
    lr: float = 1e-3
    #: "none", or "plateau": halve the learning rate after 10 epochs without a better validation loss
    schedule: str = "none"
    hidden: int = 32
    players: int = 4
    #: state generator: "plausible" (mixed habits) or "random" (see generate_state)
    generator: str = "plausible"
    seed: int = 1
    #: the expert's values as the study wrote them ("as-written": 1 = PASS), or read the other
    #: way round ("flipped": the target is 1 - value, the reading of nothanks-expert:read=flipped)
    labels: str = "as-written"

    def check(self) -> None:
        problems = []
        for f in fields(self):
            value = getattr(self, f.name)
            kind = {"int": int, "float": float, "str": str}[f.type if isinstance(f.type, str) else f.type.__name__]
            if kind is float and (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)):
                problems.append(f"{f.name}={value!r} (must be a finite number)")
            elif kind is not float and (isinstance(value, bool) or not isinstance(value, kind)):
                problems.append(f"{f.name}={value!r} (must be {'an integer' if kind is int else 'a string'})")
        if problems:
            raise SpecError("nothanks-imitation training: bad setting " + ", ".join(problems))
        if self.states < 10:
            problems.append(f"states={self.states} (need at least 10)")
        if not 0 < self.test_fraction < 1:
            problems.append(f"test_fraction={self.test_fraction} (between 0 and 1)")
        if not 0 < self.validation_fraction < 1:
            problems.append(f"validation_fraction={self.validation_fraction} (between 0 and 1)")
        for name in ("epochs", "patience", "batch_size", "hidden"):
            if getattr(self, name) < 1:
                problems.append(f"{name}={getattr(self, name)} (must be positive)")
        if self.hidden > MAX_HIDDEN:
            problems.append(f"hidden={self.hidden} (at most {MAX_HIDDEN})")
        if not 0 <= self.seed < 2**63:
            problems.append(f"seed={self.seed} (0 to 2**63 - 1)")
        if not self.lr > 0:
            problems.append(f"lr={self.lr} (must be positive)")
        if self.schedule not in ("none", "plateau"):
            problems.append(f"schedule={self.schedule!r} (none or plateau)")
        if self.generator not in GENERATORS:
            problems.append(f"generator={self.generator!r} ({' or '.join(GENERATORS)})")
        if self.labels not in LABELS:
            problems.append(f"labels={self.labels!r} ({' or '.join(LABELS)})")
        if not 3 <= self.players <= 7:
            problems.append(f"players={self.players} (3-7)")
        if problems:
            raise SpecError("nothanks-imitation training: bad setting " + ", ".join(problems))

    @classmethod
    def from_dict(cls, data: Any, where: str = "config") -> "TrainConfig":
        """A checked config from a JSON object; every error is a :class:`SpecError` starting with ``where``."""
        if not isinstance(data, dict):
            raise SpecError(f"{where}: a training config is a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(map(str, set(data) - known))
        if unknown:
            raise SpecError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")
        config = cls(**data)
        try:
            config.check()
        except SpecError as exc:
            raise SpecError(f"{where}: {exc}") from None
        return config

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
    config.check()
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
    """Read a checkpoint written by :func:`save_checkpoint`; any other file is a FormatError."""
    path = Path(path)
    payload = checkpoint.read_checkpoint(path, CHECKPOINT_FORMAT, "No Thanks! network checkpoint",
                                         missing=f"no No Thanks! model at {path}")
    try:
        config = TrainConfig.from_dict(payload["config"], where=f"{path}: config")
        if not isinstance(payload["state_dict"], dict):
            raise TypeError("'state_dict' is not a dict of tensors")
        model = NoThanksNet(config.hidden)
        model.load_state_dict(payload["state_dict"])
        if not all(torch.isfinite(p).all() for p in model.parameters()):
            raise ValueError("the weights are not all finite numbers")
        metrics = payload.get("metrics", {})
        if not isinstance(metrics, dict):
            raise TypeError("'metrics' is not a dict")
    except SpecError as exc:
        raise FormatError(str(exc)) from None
    except (KeyError, TypeError, RuntimeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise FormatError(f"{path}: damaged No Thanks! checkpoint ({first[:200]})") from None
    model.eval()
    return model, config, dict(metrics)


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


def is_checkpoint(path: str | Path) -> bool:
    """Whether ``path`` is a file written by :func:`save_checkpoint` (read with ``weights_only=True``)."""
    return checkpoint.is_checkpoint(path, CHECKPOINT_FORMAT)


def load_train_config(path: str | Path) -> TrainConfig:
    """A training config from a JSON file (e.g. the ``NAME.config.json`` written beside a model)."""
    try:
        return TrainConfig.from_dict(read_json(path, "training config"), where=str(path))
    except SpecError as exc:
        raise FormatError(str(exc)) from None


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
