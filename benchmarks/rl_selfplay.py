"""Self-play Q-learning speed: training games per second for each encoding and future-value method.

    PYTHONPATH=src python benchmarks/rl_selfplay.py --seconds 10 [--kernels numpy,compiled]

Prints one line per setting: training games per second of wall time and of
CPU time (the CPU figure is the one to compare on a shared machine) on the 6x7
board (the study's listing 6.1 otherwise; planes: one hidden layer of 128), for
each training kernel (``"kernel"`` in the config). The compiled kernel is timed
after one warm-up game (numba compiles it, or loads its cache, on first use)
and plays 100 games per call. ``--autograd`` also times the reference
torch-autograd update of the NumPy kernel.
"""

from __future__ import annotations

import argparse
import time

import torch

from boardlab.bots.connect4.qnet_files import QConfig
from boardlab.studies.c4rl.training import Learner


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--autograd", action="store_true")
    parser.add_argument("--kernels", default="numpy,compiled", help="comma-separated: numpy, compiled")
    args = parser.parse_args()
    torch.set_num_threads(1)
    for encoding, method, hidden, lr in (
        ("study", "best_known", (50,), 0.05),
        ("study", "mean", (50,), 0.05),
        ("planes", "best_known", (128,), 0.01),
        ("planes", "mean", (128,), 0.01),
    ):
        updates = [u for u in args.kernels.split(",") if u] + (["autograd"] if args.autograd else [])
        for update in updates:
            kernel = "compiled" if update == "compiled" else "numpy"
            learner = Learner.new(QConfig(encoding=encoding, future_value=method, hidden=hidden, learning_rate=lr, kernel=kernel))
            if update == "autograd":
                learner.train_on = learner.train_on_autograd  # type: ignore[method-assign]
            game = learner.cfg.game()
            per_call = 100 if kernel == "compiled" else 1
            if kernel == "compiled":
                learner.self_play_games(game, 1)  # compile (or load the cache) outside the timing
            games = 0
            start, cpu = time.perf_counter(), time.process_time()
            while time.perf_counter() - start < args.seconds:
                learner.self_play_games(game, per_call)
                games += per_call
            elapsed, used = time.perf_counter() - start, time.process_time() - cpu
            print(
                f"{encoding:6s} {method:10s} hidden={hidden} kernel={update:8s}: "
                f"{games / elapsed:7.1f} games/s wall, {games / used:7.1f} games/CPU-s ({games} games)"
            )


if __name__ == "__main__":
    main()
