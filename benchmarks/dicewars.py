"""Dice Wars speed: whole games per second on one core, compiled and in Python, against the course engine.

    python benchmarks/dicewars.py [--seconds 3] [--maps 50] [--json]

* compiled (``boardlab.bots.dicewars.compiled.CompiledBots.bot_games``): 4-player games from fresh deals
  (ownership and dice) on a pool of ``--maps`` generated maps, every seat a
  uniformly random player (``uniform``: a random legal action, end turn included,
  the MCTS playout policy), every seat ``dw-rand``, and the course's mix
  ``dw-ste`` vs ``dw-sdc`` vs ``dw-wpm`` vs ``dw-rand``;
* map generation alone (``mapgen.generate``: compiled growth, checks and the
  ``Map`` in Python), and compiled games of uniform random players each on a
  freshly generated map (map included in the time);
* Python: the ``DiceWarsState`` loop with random legal actions, and
  ``arena.play_game`` with the Python bots (as tournaments play them),
  records included.

The course engine (a server and a client process per player over sockets)
needs 4.35 s per 4-player game, 0.23 games/s (the Dice Wars rules, docs/references.md); ratios are
to that. Each figure is the best of three rounds of CPU time
(``time.process_time``: one thread, and other jobs share the cores).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

COURSE_GAMES_PER_SECOND = 1 / 4.35


def best_rate(fn, seconds: float) -> float:
    """Games per CPU second of ``fn(n) -> games``: calibrate n, then the best of three rounds."""
    clock = time.process_time
    fn(1)
    n = 1
    while True:
        start = clock()
        fn(n)
        spent = clock() - start
        if spent >= seconds / 10 or n >= 1 << 22:
            break
        n *= 2
    n = max(1, int(n * (seconds / 3) / max(spent, 1e-9)))
    rates = []
    for _ in range(3):
        start = clock()
        games = fn(n)
        rates.append(games / max(clock() - start, 1e-9))
    return max(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per measurement (about)")
    parser.add_argument("--maps", type=int, default=50, help="maps in the pool the compiled games are played on")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    from boardlab.agents.registry import make_agent
    from boardlab.arena.play import play_game
    from boardlab.bots.dicewars import compiled as K
    from boardlab.core.registry import make
    from boardlab.games.dicewars.mapgen import generate

    load_before = os.getloadavg()[0]
    game = make("dicewars")
    kern = K.CompiledBots(game)
    maps = [game.new_initial_state(s).map for s in range(args.maps)]
    seed = [0]

    def compiled(policies):
        def run(n):
            seed[0] += 1
            kern.bot_games(maps, n, policies, seed=seed[0])
            return n
        return run

    rows = []

    def add(name, rate, note=""):
        rows.append({"what": name, "games_per_second": rate, "vs_course": rate / COURSE_GAMES_PER_SECOND, "note": note})
        if not args.json:
            print(f"{name:58s} {rate:12,.1f} games/s  {rate / COURSE_GAMES_PER_SECOND:10,.0f}x course  {note}",
                  file=sys.stderr)

    add("compiled, 4 x uniform random", best_rate(compiled([K.UNIFORM] * 4), args.seconds))
    add("compiled, 4 x dw-rand", best_rate(compiled([K.RAND] * 4), args.seconds))
    add("compiled, dw-ste vs dw-sdc vs dw-wpm vs dw-rand",
        best_rate(compiled([K.STE, K.SDC, K.WPM, K.RAND]), args.seconds))

    counter = [10_000]

    def maps_only(n):
        for _ in range(n):
            counter[0] += 1
            generate.__wrapped__(counter[0])
        return n
    map_rate = best_rate(maps_only, args.seconds)
    rows.append({"what": "map generation, maps per second", "games_per_second": map_rate,
                 "vs_course": None, "note": "maps, not games"})
    if not args.json:
        print(f"{'map generation':58s} {map_rate:12,.1f} maps/s", file=sys.stderr)

    def fresh_map_games(n):
        for _ in range(n):
            counter[0] += 1
            kern.bot_games([generate.__wrapped__(counter[0])], 1, [K.UNIFORM] * 4, seed=counter[0])
        return n
    add("compiled, 4 x uniform random, a new map every game", best_rate(fresh_map_games, args.seconds), "map included")

    def python_random(n):
        rng = random.Random(1)
        for g in range(n):
            state = game.new_initial_state(g % args.maps)
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.randrange(len(legal))])
        return n
    add("Python state loop, 4 x uniform random", best_rate(python_random, args.seconds))

    def python_bots(n):
        for g in range(n):
            agents = [make_agent(s, game) for s in ("dw-ste", "dw-sdc", "dw-wpm", "dw-rand")]
            play_game(game, agents, seed=g % args.maps)
        return n
    add("Python bots in arena.play_game (ste, sdc, wpm, rand)", best_rate(python_bots, args.seconds), "records included")
    result = {"load_before": load_before, "load_after": os.getloadavg()[0], "cpu_count": os.cpu_count(),
              "maps_in_pool": args.maps, "course_games_per_second": COURSE_GAMES_PER_SECOND, "rows": rows}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"load {result['load_before']:.2f} before, {result['load_after']:.2f} after", file=sys.stderr)


if __name__ == "__main__":
    main()
