"""Chess, as a thin wrapper over python-chess (which does all move generation).

Player 0 is White, player 1 Black. The game starts from the ``fen`` parameter
(the standard position by default) and is scored +1/-1 for checkmate and 0 for
every draw, which python-chess detects for us and which end the game at once,
with no claim needed:

* stalemate, and insufficient material (``Board.is_insufficient_material``);
* the 75-move rule: 150 plies without a capture or pawn move
  (``Board.is_seventyfive_moves``; checkmate on that ply still counts);
* fivefold repetition (``Board.is_fivefold_repetition``);
* ``max_moves`` plies played from the start position (a boardlab limit that
  keeps random playouts short), counted by the move numbers of the position
  (FEN's fullmove number and side to move), so that a position read from its
  FEN knows how long its game has lasted.

Action encoding (fixed, :data:`NUM_ACTIONS` = 4240 actions)::

    from_square * 64 + to_square                 every move except under-promotions
                                                 (castling is the king's move, e1g1;
                                                 a pawn reaching the last rank this way
                                                 promotes to a queen)
    4096 + (target * 3 + direction) * 3 + piece  promotions to knight, bishop, rook

Squares are python-chess's (a1 = 0, b1 = 1, ..., h8 = 63). For
under-promotions, ``target`` is the promotion square numbered 0..7 for a8..h8
and 8..15 for a1..h1, ``direction`` is ``from_file - to_file + 1`` (0, 1, 2),
and ``piece`` is 0, 1, 2 for knight, bishop, rook.

Moves are written in SAN (``Nf3``, ``O-O``, ``exd8=N+``); people may type SAN
or UCI (``g1f3``; ``e7e8`` promotes to a queen). A position's notation is its
FEN, which says whose move it is; a FEN cannot tell a repetition, so a
position read back from one knows every ending but fivefold repetition.

Observation tensor (:meth:`ChessState.observation_tensor`): float32 planes
``(21, 8, 8)`` seen by the observing seat, AlphaZero's way: the board turned
so that the seat's own first rank is row 0 (Black's view is mirrored rank-wise,
files stay a..h as columns 0..7). Planes 0-5 its own pawns, knights, bishops,
rooks, queens, king; 6-11 the opponent's; 12 all ones when it is that seat's
turn; 13-14 its castling rights (king side, queen side), 15-16 the opponent's;
17 the en-passant target square when an en-passant capture is legal; 18 the
halfmove clock / 150 (the 75-move rule); 19 the plies played / ``max_moves``;
20 all ones when the position has occurred before (repetition).

OpenSpiel twin: ``chess`` (from the same FEN; OpenSpiel numbers Black 0 and
White 1, so its seats are swapped). The move rules agree; the draw
rules differ: OpenSpiel ends a game at the third repetition and after 50
moves without a capture or pawn move, boardlab at the fifth, after 75, and
at ``max_moves``; the twin's ``differences`` say so and the agreement
tests stop a game there.

The wrapper stays cheap by generating legal moves once per position (the
list serves :meth:`ChessState.legal_actions`, :meth:`ChessState.apply_action`
and the end-of-game test), testing for repetition only when 16 plies or more
have passed since the last capture or pawn move (a fivefold repetition needs
at least that), and cloning only that tail of python-chess's move stack.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import chess
import numpy as np

from boardlab.core.errors import BoardlabError, IllegalActionError
from boardlab.core.evaluation import Evaluator
from boardlab.core.game import TERMINAL, Game, GameType, State
from boardlab.core.params import Option

NUM_ACTIONS = 64 * 64 + 16 * 3 * 3
_UNDER_PROMOTIONS = {chess.KNIGHT: 0, chess.BISHOP: 1, chess.ROOK: 2}
_PROMOTION_PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK)
COLOR_NAMES = ("White", "Black")


def encode_move(move: chess.Move) -> int:
    """The action number of ``move`` (see the module docstring)."""
    promotion = move.promotion
    if promotion is None or promotion == chess.QUEEN:
        return move.from_square * 64 + move.to_square
    to_square = move.to_square
    target = (to_square & 7) if to_square >= 56 else 8 + (to_square & 7)
    direction = (move.from_square & 7) - (to_square & 7) + 1
    return 4096 + (target * 3 + direction) * 3 + _UNDER_PROMOTIONS[promotion]


def decode_action(action: int, board: chess.Board) -> chess.Move:
    """The move that ``action`` stands for on ``board`` (legal or not).

    The board is needed only to tell a queen promotion from a plain move.
    """
    if not 0 <= action < NUM_ACTIONS:
        raise IllegalActionError(f"action {action} is outside 0..{NUM_ACTIONS - 1}")
    if action < 4096:
        from_square, to_square = divmod(action, 64)
        promotion = None
        if board.pawns & chess.BB_SQUARES[from_square] and chess.square_rank(to_square) in (0, 7):
            promotion = chess.QUEEN
        return chess.Move(from_square, to_square, promotion)
    rest, piece = divmod(action - 4096, 3)
    target, direction = divmod(rest, 3)
    to_file = target & 7
    to_square = 56 + to_file if target < 8 else to_file
    from_rank = 6 if target < 8 else 1
    from_file = to_file + direction - 1
    if not 0 <= from_file < 8:
        raise IllegalActionError(f"action {action} names no square (file {from_file})")
    return chess.Move(chess.square(from_file, from_rank), to_square, _PROMOTION_PIECES[piece])


def _valid_fen(fen: str) -> str | None:
    try:
        board = chess.Board(fen)
    except ValueError as exc:
        return f"is not a FEN chess position ({exc})"
    if not board.is_valid():
        status = board.status()
        problems = [flag.name.lower().replace("_", " ") for flag in chess.Status if flag and flag in status and flag.name]
        return f"is not a legal position ({', '.join(problems)})"
    return None


def _positive(value: int) -> str | None:
    return None if value > 0 else "must be positive"


class Chess(Game):
    game_type = GameType(
        short_name="chess",
        long_name="Chess",
        player_names=COLOR_NAMES,
        player_colors=("#d9d9d9", "#1e1e1e"),
        renderer="boardlab.games:chess/board.js",
        provides=frozenset({"observation_tensor"}),
    )
    parameters = {
        "fen": Option("fen", str, chess.STARTING_FEN, "start position in FEN", _valid_fen),
        "max_moves": Option("max_moves", int, 300, "plies after which the game is a draw", _positive),
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.fen: str = self.params["fen"]
        self.max_moves: int = self.params["max_moves"]
        self._start = chess.Board(self.fen)

    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    def max_game_length(self) -> int:
        return self.max_moves

    def new_initial_state(self, seed: int | None = None) -> "ChessState":
        return ChessState(self, seed, self._start.copy(), None)

    def observation_tensor_shape(self) -> tuple[int, int, int]:
        return (21, 8, 8)

    def state_from_fen(self, fen: str) -> "ChessState":
        """A position of its own (no history) from FEN; its move number counts towards ``max_moves``."""
        problem = _valid_fen(fen)
        if problem:
            raise BoardlabError(f"FEN {fen!r} {problem}")
        return ChessState(self, None, chess.Board(fen), fen)

    def state_from_notation(self, text: str) -> "ChessState":
        return self.state_from_fen(text.strip())

    def player_of_notation(self, text: str) -> int:
        return _player_of_fen(text.strip(), self.fen, self.max_moves)

    def default_agent(self) -> str | None:
        # MCTS on the material evaluator, a second a move: the strongest chess player the lab has
        # (docs/opponents.md); random playouts to the end of a chess game say almost nothing
        return "mcts:eval=chess_material,time=1"

    def default_evaluator(self) -> str | None:
        # random playouts to the end of a chess game say almost nothing (most are drawn by length)
        return "chess_material"


def openspiel_twin(game: Chess) -> dict[str, Any]:
    """OpenSpiel's ``chess`` from the same position; moves are translated through UCI and SAN (the
    ``boardlab.openspiel_twins`` entry; see :class:`boardlab.adapters.openspiel.twin.OpenSpielTwin`)."""

    def to_openspiel(state: "ChessState", action: int, twin_state: Any) -> int:
        return twin_state.parse_move_to_action(state.action_to_move(action).uci())

    def from_openspiel(state: "ChessState", action: int, twin_state: Any) -> int:
        return state.string_to_action(twin_state.action_to_string(action))

    def start(initial: "ChessState") -> str | None:
        fen = initial.board.fen()
        return None if fen == chess.STARTING_FEN else fen

    def diverged(state: "ChessState", twin_state: Any) -> bool:
        return bool(twin_state.is_terminal()) != state.is_terminal()

    return {
        "game": "chess", "to_openspiel": to_openspiel, "from_openspiel": from_openspiel, "start": start,
        "seats": (1, 0),  # OpenSpiel's player 0 is Black
        "differences": "draw rules: OpenSpiel ends a game at the third repetition and after 50 moves without "
                       "a capture or pawn move; boardlab at the fifth repetition, after 75 moves, and at max_moves plies",
        "diverged": diverged,
    }


#: 1 << square for every square, for building planes from python-chess's bitboards
_SQUARE_BITS = np.array([1 << sq for sq in range(64)], dtype=np.uint64)
_PIECE_MASKS = ("pawns", "knights", "bishops", "rooks", "queens", "kings")


def _plane(mask: int, flip: bool) -> np.ndarray:
    """The squares of a bitboard as an 8x8 plane, rank 1 in row 0 (rank 8 when ``flip``)."""
    plane = (_SQUARE_BITS & np.uint64(mask)) != 0
    plane = plane.reshape(8, 8)
    return plane[::-1] if flip else plane


def _plies(board: chess.Board, start: chess.Board) -> int:
    """Plies played from ``start`` to ``board``, by their move numbers."""
    return 2 * (board.fullmove_number - start.fullmove_number) + (board.turn == chess.BLACK) - (start.turn == chess.BLACK)


@functools.lru_cache(maxsize=65536)
def _player_of_fen(fen: str, start_fen: str, max_moves: int) -> int:
    """Whose turn it is in ``fen`` (TERMINAL when the game is over there), for a game from ``start_fen``."""
    try:
        board = chess.Board(fen)
    except ValueError as exc:
        raise BoardlabError(f"{fen!r} is not a FEN chess position ({exc})") from None
    plies = _plies(board, chess.Board(start_fen))
    if (
        not any(board.generate_legal_moves())
        or board.is_insufficient_material()
        or board.halfmove_clock >= 150
        or plies >= max_moves
    ):
        return TERMINAL
    return 0 if board.turn == chess.WHITE else 1


class ChessState(State):
    __slots__ = ("game", "seed", "history", "board", "start", "_moves", "_end")

    def __init__(self, game: Chess, seed: int | None, board: chess.Board, start: str | None) -> None:
        self.game = game
        self.seed = seed
        self.history: list[int] = []
        self.board = board
        self.start = start  # FEN of a position made by state_from_fen, else None
        self._moves: dict[int, chess.Move] | None = None  # legal moves by action, once per position
        self._end: str | None = None  # why the game ended ("" while it goes on); None: not yet known

    # --- cached move generation ------------------------------------------------
    def _legal_moves(self) -> dict[int, chess.Move]:
        moves = self._moves
        if moves is None:
            moves = self._moves = {
                (m.from_square * 64 + m.to_square if m.promotion is None or m.promotion == chess.QUEEN else encode_move(m)): m
                for m in self.board.generate_legal_moves()
            }
        return moves

    def end_reason(self) -> str:
        """Why the game is over (``"checkmate"``, ``"stalemate"``, ...), or ``""``."""
        end = self._end
        if end is None:
            board = self.board
            if not self._legal_moves():
                end = "checkmate" if board.is_check() else "stalemate"
            elif board.is_insufficient_material():
                end = "insufficient material"
            elif board.halfmove_clock >= 150:  # is_seventyfive_moves, legal moves known to exist
                end = "seventy-five-move rule"
            elif board.halfmove_clock >= 16 and board.is_fivefold_repetition():
                end = "fivefold repetition"
            elif _plies(board, self.game._start) >= self.game.max_moves:
                end = "maximum length"
            else:
                end = ""
            self._end = end
        return end

    # --- protocol --------------------------------------------------------------
    def current_player(self) -> int:
        if self.end_reason():
            return TERMINAL
        return 0 if self.board.turn else 1

    def legal_actions(self) -> list[int]:
        if self.end_reason():
            return []
        return sorted(self._moves)  # end_reason() generated them

    def apply_action(self, action: int) -> None:
        end = self._end
        if end is None:
            end = self.end_reason()  # generates the legal moves too
        move = self._moves.get(action)  # type: ignore[union-attr]
        if move is None or end:
            raise self._illegal(action)
        self.board.push(move)
        self.history.append(action)
        self._moves = None
        self._end = None

    def is_terminal(self) -> bool:
        end = self._end
        return bool(self.end_reason() if end is None else end)

    def returns(self) -> list[float]:
        if self.end_reason() != "checkmate":
            return [0.0, 0.0]
        return [-1.0, 1.0] if self.board.turn else [1.0, -1.0]  # the side to move is mated

    def clone(self) -> "ChessState":
        other = ChessState.__new__(ChessState)
        other.game = self.game
        other.seed = self.seed
        other.history = self.history.copy()
        # repetition never looks past the last capture or pawn move: copy only that tail
        other.board = self.board.copy(stack=max(1, self.board.halfmove_clock))
        other.start = self.start
        other._moves = self._moves  # never changed in place, so it can be shared
        other._end = self._end
        return other

    def action_to_move(self, action: int) -> chess.Move:
        move = self._legal_moves().get(action)
        return move if move is not None else decode_action(action, self.board)

    def action_to_string(self, action: int) -> str:
        move = self._legal_moves().get(action)
        if move is None:
            return decode_action(action, self.board).uci()
        return self.board.san(move)

    def string_to_action(self, text: str) -> int:
        word = text.strip()
        if self.is_terminal():
            raise IllegalActionError(f"the game is over ({self.end_reason()})")
        legal = self._legal_moves()
        try:
            move = self.board.parse_san(word)
        except chess.AmbiguousMoveError:
            raise IllegalActionError(f"{word!r} is ambiguous here: add the file or rank it moves from") from None
        except ValueError:
            try:
                move = chess.Move.from_uci(word.lower())
            except ValueError:
                move = None
        if move is not None and move:
            action = encode_move(move)
            found = legal.get(action)
            if found is not None and (found == move or (move.promotion is None and found.promotion == chess.QUEEN)):
                return action
        moves = ", ".join(sorted(self.board.san(m) for m in legal.values()))
        raise IllegalActionError(f"{word!r} is not a legal move here (legal: {moves})")

    def end_description(self) -> str | None:
        return self.end_reason() or None

    # --- chess specifics -------------------------------------------------------
    def fen(self) -> str:
        return self.board.fen()

    def result(self) -> str:
        """``"1-0"``, ``"0-1"``, ``"1/2-1/2"`` or ``"*"`` while the game goes on."""
        end = self.end_reason()
        if not end:
            return "*"
        if end == "checkmate":
            return "0-1" if self.board.turn else "1-0"
        return "1/2-1/2"

    def last_move(self) -> dict[str, str] | None:
        if not self.board.move_stack:
            return None
        before = self.board.copy(stack=1)
        move = before.pop()
        return {"uci": move.uci(), "san": before.san(move)}

    # --- views -----------------------------------------------------------------
    def start_position(self) -> str | None:
        return self.start

    def notation(self) -> str:
        return self.board.fen()

    def action_info(self, action: int) -> dict[str, Any]:
        return {"uci": self.action_to_move(action).uci()}

    def observation_tensor(self, player: int) -> np.ndarray:
        board = self.board
        flip = player == 1
        own, other = board.occupied_co[chess.WHITE if player == 0 else chess.BLACK], board.occupied_co[chess.BLACK if player == 0 else chess.WHITE]
        out = np.zeros((21, 8, 8), dtype=np.float32)
        for index, name in enumerate(_PIECE_MASKS):
            mask = getattr(board, name)
            out[index] = _plane(mask & own, flip)
            out[6 + index] = _plane(mask & other, flip)
        if not self.is_terminal() and (0 if board.turn else 1) == player:
            out[12] = 1.0
        mine, theirs = (chess.WHITE, chess.BLACK) if player == 0 else (chess.BLACK, chess.WHITE)
        for plane, color, side in ((13, mine, board.has_kingside_castling_rights), (14, mine, board.has_queenside_castling_rights),
                                   (15, theirs, board.has_kingside_castling_rights), (16, theirs, board.has_queenside_castling_rights)):
            if side(color):
                out[plane] = 1.0
        if board.ep_square is not None and board.has_legal_en_passant():
            out[17] = _plane(1 << board.ep_square, flip)
        out[18] = min(board.halfmove_clock, 150) / 150.0
        out[19] = min(_plies(board, self.game._start), self.game.max_moves) / self.game.max_moves
        if board.is_repetition(2):
            out[20] = 1.0
        return out

    def observation(self, player: int | None = None) -> dict[str, Any]:
        board = self.board
        return {
            "to_move": self.current_player(),
            "text": str(self),
            "board": {
                "fen": board.fen(),
                "turn": "white" if board.turn else "black",
                "last_move": self.last_move(),
                "check": board.is_check(),
            },
            "result": self.result(),
            "reason": self.end_reason() or None,
        }

    def __str__(self) -> str:
        board = self.board
        lines = []
        for rank in range(7, -1, -1):
            cells = []
            for file in range(8):
                piece = board.piece_at(chess.square(file, rank))
                cells.append(piece.symbol() if piece else ".")
            lines.append(f"{rank + 1} " + " ".join(cells))
        lines.append("  a b c d e f g h")
        end = self.end_reason()
        if end:
            lines.append(f"{self.result()} ({end})")
        else:
            status = f"{COLOR_NAMES[0 if board.turn else 1]} to move"
            if board.is_check():
                status += ", in check"
            lines.append(status)
        return "\n".join(lines)


# --- evaluation ---------------------------------------------------------------
#: centipawn values of pawn, knight, bishop, rook, queen, king
PIECE_VALUES = (100, 320, 330, 500, 900, 0)


def _centre_distance(square: int) -> int:
    """0 on the four centre squares, 3 on the edge."""
    file, rank = chess.square_file(square), chess.square_rank(square)
    return int(max(abs(file - 3.5), abs(rank - 3.5)) - 0.5)


def _square_bonus(piece_type: int, square: int) -> int:
    """Centipawns for a White piece on ``square`` (Black's are mirrored rank-wise).

    Simple rules rather than tuned numbers: pawns gain as they advance (more
    in the centre early on), knights and bishops gain in the centre and lose
    at the edge, a rook likes the seventh rank and the centre files, the queen
    the centre a little, and the king stays home (on a castled square best)
    and loses for each rank it walks up.
    """
    file, rank = chess.square_file(square), chess.square_rank(square)
    distance = _centre_distance(square)
    if piece_type == chess.PAWN:
        bonus = (0, 0, 5, 10, 20, 35, 60, 0)[rank]
        return bonus + (10 if file in (3, 4) and 2 <= rank <= 4 else 0)
    if piece_type == chess.KNIGHT:
        return 15 - 10 * distance
    if piece_type == chess.BISHOP:
        return 10 - 5 * distance
    if piece_type == chess.ROOK:
        return 20 if rank == 6 else (5 if file in (3, 4) else 0)
    if piece_type == chess.QUEEN:
        return 5 - 3 * distance
    if rank == 0:
        return 20 if file in (1, 2, 6) else 0
    return -min(10 * rank, 50)


#: PIECE_SQUARE[piece_type][square]: material plus square bonus for White; Black uses square ^ 56
PIECE_SQUARE = [[0] * 64] + [
    [PIECE_VALUES[pt - 1] + _square_bonus(pt, sq) for sq in range(64)] for pt in chess.PIECE_TYPES
]

#: tanh(score / 800) is 2 * logistic(score / 400) - 1: one e-fold in odds per 400 centipawns
EVAL_SCALE = 800.0
#: a non-terminal evaluation stays within +-EVAL_BOUND, so a real mate always outranks a material lead
EVAL_BOUND = 0.9


def material_score(board: chess.Board) -> int:
    """Material plus piece-square bonuses in centipawns, from White's view."""
    score = 0
    black, white = board.occupied_co  # indexed by colour: chess.BLACK is 0
    for piece_type, mask in (
        (chess.PAWN, board.pawns), (chess.KNIGHT, board.knights), (chess.BISHOP, board.bishops),
        (chess.ROOK, board.rooks), (chess.QUEEN, board.queens), (chess.KING, board.kings),
    ):
        table = PIECE_SQUARE[piece_type]
        for square in chess.scan_forward(mask & white):
            score += table[square]
        for square in chess.scan_forward(mask & black):
            score -= table[square ^ 56]
    return score


def evaluate_material(state: ChessState) -> list[float]:
    """Values ``[white, black]`` in [-1, 1] for search cut-offs.

    Terminal positions return their true returns. Otherwise the score of
    :func:`material_score` is squashed with the logistic curve,
    ``v = EVAL_BOUND * tanh(score / EVAL_SCALE)`` (``tanh(x/2)`` is ``2 *
    logistic(x) - 1``): a pawn is worth about 0.11, a queen about 0.73, and no
    lead reaches 0.9, so that a checkmate (+1) is always worth more to a search
    than winning more material.
    """
    if state.is_terminal():
        return state.returns()
    value = EVAL_BOUND * math.tanh(material_score(state.board) / EVAL_SCALE)
    return [value, -value]


MATERIAL = Evaluator("chess", evaluate_material, "material and piece-square bonuses, squashed to (-0.9, 0.9)")

__all__ = [
    "Chess", "ChessState", "MATERIAL", "NUM_ACTIONS", "decode_action", "encode_move", "evaluate_material",
    "material_score",
]
