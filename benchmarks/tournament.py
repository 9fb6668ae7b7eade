"""Tournament throughput: random-vs-random Connect Four, serial, a process pool and Ray.

    python benchmarks/tournament.py [--games 200] [--agents 4] [--game connect4] [--no-ray] [--json]

Plays a round-robin of ``--agents`` random agents (``random``, ``random:seed=1``,
...) with ``--games`` games per pairing into a fresh temporary results store
(every game committed, as in ``boardlab tournament``) with: 1 worker (in this
process), a process pool of 2 workers, and a local Ray instance with 1 and 2
CPUs. For the pool the figure includes starting its processes; for Ray,
``ray.init`` is timed on its own and left out of the games/s figure (it is
paid once per run, and not at all on a running cluster).
Prints the load average too, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from boardlab.arena.backends import start_local_ray  # noqa: E402
from boardlab.arena.store import ResultStore  # noqa: E402
from boardlab.arena.tournament import play_missing, prepare  # noqa: E402


def timed_tournament(config, **how) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as folder, ResultStore(Path(folder) / "bench.sqlite") as store:
        start = time.perf_counter()
        _, played = play_missing(config, store, **how)
        return time.perf_counter() - start, played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing")
    parser.add_argument("--agents", type=int, default=4, help="random agents in the round-robin")
    parser.add_argument("--game", default="connect4", help="game spec; a bigger board (connect4:rows=9,cols=10) means longer games")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray figures")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: load_before, rows [{backend, workers, games, seconds, games_per_second, startup_seconds}], load_after",
    )
    args = parser.parse_args()
    agents = ["random"] + [f"random:seed={i}" for i in range(1, args.agents)]
    config = prepare(args.game, agents, games=args.games, seed=0)
    rows = []
    load_before = os.getloadavg()

    def add(backend: str, workers: int, seconds: float, played: int, startup: float | None = None) -> None:
        rows.append({"backend": backend, "workers": workers, "games": played, "seconds": round(seconds, 3),
                     "games_per_second": round(played / seconds, 1), "startup_seconds": None if startup is None else round(startup, 2)})
        if not args.json:
            extra = "" if startup is None else f"  (+ {startup:.1f} s ray.init, not counted)"
            print(f"{backend:8s} workers={workers}  {played} games in {seconds:6.2f} s  {played / seconds:8.1f} games/s{extra}", flush=True)

    timed_tournament(config, workers=1)  # warm up imports and caches
    for backend, workers in (("serial", 1), ("process", 2)):
        seconds, played = timed_tournament(config, workers=workers, backend="process")
        add(backend, workers, seconds, played)
    if not args.no_ray:
        import ray

        for cpus in (1, 2):
            start = time.perf_counter()
            start_local_ray(cpus)
            startup = time.perf_counter() - start
            seconds, played = timed_tournament(config, workers=cpus, backend="ray")
            ray.shutdown()
            add("ray", cpus, seconds, played, startup)
    load_after = os.getloadavg()
    if args.json:
        print(json.dumps({"load_before": load_before, "rows": rows, "load_after": load_after}))
    else:
        print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}; {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
