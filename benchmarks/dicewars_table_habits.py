"""How each agent of stored Dice Wars games plays and loses: attacks per turn, and when its losses are sealed.

Reads the games of a results store (``boardlab evaluate --store``, ``boardlab tournament``), replays each
record and prints, per agent: games, wins, attacks per turn (all turns, and its first ten turns), and in
the games it lost, at what share of the game's actions it held no area any more (1.0: it lasted to the end).
A network that attacks far more than the bots and is wiped out early plays a two-player game at a table of
four, where every attack also weakens the attacker against the seats looking on.

    PYTHONPATH=src .venv/bin/python benchmarks/dicewars_table_habits.py runs/dw4t.sqlite [--tournament ID] [--json]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from typing import Any

import numpy as np

from boardlab.arena.store import ResultStore
from boardlab.core.errors import BoardlabError
from boardlab.core.records import GameRecord
from boardlab.core.registry import make

EARLY_TURNS = 10  # "early": an agent's first ten turns of a game


def habits(store: ResultStore, tournament: str | None) -> dict[str, dict[str, Any]]:
    """Per agent spec: games, wins, attacks and turns (all and early), and the share of the game at which each lost
    game left it without an area."""
    ids = [tournament] if tournament else [t.id for t in store.tournaments()]
    table: dict[str, dict[str, Any]] = defaultdict(lambda: {"games": 0, "wins": 0, "attacks": 0, "turns": 0,
                                                            "early_attacks": 0, "early_turns": 0, "out_at": []})
    for tid in ids:
        for stored in store.games(tid):
            record = GameRecord.from_dict(stored.record, f"game {stored.index} of tournament {tid}")
            if record.game != "dicewars" or record.start is not None or record.redraws:
                raise BoardlabError(f"tournament {tid}: game {stored.index} is not a plain Dice Wars game from its start")
            state = make(record.game, **record.params).state_from_history([], record.seed, None)
            seats = len(record.agents)
            turns, out_at = [0] * seats, [None] * seats
            total = len(record.actions)
            for k, action in enumerate(record.actions):
                player = state.current_player()
                if player >= 0:
                    row = table[record.agents[player]]
                    early = turns[player] < EARLY_TURNS
                    if action == 0:  # the turn ends
                        turns[player] += 1
                        row["turns"] += 1
                        row["early_turns"] += early
                    else:
                        row["attacks"] += 1
                        row["early_attacks"] += early
                state.apply_action(action)
                for seat in range(seats):
                    if out_at[seat] is None and seat not in state.owner:
                        out_at[seat] = (k + 1) / total
            for seat, agent in enumerate(record.agents):
                row = table[agent]
                row["games"] += 1
                if stored.returns[seat] > 0:
                    row["wins"] += 1
                else:
                    row["out_at"].append(1.0 if out_at[seat] is None else out_at[seat])
    return dict(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", help="a results store (.sqlite) holding Dice Wars games")
    parser.add_argument("--tournament", help="one tournament's id (default: every tournament in the store)")
    parser.add_argument("--json", action="store_true", help="print one JSON object: agent -> {games, wins, "
                        "attacks_per_turn, early_attacks_per_turn, lost, out_before_half, median_out_at}")
    args = parser.parse_args()
    rows = {}
    for agent, row in habits(ResultStore(args.store), args.tournament).items():
        out = np.array(row["out_at"])
        rows[agent] = {"games": row["games"], "wins": row["wins"],
                       "attacks_per_turn": row["attacks"] / max(1, row["turns"]),
                       "early_attacks_per_turn": row["early_attacks"] / max(1, row["early_turns"]),
                       "lost": len(out), "out_before_half": int((out < 0.5).sum()),
                       "median_out_at": float(np.median(out)) if len(out) else None}
    if args.json:
        print(json.dumps(rows))
        return
    for agent, r in rows.items():
        median = "-" if r["median_out_at"] is None else f"{r['median_out_at']:.2f}"
        print(f"{agent}: {r['wins']} won of {r['games']}; {r['attacks_per_turn']:.2f} attacks a turn "
              f"({r['early_attacks_per_turn']:.2f} in its first {EARLY_TURNS} turns); of {r['lost']} lost, "
              f"{r['out_before_half']} without an area before half the game (median: {median} of the game)")


if __name__ == "__main__":
    main()
