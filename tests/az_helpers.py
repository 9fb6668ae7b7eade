"""Hand-set networks for the ``az`` tests: the search alone decides, or a prior leads it astray."""

from __future__ import annotations

from pathlib import Path

import torch

from boardlab.nn.az_net import new_network, save_model


def neutral_model(game, path: Path, policy_bias=None) -> Path:
    """A network that judges every position 0, with uniform priors over the legal moves or the
    logits ``policy_bias``, saved to ``path``."""
    torch.manual_seed(0)
    net = new_network(game, {"kind": "mlp", "hidden": 8, "layers": 1})
    with torch.no_grad():
        for head in (net.policy_head, net.value_head[0]):
            head.weight.zero_()
            head.bias.zero_()
        if policy_bias is not None:
            net.policy_head.bias.copy_(torch.tensor(policy_bias, dtype=torch.float32))
    save_model(net, path, game.spec())
    return path
