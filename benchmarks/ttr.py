"""Ticket to Ride speed and soundness: random and algorithmic games per second, per player count.

    PYTHONPATH=src python benchmarks/ttr.py [--kernel-games 5000] [--python-games 100]
        [--compiled-games 250] [--agent-games 10] [--check-games 0] [--json]

* random games: uniformly random legal actions, in the compiled kernel (what MCTS playouts and
  ``random_games`` run) and in the Python engine (``state.legal_actions()`` / ``apply_action``);
* algorithmic games: every seat the study's player, compiled (``boardlab.bots.tickettoride.compiled``, what
  ``boardlab experiment ttr-study`` runs) and in Python (the ``ttr-algorithmic`` agent through
  ``play_game``);
* ``--check-games N``: N random games per player count in the kernel with every state checked
  (110 cards, 45 trains, 30 tickets, the face-up rules) and every game ending within
  ``max_game_length()``; prints the broken states (none expected).

Figures are games per second of CPU time (``time.process_time``), one core. Others share the CPU:
quote ``uptime`` beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.bots.tickettoride.compiled import CompiledPlayer
from boardlab.core.registry import make

COUNTS = (2, 3, 4, 5)


def cpu(func):
    start = time.process_time()
    out = func()
    return out, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernel-games", type=int, default=5000)
    parser.add_argument("--python-games", type=int, default=100)
    parser.add_argument("--compiled-games", type=int, default=250)
    parser.add_argument("--agent-games", type=int, default=10)
    parser.add_argument("--check-games", type=int, default=0)
    parser.add_argument("--variant", default="official")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for players in COUNTS:
        game = make("tickettoride", players=players, variant=args.variant)
        kernel = game.playout_kernel()
        kernel.random_games(2, seed=0)  # compile
        row = {"players": players}
        (_, moves), seconds = cpu(lambda kernel=kernel: kernel.random_games(args.kernel_games, seed=1))
        row["kernel_random_games_per_s"] = args.kernel_games / seconds
        row["kernel_random_moves_per_game"] = moves / args.kernel_games

        def python_random(game=game):
            rng = np.random.default_rng(1)
            moves = 0
            for seed in range(args.python_games):
                state = game.new_initial_state(seed)
                while not state.is_terminal():
                    legal = state.legal_actions()
                    state.apply_action(legal[int(rng.integers(len(legal)))])
                    moves += 1
            return moves

        moves, seconds = cpu(python_random)
        row["python_random_games_per_s"] = args.python_games / seconds
        player = CompiledPlayer(game)
        player.play(0)  # compile
        _, seconds = cpu(lambda player=player: [player.play(seed) for seed in range(args.compiled_games)])
        row["compiled_algorithmic_games_per_s"] = args.compiled_games / seconds

        def python_agents(game=game, players=players):
            for seed in range(args.agent_games):
                play_game(game, [make_agent("ttr-algorithmic", game) for _ in range(players)], seed=seed)

        _, seconds = cpu(python_agents)
        row["python_algorithmic_games_per_s"] = args.agent_games / seconds
        if args.check_games:
            (failures, moves), seconds = cpu(lambda kernel=kernel, players=players: kernel.checked_random_games(args.check_games, seed=players))
            row["checked_games"] = args.check_games
            row["checked_moves"] = int(moves)
            row["broken_states"] = {str(code): int(n) for code, n in enumerate(failures) if n}
            row["check_seconds"] = seconds
        rows.append(row)
        if not args.json:
            line = (f"{players} players: random {row['kernel_random_games_per_s']:,.0f} games/s compiled, "
                    f"{row['python_random_games_per_s']:,.1f} in Python ({row['kernel_random_moves_per_game']:.0f} moves/game); "
                    f"algorithmic {row['compiled_algorithmic_games_per_s']:,.0f} games/s compiled, "
                    f"{row['python_algorithmic_games_per_s']:,.1f} in Python")
            if args.check_games:
                line += (f"; {args.check_games:,} checked random games, {row['checked_moves']:,} states, "
                         f"broken: {row['broken_states'] or 'none'}")
            print(line, flush=True)
    if args.json:
        print(json.dumps({"variant": args.variant, "load": os.getloadavg(), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
