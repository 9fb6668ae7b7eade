"""The compiled Ticket to Ride kernel plays by the Python engine's rules, action for action."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.core.registry import make
from boardlab.core.rng import kernel_rng
from boardlab.games.tickettoride import kernel as K
from boardlab.games.tickettoride.kernel import canonical, pack, reference_playout


def legal_of(S, M):
    out = np.empty(8192, dtype=np.int64)
    n = K.legal_actions(S, M, out)
    return out[:n].tolist()


@pytest.mark.parametrize("spec", ["tickettoride:players=2", "tickettoride:players=3,variant=study", "tickettoride", "tickettoride:players=5"])
def test_the_kernel_and_the_engine_agree_move_by_move(spec):
    game = make(spec)
    M = K.map_arrays(game)
    rng = np.random.default_rng(7)
    for seed in range(6):
        state = game.new_initial_state(seed)
        S = pack(state)
        while not state.is_terminal():
            legal = state.legal_actions()
            assert legal_of(S, M) == legal
            action = legal[int(rng.integers(len(legal)))]
            state.apply_action(action)
            K.apply_action(S, M, action)
            assert np.array_equal(canonical(S), canonical(pack(state))), f"states part after {len(state.history)} moves"
        out = np.zeros(game.num_players())
        K.returns(S, M, out)
        assert out.tolist() == state.returns()
        scores, done, bonus = (np.zeros(game.num_players(), dtype=np.int64) for _ in range(3))
        K.final_scores(S, M, scores, done, bonus)
        tally = state.final_tally()["players"]
        assert scores.tolist() == state.scores() and done.tolist() == [p["tickets_done"] for p in tally]


def test_the_kernel_playout_is_the_python_reference_playout():
    game = make("tickettoride", players=4)
    kernel = game.playout_kernel()
    for seed in range(5):
        state = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        for _ in range(40 * seed):
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
        S = pack(state)
        out = np.zeros(4)
        K.playout(S, kernel.M, kernel_rng(seed), out)
        final = reference_playout(state, seed)
        assert np.array_equal(canonical(S), canonical(pack(final)))
        assert out.tolist() == final.returns()


def test_longest_path_in_the_kernel_matches_the_reference():
    from boardlab.games.tickettoride import scoring

    game = make("tickettoride", players=2)
    M = K.map_arrays(game)
    rng = np.random.default_rng(3)
    for _ in range(200):
        tracks = rng.choice(100, size=int(rng.integers(0, 30)), replace=False).tolist()
        state = game.new_initial_state(1)
        state.owner = [0 if t in tracks else -1 for t in range(100)]
        assert K.longest_path(pack(state), M, 0) == scoring.longest_path(game.board, tracks)


def test_random_games_from_fresh_deals_end():
    game = make("tickettoride", players=4)
    wins, moves = game.playout_kernel().random_games(50, seed=1)
    assert abs(wins.sum() - 50) < 1e-9 and moves > 50 * 50


def test_checked_random_games_break_no_rule():
    for players in (2, 5):
        failures, moves = make("tickettoride", players=players).playout_kernel().checked_random_games(200, seed=players)
        assert failures.tolist() == [0] * 8 and moves > 0


def test_the_kernel_check_finds_a_broken_state():
    game = make("tickettoride", players=3)
    S = pack(game.new_initial_state(1))
    M = K.map_arrays(game)
    assert K.check_state(S, M) == 0
    S[K.HANDS] += 1
    assert K.check_state(S, M) == 1
