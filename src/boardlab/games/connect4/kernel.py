"""Compiled Connect Four playouts (numba), used by benchmarks and by MCTS.

The board layout is the one of :mod:`boardlab.games.connect4`, held in
unsigned 64-bit words. Randomness is a xorshift64* stream seeded by the
caller, so a playout is reproducible from its seed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.core.rng import kernel_random
from boardlab.games.connect4 import ConnectFour, ConnectFourState


@njit(cache=True, inline="always")
def _won(board, steps):
    for d in range(steps.shape[0]):
        m = board
        for j in range(steps.shape[1]):
            m &= m >> steps[d, j]
        if m != np.uint64(0):
            return True
    return False


@njit(cache=True)
def playout(b0, b1, player, bottom, top, column_mask, steps, rng):
    """Play uniformly random moves to the end; return the winner (0, 1) or -1 for a tie,
    and the number of moves played."""
    boards = np.empty(2, dtype=np.uint64)
    boards[0] = b0
    boards[1] = b1
    mask = b0 | b1
    cols = top.shape[0]
    legal = np.empty(cols, dtype=np.int64)
    moves = 0
    while True:
        n = 0
        for c in range(cols):
            if mask & top[c] == np.uint64(0):
                legal[n] = c
                n += 1
        if n == 0:
            return -1, moves
        c = legal[kernel_random(rng) % np.uint64(n)]
        move = (mask + bottom[c]) & column_mask[c]
        boards[player] |= move
        mask |= move
        moves += 1
        if _won(boards[player], steps):
            return player, moves
        player ^= 1


@njit(cache=True)
def random_games(n_games, bottom, top, column_mask, steps, seed):
    """Play ``n_games`` random games from the empty board: (X wins, O wins, ties), moves."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) | np.uint64(1)
    counts = np.zeros(3, dtype=np.int64)
    total_moves = 0
    for _ in range(n_games):
        winner, moves = playout(np.uint64(0), np.uint64(0), 0, bottom, top, column_mask, steps, rng)
        counts[winner if winner >= 0 else 2] += 1
        total_moves += moves
    return counts, total_moves


@njit(cache=True)
def players_of_move_strings(data, offsets, bottom, top, column_mask, steps, full, unknown, terminal):
    """Whose turn it is after each move string (one digit per move, ``1`` the leftmost column):
    0 or 1, ``terminal`` when the game is over, ``unknown`` for text that is not a legal move list."""
    n = offsets.shape[0] - 1
    cols = top.shape[0]
    out = np.empty(n, dtype=np.int8)
    for i in range(n):
        boards = np.zeros(2, dtype=np.uint64)
        mask = np.uint64(0)
        p = 0
        over = False
        result = -99
        for j in range(offsets[i], offsets[i + 1]):
            col = np.int64(data[j]) - 49  # the byte of "1"
            if col < 0 or col >= cols or over or mask & top[col] != np.uint64(0):
                result = unknown
                break
            move = (mask + bottom[col]) & column_mask[col]
            mask |= move
            boards[p] |= move
            if _won(boards[p], steps) or mask == full:
                over = True
            p ^= 1
        if result == -99:
            result = terminal if over else p
        out[i] = result
    return out


class Connect4Kernel:
    """The compiled tables of one board size, and entry points taking states."""

    def __init__(self, game: ConnectFour) -> None:
        self.game = game
        self.bottom = np.array(game.bottom, dtype=np.uint64)
        self.top = np.array(game.top, dtype=np.uint64)
        self.column_mask = np.array(game.column_mask, dtype=np.uint64)
        width = max(len(s) for s in game._win_steps)
        steps = np.zeros((4, width), dtype=np.uint64)  # a zero shift is a no-op (m & m)
        for d, shifts in enumerate(game._win_steps):
            steps[d, : len(shifts)] = shifts
        self.steps = steps

    def random_games(self, n_games: int, seed: int = 0) -> tuple[np.ndarray, int]:
        return random_games(n_games, self.bottom, self.top, self.column_mask, self.steps, seed)

    def playout(self, state: ConnectFourState, rng: np.ndarray) -> int:
        """Winner (0, 1 or -1 for a tie) of a random playout from ``state``; ``rng`` is a
        one-element uint64 array that the kernel advances."""
        if state.is_terminal():
            return state.winner
        winner, _ = playout(
            np.uint64(state.boards[0]), np.uint64(state.boards[1]), state.player,
            self.bottom, self.top, self.column_mask, self.steps, rng,
        )
        return winner

    def playout_returns(self, state: ConnectFourState, rng: np.ndarray) -> list[float]:
        """Returns per player of a random playout from ``state`` (the playout-kernel contract
        that :mod:`boardlab.agents.mcts` uses): ``[1, -1]``, ``[-1, 1]`` or ``[0, 0]``."""
        winner = state.winner
        if winner < 0 and state.mask != self.game.board_mask:
            winner, _ = playout(
                np.uint64(state.boards[0]), np.uint64(state.boards[1]), state.player,
                self.bottom, self.top, self.column_mask, self.steps, rng,
            )
        if winner == 0:
            return [1.0, -1.0]
        if winner == 1:
            return [-1.0, 1.0]
        return [0.0, 0.0]

