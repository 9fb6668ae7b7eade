"""The random-play loop the playout benchmarks time: one loop for boardlab's games and
OpenSpiel's (they share the method names), so every side is measured the same way."""

from __future__ import annotations

import random


def random_play_moves(game, games: int, seed: int = 1) -> int:
    """Play ``games`` uniformly random games of ``game``; return the number of moves played."""
    choice = random.Random(seed).choice
    moves = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            moves += 1
    return moves
