"""UCT strength in Chess and Mancala against a uniformly random player.

    python benchmarks/games_strength.py [--chess-games 50] [--mancala-games 200]
        [--chess-agent SPEC] [--mancala-agent SPEC] [--tune 10] [--json]

The goals: UCT with the material evaluation wins >= 95 % of
50 chess games against random, and UCT with 2000 iterations wins >= 95 % of
200 Mancala games against random. Seats alternate. ``--tune N`` first plays
N chess games for each ``eval_plies`` in 0, 2, 4, 8 (random plies before the
evaluation cut-off) and prints the win rate, game length and CPU time per
UCT move, which is how the default ``eval_plies=0`` for chess was chosen.
``--weights N`` plays N Mancala games for each pairing of
``mcts:iterations=ITER,eval=...`` searches that differ only in the weight of
the seeds on each side in the store evaluation (``--weights-iterations``,
default 300), which is how ``SIDE_WEIGHT`` of
:func:`boardlab.games.mancala.evaluate_store` was chosen.
"""

from __future__ import annotations

import argparse
import json
import time

from boardlab.agents.evaluators import register_evaluator
from boardlab.arena.duel import duel
from boardlab.core.registry import make
from boardlab.games.mancala import store_value

#: (weight, weight) pairings compared by --weights; the first weight of each is the candidate default
WEIGHT_PAIRS = [(-0.5, 0.0), (-0.5, -0.25), (-0.5, -1.0), (0.0, 0.25)]


def _weight_name(weight: float) -> str:
    return "side_weight_" + f"{weight:+.2f}".replace("+", "p").replace("-", "m").replace(".", "_")


for _w in sorted({w for pair in WEIGHT_PAIRS for w in pair}):
    globals()[_weight_name(_w)] = lambda state, _w=_w: store_value(state, _w)
    register_evaluator(_weight_name(_w), f"{__name__}:{_weight_name(_w)}")

CHESS_AGENT = "mcts:iterations=200,eval=chess_material"
MANCALA_AGENT = "mcts:iterations=2000"


def measure(game_spec: str, agent: str, games: int, seed: int = 0) -> dict:
    game = make(game_spec)
    plies: list[int] = []
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    result = duel(game, agent, "random", games, seed, on_game=lambda i, record: plies.append(len(record.actions)))
    cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start_wall
    agent_moves = sum(plies) / 2  # the UCT agent makes about half the moves; random moves cost ~nothing
    data = result.to_dict()
    data.update(
        win_rate=result.wins / result.games,
        mean_plies=sum(plies) / len(plies),
        cpu_s=cpu,
        wall_s=wall,
        cpu_s_per_agent_move=cpu / agent_moves if agent_moves else None,
    )
    return data


def line(label: str, d: dict) -> str:
    return (
        f"{label:44} W/D/L {d['wins']:3d}/{d['draws']:3d}/{d['losses']:3d}  win rate {100 * d['win_rate']:5.1f} %  "
        f"mean plies {d['mean_plies']:6.1f}  CPU {d['cpu_s']:7.1f} s ({1000 * d['cpu_s_per_agent_move']:.1f} ms/move)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chess-games", type=int, default=50)
    parser.add_argument("--mancala-games", type=int, default=200)
    parser.add_argument("--chess-agent", default=CHESS_AGENT)
    parser.add_argument("--mancala-agent", default=MANCALA_AGENT)
    parser.add_argument("--tune", type=int, default=0, help="chess games per eval_plies value (0: skip the sweep)")
    parser.add_argument("--weights", type=int, default=0, help="mancala games per pairing of side weights (0: skip)")
    parser.add_argument("--weights-iterations", type=int, default=300)
    parser.add_argument(
        "--json",
        action="store_true",
        help=(
            "print one JSON object: {weights: [...], tune: [...], chess: {...}, mancala: {...}}, "
            "each a duel result plus win_rate, mean_plies, cpu_s, wall_s, cpu_s_per_agent_move"
        ),
    )
    args = parser.parse_args()
    out: dict = {"tune": [], "weights": []}
    for a, b in WEIGHT_PAIRS if args.weights else []:
        it = args.weights_iterations
        r = duel(make("mancala"), f"mcts:iterations={it},eval={_weight_name(a)}",
                 f"mcts:iterations={it},eval={_weight_name(b)}", args.weights, seed=5)
        out["weights"].append({"weights": [a, b], "iterations": it, **r.to_dict()})
        if not args.json:
            print(f"mancala side weight {a:+.2f} vs {b:+.2f} at {it} iterations: W/D/L {r.wins}/{r.draws}/{r.losses}", flush=True)
    if args.tune:
        for plies in (0, 2, 4, 8):
            spec = f"{args.chess_agent},eval_plies={plies}"
            d = measure("chess", spec, args.tune, seed=100 + plies)
            d["eval_plies"] = plies
            out["tune"].append(d)
            if not args.json:
                print(line(f"chess {spec}", d), flush=True)
    if args.chess_games:
        out["chess"] = measure("chess", args.chess_agent, args.chess_games)
        if not args.json:
            print(line(f"chess {args.chess_agent}", out["chess"]) + "  (goal >= 95 %)", flush=True)
    if args.mancala_games:
        out["mancala"] = measure("mancala", args.mancala_agent, args.mancala_games)
        if not args.json:
            print(line(f"mancala {args.mancala_agent}", out["mancala"]) + "  (goal >= 95 %)", flush=True)
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
