"""Playing strength of the UCT agent on Connect Four, in duels that alternate who starts.

    python benchmarks/mcts_strength.py [--games 200] [--seed 0] [--json]

Two duels through ``boardlab.arena.duel.duel``: ``mcts:iterations=2000``
against ``random`` (goal: at least 98 % wins) and ``mcts:iterations=4000``
against ``mcts:iterations=250`` (goal: at least 75 % wins). Prints each
duel's W D L, the win rate with a 95 % Wilson interval, and the time taken.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

from boardlab.arena.duel import duel
from boardlab.core.registry import make

DUELS = [
    ("mcts:iterations=2000,keep_trees=0", "random", 0.98),
    ("mcts:iterations=4000,keep_trees=0", "mcts:iterations=250,keep_trees=0", 0.75),
]


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a win rate."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (centre - half, centre + half)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="one JSON object per duel: agents, wins, draws, losses, win_rate, interval, goal, seconds")
    args = parser.parse_args()
    game = make("connect4")
    for spec_a, spec_b, goal in DUELS:
        load = os.getloadavg()[0]
        start = time.perf_counter()
        result = duel(game, spec_a, spec_b, args.games, seed=args.seed)
        seconds = time.perf_counter() - start
        rate = result.wins / result.games
        low, high = wilson(result.wins, result.games)
        row = {
            "agents": [spec_a, spec_b], "games": result.games, "wins": result.wins, "draws": result.draws,
            "losses": result.losses, "win_rate": rate, "interval": [low, high], "goal": goal,
            "met": rate >= goal, "seconds": seconds, "load": load,
        }
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(f"{spec_a} vs {spec_b}: {result.wins} {result.draws} {result.losses} "
                  f"(W D L of {result.games}); win rate {100 * rate:.1f} % "
                  f"[95 %: {100 * low:.1f}-{100 * high:.1f}], goal {100 * goal:.0f} %: "
                  f"{'met' if rate >= goal else 'NOT met'}; {seconds:.0f} s, load {load:.1f}", flush=True)


if __name__ == "__main__":
    main()
