"""How strong and how quick each game's default opponent (the one the web page offers first) is,
beside the next-best agent the lab has, on this machine.

    PYTHONPATH=src python benchmarks/default_opponents.py [--only GAME ...] [--games N] [--json]
        [--default AGENT] [--opponent AGENT]

For every built-in game the default is read from the game itself (``Game.default_agent``), never
written here. It plays the next-best agent in seat-rotated games (two-player games: a duel with
seats alternating; more players: the default in one seat, the next-best in all the others, the
default's seat moving on every game). ``--default`` and ``--opponent`` put other agents in either
place, to measure a candidate for the default the same way. Printed per game: the default's wins, draws and losses, its
score (a win 1, a draw or a shared win its share) with a 95 % Wilson interval, its fair share,
and both agents' mean seconds per decision (wall time of ``agent.step``, so the load of the machine
counts). ``--json`` prints one JSON object per game, one per line, with the keys game, default,
opponent, games, wins, draws, losses, score, interval, fair_share, default_seconds, opponent_seconds.
"""

from __future__ import annotations

import argparse
import json
import time

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.arena.stats import wilson
from boardlab.core.registry import make
from boardlab.core.rng import derive_seed

#: game spec -> (the next-best agent, games played by default)
MATCHES = {
    "connect4": ("mcts:iterations=10000", 40),
    "mancala": ("mcts:iterations=2000", 40),
    "chess": ("mcts:eval=none,time=1", 6),
    "nothanks": ("nothanks-net", 100),
    "dicewars:players=2": ("dw-ste", 60),
    "dicewars": ("dw-ste", 40),
    "tickettoride:players=2": ("ttr-algorithmic", 20),
}


def measure(spec: str, opponent: str, games: int, seed: int, default: str | None = None) -> dict:
    game = make(spec)
    default = default or game.default_agent()
    if default is None:
        raise SystemExit(f"{spec} declares no default opponent")
    players = game.num_players()
    ours, theirs = make_agent(default, game), [make_agent(opponent, game) for _ in range(players - 1)]
    seconds = {"default": [0.0, 0], "opponent": [0.0, 0]}
    wins = draws = losses = 0
    score = 0.0
    for index in range(games):
        seat = index % players
        seats = theirs[:seat] + [ours] + theirs[seat:]

        def timed(who: int, spent: float, seat: int = seat) -> None:
            entry = seconds["default" if who == seat else "opponent"]
            entry[0] += spent
            entry[1] += 1

        record = play_game(game, seats, derive_seed(seed, spec, index), on_step=timed)
        best = max(record.returns)
        winners = [p for p, r in enumerate(record.returns) if r == best]
        if seat in winners and len(winners) == 1:
            wins += 1
        elif seat in winners:
            draws += 1
        else:
            losses += 1
        score += 1.0 / len(winners) if seat in winners else 0.0
    low, high = wilson(score, games)
    return {"game": spec, "default": default, "opponent": opponent, "games": games, "wins": wins, "draws": draws,
            "losses": losses, "score": score / games, "interval": [low, high], "fair_share": 1.0 / players,
            "default_seconds": seconds["default"][0] / max(1, seconds["default"][1]),
            "opponent_seconds": seconds["opponent"][0] / max(1, seconds["opponent"][1])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help=f"game specs among {', '.join(MATCHES)}")
    parser.add_argument("--games", type=int, default=None, help="games per match (default: each match's own)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", action="store_true", help="one JSON object per game (keys in the module docstring)")
    parser.add_argument("--default", default=None, help="play this agent in the default's place (a candidate)")
    parser.add_argument("--opponent", default=None, help="play this agent in the next-best agent's place")
    args = parser.parse_args()
    for spec in args.only or list(MATCHES):
        opponent, games = MATCHES[spec]
        opponent = args.opponent or opponent
        started = time.perf_counter()
        row = measure(spec, opponent, args.games or games, args.seed, args.default)
        if args.json:
            print(json.dumps(row), flush=True)
            continue
        low, high = row["interval"]
        print(f"{spec}: {row['default']} vs {opponent}: {row['wins']}-{row['draws']}-{row['losses']} in {row['games']} games, "
              f"score {100 * row['score']:.1f} % ({100 * low:.1f}-{100 * high:.1f} %; fair share {100 * row['fair_share']:.0f} %), "
              f"{row['default_seconds']:.3f} s against {row['opponent_seconds']:.3f} s a decision "
              f"({time.perf_counter() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
