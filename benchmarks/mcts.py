"""MCTS simulations per second on Connect Four (empty 7x6 board, random playouts), against OpenSpiel.

    python benchmarks/mcts.py [--simulations 20000] [--rounds 3] [--c 2] [--json]

One process, one run: boardlab's compiled engine (``mcts``, chosen
automatically on connect4), boardlab's generic engine (``mcts:engine=generic``:
the State API with the game's compiled playout kernel), OpenSpiel's C++
``pyspiel.MCTSBot`` with ``RandomRolloutEvaluator(1, seed)`` and OpenSpiel's
Python ``open_spiel.python.algorithms.mcts.MCTSBot`` with one random rollout.
Every bot uses the same exploration constant and no solver; each figure is the
best of ``--rounds`` searches of one move from the empty board (the Python
peer runs a quarter of the simulations, it is slow). Other people's jobs share
the CPU: quote ratios from one run, and the load printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import time


def best_rate(search, simulations: int, rounds: int) -> float:
    """Best simulations per second of ``rounds`` calls of ``search(simulations)``."""
    best = 0.0
    for _ in range(rounds):
        start = time.perf_counter()
        search(simulations)
        best = max(best, simulations / (time.perf_counter() - start))
    return best


def boardlab_search(engine: str, c: float):
    from boardlab.agents.registry import make_agent
    from boardlab.core.registry import make

    game = make("connect4")

    def search(simulations: int) -> None:
        agent = make_agent(f"mcts:iterations={simulations},c={c},engine={engine},seed=1,keep_trees=0")
        agent.step(game.new_initial_state())

    search(200)  # compile (numba caches to disk) and warm up
    return search


def openspiel_cpp(c: float):
    import pyspiel

    game = pyspiel.load_game("connect_four")

    def search(simulations: int) -> None:
        bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 1), c, simulations, 1000, False, 1, False)
        bot.step(game.new_initial_state())

    return search


def openspiel_python(c: float):
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("connect_four")

    def search(simulations: int) -> None:
        rng = np.random.RandomState(1)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
        bot = mcts.MCTSBot(game, c, simulations, evaluator, solve=False, random_state=rng)
        bot.step(game.new_initial_state())

    return search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--c", type=float, default=2.0, help="exploration constant of every bot")
    parser.add_argument("--json", action="store_true", help="one JSON object: simulations_per_second by bot, ratios, load")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    rates: dict[str, float] = {}
    rates["boardlab compiled"] = best_rate(boardlab_search("compiled", args.c), args.simulations, args.rounds)
    rates["boardlab generic"] = best_rate(boardlab_search("generic", args.c), args.simulations, args.rounds)
    try:
        rates["OpenSpiel C++ MCTSBot"] = best_rate(openspiel_cpp(args.c), args.simulations, args.rounds)
        rates["OpenSpiel Python MCTSBot"] = best_rate(openspiel_python(args.c), max(args.simulations // 4, 100), args.rounds)
    except ImportError:
        pass  # peers not installed: boardlab figures only
    load_after = os.getloadavg()[0]
    ratios = {}
    if "OpenSpiel C++ MCTSBot" in rates:
        ratios = {
            "compiled / OpenSpiel C++": rates["boardlab compiled"] / rates["OpenSpiel C++ MCTSBot"],
            "generic / OpenSpiel Python": rates["boardlab generic"] / rates["OpenSpiel Python MCTSBot"],
            "generic / OpenSpiel C++": rates["boardlab generic"] / rates["OpenSpiel C++ MCTSBot"],
        }
    if args.json:
        print(json.dumps({"simulations_per_second": rates, "ratios": ratios, "c": args.c,
                          "simulations": args.simulations, "load": [load_before, load_after]}))
        return
    print(f"Connect Four 7x6, empty board, random playouts, c={args.c}, {args.simulations} simulations per search, best of {args.rounds}")
    for name, rate in rates.items():
        print(f"  {name:28s} {rate:12,.0f} simulations/s")
    for name, ratio in ratios.items():
        print(f"  {name:28s} {ratio:12.2f}x")
    print(f"  load average (1 min) before/after: {load_before:.2f} / {load_after:.2f}")


if __name__ == "__main__":
    main()
