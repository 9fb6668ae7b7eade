"""Positions for tests that check a function of a state on many states."""

from __future__ import annotations

import numpy as np


def random_game_positions(game, seed: int, every: int = 1) -> list:
    """The positions of one game of uniformly random moves from ``new_initial_state(seed)`` (every ``every``-th)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed)
    out = []
    while not state.is_terminal():
        if len(state.history) % every == 0:
            out.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.integers(len(legal))]))
    return out
