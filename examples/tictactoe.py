"""Tic-tac-toe as a boardlab plug-in: the smallest complete game (see docs/adding-a-game.md).

Register it with one entry point in your package's pyproject.toml::

    [project.entry-points."boardlab.games"]
    tictactoe = "tictactoe:TicTacToe"

and it plays in the browser (on boardlab's clickable grid board, which any
grid game may declare), in duels and tournaments, under MCTS, and its search
trees open in the viewer.
"""

import numpy as np

from boardlab.core.game import TERMINAL, Game, GameType, State, Symmetry

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class TicTacToe(Game):
    # boardlab's grid board draws observation()["board"] and makes each move's cell (action_info) clickable;
    # provides: what it offers beyond the protocol (the conformance suite holds it to that)
    game_type = GameType("tictactoe", "Tic-tac-toe", player_names=("X", "O"), player_colors=("#1f4fa3", "#d62728"),
                         renderer="boardlab.web:static/grid.js", provides=frozenset({"observation_tensor", "symmetries"}))

    def num_distinct_actions(self) -> int:
        return 9  # the cells, 0 top left to 8 bottom right

    def max_game_length(self) -> int:
        return 9

    def new_initial_state(self, seed=None) -> "TicTacToeState":
        return TicTacToeState(self, seed)

    def observation_tensor_shape(self):
        return (2, 3, 3)  # the observer's marks, the opponent's (for networks and PettingZoo)

    def symmetries(self) -> list[Symmetry]:
        """The square's 3 rotations and 4 reflections (train az --augment uses them)."""
        grid = np.arange(9).reshape(3, 3)
        images = [np.rot90(grid, k) for k in (1, 2, 3)] + [grid.T, grid[::-1], grid[:, ::-1], np.rot90(grid, 2).T]
        # cell j of an image shows cell image[j] of the board; so the move into cell a lands on argsort(image)[a]
        return [Symmetry(observation=np.concatenate([image.reshape(-1), image.reshape(-1) + 9]),
                         actions=np.argsort(image.reshape(-1))) for image in images]


class TicTacToeState(State):
    def __init__(self, game, seed=None):
        self.game, self.seed, self.history = game, seed, []
        self.cells = [-1] * 9

    def winning_line(self) -> tuple[int, int, int] | None:
        for line in LINES:
            a, b, c = line
            if self.cells[a] >= 0 and self.cells[a] == self.cells[b] == self.cells[c]:
                return line
        return None

    def winner(self) -> int:
        line = self.winning_line()
        return -1 if line is None else self.cells[line[0]]

    def is_terminal(self) -> bool:
        return self.winner() >= 0 or len(self.history) == 9

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else len(self.history) % 2

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() else [i for i in range(9) if self.cells[i] < 0]

    def apply_action(self, action: int) -> None:
        if action not in self.legal_actions():
            raise self._illegal(action)
        self.cells[action] = self.current_player()
        self.history.append(action)

    def clone(self) -> "TicTacToeState":
        other = TicTacToeState(self.game, self.seed)
        other.history, other.cells = list(self.history), list(self.cells)
        return other

    def returns(self) -> list[float]:
        w = self.winner()
        return [0.0, 0.0] if w < 0 else [1.0 if p == w else -1.0 for p in (0, 1)]

    def observation_tensor(self, player: int) -> np.ndarray:
        cells = np.array(self.cells).reshape(3, 3)
        return np.stack([cells == player, cells == 1 - player]).astype(np.float32)

    def observation(self, player=None) -> dict:
        """The grid board: each cell -1 (empty), 0 (X) or 1 (O), top row first; the winning line stressed."""
        line = self.winning_line() or ()
        return {"to_move": self.current_player(), "text": str(self),
                "board": {"grid": [self.cells[r * 3: r * 3 + 3] for r in range(3)], "marks": {"-1": "", "0": "X", "1": "O"},
                          "highlight": [[i // 3, i % 3] for i in line]}}

    def action_info(self, action: int) -> dict:
        return {"cell": [action // 3, action % 3]}  # the grid board clicks a move on its cell

    def action_to_string(self, action: int) -> str:
        return "abc"[action % 3] + str(3 - action // 3)  # a3 top left, c1 bottom right

    def __str__(self) -> str:
        rows = ["".join(".XO"[v + 1] for v in self.cells[r * 3: r * 3 + 3]) for r in range(3)]
        return "\n".join(rows)
