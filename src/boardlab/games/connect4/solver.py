"""A perfect Connect Four solver for the standard 7x6 board (Pascal Pons' method).

Scores follow Pons' convention, the one of his benchmark sets: for the player
to move, a win scores ``22 - stones the winner has played when the game ends``
(larger the sooner), a draw 0, a loss the negative of the winner's score.

The search (compiled with numba) is negamax with alpha-beta on bitboards laid
out as in :mod:`boardlab.games.connect4` (column ``c`` owns bits ``c*7 ..
c*7+5``), with the techniques of Pons' tutorial "Solving Connect 4":

* a position is ``current`` (stones of the player to move) and ``mask`` (all
  stones); ``current + mask`` is a unique 49-bit key;
* a transposition table of 2^23 + 9 entries (a prime) holding 32 bits of the
  key and one byte: an upper or a lower bound of the score. Since the size is
  prime and larger than 2^17, the index and the 32 stored bits together
  identify a 49-bit key exactly (Chinese remainder theorem);
* moves that hand the opponent an immediate win are never explored, and a
  position where the player to move can win at once is scored without search;
* moves are tried by the number of winning threats they create, then centre
  first;
* the exact score is found by null-window searches that halve the range of
  possible scores (iterative narrowing), all sharing the table.

:func:`reference_score` is a plain negamax in pure Python, for tests on
positions close to the end.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
from numba import njit

from boardlab.core.errors import BoardlabError, IllegalActionError, SpecError

WIDTH = 7
HEIGHT = 6
SIZE = WIDTH * HEIGHT
MIN_SCORE = -(SIZE // 2) + 3  # -18: the fastest possible loss (the opponent's 4th stone)
MAX_SCORE = (SIZE + 1) // 2 - 3  # 18: the fastest possible win
#: columns from the centre outwards: the order moves are tried in when threats tie
COLUMN_ORDER = (3, 2, 4, 1, 5, 0, 6)
TT_SIZE = 8388617  # the first prime above 2**23

_U = np.uint64
_BOTTOM = _U(sum(1 << (c * (HEIGHT + 1)) for c in range(WIDTH)))
_BOARD = _U(sum(((1 << HEIGHT) - 1) << (c * (HEIGHT + 1)) for c in range(WIDTH)))
_COLUMN_MASKS = np.array([((1 << HEIGHT) - 1) << (c * (HEIGHT + 1)) for c in range(WIDTH)], dtype=np.uint64)
_TOP_MASKS = np.array([1 << (HEIGHT - 1 + c * (HEIGHT + 1)) for c in range(WIDTH)], dtype=np.uint64)
_BOTTOM_MASKS = np.array([1 << (c * (HEIGHT + 1)) for c in range(WIDTH)], dtype=np.uint64)
_ORDER = np.array(COLUMN_ORDER, dtype=np.int64)
_LOW32 = _U(0xFFFFFFFF)
_S1 = _U(1)
_S2 = _U(2)
_S3 = _U(3)
_S6 = _U(6)
_S7 = _U(7)
_S8 = _U(8)
_S12 = _U(12)
_S14 = _U(14)
_S16 = _U(16)
_S18 = _U(18)
_S21 = _U(21)
_S24 = _U(24)
_ZERO = _U(0)


# --- bitboard primitives -------------------------------------------------------
@njit(cache=True, inline="always")
def _winning_cells(position, mask):
    """Empty cells where ``position``'s owner would complete four in a row."""
    # vertical: three stones below
    r = (position << _S1) & (position << _S2) & (position << _S3)
    # horizontal (stride 7)
    p = (position << _S7) & (position << _S14)
    r |= p & (position << _S21)
    r |= p & (position >> _S7)
    p = (position >> _S7) & (position >> _S14)
    r |= p & (position << _S7)
    r |= p & (position >> _S21)
    # diagonal (stride 6)
    p = (position << _S6) & (position << _S12)
    r |= p & (position << _S18)
    r |= p & (position >> _S6)
    p = (position >> _S6) & (position >> _S12)
    r |= p & (position << _S6)
    r |= p & (position >> _S18)
    # anti-diagonal (stride 8)
    p = (position << _S8) & (position << _S16)
    r |= p & (position << _S24)
    r |= p & (position >> _S8)
    p = (position >> _S8) & (position >> _S16)
    r |= p & (position << _S8)
    r |= p & (position >> _S24)
    return r & (_BOARD ^ mask)


@njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> _S1) & _U(0x5555555555555555))
    x = (x & _U(0x3333333333333333)) + ((x >> _S2) & _U(0x3333333333333333))
    x = (x + (x >> _U(4))) & _U(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * _U(0x0101010101010101)) >> _U(56))


@njit(cache=True, inline="always")
def _possible(mask):
    """The cell each non-full column would take next."""
    return (mask + _BOTTOM) & _BOARD


@njit(cache=True, inline="always")
def _can_win_next(current, mask):
    return (_winning_cells(current, mask) & _possible(mask)) != _ZERO


@njit(cache=True, inline="always")
def _non_losing_moves(current, mask):
    """Playable cells that do not let the opponent win at once (0: every move loses)."""
    possible = _possible(mask)
    opponent_win = _winning_cells(current ^ mask, mask)
    forced = possible & opponent_win
    if forced != _ZERO:
        if forced & (forced - _S1) != _ZERO:
            return _ZERO  # two threats to block: lost
        possible = forced
    # never play under a cell where the opponent would win
    return possible & ~(opponent_win >> _S1)


# --- the transposition table ---------------------------------------------------
@njit(cache=True, inline="always")
def _tt_get(keys, values, key):
    i = key % _U(keys.shape[0])
    if keys[i] == np.uint32(key & _LOW32):
        return np.int64(values[i])
    return np.int64(0)


@njit(cache=True, inline="always")
def _tt_put(keys, values, key, value):
    i = key % _U(keys.shape[0])
    keys[i] = np.uint32(key & _LOW32)
    values[i] = np.uint8(value)


# --- the opening book inside the search ------------------------------------------
_NOT_IN_BOOK = 127


@njit(cache=True, inline="always")
def _book_score(key, book_keys, book_scores):
    """Score of a position in the book (looked up by its or its mirror image's key, whichever is
    smaller), else ``_NOT_IN_BOOK``."""
    mirrored = _ZERO
    for c in range(WIDTH):
        mirrored |= ((key >> _U(7 * c)) & _U(0x7F)) << _U(7 * (WIDTH - 1 - c))
    if mirrored < key:
        key = mirrored
    i = np.searchsorted(book_keys, key)
    if i < book_keys.shape[0] and book_keys[i] == key:
        return np.int64(book_scores[i])
    return np.int64(_NOT_IN_BOOK)


# Stored bytes: 1 .. 37 are upper bounds (value + MIN_SCORE - 1), 38 .. 74 lower
# bounds (value + 2*MIN_SCORE - MAX_SCORE - 2), 0 an empty slot.
_UPPER_MAX = MAX_SCORE - MIN_SCORE + 1


@njit(cache=True)
def _negamax(
    current, mask, moves, alpha, beta, keys, values, book_keys, book_scores, book_ply, counter, move_buf, score_buf
):
    """Score of a position where the player to move cannot win at once, within [alpha, beta]:
    exact if inside, else a bound on the side it fell (fail-soft as in Pons' solver).

    ``book_keys`` (sorted canonical keys) and ``book_scores`` are positions of at most
    ``book_ply`` stones whose exact score is known: the search takes them as they are."""
    counter[0] += 1
    possible = _non_losing_moves(current, mask)
    if possible == _ZERO:
        return -((SIZE - moves) // 2)
    if moves >= SIZE - 2:
        return 0
    low = -((SIZE - 2 - moves) // 2)  # the opponent cannot win with their next stone
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha
    high = (SIZE - 1 - moves) // 2  # we cannot win with this stone
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta
    key = current + mask
    if moves <= book_ply:
        known = _book_score(key, book_keys, book_scores)
        if known != _NOT_IN_BOOK:
            return known
    stored = _tt_get(keys, values, key)
    if stored != 0:
        if stored > _UPPER_MAX:
            low = stored + 2 * MIN_SCORE - MAX_SCORE - 2
            if alpha < low:
                alpha = low
                if alpha >= beta:
                    return alpha
        else:
            high = stored + MIN_SCORE - 1
            if beta > high:
                beta = high
                if alpha >= beta:
                    return beta

    # sort the moves: most threats created first, centre first among equals
    # one row of scratch per depth: no allocation inside the search
    move_list = move_buf[moves]
    score_list = score_buf[moves]
    n = 0
    for i in range(WIDTH - 1, -1, -1):
        move = possible & _COLUMN_MASKS[_ORDER[i]]
        if move != _ZERO:
            score = _popcount(_winning_cells(current | move, mask))
            j = n
            while j > 0 and score_list[j - 1] > score:
                move_list[j] = move_list[j - 1]
                score_list[j] = score_list[j - 1]
                j -= 1
            move_list[j] = move
            score_list[j] = score
            n += 1

    for k in range(n - 1, -1, -1):
        move = move_list[k]
        # the opponent's view after our move: their stones are the others
        child_current = current ^ mask
        child_mask = mask | move
        score = -_negamax(
            child_current, child_mask, moves + 1, -beta, -alpha,
            keys, values, book_keys, book_scores, book_ply, counter, move_buf, score_buf,
        )
        if score >= beta:
            _tt_put(keys, values, key, score + MAX_SCORE - 2 * MIN_SCORE + 2)
            return score
        if score > alpha:
            alpha = score
    _tt_put(keys, values, key, alpha - MIN_SCORE + 1)
    return alpha


@njit(cache=True)
def _solve(current, mask, moves, keys, values, book_keys, book_scores, book_ply, counter, weak, move_buf, score_buf):
    """Exact score (weak: only its sign) of a position that is not over; the buffers are
    the search's scratch rows, ``(SIZE + 1, WIDTH)``."""
    if _can_win_next(current, mask):
        return (SIZE + 1 - moves) // 2
    low = -((SIZE - moves) // 2)
    high = (SIZE + 1 - moves) // 2
    if weak:
        low = -1
        high = 1
    while low < high:  # narrow [low, high] with null-window searches
        med = low + (high - low) // 2
        # probe near 0 first: most positions are close to a draw in score terms
        if med <= 0 and low // 2 < med:
            med = low // 2
        elif med >= 0 and high // 2 > med:
            med = high // 2
        r = _negamax(
            current, mask, moves, med, med + 1, keys, values, book_keys, book_scores, book_ply, counter, move_buf, score_buf
        )
        if r <= med:
            high = r
        else:
            low = r
    return low


@njit(cache=True)
def _score_at_most(
    current, mask, moves, bound, keys, values, book_keys, book_scores, book_ply, counter, move_buf, score_buf
):
    """Whether the position's exact score is at most ``bound`` (one null-window search)."""
    if _can_win_next(current, mask):
        return (SIZE + 1 - moves) // 2 <= bound
    score = _negamax(
        current, mask, moves, bound, bound + 1, keys, values, book_keys, book_scores, book_ply, counter, move_buf, score_buf
    )
    return score <= bound


@njit(cache=True)
def _solve_many(
    currents, masks, moves, keys, values, book_keys, book_scores, book_ply, counter, out, move_buf, score_buf
):
    """Solve a batch in one compiled loop (no per-position call overhead), sharing the table."""
    for i in range(currents.shape[0]):
        out[i] = _solve(
            currents[i], masks[i], moves[i], keys, values, book_keys, book_scores, book_ply, counter, False,
            move_buf, score_buf,
        )


@njit(cache=True)
def _depth_limited(current, mask, moves, depth, alpha, beta, counter):
    """Negamax to ``depth`` plies: exact scores for games decided within the horizon, 0 beyond."""
    counter[0] += 1
    if depth <= 0 or moves >= SIZE:
        return 0
    if _can_win_next(current, mask):
        return (SIZE + 1 - moves) // 2
    possible = _possible(mask)
    best = -(SIZE // 2) - 1
    for i in range(WIDTH):
        move = possible & _COLUMN_MASKS[_ORDER[i]]
        if move == _ZERO:
            continue
        score = -_depth_limited(current ^ mask, mask | move, moves + 1, depth - 1, -beta, -alpha, counter)
        if score > best:
            best = score
        if score > alpha:
            alpha = score
        if alpha >= beta:
            break
    return best


# --- positions -----------------------------------------------------------------
class Position:
    """A 7x6 position as the solver sees it: ``current`` (stones of the player to move),
    ``mask`` (all stones) and ``moves`` (stones on the board)."""

    __slots__ = ("current", "mask", "moves")

    def __init__(self, current: int, mask: int, moves: int) -> None:
        self.current = current
        self.mask = mask
        self.moves = moves

    @classmethod
    def from_moves(cls, moves: str) -> "Position":
        """Play Pons-notation moves (digits 1-7) from the empty board, checking each one."""
        text = moves.strip()
        current = mask = 0
        for index, ch in enumerate(text):
            if ch not in "1234567":
                raise IllegalActionError(
                    f"move {index + 1} ({ch!r}) of {text!r}: moves are the column digits 1-7"
                )
            col = int(ch) - 1
            if mask & int(_TOP_MASKS[col]):
                raise IllegalActionError(f"move {index + 1} ({ch!r}) of {text!r}: column {ch} is full")
            move = (mask + int(_BOTTOM_MASKS[col])) & int(_COLUMN_MASKS[col])
            if _py_has_won(current | move):
                if index != len(text) - 1:
                    raise IllegalActionError(
                        f"move {index + 1} ({ch!r}) of {text!r} wins the game; there can be no move after it"
                    )
                raise BoardlabError(f"position {text!r} is over: its last move wins the game")
            current ^= mask
            mask |= move
        if mask == int(_BOARD):
            raise BoardlabError(f"position {text!r} is over: the board is full")
        return cls(current, mask, len(text))

    @classmethod
    def from_key(cls, key: int) -> "Position":
        """The position of a key (``current + mask``, e.g. from the opening book): each column's
        stones are the bits below its highest set bit once one bottom bit is added."""
        current = mask = 0
        for c in range(WIDTH):
            column = (key >> (7 * c)) & 0x7F
            height = (column + 1).bit_length() - 1
            stones = (1 << height) - 1
            mask |= stones << (7 * c)
            current |= (column - stones) << (7 * c)
        return cls(current, mask, bin(mask).count("1"))

    @classmethod
    def from_state(cls, state) -> "Position":
        game = getattr(state, "game", None)
        if getattr(game, "name", None) != "connect4":
            raise SpecError(f"the Connect Four solver cannot solve a position of game {getattr(game, 'name', type(state).__name__)!r}")
        if (game.rows, game.cols, game.k) != (HEIGHT, WIDTH, 4):
            raise SpecError(
                f"the Connect Four solver handles the standard 7 columns x 6 rows with k=4 only, "
                f"not {game.cols}x{game.rows} with k={game.k}"
            )
        if state.is_terminal():
            raise BoardlabError(f"the game is over ({state.result()}): there is nothing to solve")
        mask = state.mask
        return cls(state.boards[state.player], mask, bin(mask).count("1"))

    @classmethod
    def of(cls, position) -> "Position":
        if isinstance(position, Position):
            return position
        if isinstance(position, str):
            return cls.from_moves(position)
        return cls.from_state(position)

    def key(self) -> int:
        return self.current + self.mask

    def can_play(self, col: int) -> bool:
        return not self.mask & int(_TOP_MASKS[col])

    def move_cell(self, col: int) -> int:
        return (self.mask + int(_BOTTOM_MASKS[col])) & int(_COLUMN_MASKS[col])

    def is_winning_move(self, col: int) -> bool:
        return _py_has_won(self.current | self.move_cell(col))

    def play(self, col: int) -> "Position":
        """The position after ``col`` (0-based), seen from the opponent."""
        return Position(self.current ^ self.mask, self.mask | self.move_cell(col), self.moves + 1)

    def legal_columns(self) -> list[int]:
        return [c for c in range(WIDTH) if self.can_play(c)]


def mirror_key(key: int) -> int:
    """The key of the left-right mirror image (each column's 7 bits move to column 6-c)."""
    out = 0
    for c in range(WIDTH):
        out |= ((key >> (c * 7)) & 0x7F) << ((WIDTH - 1 - c) * 7)
    return out


def key_stones(key: int) -> int:
    """Stones on the board of a position key (see :meth:`Position.from_key`)."""
    return sum((((key >> (7 * c)) & 0x7F) + 1).bit_length() - 1 for c in range(WIDTH))


def canonical_key(position: Position) -> int:
    """The smaller of the keys of a position and its mirror image: one key per symmetry class."""
    key = position.key()
    return min(key, mirror_key(key))


def _py_has_won(board: int) -> bool:
    for d in (1, 7, 6, 8):
        m = board & (board >> d)
        if m & (m >> (2 * d)):
            return True
    return False


def win_score(moves: int) -> int:
    """Score of a player to move who wins with this very stone (``moves`` stones on the board)."""
    return (SIZE + 1 - moves) // 2


# --- the solver ----------------------------------------------------------------
_NO_BOOK = (np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int8), -1)


class Solver:
    """Solves 7x6 Connect Four positions exactly; keeps its transposition table between calls.

    ``book`` (an :class:`~boardlab.games.connect4.book.OpeningBook` or any mapping with
    ``get(position) -> score or None``) answers positions it holds without search; one that
    also has ``search_arrays()`` (sorted canonical keys, scores, deepest ply) is consulted
    inside the search too, so positions that lead into the book are solved faster.
    ``nodes`` counts the positions searched since the last :meth:`reset_nodes`.
    """

    def __init__(self, book=None, tt_size: int = TT_SIZE) -> None:
        if tt_size < (1 << 17) + 1 or tt_size % 2 == 0:
            # the slot (key mod size) and the stored low 32 bits pin down a 49-bit key only then
            raise SpecError(f"the transposition table needs an odd number of entries above 2**17, not {tt_size}")
        self.keys = np.zeros(tt_size, dtype=np.uint32)
        self.values = np.zeros(tt_size, dtype=np.uint8)
        self._counter = np.zeros(1, dtype=np.int64)
        # scratch rows of the search's move sorter, one per depth (allocated once)
        self._moves_buf = np.zeros((SIZE + 1, WIDTH), dtype=np.uint64)
        self._scores_buf = np.zeros((SIZE + 1, WIDTH), dtype=np.int64)
        self.book = book

    def _search_book(self) -> tuple[np.ndarray, np.ndarray, int]:
        arrays = getattr(self.book, "search_arrays", None)
        return _NO_BOOK if arrays is None else arrays()

    @property
    def nodes(self) -> int:
        return int(self._counter[0])

    def reset_nodes(self) -> None:
        self._counter[0] = 0

    def clear(self) -> None:
        """Forget every stored bound (the table is still valid otherwise; this only frees it)."""
        self.keys[:] = 0
        self.values[:] = 0

    def solve(self, position, weak: bool = False) -> int:
        """Exact score of a position (a move string such as ``"4453"``, a 7x6 ``ConnectFourState``
        or a :class:`Position`) for the player to move; ``weak``: only -1, 0 or 1."""
        pos = Position.of(position)
        if self.book is not None and not weak:
            score = self.book.get(pos)
            if score is not None:
                return score
        return int(
            _solve(
                _U(pos.current), _U(pos.mask), pos.moves, self.keys, self.values, *self._search_book(),
                self._counter, weak,
                self._moves_buf, self._scores_buf,
            )
        )

    def solve_many(self, positions) -> np.ndarray:
        """Exact scores of many positions, searched in one compiled loop (the book only inside the search)."""
        parsed = [Position.of(p) for p in positions]
        currents = np.array([p.current for p in parsed], dtype=np.uint64)
        masks = np.array([p.mask for p in parsed], dtype=np.uint64)
        moves = np.array([p.moves for p in parsed], dtype=np.int64)
        out = np.empty(len(parsed), dtype=np.int64)
        _solve_many(
            currents, masks, moves, self.keys, self.values, *self._search_book(), self._counter, out,
            self._moves_buf, self._scores_buf,
        )
        return out

    def move_scores(self, position) -> dict[int, int | None]:
        """Score of every column (0-based action -> score for the player to move after playing it,
        None when the column is full)."""
        pos = Position.of(position)
        return {col: self.move_score(pos, col) if pos.can_play(col) else None for col in range(WIDTH)}

    def move_score(self, position, col: int) -> int:
        """Score for the player to move after playing column ``col`` (0-based, a legal move)."""
        pos = Position.of(position)
        if not 0 <= col < WIDTH or not pos.can_play(col):
            raise IllegalActionError(f"column {col + 1} is full or off the board")
        if pos.is_winning_move(col):
            return win_score(pos.moves)
        if pos.moves + 1 == SIZE:
            return 0
        return -self.solve(pos.play(col))

    def best_moves(self, position) -> tuple[int, list[int]]:
        """The best score and every column (0-based) that reaches it.

        Cheaper than :meth:`move_scores`: one exact solve of the position, then one
        null-window test per move (is the opponent held to minus the best score?),
        which the table filled by the first search mostly answers.
        """
        pos = Position.of(position)
        if self.book is not None and hasattr(self.book, "best"):
            found = self.book.best(pos)
            if found is not None:
                return found
        best = self.solve(pos)
        columns = []
        for col in pos.legal_columns():
            if pos.is_winning_move(col):
                ok = win_score(pos.moves) == best
            elif pos.moves + 1 == SIZE:
                ok = best == 0
            else:
                child = pos.play(col)
                known = self.book.get(child) if self.book is not None else None
                if known is not None:
                    ok = -known == best
                else:
                    ok = bool(
                        _score_at_most(
                            _U(child.current), _U(child.mask), child.moves, -best, self.keys, self.values,
                            *self._search_book(), self._counter, self._moves_buf, self._scores_buf,
                        )
                    )
            if ok:
                columns.append(col)
        return best, columns


def depth_limited_scores(position, depth: int, counter: np.ndarray | None = None) -> dict[int, int]:
    """Each legal column's negamax score searched ``depth`` plies deep (the move itself included),
    0 for games not decided within the horizon."""
    pos = Position.of(position)
    if counter is None:
        counter = np.zeros(1, dtype=np.int64)
    scores = {}
    for col in pos.legal_columns():
        if pos.is_winning_move(col):
            scores[col] = win_score(pos.moves)
        else:
            child = pos.play(col)
            scores[col] = -int(
                _depth_limited(_U(child.current), _U(child.mask), child.moves, depth - 1, -SIZE, SIZE, counter)
            )
    return scores


# --- pure-Python reference -----------------------------------------------------
def reference_score(position) -> int:
    """Plain negamax without pruning or tables: slow, for positions near the end only."""
    pos = Position.of(position)
    return _reference(pos.current, pos.mask, pos.moves)


def _reference(current: int, mask: int, moves: int) -> int:
    if moves == SIZE:
        return 0
    best = -SIZE
    for col in range(WIDTH):
        if mask & int(_TOP_MASKS[col]):
            continue
        move = (mask + int(_BOTTOM_MASKS[col])) & int(_COLUMN_MASKS[col])
        if _py_has_won(current | move):
            return (SIZE + 1 - moves) // 2
        score = -_reference(current ^ mask, mask | move, moves + 1)
        best = max(best, score)
    return best


def read_positions(lines: Iterable[str], source: str = "<positions>") -> list[tuple[str, int | None]]:
    """Parse benchmark-format lines ``MOVES [SCORE]``; blank lines and ``#`` comments are skipped."""
    out = []
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) > 2 or not parts[0].isdigit():
            raise BoardlabError(f"{source}, line {number}: expected 'MOVES SCORE' (e.g. '4453 -2'), got {line!r}")
        expected = None
        if len(parts) == 2:
            try:
                expected = int(parts[1])
            except ValueError:
                raise BoardlabError(f"{source}, line {number}: score {parts[1]!r} is not an integer") from None
        out.append((parts[0], expected))
    return out


