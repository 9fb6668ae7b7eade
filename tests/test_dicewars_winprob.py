"""Data and inputs for a Dice Wars win-probability network (the SUI study's 552 features)."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.bots.dicewars.features import adjacency_bits, feature_count, features
from boardlab.core.registry import make
from boardlab.studies.dicewars.winprob_data import generate, split_by_board, split_by_game


@pytest.fixture(scope="module")
def data():
    return generate(boards=2, seed=4)


def test_the_study_counts_552_inputs_for_29_areas_and_4_players():
    assert feature_count(29, 4) == 406 + 116 + 29 + 1 == 552


def test_features_are_the_adjacency_owners_dice_and_fading_turn():
    game = make("dicewars")
    state = game.new_initial_state(1)
    bits = adjacency_bits(state.adjacent)
    owner, dice = np.array([state.owner]), np.array([state.dice])
    x = features(bits, owner, dice, np.array([0]))
    assert x.shape == (1, 552)
    assert x[0, :406].sum() == sum(len(a) for a in state.adjacent) / 2  # each edge once
    onehot = x[0, 406:522].reshape(29, 4)
    assert (onehot.argmax(1) == owner[0]).all() and (onehot.sum(1) == 1).all()
    assert np.allclose(x[0, 522:551], 3 / 8) and x[0, 551] == 1.0  # flat 3 dice; turn 0
    late = features(bits, owner, dice, np.array([4 * 25]))
    assert late[0, 551] == pytest.approx(0.5)  # 25 rounds of 4 players: half faded
    assert features(bits, owner, dice, np.array([4 * 80]))[0, 551] == 0.0


def test_every_board_of_seat_fair_games_is_labelled_with_its_game_and_winner(data):
    games = data["winner"].shape[0]
    assert games == 8  # 2 boards x 4 rotations
    assert data["owner"].shape == data["dice"].shape and data["owner"].shape[1] == 29
    assert set(np.unique(data["game"])) == set(range(games))
    for g in range(games):
        rows = np.flatnonzero(data["game"] == g)
        assert (np.diff(data["turns"][rows]) >= 0).all()  # in the order they were played
        if data["winner"][g] >= 0:
            assert (data["owner"][rows[-1]] == data["winner"][g]).all()  # the last battle won the game
    # the rotations of a board share its seed and map
    assert (data["seed"][:4] == data["seed"][0]).all() and (data["adjacency"][:4] == data["adjacency"][0]).all()
    assert ((data["dice"] >= 1) & (data["dice"] <= 8)).all()


def test_the_split_by_game_keeps_each_game_on_one_side_and_the_study_s_does_not(data):
    train, test = split_by_game(data["game"], 0.25, 0)
    assert not set(data["game"][train]) & set(data["game"][test])
    assert len(train) + len(test) == len(data["game"])
    train, test = split_by_board(len(data["game"]), 0.2, 0)
    assert set(data["game"][train]) & set(data["game"][test])  # the leak the study's 100 % came from
