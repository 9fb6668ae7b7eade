"""Self-play Q-learning speed: training games per second for each encoding and future-value method.

    PYTHONPATH=src python benchmarks/rl_selfplay.py --seconds 10

Prints one line per setting: training games per second on the
6x7 board (the study's listing 6.1 otherwise; planes: one hidden layer of 128).
"""

from __future__ import annotations

import argparse
import time

from boardlab.nn.qlearning import Learner, QConfig


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    for encoding, method, hidden, lr in (
        ("study", "best_known", (50,), 0.05),
        ("study", "mean", (50,), 0.05),
        ("planes", "best_known", (128,), 0.01),
        ("planes", "mean", (128,), 0.01),
    ):
        learner = Learner.new(QConfig(encoding=encoding, future_value=method, hidden=hidden, learning_rate=lr))
        game = learner.cfg.game()
        games = 0
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            learner.self_play_game(game)
            games += 1
        elapsed = time.perf_counter() - start
        print(f"{encoding:6s} {method:10s} hidden={hidden}: {games / elapsed:7.1f} games/s ({games} games in {elapsed:.1f} s)")


if __name__ == "__main__":
    main()
