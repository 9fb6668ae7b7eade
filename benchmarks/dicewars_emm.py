"""dw-emm's search speed: CPU time per decision and nodes per second on positions of real games.

    python benchmarks/dicewars_emm.py [--games 3] [--spec dw-emm] [--json]

The positions are every decision of seat 0 in ``--games`` 4-player games of dt.ste, dt.sdc,
dt.wpm_c and dt.ste (seeds 0, 1, ...) where seat 0 has an attack (a decision without one needs
no search). Each position is searched once by ``--spec`` (a fresh agent per game, seeded), and
the CPU time (``time.process_time``: one thread; other jobs share the cores) and the nodes
are summed. What a tournament measures under its load is in its report (``search``).
"""

from __future__ import annotations

import argparse
import json
import os
import time


def positions(games: int):
    from boardlab.agents.registry import make_agent
    from boardlab.arena.play import play_to_end
    from boardlab.core.registry import make

    game = make("dicewars")
    out = []
    for seed in range(games):
        seen = []

        def note(state, player, action, seen=seen):
            if player == 0 and state.attacks_of(0):
                seen.append(state.clone())

        play_to_end(game, [make_agent(n, game) for n in ("dw-ste", "dw-sdc", "dw-wpm", "dw-ste")], seed, note)
        out.append(seen)
    return game, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--spec", default="dw-emm")
    parser.add_argument("--json", action="store_true", help="one JSON object: spec, decisions, nodes, cpu_seconds, "
                        "ms_per_decision, nodes_per_second, max_ms, load_before, load_after")
    args = parser.parse_args()
    from boardlab.agents.registry import make_agent

    load_before = os.getloadavg()[0]
    game, games = positions(args.games)
    decisions = nodes = 0
    cpu = 0.0
    largest = 0.0
    for seed, states in enumerate(games):
        agent = make_agent(args.spec, game)
        agent.reset(game, 0, seed)
        for state in states:
            start = time.process_time()
            agent.step(state)
            spent = time.process_time() - start
            cpu += spent
            largest = max(largest, spent)
            decisions += 1
            nodes += agent.last_search.get("nodes", 0)
    result = {"spec": args.spec, "decisions": decisions, "nodes": nodes, "cpu_seconds": cpu,
              "ms_per_decision": 1000 * cpu / decisions, "nodes_per_second": nodes / cpu, "max_ms": 1000 * largest,
              "load_before": load_before, "load_after": os.getloadavg()[0]}
    if args.json:
        print(json.dumps(result))
        return
    print(f"{args.spec}: {decisions} decisions, {result['ms_per_decision']:.1f} ms CPU each (largest {result['max_ms']:.0f}), "
          f"{nodes / decisions:.0f} nodes each, {result['nodes_per_second']:,.0f} nodes/s; load {load_before:.2f} -> "
          f"{result['load_after']:.2f}")


if __name__ == "__main__":
    main()
