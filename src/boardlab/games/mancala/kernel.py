"""Compiled Kalah playouts (numba), used by MCTS and the benchmarks.

The board is the flat layout of :mod:`boardlab.games.mancala` in an int64
array. Randomness is the xorshift64* stream of
:mod:`boardlab.core.rng`, seeded by the caller, so a playout is
reproducible; :func:`reference_playout` is the same playout in plain Python
over :class:`~boardlab.games.mancala.MancalaState`, and the tests check that
both give the same final board for the same seed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.core.rng import kernel_random, kernel_rng, python_random
from boardlab.games.mancala.rules import Mancala, MancalaState


@njit(cache=True)
def _sow(board, pits, player, action, empty_capture):
    """Play ``action`` for ``player`` in place; return (next player, game over)."""
    size = 2 * pits + 2
    origin = action if player == 0 else pits + 1 + action
    own_store = pits if player == 0 else 2 * pits + 1
    skip = 2 * pits + 1 if player == 0 else pits
    seeds = board[origin]
    board[origin] = 0
    pos = origin
    while seeds > 0:
        pos += 1
        if pos == size:
            pos = 0
        if pos == skip:
            continue
        board[pos] += 1
        seeds -= 1
    nxt = player
    if pos != own_store:
        own_first = 0 if player == 0 else pits + 1
        if own_first <= pos < own_first + pits and board[pos] == 1:
            opposite = 2 * pits - pos
            if board[opposite] > 0 or empty_capture:
                board[own_store] += board[opposite] + 1
                board[opposite] = 0
                board[pos] = 0
        nxt = 1 - player
    south = 0
    north = 0
    for i in range(pits):
        south += board[i]
        north += board[pits + 1 + i]
    if south == 0 or north == 0:
        for i in range(pits):
            board[i] = 0
            board[pits + 1 + i] = 0
        board[pits] += south
        board[2 * pits + 1] += north
        return nxt, True
    return nxt, False


@njit(cache=True)
def playout(board, pits, player, empty_capture, rng):
    """Play uniformly random moves on ``board`` (changed in place) to the end of the
    game; return the number of moves played."""
    legal = np.empty(pits, dtype=np.int64)
    moves = 0
    south = 0
    north = 0
    for i in range(pits):
        south += board[i]
        north += board[pits + 1 + i]
    if south == 0 or north == 0:
        return 0
    while True:
        first = 0 if player == 0 else pits + 1
        n = 0
        for i in range(pits):
            if board[first + i] > 0:
                legal[n] = i
                n += 1
        action = legal[kernel_random(rng) % np.uint64(n)]
        player, over = _sow(board, pits, player, action, empty_capture)
        moves += 1
        if over:
            return moves


@njit(cache=True)
def random_games(n_games, pits, seeds, empty_capture, seed):
    """Play ``n_games`` random games from the start: (South wins, North wins, draws), moves."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) | np.uint64(1)
    counts = np.zeros(3, dtype=np.int64)
    board = np.empty(2 * pits + 2, dtype=np.int64)
    total_moves = 0
    for _ in range(n_games):
        for i in range(2 * pits + 2):
            board[i] = seeds
        board[pits] = 0
        board[2 * pits + 1] = 0
        total_moves += playout(board, pits, 0, empty_capture, rng)
        s, n = board[pits], board[2 * pits + 1]
        counts[0 if s > n else (1 if n > s else 2)] += 1
    return counts, total_moves


class MancalaKernel:
    """Entry points taking states, for one board size and capture rule."""

    def __init__(self, game: Mancala) -> None:
        self.game = game
        self.pits = game.pits
        self.empty_capture = bool(game.empty_capture)

    def final_board(self, state: MancalaState, rng: np.ndarray) -> np.ndarray:
        """The board at the end of a random playout from ``state``; ``rng`` is a
        one-element uint64 array that the kernel advances."""
        board = np.array(state.board, dtype=np.int64)
        if not state.is_terminal():
            playout(board, self.pits, state.player, self.empty_capture, rng)
        return board

    def playout_returns(self, state: MancalaState, rng: np.ndarray) -> list[float]:
        """Returns ``[south, north]`` (+1/-1/0) of a random playout from ``state``."""
        board = self.final_board(state, rng)
        s, n = int(board[self.pits]), int(board[-1])
        if s > n:
            return [1.0, -1.0]
        if n > s:
            return [-1.0, 1.0]
        return [0.0, 0.0]

    def random_games(self, n_games: int, seed: int = 0) -> tuple[np.ndarray, int]:
        return random_games(n_games, self.pits, self.game.seeds, self.empty_capture, seed)


def reference_playout(state: MancalaState, seed: int) -> MancalaState:
    """The kernel's playout in plain Python, on a copy of ``state``: the same seed
    (as given to :func:`~boardlab.core.rng.kernel_rng`) makes the same moves."""
    rng = [int(kernel_rng(seed)[0])]
    state = state.clone()
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[python_random(rng) % len(legal)])
    return state
