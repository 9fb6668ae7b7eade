"""dw-emm's network leaf: CPU time per decision, leaves batched (the agent's way) or one board at a time.

    python benchmarks/dicewars_emm_net.py [--games 3] [--net PATH] [--json]

The positions are those of ``benchmarks/dicewars_emm.py`` (every decision of seat 0 with an
attack in ``--games`` 4-player reference-bot games). Each is searched with dw-emm's default
settings three ways: the score leaf, the network leaf with its leaves scored in one batch per
search (two passes over the tree, what ``dw-emm:leaf=net`` does), and the network leaf called
board by board. CPU time is ``time.process_time`` with torch on one thread; other jobs share
the cores, so compare the three of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--net", default=None, help="model file (default: the committed one)")
    parser.add_argument("--json", action="store_true", help="one JSON object: decisions, leaves, per way "
                        "(score, net_batched, net_one_by_one) {cpu_seconds, ms_per_decision}, extra_ms_per_leaf_one_by_one, "
                        "extra_ms_per_leaf_batched, load_before, load_after")
    args = parser.parse_args()
    import numpy as np
    import torch
    from dicewars_emm import positions

    from boardlab.bots.dicewars import emm_net
    from boardlab.bots.dicewars.emm_search import Pos, Search, Settings

    torch.set_num_threads(1)
    load_before = os.getloadavg()[0]
    game, games = positions(args.games)
    loaded = emm_net.load_model(args.net)
    settings = Settings()
    ways = {"score": 0.0, "net_batched": 0.0, "net_one_by_one": 0.0}
    decisions = leaves = 0
    for states in games:
        for state in states:
            root = Pos(list(state.owner), list(state.dice), list(state.reserve), state.current_player(), 0, state.battles,
                       state.turns)
            for way in ways:
                leaf = None if way == "score" else emm_net.NetLeaf(loaded, state.adjacent, 4, batched=way == "net_batched")
                search = Search(state.adjacent, 4, settings, np.random.default_rng(0), None, None, leaf)
                start = time.process_time()
                if leaf is None:
                    search.root(root, settings.attacks, False)
                else:
                    leaf.root(search, root, settings.attacks, False)
                ways[way] += time.process_time() - start
                if way == "net_batched":
                    leaves += leaf.evaluated
            decisions += 1
    result = {"decisions": decisions, "leaves": leaves,
              **{way: {"cpu_seconds": cpu, "ms_per_decision": 1000 * cpu / decisions} for way, cpu in ways.items()},
              "extra_ms_per_leaf_one_by_one": 1000 * (ways["net_one_by_one"] - ways["score"]) / leaves,
              "extra_ms_per_leaf_batched": 1000 * (ways["net_batched"] - ways["score"]) / leaves,
              "load_before": load_before, "load_after": os.getloadavg()[0]}
    if args.json:
        print(json.dumps(result))
        return
    print(f"{decisions} decisions, {leaves / decisions:.0f} leaves each; load {load_before:.2f} -> {result['load_after']:.2f}")
    for way in ways:
        print(f"  {way:>15}: {result[way]['ms_per_decision']:.1f} ms CPU per decision")
    print(
        f"  cost per leaf over the score leaf: {result['extra_ms_per_leaf_one_by_one']:.3f} ms one by one, "
        f"{result['extra_ms_per_leaf_batched']:.3f} ms batched"
    )


if __name__ == "__main__":
    main()
