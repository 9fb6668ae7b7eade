"""Per-seat views: nothing a seat may not see leaks into what it is shown, and
determinisation (``state.resample``) draws only from what that seat has seen."""

from __future__ import annotations

import json

import numpy as np

from boardlab.conformance.failures import expect
from boardlab.conformance.playing import random_move, sampled_states
from boardlab.core.game import Game, State

#: moves played on from a state to compare what two of its redraws lead to
FUTURE_MOVES = 12


def future(state: State, seed: int, moves: int = FUTURE_MOVES) -> list[str]:
    """The public views along ``moves`` random moves from a copy of ``state``: two states whose
    hidden parts differ show it here (the next cards turned, the dice...)."""
    state = state.clone()
    rng = np.random.default_rng(seed)
    seen = [json.dumps(state.observation(None), sort_keys=True)]
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(random_move(state, rng))
        seen.append(json.dumps(state.observation(None), sort_keys=True))
    return seen


def check_views(game: Game, games: int = 8, per_game: int = 6) -> None:
    """For every seat at states along random games: a redraw of the hidden part keeps the seat's
    observation and information state; a redraw depends only on them; and (in a game with hidden
    information) redraws do differ from the truth somewhere."""
    differs = False
    for seed in range(games):
        for state in sampled_states(game, 1000 + seed, per_game):
            for seat in range(game.num_players()):
                differs |= check_seat(state, seat)
    if game.has_hidden_information:
        expect(differs, game, "resample", "no redraw ever differed from the true state: is anything hidden at all?")


def check_seat(state: State, seat: int) -> bool:
    """Checks for one seat; True when some redraw's future differs from the truth's."""
    seen, known = state.observation(seat), state.information_state_string(seat)
    before = state.to_json()
    differs = False
    for k in range(3):
        draw = state.resample(seat, np.random.default_rng(k))
        expect(draw is not state, state, "resample", "resample() must return a new state")
        expect(draw.observation(seat) == seen, state, "observation",
               f"seat {seat} sees something else after its hidden part is redrawn: the observation shows hidden information")
        expect(draw.information_state_string(seat) == known, state, "information state",
               f"seat {seat}'s information state changes when the hidden part is redrawn")
        expect(draw.current_player() == state.current_player() and len(draw.history) == len(state.history),
               state, "resample", "a redraw must keep the player to move and the number of moves")
        if not state.game.game_type.has_chance:  # with chance nodes, a redraw deals other (hidden) outcomes
            expect(draw.history == state.history, state, "resample", "a redraw must keep the history")
        if state.current_player() == seat:
            expect(sorted(draw.legal_actions()) == sorted(state.legal_actions()), state, "resample",
                   f"seat {seat}, to move, has other legal actions after a redraw")
        differs |= future(draw, k) != future(state, k)
    expect(state.to_json() == before, state, "resample", "resample() changed the state it was asked about")
    # the same redraw from another state this seat cannot tell apart: only what the seat saw may matter
    other = state.resample(seat, np.random.default_rng(99))
    for k in (5, 6):
        expect(future(state.resample(seat, np.random.default_rng(k)), k) == future(other.resample(seat, np.random.default_rng(k)), k),
               state, "resample", f"a redraw for seat {seat} depends on more than what the seat has seen")
    return differs


def check_redraws(game: Game, games: int = 4, per_game: int = 6) -> None:
    """``state.redraw_unseen`` (the web app's undo) keeps what every seat has seen: each seat's
    observation and information state, the history, the seed and the legal actions; in a game whose
    deal is fixed by the seed (``chance="sampled"``), some redraw does change what is still to come."""
    differs = False
    for seed in range(games):
        for state in sampled_states(game, 3000 + seed, per_game):
            before = state.to_json()
            for k in range(2):
                draw = state.redraw_unseen(np.random.default_rng(k))
                expect(draw is not state, state, "redraw_unseen", "redraw_unseen() must return a new state")
                expect(draw.history == state.history and draw.seed == state.seed, state, "redraw_unseen",
                       "a redraw must keep the history and the seed")
                expect(draw.current_player() == state.current_player()
                       and sorted(draw.legal_actions()) == sorted(state.legal_actions()), state, "redraw_unseen",
                       "a redraw must keep the player to move and the legal actions")
                for seat in [None, *range(game.num_players())]:
                    expect(draw.observation(seat) == state.observation(seat), state, "redraw_unseen",
                           f"seat {seat} sees something else after a redraw of what nobody has seen")
                    if seat is not None:
                        expect(draw.information_state_string(seat) == state.information_state_string(seat), state,
                               "redraw_unseen", f"seat {seat}'s information state changes with a redraw of what nobody has seen")
                differs |= future(draw, k) != future(state, k)
            expect(state.to_json() == before, state, "redraw_unseen", "redraw_unseen() changed the state it was asked about")
    if game.game_type.chance == "sampled":
        expect(differs, game, "redraw_unseen", "no redraw ever changed what is still to come: the deck is not redrawn")


def check_observation_tensor(game: Game, games: int = 4, per_game: int = 8) -> None:
    """When the game provides an observation tensor: at states along random games (chance nodes and
    the end included), every seat's tensor has the declared shape, is float32, finite and within
    the declared bounds, and stays the same when that seat's hidden part is redrawn; and the
    tensors do change along a game (a constant tensor tells a network nothing)."""
    if "observation_tensor" not in game.provides:
        return
    shape = tuple(game.observation_tensor_shape())
    low, high = game.observation_tensor_bounds()
    seen: set[bytes] = set()
    for seed in range(games):
        for state in sampled_states(game, 2000 + seed, per_game):
            for seat in range(game.num_players()):
                tensor = state.observation_tensor(seat)
                expect(isinstance(tensor, np.ndarray) and tensor.dtype == np.float32, state, "observation tensor",
                       f"seat {seat}'s tensor must be a float32 numpy array, not {type(tensor).__name__} "
                       f"{getattr(tensor, 'dtype', '')}")
                expect(tensor.shape == shape, state, "observation tensor",
                       f"seat {seat}'s tensor has shape {tensor.shape}, the game declares {shape}")
                expect(bool(np.all(np.isfinite(tensor))), state, "observation tensor", f"seat {seat}'s tensor is not finite")
                expect(bool(np.all((tensor >= low) & (tensor <= high))), state, "observation tensor",
                       f"seat {seat}'s tensor leaves the declared bounds [{low}, {high}]: {tensor.min()}..{tensor.max()}")
                for k in range(2):
                    draw = state.resample(seat, np.random.default_rng(k))
                    expect(np.array_equal(draw.observation_tensor(seat), tensor), state, "observation tensor",
                           f"seat {seat}'s tensor changes when its hidden part is redrawn: it shows hidden information")
                seen.add(tensor.tobytes())
    expect(len(seen) > 1, game, "observation tensor", "every tensor along random games is the same")
