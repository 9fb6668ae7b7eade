"""Connect Four solver speed on Pascal Pons' benchmark sets.

For each set: positions per second, mean time and mean nodes per position, and
the number of wrong scores (must be 0). Two modes:

* ``call``: ``Solver.solve(moves)`` per position from Python, the table
  cleared before each position (as Pons measures); the time covers parsing the
  move string and the search, not the clearing;
* ``batch``: all positions of the set parsed first, then searched in one
  compiled loop sharing the table (``Solver.solve_many``): the search alone.

    .venv/bin/python benchmarks/solver.py --data DIR \
        --sets Test_L3_R1 Test_L2_R1 Test_L2_R2 Test_L1_R1 --limit 1000

``DIR`` holds Pascal Pons' benchmark sets (``Test_L3_R1`` ...: one position and
its score per line, from his Connect Four solver tutorial: Pons' test sets,
docs/references.md; they are not shipped, download them from his blog).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from boardlab.games.connect4.solver import Position, Solver, read_positions

# Pons' C++ solver (PascalPons/connect4, no book) timed on this project's machine
# before the solver was written, as its targets; his blog's own figures are 4.568 µs, 37.45 µs, 3.212 ms,
# 254.6 µs and 96.63 ms on his machine.
PONS_SECONDS = {
    "Test_L3_R1": 7.5e-6, "Test_L2_R1": 60e-6, "Test_L2_R2": 5.7e-3,
    "Test_L1_R1": 0.40e-3, "Test_L1_R2": 0.17,
}


def run_set(path: Path, limit: int, solver: Solver) -> dict:
    lines = read_positions(path.read_text().splitlines(), str(path))[:limit]
    # call mode
    seconds = nodes = wrong = 0
    for moves, expected in lines:
        solver.clear()
        solver.reset_nodes()
        start = time.perf_counter()
        score = solver.solve(moves)
        seconds += time.perf_counter() - start
        nodes += solver.nodes
        wrong += score != expected
    n = len(lines)
    # batch mode: parse, then search only
    parsed = [Position.from_moves(m) for m, _ in lines]
    solver.clear()
    solver.reset_nodes()
    start = time.perf_counter()
    scores = solver.solve_many(parsed)
    batch_seconds = time.perf_counter() - start
    batch_wrong = sum(int(s) != e for s, (_, e) in zip(scores, lines))
    return {
        "set": path.name, "positions": n,
        "call_mean_us": 1e6 * seconds / n, "call_positions_per_s": n / seconds, "call_mean_nodes": nodes / n,
        "batch_mean_us": 1e6 * batch_seconds / n, "batch_mean_nodes": solver.nodes / n,
        "wrong": wrong + batch_wrong,
        "pons_mean_us": 1e6 * PONS_SECONDS.get(path.name, float("nan")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="folder of Pons' Test_L*_R* sets")
    parser.add_argument("--sets", nargs="+", default=["Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1"])
    parser.add_argument("--limit", type=int, default=1000, help="first N lines of each set")
    parser.add_argument("--json", action="store_true", help="one JSON object per set")
    args = parser.parse_args()
    solver = Solver()
    solver.solve("4455")  # load the compiled code before timing
    solver.solve_many(["4455"])
    if not args.json:
        print(f"{'set':<11} {'n':>5} {'call µs':>10} {'pos/s':>8} {'nodes':>9} {'batch µs':>10} {'Pons µs':>9} {'ratio':>6} wrong")
    for name in args.sets:
        row = run_set(args.data / name, args.limit, solver)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            ratio = row["batch_mean_us"] / row["pons_mean_us"]
            print(
                f"{row['set']:<11} {row['positions']:>5} {row['call_mean_us']:>10.1f} {row['call_positions_per_s']:>8.0f} "
                f"{row['call_mean_nodes']:>9.1f} {row['batch_mean_us']:>10.1f} {row['pons_mean_us']:>9.1f} {ratio:>6.2f} {row['wrong']}",
                flush=True,
            )


if __name__ == "__main__":
    main()
