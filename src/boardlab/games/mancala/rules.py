"""Kalah, the common Mancala of the West: ``Kalah(pits, seeds)``, default Kalah(6,4).

Board layout (one flat list, as in OpenSpiel's ``mancala``): South (player 0,
the lower row, moves first) owns pits ``0..pits-1`` and its store at index
``pits``; North (player 1) owns pits ``pits+1..2*pits`` and its store at
index ``2*pits+1``. Sowing goes up the indices (counter-clockwise seen from
South) and wraps, so the pit opposite index ``i`` is ``2*pits - i``.

Rules (the Kalah rules, docs/references.md):

* a move takes every seed of one non-empty own pit and sows them one by one
  into the following pits and the mover's own store, skipping the opponent's
  store; with ``2*pits+1`` seeds or more the sowing laps the board and *does*
  sow into the origin pit (unlike Oware);
* the last seed in the mover's own store gives another turn: the same player
  moves again, and :meth:`MancalaState.current_player` says so;
* capture: the last seed lands in an own pit that was empty (it now holds one
  seed). With ``empty_capture=false`` (the common rule, Wikipedia and
  OpenSpiel) that seed and the seeds of the opposite pit go to the mover's
  store only when the opposite pit is non-empty; with ``empty_capture=true``
  (the Kalaha of some rule books) the lone last seed goes to the store even
  when the opposite pit is empty;
* the game ends as soon as one side's pits are all empty (checked after every
  move, whoever is to move); each player then puts the seeds left on their
  own side into their own store, and the larger store wins (+1/-1, 0 for equal).

Actions are pit numbers ``0..pits-1`` counted from the mover's left, so the
same action means the same thing to both players. People name pits by
letter: South's pits are ``a b c ...`` left to right (seen from South),
North's ``A B C ...`` left to right seen from North (so North's ``A`` lies
opposite South's last pit). :meth:`MancalaState.string_to_action` accepts
the mover's letter in either case or the pit number ``1..pits``.

Observation tensor (:meth:`MancalaState.observation_tensor`): a float32
vector of ``2 * pits + 3`` entries seen by the observing seat: its own pits
from its left, its store, the opponent's pits from the opponent's left, the
opponent's store, each as a share of all seeds on the board, then 1 when it is
that seat's turn (0 otherwise and once the game is over; a seat may move twice
in a row, so the turn is not implied by the board).

OpenSpiel twin: ``mancala`` (Kalah(6,4) with the common capture rule, which is
OpenSpiel's only variant), whose actions are board indices: South's pit ``a``
is action ``a + 1``, North's ``a + pits + 2``.
"""

from __future__ import annotations

import math
import string
from typing import Any, Sequence

import numpy as np

from boardlab.core.errors import BoardlabError, IllegalActionError
from boardlab.core.evaluation import Evaluator
from boardlab.core.game import TERMINAL, Game, GameType, State
from boardlab.core.params import Option

PLAYER_NAMES = ("South", "North")
MAX_PITS = 26  # one letter per pit


def _pits_in_range(value: int) -> str | None:
    return None if 1 <= value <= MAX_PITS else f"must be between 1 and {MAX_PITS}"


#: seeds per pit at most: Kalah is played with 3 to 6; far more only makes a move endless
MAX_SEEDS = 100


def _seeds_in_range(value: int) -> str | None:
    return None if 1 <= value <= MAX_SEEDS else f"must be between 1 and {MAX_SEEDS}"


SIDE_MARKS = ("S", "N")


class Mancala(Game):
    game_type = GameType(
        short_name="mancala",
        long_name="Mancala (Kalah)",
        player_names=PLAYER_NAMES,
        player_colors=("#2b5fab", "#e07b24"),
        renderer="boardlab.games:mancala/board.js",
        provides=frozenset({"observation_tensor", "compiled_playouts"}),
    )
    parameters = {
        "pits": Option("pits", int, 6, "pits per side", _pits_in_range),
        "seeds": Option("seeds", int, 4, "seeds per pit at the start", _seeds_in_range),
        "empty_capture": Option(
            "empty_capture", bool, False,
            "capture the lone last seed even when the opposite pit is empty (false: only when it holds seeds)",
        ),
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.pits: int = self.params["pits"]
        self.seeds: int = self.params["seeds"]
        self.empty_capture: bool = self.params["empty_capture"]
        self.size = 2 * self.pits + 2
        self.stores = (self.pits, 2 * self.pits + 1)
        self._kernel = None

    def num_distinct_actions(self) -> int:
        return self.pits

    def max_game_length(self) -> int:
        """A bound the rules guarantee (random games last 30-80 moves). Stores never lose seeds,
        so at most S moves (S seeds in all) add to a store; every other move sows its seeds
        closer to the mover's store, lowering the seeds' summed distance to their side's store
        (at most S * pits), which a store move can raise by at most S * pits again."""
        total = self.total_seeds()
        return total + total * self.pits * (total + 1)

    def total_seeds(self) -> int:
        return 2 * self.pits * self.seeds

    def new_initial_state(self, seed: int | None = None) -> "MancalaState":
        return MancalaState(self, seed)

    def split_moves(self, text: str) -> list[str]:
        # "adbF": one letter per move, when written without separators
        stripped = text.strip()
        if stripped.isalpha():
            return list(stripped)
        return super().split_moves(text)

    def state_from_board(
        self,
        south: Sequence[int],
        north: Sequence[int],
        stores: Sequence[int] = (0, 0),
        to_move: int = 0,
    ) -> "MancalaState":
        """A position of its own (no history) from seed counts.

        ``south`` lists South's pits a, b, c, ... and ``north`` North's pits
        A, B, C, ... (each from its owner's left); ``stores`` is (South's,
        North's). A position with an empty side is over, and is swept at once.
        """
        pits = self.pits
        if len(south) != pits or len(north) != pits:
            raise BoardlabError(f"a position of this game has {pits} pits per side")
        if len(stores) != 2 or to_move not in (0, 1):
            raise BoardlabError("stores are (South's, North's) and to_move is 0 (South) or 1 (North)")
        board = [int(v) for v in south] + [int(stores[0])] + [int(v) for v in north] + [int(stores[1])]
        if any(v < 0 for v in board):
            raise BoardlabError("seed counts cannot be negative")
        if sum(board) > 2 * pits * MAX_SEEDS:
            raise BoardlabError(f"a position holds at most {2 * pits * MAX_SEEDS} seeds ({MAX_SEEDS} per pit on average)")
        return MancalaState(self, None, start=(tuple(board), to_move))

    def state_from_notation(self, text: str) -> "MancalaState":
        """A position written as :meth:`MancalaState.notation` writes it."""
        board, _, side = text.strip().rpartition(" ")
        parts = board.split("/")
        try:
            if len(parts) != 4 or side not in ("S", "N", "-"):
                raise ValueError
            south, north = [[int(v) for v in part.split(",")] for part in (parts[0], parts[2])]
            stores = (int(parts[1]), int(parts[3]))
        except ValueError:
            raise BoardlabError(
                f"position {text!r}: write South's pits/South's store/North's pits/North's store "
                "then S or N (the side to move), e.g. 4,4,4,4,4,4/0/4,4,4,4,4,4/0 S"
            ) from None
        state = self.state_from_board(south, north, stores, 1 if side == "N" else 0)
        if (side == "-") != state.over:
            raise BoardlabError(f"position {text!r}: '-' marks a finished game, and only a finished one")
        return state

    def observation_tensor_shape(self) -> tuple[int]:
        return (2 * self.pits + 3,)

    def player_of_notation(self, text: str) -> int:
        side = text.strip()[-1:]
        if side == "-":
            return TERMINAL
        if side in SIDE_MARKS:
            return SIDE_MARKS.index(side)
        raise BoardlabError(f"position {text!r} does not end with S, N or -")

    def default_agent(self) -> str | None:
        # the committed self-play network (docs/alphazero.md) exists for the standard board only
        return "az" if self.has_default_parameters() else None

    def default_evaluator(self) -> str | None:
        return None  # random playouts on the compiled kernel beat the store count at equal time

    def playout_kernel(self) -> "Any":
        """The compiled random-playout kernel for this board (built once, numba)."""
        if self._kernel is None:
            from boardlab.games.mancala.kernel import MancalaKernel

            self._kernel = MancalaKernel(self)
        return self._kernel


def openspiel_twin(game: Mancala) -> dict[str, Any] | None:
    """OpenSpiel's ``mancala`` for Kalah(6,4) with the common capture rule; None for other boards (the
    ``boardlab.openspiel_twins`` entry; see :class:`boardlab.adapters.openspiel.twin.OpenSpielTwin`)."""
    if (game.pits, game.seeds, game.empty_capture) != (6, 4, False):
        return None
    pits = game.pits

    def to_openspiel(state: "MancalaState", action: int, twin_state: Any) -> int:
        return action + 1 if state.player == 0 else action + pits + 2

    def from_openspiel(state: "MancalaState", action: int, twin_state: Any) -> int:
        return action - 1 if state.player == 0 else action - pits - 2

    def start(initial: "MancalaState") -> None:
        if initial.start is not None:
            raise BoardlabError("OpenSpiel's mancala cannot start from a set-up position")
        return None

    return {"game": "mancala", "to_openspiel": to_openspiel, "from_openspiel": from_openspiel, "start": start}


class MancalaState(State):
    __slots__ = ("game", "seed", "history", "board", "player", "over", "start")

    def __init__(
        self, game: Mancala, seed: int | None = None, start: tuple[tuple[int, ...], int] | None = None
    ) -> None:
        self.game = game
        self.seed = seed
        self.history: list[int] = []
        self.start = start
        if start is None:
            pits = game.pits
            self.board = [game.seeds] * pits + [0] + [game.seeds] * pits + [0]
            self.player = 0
        else:
            self.board = list(start[0])
            self.player = start[1]
        self.over = False
        self._check_end()

    # --- rules -----------------------------------------------------------------
    def _check_end(self) -> None:
        """End the game when a side is empty: each side's seeds go to its owner's store."""
        pits = self.game.pits
        board = self.board
        south = sum(board[:pits])
        north = sum(board[pits + 1: 2 * pits + 1])
        if south and north:
            return
        for i in range(pits):
            board[i] = 0
            board[pits + 1 + i] = 0
        board[pits] += south
        board[2 * pits + 1] += north
        self.over = True

    def apply_action(self, action: int) -> None:
        game = self.game
        pits = game.pits
        board = self.board
        player = self.player
        if self.over or not 0 <= action < pits:
            raise self._illegal(action)
        origin = action if player == 0 else pits + 1 + action
        seeds = board[origin]
        if seeds == 0:
            raise self._illegal(action)
        size = game.size
        own_store = pits if player == 0 else 2 * pits + 1
        skip = 2 * pits + 1 if player == 0 else pits
        board[origin] = 0
        pos = origin
        while seeds:
            pos += 1
            if pos == size:
                pos = 0
            if pos == skip:
                continue
            board[pos] += 1
            seeds -= 1
        self.history.append(action)
        if pos == own_store:
            self._check_end()  # another turn, unless the move emptied a side
            return
        own_first = 0 if player == 0 else pits + 1
        if own_first <= pos < own_first + pits and board[pos] == 1:
            opposite = 2 * pits - pos
            if board[opposite] or game.empty_capture:
                board[own_store] += board[opposite] + 1
                board[opposite] = 0
                board[pos] = 0
        self.player = 1 - player
        self._check_end()

    # --- protocol --------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.over else self.player

    def legal_actions(self) -> list[int]:
        if self.over:
            return []
        pits = self.game.pits
        first = 0 if self.player == 0 else pits + 1
        board = self.board
        return [i for i in range(pits) if board[first + i]]

    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> list[float]:
        if not self.over:
            return [0.0, 0.0]
        south, north = self.stores()
        if south > north:
            return [1.0, -1.0]
        if north > south:
            return [-1.0, 1.0]
        return [0.0, 0.0]

    def clone(self) -> "MancalaState":
        other = MancalaState.__new__(MancalaState)
        other.game = self.game
        other.seed = self.seed
        other.history = self.history.copy()
        other.start = self.start
        other.board = self.board.copy()
        other.player = self.player
        other.over = self.over
        return other

    def action_to_string(self, action: int) -> str:
        letters = string.ascii_lowercase if self.player == 0 else string.ascii_uppercase
        if not 0 <= action < self.game.pits:
            return f"pit {action}?"
        return letters[action]

    def string_to_action(self, text: str) -> int:
        pits = self.game.pits
        word = text.strip()
        if self.over:
            raise IllegalActionError("the game is over")
        if word.isdigit():
            action = int(word) - 1
            if not 0 <= action < pits:
                raise IllegalActionError(f"pit {word} does not exist (pits are 1-{pits})")
        elif len(word) == 1 and word.isalpha() and word.lower() in string.ascii_lowercase[:pits]:
            action = string.ascii_lowercase.index(word.lower())
        else:
            mine = "a-" + string.ascii_lowercase[pits - 1] if self.player == 0 else "A-" + string.ascii_uppercase[pits - 1]
            raise IllegalActionError(f"{text.strip()!r} is not a pit: type a letter {mine} or a number 1-{pits}")
        if action not in self.legal_actions():
            raise IllegalActionError(
                f"pit {self.action_to_string(action)} is empty "
                f"(legal: {', '.join(self.action_to_string(a) for a in self.legal_actions())})"
            )
        return action

    # --- Mancala specifics -----------------------------------------------------
    def pits_of(self, player: int) -> list[int]:
        """Seeds in ``player``'s pits, from that player's left (a, b, c ... or A, B, C ...)."""
        pits = self.game.pits
        first = 0 if player == 0 else pits + 1
        return self.board[first: first + pits]

    def stores(self) -> tuple[int, int]:
        pits = self.game.pits
        return self.board[pits], self.board[2 * pits + 1]

    def seeds_in_play(self) -> int:
        return sum(self.board)

    def result(self) -> str:
        if not self.over:
            return "in play"
        r = self.returns()
        if r[0] > 0:
            return "South wins"
        if r[1] > 0:
            return "North wins"
        return "draw"

    def end_description(self) -> str | None:
        if not self.over:
            return None
        south, north = self.stores()
        return (f"a side ran out of seeds and each player's seeds went to their store: "
                f"{self.game.player_name(0)} {south}, {self.game.player_name(1)} {north}")

    # --- views -----------------------------------------------------------------
    def start_position(self) -> str | None:
        if self.start is None:
            return None
        board, to_move = self.start
        return self._notation(list(board), to_move, False)

    def _notation(self, board: list[int], to_move: int, over: bool) -> str:
        pits = self.game.pits
        south = ",".join(map(str, board[:pits]))
        north = ",".join(map(str, board[pits + 1: 2 * pits + 1]))
        return f"{south}/{board[pits]}/{north}/{board[2 * pits + 1]} {'-' if over else SIDE_MARKS[to_move]}"

    def notation(self) -> str:
        return self._notation(self.board, self.player, self.over)

    def observation_tensor(self, player: int) -> np.ndarray:
        pits = self.game.pits
        board = self.board
        own, other = (0, pits + 1) if player == 0 else (pits + 1, 0)
        counts = board[own: own + pits + 1] + board[other: other + pits + 1] + [0]
        out = np.array(counts, dtype=np.float32) / max(1, sum(board))
        out[-1] = 1.0 if not self.over and self.player == player else 0.0
        return out

    def observation(self, player: int | None = None) -> dict[str, Any]:
        return {
            "to_move": self.current_player(),
            "text": str(self),
            "board": {"pits": [self.pits_of(0), self.pits_of(1)], "stores": list(self.stores())},
            "result": self.result(),
        }

    def __str__(self) -> str:
        pits = self.game.pits
        north = self.pits_of(1)
        south = self.pits_of(0)
        s_store, n_store = self.stores()
        width = max(2, len(str(max(self.board))))
        cell = lambda v: str(v).rjust(width)  # noqa: E731
        pad = " " * (width + 3)
        top_labels = pad + " ".join(c.rjust(width) for c in reversed(string.ascii_uppercase[:pits]))
        top = pad + " ".join(cell(v) for v in reversed(north))
        middle = cell(n_store) + " " * (len(top) - width + 2) + cell(s_store)
        bottom = pad + " ".join(cell(v) for v in south)
        bottom_labels = pad + " ".join(c.rjust(width) for c in string.ascii_lowercase[:pits])
        lines = [
            top_labels + "   North",
            top,
            middle,
            bottom,
            bottom_labels + "   South",
        ]
        if self.over:
            # the winner's score first, as a result is read aloud ("North wins 26-22")
            first, second = (n_store, s_store) if self.returns()[1] > 0 else (s_store, n_store)
            lines.append(f"{self.result()} {first}-{second}")
        else:
            lines.append(f"{PLAYER_NAMES[self.player]} to move")
        return "\n".join(lines)


#: weight of the seeds on each side in :func:`evaluate_store` (negative: they count against their owner)
SIDE_WEIGHT = -0.5


def evaluate_store(state: MancalaState) -> list[float]:
    """A value in [-1, 1] per player for search cut-offs: who is ahead in seeds.

    The margin is ``store difference + SIDE_WEIGHT * (seeds on South's side -
    seeds on North's side)``, squashed with ``tanh(3 * margin / total
    seeds)``: 8 seeds ahead of 48 gives about 0.46, 24 about 0.9.

    Seeds in a store are banked for good. Seeds still on a side are not: the
    owner must sow most of them across, and pits holding seeds are what the
    opponent captures. They count against their owner, half a seed each
    (``SIDE_WEIGHT = -0.5``). Measured with ``mcts:iterations=300`` and this
    evaluation against the same search with other weights, 100 games each,
    seats alternating (``benchmarks/games_strength.py --weights 100``, figures
    in ``docs/benchmarks/games.md``): -0.5 beat 0 (stores only) 62-8-30 and
    -0.25 55-3-42, and was even with -1.0 (46-3-51); 0 beat +0.25 71-3-26.

    Exact values where the result is known: terminal states return their
    returns, and a store holding more than half of all seeds has won already
    (no seed ever leaves a store), so it scores +1/-1 at once.
    """
    return store_value(state, SIDE_WEIGHT)


def store_value(state: MancalaState, side_weight: float) -> list[float]:
    """:func:`evaluate_store` with another weight for the seeds on each side."""
    if state.over:
        return state.returns()
    pits = state.game.pits
    board = state.board
    total = sum(board)
    s_store, n_store = board[pits], board[2 * pits + 1]
    if 2 * s_store > total:
        return [1.0, -1.0]
    if 2 * n_store > total:
        return [-1.0, 1.0]
    side = sum(board[:pits]) - sum(board[pits + 1: 2 * pits + 1])
    margin = (s_store - n_store) + side_weight * side
    value = math.tanh(3.0 * margin / total)
    return [value, -value]


STORE = Evaluator("mancala", evaluate_store, "seeds banked in the stores, seeds on a side counting half against their owner")

__all__ = ["Mancala", "MancalaState", "STORE", "evaluate_store", "store_value"]
