"""Steps per second of boardlab games as PettingZoo environments (``boardlab.adapters.pettingzoo.env``).

Each step is what a learner's loop does: ``env.last()`` (the seat's observation tensor and action
mask), a uniformly random legal action drawn from the mask, ``env.step(action)`` (chance nodes played
inside); the dead steps at the end of a game are counted as steps too, as PettingZoo's loop makes
them. Games are played one after another until ``--seconds`` have passed (the last one cut off
there); the best of ``--rounds`` rounds is reported.

    python benchmarks/pettingzoo_env.py                       # dicewars and tickettoride, 3 rounds of 5 s
    python benchmarks/pettingzoo_env.py connect4 nothanks --seconds 2 --json
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from boardlab.adapters.pettingzoo import env


def steps_per_second(spec: str, seconds: float, seed: int = 0) -> dict:
    e = env(spec)
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    end = start + seconds
    while time.perf_counter() < end:
        e.reset(seed=int(rng.integers(1 << 31)))
        for _agent in e.agent_iter():
            observation, _, termination, truncation, _ = e.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            e.step(action)
            steps += 1
            if steps % 256 == 0 and time.perf_counter() >= end:
                break  # a long game is cut off at the time; it is not counted as a game
        else:
            games += 1
    elapsed = time.perf_counter() - start
    return {"spec": spec, "steps": steps, "games": games, "seconds": round(elapsed, 3),
            "steps_per_s": round(steps / elapsed, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("specs", nargs="*", default=["dicewars", "tickettoride"], help="game specs")
    parser.add_argument("--seconds", type=float, default=5.0, help="time per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; the best is reported")
    parser.add_argument("--json", action="store_true", help="one JSON line per game")
    args = parser.parse_args()
    print(f"# load before: {os.getloadavg()[0]:.2f}")
    for spec in args.specs:
        env(spec).reset(seed=0)  # compile and load what the game needs before timing
        best = max((steps_per_second(spec, args.seconds, seed=r) for r in range(args.rounds)),
                   key=lambda r: r["steps_per_s"])
        if args.json:
            print(json.dumps(best))
        else:
            print(f"{spec:32s} {best['steps_per_s']:>10,.0f} steps/s  ({best['steps']:,} steps, "
                  f"{best['games']} whole games, {best['seconds']:.1f} s)")
    print(f"# load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
