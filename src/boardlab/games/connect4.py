"""Connect Four on a bitboard, for any board up to 64 bits.

Layout (Pascal Pons'): column ``c`` owns bits ``c*H .. c*H+rows-1`` with
``H = rows + 1``; the extra bit on top of each column stays empty, so shifted
runs never wrap from one column into the next. A board therefore fits a
64-bit word when ``cols * (rows + 1) <= 64``; that is the size limit.

Player 0 ("X") moves first. Actions are column indices ``0..cols-1``; moves
are written 1-based (``"4"`` is the centre column of a 7-wide board), as in the
Connect Four study and Pons' benchmark sets.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from boardlab.core.errors import BoardlabError, IllegalActionError, SpecError
from boardlab.core.game import TERMINAL, Game, State
from boardlab.core.params import Option

MAX_BITS = 64
SYMBOLS = ("X", "O")


def _at_least(low: int):
    return lambda v: None if v >= low else f"must be at least {low}"


class ConnectFour(Game):
    name = "connect4"
    long_name = "Connect Four"
    parameters = {
        "rows": Option("rows", int, 6, "board height", _at_least(1)),
        "cols": Option("cols", int, 7, "board width", _at_least(1)),
        "k": Option("k", int, 4, "stones in a row needed to win", _at_least(2)),
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.rows: int = self.params["rows"]
        self.cols: int = self.params["cols"]
        self.k: int = self.params["k"]
        self.height = self.rows + 1
        bits = self.cols * self.height
        if bits > MAX_BITS:
            raise SpecError(
                f"game 'connect4': a {self.rows}x{self.cols} board needs cols*(rows+1) = {bits} bits; "
                f"the bitboard engine supports at most {MAX_BITS} (e.g. 7x7, 8x6 or 6x9 boards)"
            )
        if self.k > max(self.rows, self.cols):
            raise SpecError(
                f"game 'connect4': k={self.k} cannot fit on a {self.rows}x{self.cols} board"
            )
        self.bottom = [1 << (c * self.height) for c in range(self.cols)]
        self.top = [1 << (c * self.height + self.rows - 1) for c in range(self.cols)]
        self.column_mask = [((1 << self.rows) - 1) << (c * self.height) for c in range(self.cols)]
        self.board_mask = sum(self.column_mask)
        # shifts that test k in a row by doubling run lengths (1, 2, 4, ... then the rest)
        self._win_steps = []
        for d in (1, self.height, self.height + 1, self.height - 1):
            steps, length = [], 1
            while length * 2 <= self.k:
                steps.append(length * d)
                length *= 2
            if length < self.k:
                steps.append((self.k - length) * d)
            self._win_steps.append(tuple(steps))
        if all(len(steps) == 2 for steps in self._win_steps):
            self.has_won = self._has_won_two_steps  # k = 3 or 4: the common case, unrolled
        else:
            self.has_won = self._has_won_any

    def _has_won_two_steps(self, board: int) -> bool:
        for a, b in self._win_steps:
            m = board & (board >> a)
            if m & (m >> b):
                return True
        return False

    def _has_won_any(self, board: int) -> bool:
        for steps in self._win_steps:
            m = board
            for shift in steps:
                m &= m >> shift
            if m:
                return True
        return False

    def num_distinct_actions(self) -> int:
        return self.cols

    def max_game_length(self) -> int:
        return self.rows * self.cols

    def new_initial_state(self, seed: int | None = None) -> "ConnectFourState":
        return ConnectFourState(self, seed)

    def playout_kernel(self):
        """The compiled random-playout kernel of this board size (``playout_returns(state, rng)``),
        built once per game object; search agents use it instead of Python playouts."""
        kernel = self.__dict__.get("_playout_kernel")
        if kernel is None:
            from boardlab.games.connect4_kernel import Connect4Kernel  # numba: imported on first use

            kernel = self.__dict__["_playout_kernel"] = Connect4Kernel(self)
        return kernel

    def split_moves(self, text: str) -> list[str]:
        # Pons' notation "4453": one digit per move, when every column is a single digit
        stripped = text.strip()
        if self.cols <= 9 and stripped.isdigit():
            return list(stripped)
        return super().split_moves(text)

    def state_from_grid(self, grid: Sequence[str], to_move: int | None = None) -> "ConnectFourState":
        """A state from rows of text, top row first, using ``X``, ``O`` and ``.``.

        The player to move defaults to the one with fewer stones (X on a tie).
        The state has no history: it is its own start position.
        """
        if len(grid) != self.rows or any(len(line.replace(" ", "")) != self.cols for line in grid):
            raise BoardlabError(f"a grid for this game has {self.rows} rows of {self.cols} cells")
        boards = [0, 0]
        for r, line in enumerate(grid):
            row = self.rows - 1 - r
            for c, cell in enumerate(line.replace(" ", "")):
                if cell in "Xx":
                    boards[0] |= 1 << (c * self.height + row)
                elif cell in "Oo":
                    boards[1] |= 1 << (c * self.height + row)
                elif cell != ".":
                    raise BoardlabError(f"grid cell {cell!r} at row {r + 1}, column {c + 1}: use X, O or .")
        mask = boards[0] | boards[1]
        for c in range(self.cols):
            col = (mask >> (c * self.height)) & ((1 << self.rows) - 1)
            if col & (col + 1):
                raise BoardlabError(f"grid column {c + 1} has a gap under a stone")
        if to_move is None:
            to_move = 0 if bin(boards[0]).count("1") <= bin(boards[1]).count("1") else 1
        return ConnectFourState(self, None, start=(boards[0], boards[1], to_move))

    def state_from_json(self, doc: str | Mapping[str, Any]) -> "ConnectFourState":
        import json

        data = json.loads(doc) if isinstance(doc, str) else dict(doc)
        start = data.get("start")
        if start is None:
            return super().state_from_json(data)  # type: ignore[return-value]
        state = ConnectFourState(self, data.get("seed"), start=(int(start[0]), int(start[1]), int(start[2])))
        for index, action in enumerate(data.get("history", [])):
            try:
                state.apply_action(int(action))
            except IllegalActionError as exc:
                raise IllegalActionError(f"move {index + 1} of the history: {exc}") from None
        return state


class ConnectFourState(State):
    __slots__ = ("game", "seed", "history", "boards", "mask", "player", "winner", "start")

    def __init__(
        self, game: ConnectFour, seed: int | None = None, start: tuple[int, int, int] | None = None
    ) -> None:
        self.game = game
        self.seed = seed
        self.history: list[int] = []
        self.start = start
        if start is None:
            self.boards = [0, 0]
            self.player = 0
            self.winner = -1
        else:
            self.boards = [start[0], start[1]]
            self.player = start[2]
            self.winner = -1
            for p in (0, 1):
                if game.has_won(self.boards[p]):
                    self.winner = p
        self.mask = self.boards[0] | self.boards[1]

    # --- protocol --------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self.player

    def legal_actions(self, player: int | None = None) -> list[int]:
        if self.winner >= 0:
            return []
        mask = self.mask
        return [c for c, top in enumerate(self.game.top) if not mask & top]

    def apply_action(self, action: int) -> None:
        game = self.game
        if self.winner >= 0 or not 0 <= action < game.cols or self.mask & game.top[action]:
            raise self._illegal(action)
        move = (self.mask + game.bottom[action]) & game.column_mask[action]
        board = self.boards[self.player] | move
        self.boards[self.player] = board
        self.mask |= move
        if game.has_won(board):
            self.winner = self.player
        self.player ^= 1
        self.history.append(action)

    def is_terminal(self) -> bool:
        return self.winner >= 0 or self.mask == self.game.board_mask

    def returns(self) -> list[float]:
        if self.winner == 0:
            return [1.0, -1.0]
        if self.winner == 1:
            return [-1.0, 1.0]
        return [0.0, 0.0]

    def clone(self) -> "ConnectFourState":
        other = ConnectFourState.__new__(ConnectFourState)
        other.game = self.game
        other.seed = self.seed
        other.history = self.history.copy()
        other.start = self.start
        other.boards = self.boards.copy()
        other.mask = self.mask
        other.player = self.player
        other.winner = self.winner
        return other

    def action_to_string(self, action: int) -> str:
        return str(action + 1)

    def string_to_action(self, text: str) -> int:
        text = text.strip()
        try:
            column = int(text)
        except ValueError:
            raise IllegalActionError(f"{text!r} is not a column number (1-{self.game.cols})") from None
        if not 1 <= column <= self.game.cols:
            raise IllegalActionError(f"column {column} does not exist (columns are 1-{self.game.cols})")
        if self.is_terminal():
            raise IllegalActionError("the game is over")
        if self.mask & self.game.top[column - 1]:
            raise IllegalActionError(f"column {column} is full")
        return column - 1

    # --- Connect Four specifics ------------------------------------------------
    def cell(self, row: int, col: int) -> int:
        """Owner of the cell (row 0 is the bottom): 0, 1, or -1 when empty."""
        bit = 1 << (col * self.game.height + row)
        if self.boards[0] & bit:
            return 0
        if self.boards[1] & bit:
            return 1
        return -1

    def grid(self) -> list[list[int]]:
        """Cells as lists, top row first: 0, 1 or -1 (empty)."""
        return [[self.cell(r, c) for c in range(self.game.cols)] for r in reversed(range(self.game.rows))]

    def result(self) -> str:
        """``"X wins"``, ``"O wins"``, ``"tie"`` or ``"in play"``."""
        if self.winner >= 0:
            return f"{SYMBOLS[self.winner]} wins"
        return "tie" if self.is_terminal() else "in play"

    def mirror(self) -> "ConnectFourState":
        """The same position reflected left to right (history reflected too)."""
        game = self.game
        cols = game.cols

        def flip(board: int) -> int:
            out = 0
            for c in range(cols):
                out |= ((board >> (c * game.height)) & ((1 << game.height) - 1)) << ((cols - 1 - c) * game.height)
            return out

        if self.start is None:
            return game.state_from_history([cols - 1 - a for a in self.history], self.seed)  # type: ignore[return-value]
        other = ConnectFourState(game, self.seed, start=(flip(self.start[0]), flip(self.start[1]), self.start[2]))
        for action in self.history:
            other.apply_action(cols - 1 - action)
        return other

    def switch_players(self) -> "ConnectFourState":
        """The same stones with colours swapped, and the other player to move.

        The result is a position of its own (no history): the players' roles,
        not the moves that led here, are what changed.
        """
        return ConnectFourState(self.game, self.seed, start=(self.boards[1], self.boards[0], self.player ^ 1))

    def is_own_mirror(self) -> bool:
        mirrored = self.mirror()
        return mirrored.boards == self.boards

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        if self.start is not None:
            data["start"] = list(self.start)
        data["board"] = self.grid()
        data["to_move"] = self.current_player()
        data["result"] = self.result()
        return data

    def __str__(self) -> str:
        lines = []
        for row in self.grid():
            lines.append(" ".join(SYMBOLS[v] if v >= 0 else "." for v in row))
        lines.append(" ".join(str(c + 1)[-1] for c in range(self.game.cols)))
        if self.is_terminal():
            lines.append(self.result())
        else:
            lines.append(f"{SYMBOLS[self.player]} to move")
        return "\n".join(lines)
