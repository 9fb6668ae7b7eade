"""Write and read times of the tree formats (binary .tree and CSV) at 250k and 1M nodes.

    PYTHONPATH=src python benchmarks/tree_formats.py [--sizes 250000,1000000] [--rounds 3] [--json]

Trees come from ``random_mcts_tree`` (UCT-shaped, 1-3 letter moves, 12-character
states). Each figure is the median of ``--rounds`` timed runs after one warm-up
(numba compiles on first use). For comparison, the CSV file is also read by
Python's ``csv`` module into rows with ``int``/``float`` conversion (pandas is not
installed here), which is the floor of any reader that makes Python objects.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from boardlab.trees.generate import random_mcts_tree
from boardlab.trees.io import load_tree, save_tree


def median_time(fn, rounds: int) -> float:
    """Median wall-clock seconds; the CPU seconds of the same runs go to ``CPU_TIMES`` (the machine is shared)."""
    times, cpu = [], []
    for _ in range(rounds):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    CPU_TIMES.append(statistics.median(cpu))
    return statistics.median(times)


CPU_TIMES: list[float] = []


def csv_module_read(path: Path) -> int:
    rows = 0
    with open(path, newline="", encoding="utf-8") as handle:
        for _move, visits, visits2, mean, _state, children in csv.reader(handle):
            int(visits), int(visits2), float(mean), int(children)
            rows += 1
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="250000,1000000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        warm = random_mcts_tree(1000, seed=0)
        for ext in ("tree", "csv"):
            save_tree(warm, Path(tmp) / f"warm.{ext}")
            load_tree(Path(tmp) / f"warm.{ext}")
        for n in sizes:
            tree = random_mcts_tree(n, seed=1)
            row = {"nodes": n}
            for ext in ("tree", "csv"):
                path = Path(tmp) / f"t{n}.{ext}"
                row[f"{ext}_write_s"] = median_time(lambda tree=tree, path=path: save_tree(tree, path), args.rounds)
                row[f"{ext}_write_cpu_s"] = CPU_TIMES[-1]
                row[f"{ext}_read_s"] = median_time(lambda path=path: load_tree(path), args.rounds)
                row[f"{ext}_read_cpu_s"] = CPU_TIMES[-1]
                row[f"{ext}_mb"] = os.path.getsize(path) / 1e6
            row["csv_module_read_s"] = median_time(lambda n=n: csv_module_read(Path(tmp) / f"t{n}.csv"), 1)
            row["csv_module_read_cpu_s"] = CPU_TIMES[-1]
            results.append(row)
    if args.json:
        print(json.dumps({"load": os.getloadavg(), "results": results}))
        return
    print(f"load average {os.getloadavg()[0]:.2f}; median of {args.rounds}; seconds as wall (CPU)")
    print("| nodes | .tree MB | .tree write | .tree read | .csv MB | .csv write | .csv read | csv module read |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        f = lambda key, r=r: f"{r[key + '_s']:.3f} ({r[key + '_cpu_s']:.3f})"  # noqa: E731
        print(
            f"| {r['nodes']:,} | {r['tree_mb']:.1f} | {f('tree_write')} | {f('tree_read')} | {r['csv_mb']:.1f} | "
            f"{f('csv_write')} | {f('csv_read')} | {f('csv_module_read')} |"
        )


if __name__ == "__main__":
    main()
