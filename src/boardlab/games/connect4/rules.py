"""Connect Four on a bitboard, for any board up to 64 bits.

Layout (Pascal Pons'): column ``c`` owns bits ``c*H .. c*H+rows-1`` with
``H = rows + 1``; the extra bit on top of each column stays empty, so shifted
runs never wrap from one column into the next. A board therefore fits a
64-bit word when ``cols * (rows + 1) <= 64``; that is the size limit.

Player 0, Red, moves first; player 1 is Yellow. Board text and the set-up
notation draw their stones as ``X`` (Red) and ``O`` (Yellow), and text that
names a player says both ("Red (X) to move"), so that a board and the lines
around it, which use the player names, read as one naming. Actions are column
indices ``0..cols-1``; moves are written 1-based (``"4"`` is the centre column
of a 7-wide board), as in the Connect Four study and Pons' benchmark sets.

Notation (:meth:`ConnectFourState.notation`): the move string from the empty
board, one digit per move (``"4453"``, Pons' notation; comma separated on
boards wider than 9 columns), which also says whose turn it is. A position
set up without history is written as its rows, top first, joined by ``/``,
then the side to move: ``"......./......./......./......./......./...X... O"``.

Observation tensor (:meth:`ConnectFourState.observation_tensor`): float32
planes ``(3, rows, cols)`` seen by the observing seat, row 0 the top row as
printed: plane 0 its own stones, plane 1 the opponent's, plane 2 all ones when
it is that seat's turn (zeros otherwise and once the game is over).

Symmetry (:meth:`ConnectFour.symmetries`): the mirror image, column ``c`` to
``cols - 1 - c`` in the tensor and in the actions, on every board size.

OpenSpiel twin (:func:`openspiel_twin`, the ``boardlab.openspiel_twins`` entry):
``connect_four(rows, columns, x_in_row)``, same actions (the column), same
results; tests/test_openspiel_agreement.py plays both side by side.

Compiled engines (``boardlab.engines`` entries): ``connect4.uct``
(:mod:`boardlab.games.connect4.search`), ``connect4.puct``
(:mod:`boardlab.games.connect4.puct`) and ``connect4.grading``, the shipped set of
solved positions (:mod:`boardlab.games.connect4.grading`, standard board only).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from boardlab.core.errors import BoardlabError, IllegalActionError, SpecError
from boardlab.core.game import TERMINAL, UNKNOWN_PLAYER, Game, GameType, State, Symmetry
from boardlab.core.params import Option

MAX_BITS = 64
SYMBOLS = ("X", "O")


def _at_least(low: int):
    return lambda v: None if v >= low else f"must be at least {low}"


class ConnectFour(Game):
    game_type = GameType(
        short_name="connect4",
        long_name="Connect Four",
        player_names=("Red", "Yellow"),
        player_colors=("#d8342c", "#f2c12e"),  # the discs on the page
        renderer="boardlab.games:connect4/board.js",
        provides=frozenset({"observation_tensor", "symmetries", "compiled_playouts", "compiled_uct", "compiled_puct",
                            "grading_solver"}),
    )
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
        #: (shift, shift) pairs when k is 3 or 4, the common case that apply_action unrolls
        self.win_pairs = tuple(self._win_steps) if all(len(s) == 2 for s in self._win_steps) else None
        self.has_won = self._has_won_two_steps if self.win_pairs else self._has_won_any
        # per column (top bit, bottom bit, column mask): one lookup per move in the hot loop
        self.column_bits = tuple(zip(self.top, self.bottom, self.column_mask))
        # legal columns depend only on which columns are full: one list per top-row pattern
        self.top_row = sum(self.top)
        self._legal_by_full: dict[int, list[int]] = {}
        #: bit of each cell in tensor order (row 0 the top row), for observation tensors
        self._cell_bits = np.array(
            [[1 << (c * self.height + r) for c in range(self.cols)] for r in reversed(range(self.rows))], dtype=np.uint64
        )

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

    @property
    def provides(self) -> frozenset[str]:
        # the shipped grading set holds positions of the standard board
        return self.game_type.provides if self.has_default_parameters() else self.game_type.provides - {"grading_solver"}

    def num_distinct_actions(self) -> int:
        return self.cols

    def max_game_length(self) -> int:
        return self.rows * self.cols

    def new_initial_state(self, seed: int | None = None) -> "ConnectFourState":
        return ConnectFourState(self, seed)

    def observation_tensor_shape(self) -> tuple[int, int, int]:
        return (3, self.rows, self.cols)

    def symmetries(self) -> list[Symmetry]:
        """The mirror image (column ``c`` becomes ``cols - 1 - c``): the rules see no left or right."""
        shape = self.observation_tensor_shape()
        cells = np.arange(int(np.prod(shape))).reshape(shape)
        return [Symmetry(observation=cells[:, :, ::-1].reshape(-1), actions=np.arange(self.cols)[::-1])]

    def default_agent(self) -> str | None:
        # the committed self-play network with its solver (docs/alphazero.md), standard board only
        return "az" if self.has_default_parameters() else None

    def playout_kernel(self):
        """The compiled random-playout kernel of this board size (``playout_returns(state, rng)``),
        built once per game object; search agents use it instead of Python playouts."""
        kernel = self.__dict__.get("_playout_kernel")
        if kernel is None:
            from boardlab.games.connect4.kernel import Connect4Kernel  # numba: imported on first use

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

    def state_from_notation(self, text: str) -> "ConnectFourState":
        """A move string (``"4453"``) or set-up rows with the side to move (see the module docstring)."""
        text = text.strip()
        if "/" not in text:
            return self.state_from_moves(text)  # type: ignore[return-value]
        rows, _, side = text.rpartition(" ")
        if side not in ("X", "O") or not rows:
            raise BoardlabError(f"position {text!r}: rows joined by '/' then X or O (the side to move)")
        return self.state_from_grid(rows.split("/"), SYMBOLS.index(side))

    def players_of_notations(self, texts: Sequence[str]) -> np.ndarray:
        """Whose turn it is in many positions at once; move strings are replayed compiled."""
        if self.cols > 9:
            return super().players_of_notations(texts)
        encoded = [t.encode("utf-8") for t in texts]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        from boardlab.games.connect4.kernel import players_of_move_strings

        kernel = self.playout_kernel()
        out = players_of_move_strings(data, offsets, kernel.bottom, kernel.top, kernel.column_mask, kernel.steps,
                                      np.uint64(self.board_mask), UNKNOWN_PLAYER, TERMINAL)
        for index in np.flatnonzero(out == UNKNOWN_PLAYER):  # set-up positions: read them one by one
            try:
                out[index] = self.player_of_notation(texts[index])
            except (BoardlabError, ValueError):
                pass
        return out


def openspiel_twin(game: ConnectFour) -> dict[str, Any]:
    """OpenSpiel's ``connect_four`` with this board: the same columns as actions (the
    ``boardlab.openspiel_twins`` entry; see :class:`boardlab.adapters.openspiel.twin.OpenSpielTwin`)."""
    same = lambda state, action, twin_state: action  # noqa: E731

    def start(initial: "ConnectFourState") -> None:
        if initial.start is not None:
            raise BoardlabError("OpenSpiel's connect_four cannot start from a set-up position")
        return None

    return {"game": f"connect_four(columns={game.cols},rows={game.rows},x_in_row={game.k})",
            "to_openspiel": same, "from_openspiel": same, "start": start}


class ConnectFourState(State):
    __slots__ = ("game", "seed", "history", "boards", "mask", "player", "winner", "start", "over")

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
        self.over = self.winner >= 0 or self.mask == game.board_mask

    # --- protocol --------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self.player

    def legal_actions(self) -> list[int]:
        if self.over:
            return []
        game = self.game
        full = self.mask & game.top_row
        legal = game._legal_by_full.get(full)
        if legal is None:
            legal = game._legal_by_full[full] = [c for c, top in enumerate(game.top) if not full & top]
        return legal.copy()  # callers may change the list they get

    def apply_action(self, action: int) -> None:
        # the hottest function of the Python engine: locals and one table lookup per move
        game = self.game
        mask = self.mask
        try:
            top, bottom, column = game.column_bits[action]
        except (IndexError, TypeError):
            raise self._illegal(action) from None
        if self.over or mask & top or action < 0:
            raise self._illegal(action)
        move = (mask + bottom) & column
        mask |= move
        self.mask = mask
        player = self.player
        board = self.boards[player] | move
        self.boards[player] = board
        pairs = game.win_pairs
        if pairs is None:
            won = game.has_won(board)
        else:
            won = False
            for a, b in pairs:
                m = board & (board >> a)
                if m & (m >> b):
                    won = True
                    break
        if won:
            self.winner = player
            self.over = True
        elif mask == game.board_mask:
            self.over = True
        self.player = player ^ 1
        self.history.append(action)

    def is_terminal(self) -> bool:
        return self.over

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
        other.over = self.over
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
        """``"Red (X) wins"``, ``"Yellow (O) wins"``, ``"tie"`` or ``"in play"``."""
        if self.winner >= 0:
            return f"{self.side(self.winner)} wins"
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

    # --- views -----------------------------------------------------------------
    def start_position(self) -> str | None:
        if self.start is None:
            return None
        return self._grid_notation(self.start[0], self.start[1], self.start[2])

    def _grid_notation(self, b0: int, b1: int, to_move: int) -> str:
        game = self.game
        rows = []
        for row in reversed(range(game.rows)):
            cells = []
            for c in range(game.cols):
                bit = 1 << (c * game.height + row)
                cells.append("X" if b0 & bit else "O" if b1 & bit else ".")
            rows.append("".join(cells))
        return "/".join(rows) + " " + SYMBOLS[to_move]

    def notation(self) -> str:
        if self.start is None:
            labels = [str(a + 1) for a in self.history]
            return ("" if self.game.cols <= 9 else ",").join(labels)
        return self._grid_notation(self.boards[0], self.boards[1], self.player)

    def observation_tensor(self, player: int) -> np.ndarray:
        bits = self.game._cell_bits
        out = np.zeros((3, self.game.rows, self.game.cols), dtype=np.float32)
        out[0] = (bits & np.uint64(self.boards[player])) != 0
        out[1] = (bits & np.uint64(self.boards[1 - player])) != 0
        if not self.over and self.player == player:
            out[2] = 1.0
        return out

    def observation(self, player: int | None = None) -> dict[str, Any]:
        seen = {"to_move": self.current_player(), "text": str(self), "board": self.grid(), "result": self.result()}
        if self.winner >= 0:
            seen["winning_cells"] = self.winning_cells()
        return seen

    def winning_cells(self) -> list[list[int]]:
        """The cells of the winner's lines of ``k``, as ``[row, col]`` with row 0 at the top as in
        :meth:`grid` (every cell of every such line; empty while nobody has won)."""
        if self.winner < 0:
            return []
        grid, k = self.grid(), self.game.k
        rows, cols = len(grid), len(grid[0])
        cells: set[tuple[int, int]] = set()
        for r in range(rows):
            for c in range(cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    line = [(r + i * dr, c + i * dc) for i in range(k)]
                    if all(0 <= y < rows and 0 <= x < cols and grid[y][x] == self.winner for y, x in line):
                        cells.update(line)
        return [list(cell) for cell in sorted(cells)]

    def end_description(self) -> str | None:
        if self.winner >= 0:
            return f"{self.game.k} in a row"
        return "the board is full" if self.is_terminal() else None

    def side(self, player: int) -> str:
        """A player as the text names it: its declared name and its glyph on the board, ``"Red (X)"``."""
        return f"{self.game.player_name(player)} ({SYMBOLS[player]})"

    def __str__(self) -> str:
        lines = []
        for row in self.grid():
            lines.append(" ".join(SYMBOLS[v] if v >= 0 else "." for v in row))
        lines.append(" ".join(str(c + 1)[-1] for c in range(self.game.cols)))
        if self.is_terminal():
            lines.append(self.result())
        else:
            lines.append(f"{self.side(self.player)} to move")
        return "\n".join(lines)
