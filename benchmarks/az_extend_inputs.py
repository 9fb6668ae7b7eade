"""Carry an az MLP over to a variant of its game whose observation tensor has more entries at its end.

A game variant such as ``dicewars:players=2,features=odds`` keeps every entry of the plain tensor
and appends new ones. This script copies a network of the plain game into a network of the variant
that computes exactly the same policy and values: the new inputs get zero weights in the first layer
of the trunk and, where the value has a trunk of its own over the tensor's last entries
(``--value-inputs=-K:``), that slice grows by the new entries (``-(K + extra):``) and their columns
start at zero too. Trained further (``boardlab train az --game VARIANT --init OUT``), the zero
weights are free to learn, so the run starts where the plain network stands instead of from nothing.
The script checks on positions of random games that both networks give the same logits and values
and prints the largest gap (a rounding error).

    PYTHONPATH=src .venv/bin/python benchmarks/az_extend_inputs.py runs/az-dw2v/models/iter-0060.pt \
        dicewars:players=2,features=odds runs/dw2-odds-init.pt
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

from boardlab.core.errors import BoardlabError
from boardlab.core.registry import make
from boardlab.core.rng import sample_chance
from boardlab.nn.az_net import PolicyValueNet, load_model, save_model


def extended(net: PolicyValueNet, width: int) -> PolicyValueNet:
    """``net`` reading a flat tensor of ``width`` entries whose first ones are its own tensor's."""
    old = int(np.prod(net.shape))
    extra = width - old
    if net.arch["kind"] != "mlp" or extra <= 0:
        raise BoardlabError(f"extending inputs takes an MLP and a longer tensor (this one: {net.arch['kind']}, {old} -> {width})")
    arch = dict(net.arch)
    if net.value_inputs is not None:
        start, stop = net.value_inputs
        if stop != old:
            raise BoardlabError(f"the value reads {arch['value_inputs']!r}, not the tensor's end: the new entries would fall outside it")
        arch["value_inputs"] = f"-{old - start + extra}:"
    wide = PolicyValueNet((width,), net.actions, net.values, arch)
    out = net.state_dict()
    trunks = ["trunk"] + (["value_trunk"] if net.value_inputs is not None else [])
    for trunk in trunks:  # the first layer of each trunk reads the tensor: zero columns for the new inputs
        first = next(i for i, m in enumerate(getattr(net, trunk)) if isinstance(m, torch.nn.Linear))
        key = f"{trunk}.{first}.weight"
        grown = torch.zeros_like(wide.state_dict()[key])
        grown[:, : out[key].shape[1]] = out[key]
        out[key] = grown
    wide.load_state_dict(out)
    return wide.eval()


def largest_gap(net: PolicyValueNet, wide: PolicyValueNet, game, positions: int = 200, seed: int = 0) -> float:
    """The largest difference in logits or values between the two networks on positions of random games
    (``net`` reads the first entries of the variant's tensor)."""
    rng = np.random.default_rng(seed)
    xs: list[np.ndarray] = []
    state = game.new_initial_state(seed)
    while len(xs) < positions:
        if state.is_terminal():
            state = game.new_initial_state(int(rng.integers(1 << 30)))
        elif state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            xs.append(state.observation_tensor(state.current_player()))
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
    x = torch.from_numpy(np.stack(xs))
    with torch.no_grad():
        logits, values = net(x[:, : int(np.prod(net.shape))].reshape(-1, *net.shape))
        wide_logits, wide_values = wide(x)
    return float(max((logits - wide_logits).abs().max(), (values - wide_values).abs().max()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="an az model file of an MLP")
    parser.add_argument("game", help="the variant's game spec, whose tensor extends the model's at its end")
    parser.add_argument("out", help="where to write the variant's model")
    args = parser.parse_args()
    net, payload = load_model(args.model)
    game = make(args.game)
    if game.num_distinct_actions() != net.actions:
        raise SystemExit(f"{args.game} has {game.num_distinct_actions()} actions, the model {net.actions}")
    wide = extended(net, int(np.prod(game.observation_tensor_shape())))
    gap = largest_gap(net, wide, game)
    save_model(wide, args.out, game.spec(), payload.get("meta"))
    print(json.dumps({"model": args.model, "game": game.spec(), "out": args.out,
                      "value_inputs": wide.arch["value_inputs"], "largest_gap": gap}))


if __name__ == "__main__":
    main()
