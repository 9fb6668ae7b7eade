"""Declared symmetries (``Game.symmetries``) hold along random games played both ways."""

from __future__ import annotations

import numpy as np

from boardlab.conformance.failures import ConformanceError, expect
from boardlab.conformance.playing import random_move
from boardlab.core.errors import BoardlabError, IllegalActionError
from boardlab.core.game import Game, State, Symmetry


def check_symmetries(game: Game, games: int = 4) -> None:
    """For a game that provides symmetries, at least one, and for each: both index arrays have the game's
    lengths, and ``games`` random games replayed with the mapped actions (chance outcomes unchanged)
    reach, at every step, the transformed state: the same player to move, every seat's observation
    tensor and the legal mask permuted, the same terminal status and returns."""
    if "symmetries" not in game.provides:
        return  # and offers none: checked with the other capabilities
    try:
        symmetries = game.symmetries()
    except BoardlabError as exc:
        raise ConformanceError(f"{game.spec()}: symmetries: symmetries() fails: {exc}") from None
    expect(bool(symmetries), game, "symmetries", "provides symmetries, but symmetries() gives none")
    # GameType refuses symmetries without an observation tensor
    shape = game.observation_tensor_shape()
    size, actions = int(np.prod(shape)), game.num_distinct_actions()
    for number, symmetry in enumerate(symmetries):
        name = f"symmetry {number}"
        # a Symmetry is a pair of permutations by construction; whether they fit this game is checked here
        expect(symmetry.observation.size == size, game, "symmetries",
               f"{name}: observation must be a permutation of the {size} entries of a {tuple(shape)} tensor")
        expect(symmetry.actions.size == actions, game, "symmetries",
               f"{name}: actions must be a permutation of range({actions})")
        for seed in range(games):
            play_both_ways(game, symmetry, name, 3000 + seed)


def play_both_ways(game: Game, symmetry: Symmetry, name: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    state, image = game.new_initial_state(seed), game.new_initial_state(seed)
    while True:
        same_state(state, image, symmetry, name)
        if state.is_terminal():
            return
        action = random_move(state, rng)
        mapped = action if state.is_chance_node() else int(symmetry.actions[action])
        state.apply_action(action)
        try:
            image.apply_action(mapped)
        except IllegalActionError as exc:
            expect(False, state, "symmetries", f"{name}: action {action} maps to {mapped}, illegal in the image: {exc}")


def same_state(state: State, image: State, symmetry: Symmetry, name: str) -> None:
    """``image`` is ``state`` transformed by ``symmetry``, as far as the protocol can tell."""
    expect(image.current_player() == state.current_player() and image.is_terminal() == state.is_terminal(), state,
           "symmetries", f"{name}: the image has player to move {image.current_player()}, terminal {image.is_terminal()}")
    if state.is_terminal():
        expect(list(image.returns()) == list(state.returns()), state, "symmetries",
               f"{name}: the image ends with returns {image.returns()}, not {state.returns()}")
    elif not state.is_chance_node():
        expect(np.array_equal(image.legal_actions_mask(), symmetry.action_values(state.legal_actions_mask())), state,
               "symmetries", f"{name}: the image's legal mask is not the permuted one "
               f"(legal {sorted(image.legal_actions())}, expected {sorted(int(symmetry.actions[a]) for a in state.legal_actions())})")
    for seat in range(state.num_players()):
        expect(np.array_equal(image.observation_tensor(seat), symmetry.observations(state.observation_tensor(seat))), state,
               "symmetries", f"{name}: seat {seat}'s observation tensor of the image is not the permuted one")
