"""Connect Four random playouts: boardlab against its peers, in one run.

    python benchmarks/playouts.py [--seconds 3] [--json]

Measures, on one process: boardlab's compiled playout kernel, boardlab's
Python-level ``apply_action`` loop, a plain-Python int bitboard (the floor a
pure-Python engine can reach), and, when installed (``pip install -e
'.[peers]'``), OpenSpiel's connect_four (Python loop over ``apply_action`` and
native ``evaluate_bots`` with uniform random bots) and PettingZoo's
connect_four_v3. Each figure is the best of five timed rounds.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

from random_play import random_play_moves


def timed(fn, seconds: float) -> tuple[float, float]:
    """Run ``fn(n_games) -> moves`` in rounds of about ``seconds``; best (games/s, moves/s) of five.

    The best round is the one least disturbed by other processes on the machine.
    """
    n = 1
    while True:  # grow n until one call takes a tenth of the budget
        start = time.perf_counter()
        fn(n)
        if time.perf_counter() - start > seconds / 10:
            break
        n *= 2
    best = (0.0, 0.0)
    for _ in range(5):
        start = time.perf_counter()
        games = n * 10
        moves = fn(games)
        elapsed = time.perf_counter() - start
        if moves / elapsed > best[1]:
            best = (games / elapsed, moves / elapsed)
    return best


def boardlab_kernel(games: int) -> int:
    from boardlab.games import make
    from boardlab.games.connect4.kernel import Connect4Kernel

    kernel = KERNEL.setdefault("k", Connect4Kernel(make("connect4")))
    _, moves = kernel.random_games(games, seed=games)
    return int(moves)


KERNEL: dict = {}


def boardlab_python(games: int) -> int:
    from boardlab.games import make

    game = make("connect4")
    return random_play_moves(game, games)


def plain_bitboard(games: int) -> int:
    """A minimal int bitboard written inline: no classes, no checks."""
    H = 7
    bottom = [1 << (c * H) for c in range(7)]
    top = [1 << (c * H + 5) for c in range(7)]
    colmask = [0b111111 << (c * H) for c in range(7)]
    full = sum(colmask)
    choice = random.Random(1).choice
    moves = 0
    for _ in range(games):
        boards = [0, 0]
        mask = 0
        player = 0
        while True:
            col = choice([c for c in range(7) if not mask & top[c]])
            move = (mask + bottom[col]) & colmask[col]
            b = boards[player] | move
            boards[player] = b
            mask |= move
            moves += 1
            won = False
            for d in (1, H, H + 1, H - 1):
                m = b & (b >> d)
                if m & (m >> 2 * d):
                    won = True
                    break
            if won or mask == full:
                break
            player ^= 1
    return moves


def openspiel_python(games: int) -> int:
    import pyspiel

    game = pyspiel.load_game("connect_four")
    return random_play_moves(game, games)


def openspiel_native(games: int) -> int:
    import pyspiel

    game = pyspiel.load_game("connect_four")
    bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(2)]
    for g in range(games):
        # evaluate_bots plays the whole game in C++ and returns only the returns, so the
        # moves are counted at the mean length of uniformly random games (MEAN_MOVES)
        pyspiel.evaluate_bots(game.new_initial_state(), bots, g)
    return int(games * MEAN_MOVES)


MEAN_MOVES = 0  # measured below from boardlab's kernel (same distribution: uniform random play)


def pettingzoo(games: int) -> int:
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env()
    rng = random.Random(1)
    moves = 0
    for g in range(games):
        env.reset(seed=g)
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                legal = [i for i, ok in enumerate(obs["action_mask"]) if ok]
                action = rng.choice(legal)
                moves += 1
            env.step(action)
    return moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="budget per measurement")
    parser.add_argument("--json", action="store_true", help="print one JSON object per line: name, games_per_s, moves_per_s")
    args = parser.parse_args()

    global MEAN_MOVES
    from boardlab.games import make
    from boardlab.games.connect4.kernel import Connect4Kernel

    counts, moves = Connect4Kernel(make("connect4")).random_games(200_000, seed=9)
    MEAN_MOVES = moves / 200_000

    runs = [
        ("boardlab kernel (numba)", boardlab_kernel),
        ("boardlab apply_action loop (Python)", boardlab_python),
        ("plain-Python int bitboard", plain_bitboard),
    ]
    try:
        import pyspiel  # noqa: F401

        runs += [("OpenSpiel apply_action loop (Python)", openspiel_python), ("OpenSpiel evaluate_bots (C++)", openspiel_native)]
    except ImportError:
        print("OpenSpiel not installed: skipped", file=sys.stderr)
    try:
        from pettingzoo.classic import connect_four_v3  # noqa: F401

        runs.append(("PettingZoo connect_four_v3", pettingzoo))
    except ImportError:
        print("PettingZoo not installed: skipped", file=sys.stderr)

    results = []
    for name, fn in runs:
        games_s, moves_s = timed(fn, args.seconds)
        results.append({"name": name, "games_per_s": games_s, "moves_per_s": moves_s})
        if args.json:
            print(json.dumps(results[-1]), flush=True)
    if not args.json:
        print(f"{'implementation':40s} {'games/s':>12s} {'moves/s':>12s}")
        for r in results:
            print(f"{r['name']:40s} {r['games_per_s']:12,.0f} {r['moves_per_s']:12,.0f}")


if __name__ == "__main__":
    main()
