"""Random legal play, the raw material of the checks."""

from __future__ import annotations

from typing import Iterator

import numpy as np

from boardlab.core.game import Game, State
from boardlab.core.rng import sample_chance


def random_move(state: State, rng: np.random.Generator) -> int:
    """A legal action drawn uniformly, or a chance outcome drawn by its probability."""
    if state.is_chance_node():
        return sample_chance(state, rng)
    legal = state.legal_actions()
    return legal[int(rng.integers(len(legal)))]


def random_game(game: Game, seed: int) -> Iterator[State]:
    """Every state of one random game from ``game.new_initial_state(seed)``, the last one terminal
    (the same object, changed in place: copy what you keep)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed)
    yield state
    while not state.is_terminal():
        state.apply_action(random_move(state, rng))
        yield state


def sampled_states(game: Game, seed: int, count: int) -> list[State]:
    """Copies of up to ``count`` states spread over one random game, its end included."""
    states = [s.clone() for s in random_game(game, seed)]
    if len(states) <= count:
        return states
    picks = np.linspace(0, len(states) - 1, count).round().astype(int)
    return [states[i] for i in sorted(set(picks.tolist()))]
