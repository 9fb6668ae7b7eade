"""Policy-value networks for AlphaZero-style search, built from a game's observation tensor.

One network per game (and per board size): its input is
``state.observation_tensor(player)`` of the player to move, its outputs are
policy logits over ``game.num_distinct_actions()`` and values in [-1, 1]. The
kind follows the tensor's rank, so any game with a tensor gets a network
without code of its own:

* rank 3 ``(channels, rows, cols)``, board planes: a small residual conv net
  (a 3x3 stem, ``blocks`` residual blocks of ``channels`` filters, AlphaZero's
  policy and value heads);
* any other rank, a flat vector: an MLP of ``layers`` hidden layers of ``hidden`` units.

An MLP's value may read a part of the tensor only (``value_inputs``, a slice ``"START:STOP"`` of
the flat tensor): then the value has a trunk of its own, as deep and wide as the policy's, over
those entries. A game whose tensor carries what differs from game to game (Dice Wars' map) and
also what generalises (each seat's counts) can so keep its value from learning each game by heart
while its policy still sees everything. The compiled engines take such a network as one MLP whose
layers hold both trunks side by side (:func:`dense_network`).

The value head has one tanh output for a two-player zero-sum game (the value
for the player to move; the other's is its negation) and otherwise one per
player, *relative to the player to move*: output ``i`` is the value of seat
``(to_move + i) % players``, so the network never needs to know seat numbers.
Illegal actions are masked out of the logits (:func:`masked_policy`), so they
get exactly zero probability.

A model file records the game spec, the observation shape, the number of
actions, the value outputs and the architecture; :func:`load_model` refuses a
file made for another game with one clear error.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import torch
from pydantic import Field
from pydantic.dataclasses import dataclass
from torch import nn

from boardlab.core.config import STRICT, load
from boardlab.core.errors import BoardlabError, FormatError
from boardlab.core.records import write_atomic
from boardlab.core.search import DenseNetwork, value_outputs
from boardlab.nn.checkpoint import read_checkpoint

MODEL_FORMAT = "boardlab-az-model"


@contextmanager
def flushed_denormals() -> Iterator[None]:
    """Numbers too small for a normal float count as zero while a network computes, and only then.

    Weight decay drives the policy weights of actions a game seldom offers (most of Ticket to Ride's
    6,315) towards zero, where floats turn denormal and a CPU multiplies them a hundred times slower: a
    lesson's gradient steps grew from 0.05 s to over 0.5 s. The processor's setting is put back after,
    because the rest of a process (tree files, hypothesis) relies on IEEE floats."""
    torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_flush_denormal(False)


@dataclass(config=STRICT)
class Architecture:
    """A policy-value network's shape: ``kind`` auto follows the tensor's rank (see the module docstring);
    ``hidden`` and ``layers`` shape an MLP (and the resnet's value head), ``channels`` and ``blocks`` a resnet;
    ``value_inputs`` ("START:STOP" of the flat tensor, Python's slice; "": all of it) is what an MLP's value reads."""

    kind: Literal["auto", "mlp", "resnet"] = "auto"
    hidden: Annotated[int, Field(ge=1)] = 128
    layers: Annotated[int, Field(ge=1)] = 2
    channels: Annotated[int, Field(ge=1)] = 32
    blocks: Annotated[int, Field(ge=0)] = 2
    value_inputs: str = ""


def value_slice(shape: tuple[int, ...], text: str) -> tuple[int, int] | None:
    """``value_inputs`` as (start, stop) into the flat tensor, or None for all of it; an empty or malformed
    slice raises BoardlabError naming it."""
    if not text:
        return None
    width = int(np.prod(shape))
    parts = text.split(":")
    try:
        if len(parts) != 2:
            raise ValueError
        bounds = slice(*(int(part) if part.strip() else None for part in parts))
    except ValueError:
        raise BoardlabError(f"network architecture: value_inputs must be START:STOP (as a Python slice), not {text!r}") from None
    start, stop, _ = bounds.indices(width)
    if stop <= start:
        raise BoardlabError(f"network architecture: value_inputs {text!r} selects nothing of a tensor of {width} entries")
    return start, stop


def resolve_arch(shape: tuple[int, ...], arch: dict[str, Any] | None) -> dict[str, Any]:
    """The architecture (an :class:`Architecture` as a dict) with defaults filled in and ``kind`` decided
    from the tensor's rank; a bad one raises BoardlabError naming the key."""
    out = asdict(load(Architecture, dict(arch or {}), "network architecture", BoardlabError))
    if out["kind"] == "auto":
        out["kind"] = "resnet" if len(shape) == 3 else "mlp"
    if out["kind"] == "resnet" and len(shape) != 3:
        raise BoardlabError(f"network architecture: a resnet needs a (channels, rows, cols) tensor, not shape {shape}")
    if out["value_inputs"] and out["kind"] != "mlp":
        raise BoardlabError("network architecture: value_inputs is for an MLP (--net mlp)")
    value_slice(shape, out["value_inputs"])
    return out


def _mlp(width: int, hidden: int, layers: int) -> nn.Sequential:
    modules: list[nn.Module] = []
    for _ in range(layers):
        modules += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    return nn.Sequential(*modules)


class _Block(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.b1 = nn.BatchNorm2d(channels)
        self.c2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.b1(self.c1(x)))
        return torch.relu(x + self.b2(self.c2(y)))


class PolicyValueNet(nn.Module):
    """``forward(x) -> (logits, values)``: logits ``(n, actions)``, values ``(n, value_outputs)`` in [-1, 1]."""

    def __init__(self, shape: tuple[int, ...], actions: int, values: int, arch: dict[str, Any]) -> None:
        super().__init__()
        self.shape, self.actions, self.values = tuple(shape), actions, values
        self.arch = resolve_arch(self.shape, arch)
        a = self.arch
        #: (start, stop) of the flat tensor that an MLP value's own trunk reads, or None: the value reads the trunk
        self.value_inputs = value_slice(self.shape, a["value_inputs"])
        if a["kind"] == "resnet":
            channels, rows, cols = self.shape
            f = a["channels"]
            self.trunk = nn.Sequential(
                nn.Conv2d(channels, f, 3, padding=1, bias=False), nn.BatchNorm2d(f), nn.ReLU(),
                *[_Block(f) for _ in range(a["blocks"])],
            )
            self.policy_head = nn.Sequential(
                nn.Conv2d(f, 2, 1, bias=False), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(2 * rows * cols, actions),
            )
            self.value_head = nn.Sequential(
                nn.Conv2d(f, 1, 1, bias=False), nn.BatchNorm2d(1), nn.ReLU(), nn.Flatten(),
                nn.Linear(rows * cols, a["hidden"]), nn.ReLU(), nn.Linear(a["hidden"], values), nn.Tanh(),
            )
        else:
            self.trunk = nn.Sequential(nn.Flatten(), *_mlp(int(np.prod(self.shape)), a["hidden"], a["layers"]))
            self.policy_head = nn.Linear(a["hidden"], actions)
            self.value_head = nn.Sequential(nn.Linear(a["hidden"], values), nn.Tanh())
            if self.value_inputs is not None:
                start, stop = self.value_inputs
                self.value_trunk = _mlp(stop - start, a["hidden"], a["layers"])

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(x)
        if self.value_inputs is not None:
            start, stop = self.value_inputs
            return self.policy_head(h), self.value_head(self.value_trunk(x.flatten(1)[:, start:stop]))
        return self.policy_head(h), self.value_head(h)


def masked_policy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Softmax over the legal actions only: illegal ones get exactly 0."""
    return torch.softmax(logits.masked_fill(~mask, float("-inf")), dim=-1)


def new_network(game, arch: dict[str, Any] | None = None) -> PolicyValueNet:
    if "observation_tensor" not in game.provides:
        raise BoardlabError(f"game {game.spec()} offers no observation tensor, so no network can read it")
    return PolicyValueNet(tuple(game.observation_tensor_shape()), game.num_distinct_actions(), value_outputs(game), arch or {})


class Evaluator:
    """Batched evaluation of states for search: priors over the legal actions and a value per player.

    ``evaluate(states)`` runs one forward pass for all of them (the lockstep
    self-play's many games at once) and hands back, per state, the prior of
    every legal action (an array over ``num_distinct_actions``, zero where
    illegal) and the values of all seats in seat order.
    """

    def __init__(self, net: PolicyValueNet, device: str = "cpu") -> None:
        self.net = net.to(device).eval()
        self.device = device
        self.calls = 0
        self.positions = 0

    @torch.no_grad()
    def evaluate(self, states: list) -> tuple[np.ndarray, np.ndarray]:
        n = len(states)
        movers = [s.current_player() for s in states]
        obs = np.stack([s.observation_tensor(p) for s, p in zip(states, movers)])
        mask = np.stack([s.legal_actions_mask() for s in states])
        x = torch.from_numpy(obs).to(self.device)
        threads = torch.get_num_threads()
        if self.device == "cpu":
            # a search asks for a few positions at a time: handing them to threads costs more than it gives
            # (a Ticket to Ride forward pass of one position took 1.6 ms on two threads, 0.5 on one), and
            # where processes share the cores (duels beside each other, the web app's AI pool) far more
            torch.set_num_threads(1)
        try:
            with flushed_denormals():
                logits, values = self.net(x)
        finally:
            torch.set_num_threads(threads)
        probs = masked_policy(logits, torch.from_numpy(mask).to(self.device)).cpu().numpy().astype(np.float64)
        rel = values.cpu().numpy().astype(np.float64)
        players = states[0].num_players()
        out = np.empty((n, players))
        if rel.shape[1] == 1:
            for i, p in enumerate(movers):
                out[i, p] = rel[i, 0]
                out[i, 1 - p] = -rel[i, 0]
        else:
            for i, p in enumerate(movers):
                out[i] = np.roll(rel[i, :players], p)  # output j is seat (p + j) % players
        self.calls += 1
        self.positions += n
        return probs, out


def dense_network(net: PolicyValueNet) -> DenseNetwork | None:
    """The network as plain arrays for a game's compiled PUCT engine, or None when it is not an MLP."""
    if net.arch["kind"] != "mlp":
        return None
    arrays = lambda t: t.detach().cpu().numpy().astype(np.float32)  # noqa: E731
    weights = [arrays(m.weight) for m in net.trunk if isinstance(m, nn.Linear)]
    biases = [arrays(m.bias) for m in net.trunk if isinstance(m, nn.Linear)]
    w_policy, w_value = arrays(net.policy_head.weight), arrays(net.value_head[0].weight)
    if net.value_inputs is not None:
        # both trunks as one: the first layer's value rows read only the value's inputs, the deeper layers
        # are block-diagonal, and each head reads its own half, so the sums are the torch network's
        start, stop = net.value_inputs
        v_weights = [arrays(m.weight) for m in net.value_trunk if isinstance(m, nn.Linear)]
        v_biases = [arrays(m.bias) for m in net.value_trunk if isinstance(m, nn.Linear)]
        first = np.zeros((v_weights[0].shape[0], weights[0].shape[1]), np.float32)
        first[:, start:stop] = v_weights[0]
        weights = [np.vstack([weights[0], first])] + [
            np.block([[w, np.zeros((w.shape[0], v.shape[1]), np.float32)], [np.zeros((v.shape[0], w.shape[1]), np.float32), v]])
            for w, v in zip(weights[1:], v_weights[1:])]
        biases = [np.concatenate([b, v]) for b, v in zip(biases, v_biases)]
        w_policy = np.hstack([w_policy, np.zeros((w_policy.shape[0], v_weights[-1].shape[0]), np.float32)])
        w_value = np.hstack([np.zeros((w_value.shape[0], weights[-1].shape[0] - w_value.shape[1]), np.float32), w_value])
    width = weights[0].shape[0]
    return DenseNetwork(
        w_in=weights[0], b_in=biases[0],
        w_hidden=np.stack(weights[1:]) if len(weights) > 1 else np.zeros((0, width, width), np.float32),
        b_hidden=np.stack(biases[1:]) if len(biases) > 1 else np.zeros((0, width), np.float32),
        w_policy=w_policy, b_policy=arrays(net.policy_head.bias),
        w_value=w_value, b_value=arrays(net.value_head[0].bias),
    )


def relative_values(returns: np.ndarray, mover: int, outputs: int) -> np.ndarray:
    """Training target of the value head for a position where ``mover`` is to move (the inverse of the above)."""
    if outputs == 1:
        return np.array([returns[mover]], dtype=np.float32)
    return np.roll(np.asarray(returns, dtype=np.float32), -mover)[:outputs]


# --- model files ----------------------------------------------------------------
def model_payload(net: PolicyValueNet, game_spec: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "format": MODEL_FORMAT,
        "game": game_spec,
        "shape": list(net.shape),
        "actions": net.actions,
        "values": net.values,
        "arch": dict(net.arch),
        "state_dict": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
        "meta": dict(meta or {}),
    }


def save_model(net: PolicyValueNet, path: Path, game_spec: str, meta: dict[str, Any] | None = None) -> None:
    buffer = io.BytesIO()
    torch.save(model_payload(net, game_spec, meta), buffer)
    write_atomic(Path(path), buffer.getvalue())


def network_from_payload(payload: dict[str, Any], where: str) -> PolicyValueNet:
    try:
        net = PolicyValueNet(tuple(payload["shape"]), int(payload["actions"]), int(payload["values"]), dict(payload["arch"]))
        net.load_state_dict(payload["state_dict"])
    except (KeyError, TypeError, ValueError, RuntimeError, BoardlabError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise FormatError(f"{where}: not a usable AlphaZero model ({first[:200]})") from None
    return net.eval()


def load_model(path: str | Path, game=None) -> tuple[PolicyValueNet, dict[str, Any]]:
    """The network in a model file (or a training checkpoint, which holds one) and its payload;
    with ``game``, refuse a model made for another game or board."""
    path = Path(path)
    payload = read_checkpoint(path, MODEL_FORMAT, "AlphaZero model file", f"{path}: no such AlphaZero model file")
    net = network_from_payload(payload, str(path))
    if game is not None:
        check_model_game(payload, game, str(path))
    return net, payload


def check_model_game(payload: dict[str, Any], game, where: str) -> None:
    shape = game.observation_tensor_shape() if "observation_tensor" in game.provides else None
    if payload.get("game") != game.spec() or tuple(payload["shape"]) != tuple(shape or ()) \
            or payload["actions"] != game.num_distinct_actions():
        raise BoardlabError(
            f"{where}: this AlphaZero model was trained for {payload.get('game')} (tensor {tuple(payload['shape'])}, "
            f"{payload['actions']} actions), not {game.spec()} (tensor {shape}, {game.num_distinct_actions()} actions)"
        )
