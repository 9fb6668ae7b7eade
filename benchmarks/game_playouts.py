"""Random playouts in Mancala (Kalah 6,4) and Chess: boardlab against its peers, in one run.

    python benchmarks/game_playouts.py [--seconds 3] [--json]

Mancala: boardlab's Python ``apply_action`` loop, its compiled kernel
(``game.playout_kernel()``), and OpenSpiel's ``mancala`` (Python loop).

Chess, every game capped at 300 plies so that all loops play the same kind of
positions: the boardlab wrapper (``legal_actions`` / ``apply_action`` with
all draw rules), raw python-chess written as lean as its API allows (one
legal-move list per ply and the same end tests: insufficient material,
75-move rule, fivefold repetition only once 16 quiet plies have passed),
raw python-chess written the usual way (``board.is_game_over()`` each
ply), and OpenSpiel's ``chess`` through ``pyspiel`` (Python loop).
Each figure is the best of three timed rounds of CPU time (``time.process_time``:
every loop here runs on one thread, and the CPU is shared with other jobs, so
wall-clock time would measure the neighbours); ratios are to the boardlab
Python loop (Mancala) and to the lean python-chess loop (Chess).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

from random_play import random_play_moves

MAX_PLIES = 300


def timed(fn, seconds: float) -> tuple[float, float]:
    """Run ``fn(n_games) -> moves`` in rounds of about ``seconds``; best (games/s, moves/s) of three."""
    clock = time.process_time
    fn(1)  # imports and first-call costs stay out of the calibration
    n = 1
    while True:  # grow n until one call takes a tenth of the budget
        start = clock()
        fn(n)
        if clock() - start > seconds / 10:
            break
        n *= 2
    best = (0.0, 0.0)
    for _ in range(3):
        start = clock()
        games = n * 10
        moves = fn(games)
        elapsed = clock() - start
        if moves / elapsed > best[1]:
            best = (games / elapsed, moves / elapsed)
    return best


# --- Mancala -----------------------------------------------------------------
def mancala_python(games: int) -> int:
    from boardlab.core.registry import make

    game = make("mancala")
    return random_play_moves(game, games)


def mancala_kernel(games: int) -> int:
    from boardlab.core.registry import make

    kernel = make("mancala").playout_kernel()
    _, moves = kernel.random_games(games, seed=games)
    return int(moves)


def mancala_kernel_states(games: int) -> int:
    """``playout_returns(state, rng)`` from the start, as MCTS calls it (with its per-call overhead)."""
    from boardlab.core.registry import make
    from boardlab.core.rng import kernel_rng

    game = make("mancala")
    kernel = game.playout_kernel()
    state = game.new_initial_state()
    rng = kernel_rng(games)
    for _ in range(games):
        kernel.playout_returns(state, rng)
    return games * 44  # 43.9 moves in a random Kalah(6,4) game (measured by random_games)


def openspiel_mancala(games: int) -> int:
    import pyspiel

    game = pyspiel.load_game("mancala")
    return random_play_moves(game, games)


# --- Chess -------------------------------------------------------------------
def chess_boardlab(games: int) -> int:
    from boardlab.core.registry import make

    game = make("chess", max_moves=MAX_PLIES)
    return random_play_moves(game, games)


def chess_raw_lean(games: int) -> int:
    import chess

    choice = random.Random(1).choice
    moves = 0
    for _ in range(games):
        board = chess.Board()
        for _ply in range(MAX_PLIES):
            legal = list(board.generate_legal_moves())
            if (
                not legal
                or board.is_insufficient_material()
                or board.halfmove_clock >= 150
                or (board.halfmove_clock >= 16 and board.is_fivefold_repetition())
            ):
                break
            board.push(choice(legal))
            moves += 1
    return moves


def chess_raw_usual(games: int) -> int:
    import chess

    choice = random.Random(1).choice
    moves = 0
    for _ in range(games):
        board = chess.Board()
        for _ply in range(MAX_PLIES):
            if board.is_game_over():
                break
            board.push(choice(list(board.legal_moves)))
            moves += 1
    return moves


def openspiel_chess(games: int) -> int:
    import pyspiel

    game = pyspiel.load_game("chess")
    choice = random.Random(1).choice
    moves = 0
    for _ in range(games):
        state = game.new_initial_state()
        for _ply in range(MAX_PLIES):
            if state.is_terminal():
                break
            state.apply_action(choice(state.legal_actions()))
            moves += 1
    return moves


CASES = [
    ("mancala", "boardlab Python loop", mancala_python),
    ("mancala", "boardlab compiled kernel (random_games)", mancala_kernel),
    ("mancala", "boardlab kernel via playout_returns(state)", mancala_kernel_states),
    ("mancala", "OpenSpiel mancala (Python loop)", openspiel_mancala),
    ("chess", "boardlab wrapper", chess_boardlab),
    ("chess", "raw python-chess, lean loop", chess_raw_lean),
    ("chess", "raw python-chess, is_game_over()", chess_raw_usual),
    ("chess", "OpenSpiel chess (Python loop)", openspiel_chess),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time budget of one round per case")
    parser.add_argument("--json", action="store_true", help="print one JSON object: {results: [{game, engine, games_per_s, moves_per_s}]}")
    args = parser.parse_args()
    mancala_kernel(1)  # compile (or load the numba cache) before timing
    results = []
    for game, engine, fn in CASES:
        try:
            games_s, moves_s = timed(fn, args.seconds)
        except ImportError as exc:
            print(f"skipping {engine}: {exc}", file=sys.stderr)
            continue
        results.append({"game": game, "engine": engine, "games_per_s": games_s, "moves_per_s": moves_s})
    if args.json:
        print(json.dumps({"results": results}))
        return
    base = {
        "mancala": next(r["moves_per_s"] for r in results if r["engine"].startswith("boardlab Python")),
        "chess": next(r["moves_per_s"] for r in results if r["engine"] == "raw python-chess, lean loop"),
    }
    print(f"{'game':8} {'engine':45} {'games/s':>10} {'moves/s':>12} {'ratio':>8}")
    for r in results:
        ratio = r["moves_per_s"] / base[r["game"]]
        print(f"{r['game']:8} {r['engine']:45} {r['games_per_s']:10.1f} {r['moves_per_s']:12.0f} {ratio:7.2f}x")
    print("ratio: moves/s against the boardlab Python loop (mancala) and the lean python-chess loop (chess)")


if __name__ == "__main__":
    main()
