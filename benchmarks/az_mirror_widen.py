"""Widen an az MLP into one that plays the mean of the network over a game's symmetry.

For a game with one symmetry (Connect Four's mirror), the network ``f`` is copied twice
side by side into an MLP of twice the width: the first copy reads the position, the second
its mirror image (the first layer's columns permuted), the hidden layers are block-diagonal,
and the heads take half of each copy (the policy logits of the second mapped back to the
original actions; the value before its tanh). The wide network computes exactly
``(f(x) + mirror(f(mirror(x)))) / 2`` and so starts where the narrow one is, averaged over
the symmetry; trained further (``boardlab train az --init OUT --hidden 2H``), its zero
off-diagonal blocks are free to learn. The script prints the largest difference it finds
between the wide network and that mean on random boards (it should be a rounding error).

    PYTHONPATH=src .venv/bin/python benchmarks/az_mirror_widen.py src/boardlab/models/az-connect4.pt runs/c4-mirrored-512.pt
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Symmetry
from boardlab.core.registry import make
from boardlab.nn.az_net import PolicyValueNet, load_model, save_model


def mirror_widened(net: PolicyValueNet, observation: np.ndarray, actions: np.ndarray) -> PolicyValueNet:
    """The wide network of the module docstring; ``observation`` and ``actions`` are the symmetry's
    permutations (:class:`boardlab.core.game.Symmetry`)."""
    arch = dict(net.arch)
    if arch["kind"] != "mlp" or net.value_inputs is not None:
        raise BoardlabError("mirror widening takes a plain MLP (--net mlp, no --value-inputs)")
    hidden = arch["hidden"]
    wide = PolicyValueNet(net.shape, net.actions, net.values, {**arch, "hidden": 2 * hidden})
    narrow, out = net.state_dict(), wide.state_dict()
    gather = torch.as_tensor(np.argsort(observation))  # the first layer reads x[observation]: its columns move back
    moved = torch.as_tensor(np.array(actions))  # action a of the position is action actions[a] of its mirror image
    linear = [key[: -len(".weight")] for key in narrow if key.startswith("trunk") and key.endswith(".weight")]
    for index, key in enumerate(linear):
        weight, bias = narrow[key + ".weight"], narrow[key + ".bias"]
        block = torch.zeros_like(out[key + ".weight"])
        if index == 0:
            block[:hidden], block[hidden:] = weight, weight[:, gather]
        else:
            block[:hidden, :hidden], block[hidden:, hidden:] = weight, weight
        out[key + ".weight"], out[key + ".bias"] = block, torch.cat([bias, bias])
    policy_w, policy_b = narrow["policy_head.weight"], narrow["policy_head.bias"]
    out["policy_head.weight"] = torch.cat([policy_w / 2, policy_w[moved] / 2], 1)
    out["policy_head.bias"] = (policy_b + policy_b[moved]) / 2
    out["value_head.0.weight"] = torch.cat([narrow["value_head.0.weight"] / 2] * 2, 1)
    out["value_head.0.bias"] = narrow["value_head.0.bias"]
    wide.load_state_dict(out)
    return wide.eval()


def largest_difference(net: PolicyValueNet, wide: PolicyValueNet, symmetry: Symmetry, boards: int = 64, seed: int = 0) -> float:
    """The largest gap between ``wide`` and the symmetry mean of ``net`` on random 0/1 tensors
    (logits, and values before their tanh)."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randint(0, 2, (boards, *net.shape), generator=generator).float()
    mirrored = torch.from_numpy(symmetry.observations(x.numpy()))
    moved = torch.as_tensor(np.array(symmetry.actions))
    with torch.no_grad():
        (logits, values), (logits_m, values_m), (wide_logits, wide_values) = net(x), net(mirrored), wide(x)
        policy_gap = (wide_logits - (logits + logits_m[:, moved]) / 2).abs().max()
        clip = 1 - 1e-6
        value_gap = (torch.atanh(wide_values.clamp(-clip, clip))
                     - (torch.atanh(values.clamp(-clip, clip)) + torch.atanh(values_m.clamp(-clip, clip))) / 2).abs().max()
    return float(max(policy_gap, value_gap))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="an az model file of an MLP")
    parser.add_argument("out", help="where to write the wide model")
    args = parser.parse_args()
    net, payload = load_model(args.model)
    game = make(payload["game"])
    symmetries = game.symmetries()
    if len(symmetries) != 1:
        raise SystemExit(f"{payload['game']} has {len(symmetries)} symmetries; this script takes a game with exactly one")
    symmetry = symmetries[0]
    wide = mirror_widened(net, symmetry.observation, symmetry.actions)
    gap = largest_difference(net, wide, symmetry)
    save_model(wide, args.out, payload["game"], payload.get("meta"))
    print(json.dumps({"model": args.model, "out": args.out, "hidden": wide.arch["hidden"], "largest_difference": gap}))


if __name__ == "__main__":
    main()
