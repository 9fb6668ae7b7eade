"""One step of expert iteration for Ticket to Ride: does a network learn from the rollout search's games?

The rollout search over an `az` network's policy (`benchmarks/ttr_policy_rollouts.py`) plays better than the
policy. If the policy learns the search's choices in the search's own games, it should play better too: the step
self-play with PUCT never made (its visit counts were worse targets than the lesson's moves).

    PYTHONPATH=src python benchmarks/ttr_rollout_lesson.py games MODEL runs/x-0.npz --first 0 --last 200 --playouts 32
    PYTHONPATH=src python benchmarks/ttr_rollout_lesson.py learn MODEL runs/x-0.npz runs/x-1.npz --out runs/x.pt

`games` plays games FIRST..LAST-1 with the search in every seat and keeps, per decision, the mover's observation,
the legal moves, the search's move (the policy's target) and each seat's result (the value's), exactly as `train
az --imitate` keeps a teacher's; `learn` fine-tunes MODEL on them and writes a model file `az:path=` plays.
A measuring script, not a command of boardlab.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import track

from boardlab.agents.az_selfplay import Samples
from boardlab.core.plugins import agents as agent_plugins
from boardlab.core.registry import make
from boardlab.core.rng import derive_seed
from boardlab.core.search import value_outputs
from boardlab.experiments.az_imitation import agent_games
from boardlab.nn.az_learn import ReplayBuffer, train_steps
from boardlab.nn.az_net import load_model, save_model

sys.path.insert(0, str(Path(__file__).resolve().parent))
agent_plugins.register("ttr-policy-rollouts", "ttr_policy_rollouts:PolicyRollouts")


def games(args: argparse.Namespace) -> None:
    game = make(args.game)
    spec = f"ttr-policy-rollouts:path={args.model},playouts={args.playouts}"
    seeds = [derive_seed(args.seed, "rollout-lesson", g) for g in range(args.first, args.last)]
    parts, summary = [], []
    # a game of the search in every seat takes about half a minute: show them going by (on stderr)
    for seed in track(seeds, description=f"{len(seeds)} games", console=Console(stderr=True)):
        part, played = agent_games(game, spec, [seed])
        parts.append(part)
        summary.extend(played)
    samples = Samples.concat(parts)
    np.savez_compressed(args.out, obs=samples.obs, mask=samples.mask, policy=samples.policy, value=samples.value)
    first = [g["returns"][0] for g in summary]
    print(f"{args.out}: {len(summary)} games, {len(samples)} positions, first seat's mean return {np.mean(first):.3f}")


def learn(args: argparse.Namespace) -> None:
    import torch

    game = make(args.game)
    net, payload = load_model(args.model, game)
    parts = [np.load(path) for path in args.data]
    samples = Samples.concat([Samples(**{k: part[k] for k in ("obs", "mask", "policy", "value")}) for part in parts])
    buffer = ReplayBuffer(len(samples), tuple(game.observation_tensor_shape()), game.num_distinct_actions(),
                          value_outputs(game))
    buffer.add(samples)
    torch.manual_seed(args.seed)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=1e-4)
    losses = train_steps(net, optimizer, buffer, args.steps, 256, np.random.default_rng(args.seed), "cpu")
    meta = {k: v for k, v in payload.get("meta", {}).items() if k != "simulations"}
    save_model(net, Path(args.out), game.spec(), {**meta, "lesson": f"rollouts, {len(samples)} positions"})
    print(f"{args.out}: {len(samples)} positions, {args.steps} steps, last losses {losses}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("games")
    g.add_argument("model")
    g.add_argument("out")
    g.add_argument("--first", type=int, default=0)
    g.add_argument("--last", type=int, default=100)
    g.add_argument("--playouts", type=int, default=32)
    l = sub.add_parser("learn")  # noqa: E741
    l.add_argument("model")
    l.add_argument("data", nargs="+")
    l.add_argument("--out", required=True)
    l.add_argument("--steps", type=int, default=1000)
    l.add_argument("--lr", type=float, default=0.0002)
    for p in (g, l):
        p.add_argument("--game", default="tickettoride:players=2")
        p.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    games(args) if args.command == "games" else learn(args)


if __name__ == "__main__":
    main()
