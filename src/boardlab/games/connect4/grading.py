"""Grading Connect Four agents by their share of optimal moves.

A grading set lists positions with the solved score of every move. An agent is
shown each position once; its move is optimal when its score equals the best
score (the quickest win, else a draw, else the slowest loss). The share of moves
that merely *keep the result* (a won position still won, a drawn one not lost:
the score's sign unchanged) is counted beside it: the measure of benchmarks
that count a move as an error only when it throws the result away; an agent
that does not care how fast it wins scores far higher on it than on the exact
one. Results are also
given by game phase: opening (up to 14 stones on the board), middle game
(15 to 28) and endgame (more than 28).

Grading-set format (text, UTF-8, one position per line; ``#`` starts a comment)::

    MOVES BEST S1 S2 S3 S4 S5 S6 S7

MOVES are the columns 1-7 played from the empty board (Pons' notation), BEST
the exact score of the position for the player to move, and ``Sc`` the score
for that player after playing column ``c`` (``x`` for a full column). Scores
follow Pons' convention (see :mod:`boardlab.games.connect4.solver`).

Pascal Pons' own benchmark files (``MOVES SCORE`` per line: the position's score
only) are read too: there the solver scores just the move the agent chose. A
score it finds above the file's best means the file is wrong, and grading stops.

The shipped set ``boardlab/data/connect4_grading.txt`` is regenerated with::

    boardlab experiment c4-grading-set --per-phase 80 --games-per-pair 8 --out src/boardlab/data/connect4_grading.txt

which plays games between different agents, samples positions from them and
labels every move with the solver (:mod:`boardlab.studies.c4rl.grading_set`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable, Iterable, Sequence

from boardlab.core.errors import BoardlabError, FormatError
from boardlab.core.files import read_text
from boardlab.core.records import write_atomic
from boardlab.core.rng import derive_seed
from boardlab.games.connect4.book import default_book
from boardlab.games.connect4.solver import SIZE, WIDTH, Position, Solver

GRADING_SET_NAME = "connect4_grading.txt"
PHASES = ("opening", "middle", "end")

#: Pascal Pons' benchmark files, published with his tutorial (not shipped with boardlab: its
#: tests use excerpts, tests/data/connect4) and the page they are downloaded from
PONS_SETS = ("Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2", "Test_L1_R3")
PONS_PAGE = "http://blog.gamesolver.org/solving-connect-four/02-test-protocol/"


def missing_positions_file(path: Path, what: str) -> BoardlabError:
    """The error for a positions file that is not there; one named as Pons' benchmark files are
    (``--positions Test_L1_R2``, as the docs once showed it) says what it is and where to get it."""
    if path.stem in PONS_SETS:
        return BoardlabError(
            f"{what} {path} does not exist: {path.stem} is one of Pascal Pons' Connect Four benchmark files "
            f"({', '.join(PONS_SETS)}), which boardlab does not ship; download it from {PONS_PAGE} "
            f"and give its path (--positions DIR/{path.stem})"
        )
    return BoardlabError(f"{what} {path} does not exist")


def phase_of(stones: int) -> str:
    """Game phase of a position with this many stones on the board."""
    if stones <= 14:
        return "opening"
    if stones <= 28:
        return "middle"
    return "end"


@dataclass(frozen=True)
class GradedPosition:
    moves: str
    best: int
    scores: tuple[int | None, ...] | None  # per column 0..6, None: full; the tuple None: only ``best`` is known (Pons' files)

    @property
    def stones(self) -> int:
        return len(self.moves)


    def to_line(self) -> str:
        if self.scores is None:
            return f"{self.moves or '-'} {self.best}"
        return " ".join([self.moves or "-", str(self.best)] + ["x" if s is None else str(s) for s in self.scores])


def parse_grading_set(lines: Iterable[str], source: str = "<grading set>") -> list[GradedPosition]:
    out = []
    for number, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        where = f"{source}, line {number}"
        if len(parts) not in (2, 2 + WIDTH):
            raise FormatError(f"{where}: expected 'MOVES BEST S1 .. S7' (9 fields) or Pons' 'MOVES SCORE' (2), got {len(parts)}")
        moves = "" if parts[0] == "-" else parts[0]
        try:
            Position.from_moves(moves)
            best = int(parts[1])
            scores = tuple(None if p == "x" else int(p) for p in parts[2:]) or None
        except BoardlabError as exc:
            raise FormatError(f"{where}: {exc}") from None
        except ValueError:
            raise FormatError(f"{where}: scores must be integers or 'x' (full column)") from None
        if scores is not None:
            known = [s for s in scores if s is not None]
            if not known or max(known) != best:
                raise FormatError(f"{where}: BEST {best} is not the largest move score")
        out.append(GradedPosition(moves, best, scores))
    if not out:
        raise FormatError(f"{source}: no positions")
    return out


def load_grading_set(path: Path | None = None) -> list[GradedPosition]:
    """A grading set from ``path``, or the one shipped with boardlab."""
    if path is None:
        text = resources.files("boardlab.data").joinpath(GRADING_SET_NAME).read_text("utf-8")
        return parse_grading_set(text.splitlines(), f"boardlab/data/{GRADING_SET_NAME}")
    path = Path(path)
    if not path.exists():
        raise missing_positions_file(path, "grading set")
    return parse_grading_set(read_text(path, "grading set").splitlines(), str(path))


@dataclass
class PhaseResult:
    positions: int = 0
    optimal: int = 0
    kept: int = 0  # moves that keep the position's result (won, drawn or lost)
    kept_only: bool = False  # graded by the result alone (optimal moves not counted)

    @property
    def share(self) -> float | None:
        return self.optimal / self.positions if self.positions and not self.kept_only else None

    @property
    def kept_share(self) -> float | None:
        return self.kept / self.positions if self.positions else None

    def to_dict(self) -> dict:
        return {"positions": self.positions, "optimal": None if self.kept_only else self.optimal, "share": self.share,
                "kept": self.kept, "kept_share": self.kept_share}


@dataclass
class GradeResult:
    agent: str
    positions: int = 0
    optimal: int = 0
    kept: int = 0
    seconds: float = 0.0
    phases: dict[str, PhaseResult] = field(default_factory=lambda: {p: PhaseResult() for p in PHASES})
    kept_only: bool = False  # graded by the result alone: optimal and share are None

    @property
    def share(self) -> float | None:
        return self.optimal / self.positions if self.positions and not self.kept_only else None

    @property
    def kept_share(self) -> float | None:
        return self.kept / self.positions if self.positions else None

    @property
    def mean_seconds(self) -> float | None:
        return self.seconds / self.positions if self.positions else None

    def to_dict(self) -> dict:
        return {
            "agent": self.agent,
            "positions": self.positions,
            "optimal": None if self.kept_only else self.optimal,
            "share": self.share,
            "kept": self.kept,
            "kept_share": self.kept_share,
            "phases": {name: phase.to_dict() for name, phase in self.phases.items()},
            "mean_seconds_per_move": self.mean_seconds,
        }


def grade(
    agent,
    game,
    positions: Sequence[GradedPosition],
    seed: int = 0,
    on_position: Callable[[int, GradedPosition, int, bool], None] | None = None,
    solver: Solver | None = None,
    kept_only: bool = False,
) -> GradeResult:
    """Show each position to ``agent`` (an :class:`~boardlab.agents.base.Agent` for ``game``,
    standard Connect Four) once and count its optimal moves.

    The agent is made once by the caller (so a search agent keeps what it
    learned, as in a game) and reset before each position with a seed derived
    from ``seed`` and the position's index. Positions without move scores
    (Pons' files) have the chosen move solved by ``solver`` (by default one
    with the shipped opening book, made when first needed). With ``kept_only`` such a move is
    only solved as far as its result (won, drawn or lost: a weak solve, and none at all where the
    position is lost whatever is played): the share of moves that keep the result, AlphaZero.jl's
    measure, many times faster in the opening; optimal moves are then not counted.
    """
    result = GradeResult(agent.spec, kept_only=kept_only)
    for phase in result.phases.values():
        phase.kept_only = kept_only
    for index, graded in enumerate(positions):
        state = game.state_from_moves(graded.moves)
        agent.reset(game, state.current_player(), derive_seed(seed, "grade", index))
        start = time.perf_counter()
        action = agent.step(state)
        result.seconds += time.perf_counter() - start
        if action not in state.legal_actions():
            raise BoardlabError(f"agent {agent.spec} chose illegal column {action + 1} in position {graded.moves!r}")
        if graded.scores is not None:
            score = graded.scores[action]
        elif kept_only:
            if graded.best < 0:
                score = graded.best  # lost whatever is played: every move keeps the result
            else:
                if solver is None:
                    solver = Solver(book=default_book())
                score = _weak_move_score(solver, graded.moves, action)
                if score > _sign(graded.best):
                    raise FormatError(f"position {graded.moves!r}: column {action + 1} wins, but the file scores the "
                                      f"position {graded.best}; the file is wrong")
        else:
            if solver is None:
                solver = Solver(book=default_book())
            score = solver.move_score(graded.moves, action)
            if score > graded.best:
                raise FormatError(f"position {graded.moves!r}: column {action + 1} scores {score}, above the file's score "
                                  f"{graded.best} for the position; the file is wrong")
        optimal = score == graded.best and not kept_only
        kept = _sign(score) == _sign(graded.best)
        result.positions += 1
        result.optimal += optimal
        result.kept += kept
        phase = result.phases[phase_of(graded.stones)]
        phase.positions += 1
        phase.optimal += optimal
        phase.kept += kept
        if on_position is not None:
            on_position(index, graded, action, optimal)
    return result


def grade_on_set(agent, game, seed: int = 0, on_position: Callable[[int, GradedPosition, int, bool], None] | None = None,
                 positions: Sequence[GradedPosition] | None = None) -> GradeResult:
    """``agent`` graded (:func:`grade`) on ``positions`` (:func:`load_grading_set`), by default the shipped
    set: standard Connect Four's ``boardlab.engines`` entry ``connect4.grading`` (see :mod:`boardlab.core.engines`)."""
    return grade(agent, game, load_grading_set() if positions is None else positions, seed=seed, on_position=on_position)


def _sign(score: int) -> int:
    return (score > 0) - (score < 0)


def _weak_move_score(solver: Solver, moves: str, col: int) -> int:
    """The result (1, 0 or -1) for the player to move after playing ``col``: a weak solve of what follows."""
    pos = Position.of(moves)
    if pos.is_winning_move(col):
        return 1
    if pos.moves + 1 == SIZE:
        return 0
    return -solver.solve(pos.play(col), weak=True)


# --- labelling -----------------------------------------------------------------
def label(solver: Solver, moves: str) -> GradedPosition:
    scores = solver.move_scores(moves)
    values = tuple(scores[c] for c in range(WIDTH))
    return GradedPosition(moves, max(s for s in values if s is not None), values)


def write_grading_set(path: Path, positions: Sequence[GradedPosition], header: Sequence[str] = ()) -> None:
    """Write a grading set atomically; ``header`` lines become ``#`` comments."""
    lines = [f"# {line}" for line in header] + [p.to_line() for p in positions]
    write_atomic(Path(path), "\n".join(lines) + "\n")
