import numpy as np

from boardlab.core.rng import kernel_rng
from boardlab.games import make
from boardlab.games.connect4.kernel import Connect4Kernel


def test_random_games_are_seeded_and_first_player_wins_about_556_permille():
    kernel = Connect4Kernel(make("connect4"))
    counts, moves = kernel.random_games(40_000, seed=3)
    again, _ = kernel.random_games(40_000, seed=3)
    assert (counts == again).all()
    assert counts.sum() == 40_000
    assert 7 * 40_000 <= moves <= 42 * 40_000
    share = counts[0] / counts.sum()
    # the known figure for uniformly random play on 7x6 is 55.6 %; 4 standard errors either side
    assert abs(share - 0.556) < 4 * np.sqrt(0.25 / 40_000)


def test_kernel_playout_agrees_with_python_engine_on_finished_and_open_positions():
    game = make("connect4")
    kernel = Connect4Kernel(game)
    won = game.state_from_moves("4545454")
    assert kernel.playout(won, kernel_rng(1)) == 0
    rng = kernel_rng(5)
    state = game.state_from_moves("44")
    results = [kernel.playout(state, rng) for _ in range(2000)]
    assert set(results) <= {-1, 0, 1}
    assert 0.4 < results.count(0) / 2000 < 0.75


def test_kernel_handles_other_sizes_and_k():
    kernel = Connect4Kernel(make("connect4", rows=3, cols=3, k=3))
    counts, _ = kernel.random_games(5000, seed=1)
    assert counts.sum() == 5000 and counts[2] > 0  # ties happen on 3x3
    kernel = Connect4Kernel(make("connect4", rows=7, cols=8, k=5))  # all 64 bits in use
    counts, moves = kernel.random_games(2000, seed=1)
    assert counts.sum() == 2000 and moves >= 2000 * 9
