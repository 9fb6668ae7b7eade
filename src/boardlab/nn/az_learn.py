"""The learning half of AlphaZero: a replay buffer of self-play positions and the network's loss.

The loss is AlphaZero's: cross-entropy between the search's visit shares and
the policy (over the legal actions only, illegal logits masked out), plus the
squared error of the value head against the game's result, plus weight decay
in the optimiser. The buffer is a ring of the last ``capacity`` positions in
numpy arrays, so a checkpoint holds it as a few tensors.

Augmentation: given the game's symmetries (``Game.symmetries``), each sample
of a minibatch is replaced by its image under one drawn uniformly from the
identity and those, by the same generator that draws the minibatch (so a run
that draws the same minibatches draws the same images). Observations, legal
masks and policy targets are transformed together; values stay as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from boardlab.core.game import Symmetry
from boardlab.nn.az_net import PolicyValueNet, flushed_denormals

FIELDS = ("obs", "mask", "policy", "value")


class ReplayBuffer:
    def __init__(self, capacity: int, shape: tuple[int, ...], actions: int, values: int) -> None:
        self.capacity = capacity
        self.arrays = {
            "obs": np.zeros((capacity, *shape), np.float32),
            "mask": np.zeros((capacity, actions), bool),
            "policy": np.zeros((capacity, actions), np.float32),
            "value": np.zeros((capacity, values), np.float32),
        }
        self.size = 0
        self.next = 0  # where the next position goes
        self.added = 0  # positions ever added

    def add(self, samples) -> None:
        n = len(samples)
        for start in range(0, n, self.capacity):  # more than the capacity at once: the last ones win
            part = {f: getattr(samples, f)[start: start + self.capacity] for f in FIELDS}
            k = len(part["obs"])
            idx = (self.next + np.arange(k)) % self.capacity
            for f in FIELDS:
                self.arrays[f][idx] = part[f]
            self.next = int((self.next + k) % self.capacity)
            self.size = min(self.capacity, self.size + k)
            self.added += k

    def batch(self, rng: np.random.Generator, size: int, symmetries: Sequence[Symmetry] = ()) -> dict[str, torch.Tensor]:
        """A minibatch drawn by ``rng``; with ``symmetries``, each sample seen through one of them or the identity."""
        idx = rng.integers(0, self.size, size=min(size, self.size))
        picked = {f: self.arrays[f][idx] for f in FIELDS}  # fancy indexing copies: the buffer is never changed
        if symmetries:
            # drawn only when augmenting, so a run without it draws exactly the minibatches it always drew
            which = rng.integers(0, len(symmetries) + 1, size=len(idx))  # 0: the identity
            for number, symmetry in enumerate(symmetries, start=1):
                rows = np.flatnonzero(which == number)
                if rows.size:
                    picked["obs"][rows] = symmetry.observations(picked["obs"][rows])
                    picked["mask"][rows] = symmetry.action_values(picked["mask"][rows])
                    picked["policy"][rows] = symmetry.action_values(picked["policy"][rows])
        return {f: torch.from_numpy(picked[f]) for f in FIELDS}

    def state(self) -> dict[str, Any]:
        return {"capacity": self.capacity, "size": self.size, "next": self.next, "added": self.added,
                **{f: torch.from_numpy(self.arrays[f][: self.size].copy()) for f in FIELDS}}

    def load(self, data: dict[str, Any]) -> None:
        self.size, self.next, self.added = int(data["size"]), int(data["next"]), int(data["added"])
        for f in FIELDS:
            self.arrays[f][: self.size] = data[f].numpy()


def loss_terms(net: PolicyValueNet, batch: dict[str, torch.Tensor], device: str) -> tuple[torch.Tensor, torch.Tensor]:
    logits, values = net(batch["obs"].to(device))
    mask = batch["mask"].to(device)
    logp = torch.log_softmax(logits.masked_fill(~mask, float("-inf")), dim=-1)
    target = batch["policy"].to(device)
    policy_loss = -(target * logp.masked_fill(~mask, 0.0)).sum(dim=-1).mean()
    value_loss = ((values - batch["value"].to(device)) ** 2).mean()
    return policy_loss, value_loss


def train_steps(net: PolicyValueNet, optimizer: torch.optim.Optimizer, buffer: ReplayBuffer, steps: int,
                batch_size: int, rng: np.random.Generator, device: str,
                symmetries: Sequence[Symmetry] = ()) -> dict[str, float]:
    """``steps`` gradient steps on minibatches drawn by ``rng`` (augmented by ``symmetries``, if any); the mean losses."""
    net.train()
    totals = [0.0, 0.0]
    for _ in range(steps):
        batch = buffer.batch(rng, batch_size, symmetries)
        with flushed_denormals():
            p_loss, v_loss = loss_terms(net, batch, device)
            optimizer.zero_grad()
            (p_loss + v_loss).backward()
            optimizer.step()
        totals[0] += p_loss.item()
        totals[1] += v_loss.item()
    net.eval()
    return {"policy_loss": totals[0] / max(steps, 1), "value_loss": totals[1] / max(steps, 1)}
