"""Load + tidy layout + PNG for trees of 10k to 1M nodes: linear growth, and the study's 3 s / 5 s goals.

    PYTHONPATH=src python benchmarks/layout.py [--sizes 10000,100000,250000,1000000] [--rounds 3] [--no-mcts] [--json]

For each size: a generator tree (``random_mcts_tree``) and, unless ``--no-mcts``,
a tree built by the search agent (``mcts:iterations=N`` on the empty Connect
Four board; it has about N nodes). Each tree is saved as CSV first; then the
timed pipeline is what ``boardlab tree render FILE -o out.png`` does: load the
CSV, lay out, rasterise, write a 4000-pixel-wide PNG. Times are medians of
``--rounds`` runs after a warm-up; the layout alone is timed too.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from boardlab.trees.generate import random_mcts_tree
from boardlab.trees.io import load_tree, save_tree
from boardlab.trees.layout import tidy_layout
from boardlab.trees.render import render_png


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


def mcts_tree(iterations: int):
    from boardlab.agents.registry import make_agent
    from boardlab.core.registry import make

    game = make("connect4")
    agent = make_agent(f"mcts:iterations={iterations}", game)
    agent.reset(game, 0, 1)
    agent.step(game.new_initial_state())
    return agent.trees[-1]


def measure(kind: str, tree, tmp: Path, rounds: int, width: int) -> dict:
    path = tmp / f"{kind}{len(tree)}.csv"
    save_tree(tree, path)
    loaded = load_tree(path)
    layout_s = median_time(lambda: tidy_layout(loaded), rounds)
    pipeline_s = median_time(lambda: render_png(load_tree(path), tmp / "out.png", width=width), rounds)
    pipeline_cpu_s = CPU_TIMES[-1]
    return {"tree": kind, "nodes": len(tree), "depth": int(loaded.depth().max()), "layout_s": layout_s, "load_layout_png_s": pipeline_s,
            "load_layout_png_cpu_s": pipeline_cpu_s, "cpu_us_per_node": pipeline_cpu_s / len(tree) * 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,250000,1000000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--width", type=int, default=4000)
    parser.add_argument("--no-mcts", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        measure("generator", random_mcts_tree(2000, seed=0), tmp, 1, args.width)  # compile everything once
        for n in sizes:
            results.append(measure("generator", random_mcts_tree(n, seed=1), tmp, args.rounds, args.width))
            if not args.no_mcts:
                results.append(measure("mcts connect4", mcts_tree(n), tmp, args.rounds, args.width))
    if args.json:
        print(json.dumps({"load": os.getloadavg(), "results": results}))
        return
    print(f"load average {os.getloadavg()[0]:.2f}; median of {args.rounds}; PNG {args.width} px wide")
    print("| tree | nodes | depth | layout s | load + layout + PNG s (wall) | same, CPU s | CPU µs per node |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['tree']} | {r['nodes']:,} | {r['depth']} | {r['layout_s']:.3f} | {r['load_layout_png_s']:.3f} | "
              f"{r['load_layout_png_cpu_s']:.3f} | {r['cpu_us_per_node']:.2f} |")


if __name__ == "__main__":
    main()
