"""No Thanks! speed: random games per second, expert labels and network values per second.

    PYTHONPATH=src python benchmarks/nothanks.py [--games 2000] [--states 5000]

Prints figures; asserts nothing. Others share the CPU: quote ``uptime`` beside them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from boardlab.bots.nothanks.expert import expert_value, generate_states
from boardlab.bots.nothanks.net_agent import DEFAULT_MODEL, load_model
from boardlab.bots.nothanks.network import feature_matrix, features
from boardlab.core.registry import make


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--states", type=int, default=5000)
    args = parser.parse_args()
    torch.set_num_threads(1)
    game = make("nothanks", players=4)
    rng = np.random.default_rng(0)
    start = time.process_time()
    moves = 0
    for i in range(args.games):
        state = game.new_initial_state(i)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            moves += 1
    cpu = time.process_time() - start
    print(f"random 4-player games: {args.games / cpu:,.0f} games/s, {moves / cpu:,.0f} moves/s (CPU time)")

    start = time.process_time()
    states = generate_states(args.states, seed=1)
    print(f"state generator: {args.states / (time.process_time() - start):,.0f} states/s")
    start = time.process_time()
    for s in states:
        expert_value(s)
    print(f"expert labels: {args.states / (time.process_time() - start):,.0f} states/s")
    start = time.process_time()
    for s in states:
        features(s)
    print(f"features: {args.states / (time.process_time() - start):,.0f} states/s")
    model = load_model(DEFAULT_MODEL)
    start = time.process_time()
    for s in states[:1000]:
        model.value(s)
    print(f"network, one state at a time (as the agent plays): {1000 / (time.process_time() - start):,.0f} states/s")
    x = torch.from_numpy(feature_matrix(states))
    start = time.process_time()
    with torch.no_grad():
        model(x)
    print(f"network, one batch of {args.states}: {args.states / (time.process_time() - start):,.0f} states/s")


if __name__ == "__main__":
    main()
