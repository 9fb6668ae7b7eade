"""How well a trained az network's value head judges games it never trained on.

The network plays fresh self-play games (new seeds, the same search as ``train az``);
its value head is then compared with their results over every recorded position. Set
beside the run's training value loss, a far larger error here means the head learned
its training games by heart (in Dice Wars, each game's map) rather than the game.

    PYTHONPATH=src .venv/bin/python benchmarks/az_value_heldout.py runs/az-dw4/model.pt --games 24
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

from boardlab.agents.az_selfplay import SelfPlaySettings, self_play
from boardlab.core.registry import make
from boardlab.core.search import value_outputs
from boardlab.nn.az_net import Evaluator, dense_network, load_model, relative_values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="a model file of train az (model.pt or models/iter-N.pt)")
    parser.add_argument("--games", type=int, default=24, help="fresh self-play games")
    parser.add_argument("--simulations", type=int, default=64, help="PUCT simulations per move")
    parser.add_argument("--max-moves", type=int, default=3000, help="stop a game after this many moves (lost by all)")
    parser.add_argument("--seed", type=int, default=10**6, help="seed of the first game (the others follow)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object: model, game, games, positions, value_mse, constant_mse "
                             "(the error of always answering the targets' mean), moves (per game), unfinished")
    args = parser.parse_args()
    net, payload = load_model(args.model, None)
    game = make(payload["game"])
    outputs = value_outputs(game)
    samples, summary = self_play(
        game, Evaluator(net).evaluate, list(range(args.seed, args.seed + args.games)),
        SelfPlaySettings(simulations=args.simulations, max_moves=args.max_moves),
        lambda returns, mover: relative_values(np.asarray(returns), mover, outputs), dense_network(net))
    with torch.no_grad():
        _, values = net(torch.from_numpy(samples.obs))
    predicted = values.numpy()
    row = {"model": args.model, "game": game.spec(), "games": args.games, "positions": len(samples),
           "value_mse": float(((predicted - samples.value) ** 2).mean()),
           "constant_mse": float(((samples.value - samples.value.mean(axis=0)) ** 2).mean()),
           "moves": [s["moves"] for s in summary], "unfinished": sum(1 for s in summary if s["cut"])}
    if args.json:
        print(json.dumps(row))
        return
    print(f"{row['model']}: {row['game']}, {row['games']} fresh self-play games, {row['positions']} positions")
    print(f"  value head squared error {row['value_mse']:.3f}; always answering the mean: {row['constant_mse']:.3f}")


if __name__ == "__main__":
    main()
