"""Acceptance checks for the ``perfect`` agent (standard 7x6 Connect Four).

1. ``perfect`` moving first wins every game from the empty board against
   ``mcts:iterations=10000`` and against itself;
2. ``perfect`` moving second against MCTS never turns a drawn or won position
   into a worse one: after each of its moves the solver checks that the
   position's value for it did not drop;
3. the time ``perfect`` takes per move, by ply, and the share of its moves that
   came from the opening book.

    PYTHONPATH=src python benchmarks/perfect_play.py --games 2 --mcts mcts:iterations=10000
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

from boardlab.agents.registry import make_agent
from boardlab.core.registry import make
from boardlab.games.connect4.book import default_book
from boardlab.games.connect4.solver import Position, Solver


def play(agents, seed: int, checker: Solver | None, perfect_seat: int, times: list, start: str = ""):
    """One game from ``start`` (moves; empty: the empty board); returns (winner, stones, violations)."""
    game = make("connect4")
    state = game.state_from_moves(start, seed) if start else game.new_initial_state(seed)
    for seat, agent in enumerate(agents):
        agent.reset(game, seat, seed * 2 + seat)
    violations = []
    while not state.is_terminal():
        player = state.current_player()
        before = None
        if checker is not None and player == perfect_seat:
            before = checker.solve(Position.from_state(state))
        start = time.perf_counter()
        action = agents[player].step(state)
        elapsed = time.perf_counter() - start
        if player == perfect_seat:
            times.append((len(state.history), elapsed))
        state.apply_action(action)
        if before is not None:
            if state.winner == player:
                after = (42 + 1 - len(state.history) + 1) // 2  # the score of the win just made
            elif state.is_terminal():
                after = 0
            else:
                after = -checker.solve(Position.from_state(state))
            if after < before:
                violations.append({"ply": len(state.history), "before": before, "after": after})
    return state.winner, len(state.history), violations


def off_book_times(plies, per_ply: int, seed: int) -> list[dict]:
    """Seconds ``perfect`` takes on positions of random games (each with a fresh table)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    game = make("connect4")
    rows = []
    for ply in plies:
        found = 0
        while found < per_ply:
            state = game.new_initial_state()
            for _ in range(ply):
                if state.is_terminal():
                    break
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
            if state.is_terminal() or len(state.history) != ply:
                continue
            agent = make_agent("perfect")
            agent.reset(game, state.current_player(), 1)
            in_book = agent.solver.book is not None and agent.solver.book.best(Position.from_state(state)) is not None
            start = time.perf_counter()
            agent.step(state)
            rows.append({"ply": ply, "moves": "".join(str(a + 1) for a in state.history),
                         "in_book": in_book, "seconds": time.perf_counter() - start})
            found += 1
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2, help="games per check")
    parser.add_argument("--mcts", default="mcts:iterations=10000")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--timing-plies", type=int, nargs="*", default=[6, 8, 10, 12, 14, 18, 24],
                        help="plies of random-game positions to time perfect on")
    parser.add_argument("--timing-per-ply", type=int, default=5)
    parser.add_argument("--skip-games", action="store_true", help="only the timing on random-game positions")
    parser.add_argument("--matches", nargs="*", choices=("first-mcts", "first-self", "second-mcts"),
                        default=["first-mcts", "first-self", "second-mcts"],
                        help="which checks to play (first/second: perfect's seat relative to the start position)")
    parser.add_argument("--start", nargs="*", default=[""],
                        help="start positions (moves); 'first' = the side to move there, 'second' = the other; "
                             "default: the empty board")
    args = parser.parse_args()
    # the checker reads the same book: its scores are the solver's own, and without it each check
    # of an early position would take minutes
    checker = Solver(book=default_book())
    results = []
    times: list[tuple[int, float]] = []
    timing = off_book_times(args.timing_plies, args.timing_per_ply, 5)
    for ply in args.timing_plies:
        secs = [r["seconds"] for r in timing if r["ply"] == ply]
        line = {"timing_ply": ply, "positions": len(secs), "mean_s": sum(secs) / len(secs), "max_s": max(secs),
                "in_book": sum(r["in_book"] for r in timing if r["ply"] == ply)}
        print(json.dumps(line), flush=True)
    every_match = {
        "first-mcts": ("perfect first vs " + args.mcts, args.mcts, 0),
        "first-self": ("perfect first vs perfect", "perfect", 0),
        "second-mcts": ("perfect second vs " + args.mcts, args.mcts, 1),
    }
    matches = () if args.skip_games else tuple(every_match[name] for name in args.matches)
    for (label, opponent, role), start_moves, g in itertools.product(matches, args.start, range(args.games)):
        perfect_seat = (len(start_moves) + role) % 2  # seat of the side to move at the start, or the other
        agents = [make_agent(opponent), make_agent(opponent)]
        agents[perfect_seat] = make_agent("perfect")
        start = time.perf_counter()
        winner, stones, violations = play(
            agents, 1000 + g, checker if role == 1 else None, perfect_seat, times, start_moves
        )
        row = {"match": label, "start": start_moves, "game": g, "winner": winner, "stones": stones,
               "perfect_won": winner == perfect_seat, "violations": violations,
               "seconds": time.perf_counter() - start}
        results.append(row)
        print(json.dumps(row) if args.json else
              f"{label:<40} from {start_moves or 'empty board'!s:<16} game {g}: winner {winner} after {stones} stones, "
              f"{len(violations)} worsening moves, {row['seconds']:.1f} s", flush=True)
    if not times:
        return
    slow = sorted(times, key=lambda t: -t[1])[:5]
    summary = {
        "first_player_wins_all": all(r["perfect_won"] for r in results if r["match"].startswith("perfect first")),
        "second_player_never_worsened": all(not r["violations"] for r in results if r["match"].startswith("perfect second")),
        "perfect_moves": len(times),
        "mean_seconds_per_move": sum(t for _, t in times) / len(times),
        "moves_over_1s": sum(1 for _, t in times if t > 1.0),
        "slowest": [{"ply": p, "seconds": round(t, 3)} for p, t in slow],
        "max_seconds_by_ply": {p: round(max(t for q, t in times if q == p), 3) for p in sorted({q for q, _ in times})},
    }
    print(json.dumps(summary) if args.json else json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
