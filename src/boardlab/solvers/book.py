"""An opening book for 7x6 Connect Four, computed by the solver itself.

Early positions take the solver seconds to minutes, so the ``perfect`` agent
reads them from a book. The book holds the positions where a perfect player is
to move, up to ``max_ply`` stones, in games where it plays first or second
against any opponent: from the empty board (perfect first) and from each first
move (perfect second), every optimal move of the perfect player, then every
reply of the opponent. Each entry is keyed by the smaller of the position's
key and its mirror image's (so mirror images share one entry) and stores the
exact score and the set of optimal columns.

File format (``numpy.savez_compressed``): ``keys`` uint64 (canonical keys,
``current + mask`` in Pons' layout, sorted), ``scores`` int8 (Pons' score for
the player to move), ``best`` uint8 (bit ``c`` set when column ``c``, 0-based,
is optimal, in the orientation of the canonical key), ``max_ply`` and
``complete_ply`` (every position up to that ply is in the book).

Regenerate the shipped book (stops and resumes: rerun the same command)::

    python -m boardlab.solvers.book --max-ply 6 --out src/boardlab/data/connect4_book.npz
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from importlib import resources
from pathlib import Path
from typing import Callable

import numpy as np

from boardlab.core.errors import FormatError
from boardlab.core.records import write_atomic
from boardlab.solvers.connect4 import WIDTH, Position, Solver, mirror_key

BOOK_NAME = "connect4_book.npz"


def _mirror_columns(bits: int) -> int:
    return sum(1 << (WIDTH - 1 - c) for c in range(WIDTH) if bits >> c & 1)


class OpeningBook:
    """Scores and optimal columns of positions, looked up by canonical key."""

    def __init__(self, entries: dict[int, tuple[int, int]] | None = None, max_ply: int = 0, complete_ply: int = -1) -> None:
        self.entries: dict[int, tuple[int, int]] = entries if entries is not None else {}
        self.max_ply = max_ply
        self.complete_ply = complete_ply

    def __len__(self) -> int:
        return len(self.entries)

    def _find(self, pos: Position) -> tuple[int, int] | None:
        """(score, optimal-column bits in ``pos``'s own orientation) or None."""
        key = pos.key()
        mirrored = mirror_key(key)
        if mirrored < key:
            entry = self.entries.get(mirrored)
            return None if entry is None else (entry[0], _mirror_columns(entry[1]))
        return self.entries.get(key)

    def get(self, pos: Position) -> int | None:
        entry = self._find(pos)
        return None if entry is None else entry[0]

    def best(self, pos: Position) -> tuple[int, list[int]] | None:
        """(score, optimal columns) of a position in the book, else None."""
        entry = self._find(pos)
        if entry is None:
            return None
        return entry[0], [c for c in range(WIDTH) if entry[1] >> c & 1]

    def add(self, pos: Position, score: int, columns: list[int]) -> None:
        key = pos.key()
        bits = sum(1 << c for c in columns)
        mirrored = mirror_key(key)
        if mirrored < key:
            key, bits = mirrored, _mirror_columns(bits)
        self.entries[key] = (score, bits)

    # --- files -----------------------------------------------------------------
    def to_bytes(self) -> bytes:
        keys = np.array(sorted(self.entries), dtype=np.uint64)
        scores = np.array([self.entries[int(k)][0] for k in keys], dtype=np.int8)
        best = np.array([self.entries[int(k)][1] for k in keys], dtype=np.uint8)
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer, keys=keys, scores=scores, best=best,
            max_ply=np.int64(self.max_ply), complete_ply=np.int64(self.complete_ply),
        )
        return buffer.getvalue()

    def save(self, path: Path) -> None:
        write_atomic(Path(path), self.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "<book>") -> "OpeningBook":
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
                keys, scores, best = arrays["keys"], arrays["scores"], arrays["best"]
                max_ply, complete_ply = int(arrays["max_ply"]), int(arrays["complete_ply"])
        except (OSError, ValueError, KeyError) as exc:
            raise FormatError(f"{source}: not a Connect Four opening book ({exc})") from None
        if not (keys.shape == scores.shape == best.shape) or keys.ndim != 1:
            raise FormatError(f"{source}: keys, scores and best differ in length")
        entries = {int(k): (int(s), int(b)) for k, s, b in zip(keys, scores, best)}
        return cls(entries, max_ply, complete_ply)

    @classmethod
    def load(cls, path: Path) -> "OpeningBook":
        return cls.from_bytes(Path(path).read_bytes(), str(path))


_DEFAULT: OpeningBook | None = None


def default_book() -> OpeningBook:
    """The book shipped in ``boardlab/data`` (loaded once; empty if the file is missing)."""
    global _DEFAULT
    if _DEFAULT is None:
        resource = resources.files("boardlab.data").joinpath(BOOK_NAME)
        if resource.is_file():
            _DEFAULT = OpeningBook.from_bytes(resource.read_bytes(), f"boardlab/data/{BOOK_NAME}")
        else:
            _DEFAULT = OpeningBook()
    return _DEFAULT


def book_positions_at(book: OpeningBook, ply_positions: dict[int, Position], max_ply: int) -> dict[int, Position]:
    """The positions two plies later: each optimal move of the perfect player, then any reply."""
    following: dict[int, Position] = {}
    for pos in ply_positions.values():
        found = book.best(pos)
        assert found is not None
        for col in found[1]:
            if pos.is_winning_move(col):
                continue
            child = pos.play(col)
            for reply in child.legal_columns():
                if child.is_winning_move(reply) or child.moves + 1 >= 42:
                    continue
                grand = child.play(reply)
                if grand.moves <= max_ply:
                    key = grand.key()
                    following.setdefault(min(key, mirror_key(key)), grand)
    return following


def build_book(
    max_ply: int,
    path: Path,
    solver: Solver | None = None,
    report: Callable[[str], None] = print,
    save_every: float = 30.0,
) -> OpeningBook:
    """Fill (or resume filling) the book at ``path`` up to ``max_ply`` stones; saves as it goes."""
    path = Path(path)
    book = OpeningBook.load(path) if path.exists() else OpeningBook()
    book.max_ply = max(max_ply, book.max_ply)
    solver = solver or Solver()
    solver.book = book
    empty = Position(0, 0, 0)
    layers: dict[int, dict[int, Position]] = {0: {empty.key(): empty}}
    first = {}
    for col in range(WIDTH):
        pos = empty.play(col)
        key = pos.key()
        first.setdefault(min(key, mirror_key(key)), pos)
    layers[1] = first
    last_save = time.monotonic()
    try:
        for ply in range(max_ply + 1):
            positions = layers.get(ply, {})
            start, solved = time.monotonic(), 0
            for key in sorted(positions):
                pos = positions[key]
                if book.best(pos) is None:
                    score, columns = solver.best_moves(pos)
                    book.add(pos, score, columns)
                    solved += 1
                    if time.monotonic() - last_save > save_every:
                        book.save(path)
                        last_save = time.monotonic()
            book.complete_ply = max(book.complete_ply, ply)
            book.save(path)
            last_save = time.monotonic()
            report(f"ply {ply}: {len(positions)} positions ({solved} solved now) in {time.monotonic() - start:.1f} s; book {len(book)}")
            layers[ply + 2] = book_positions_at(book, positions, max_ply)
    except KeyboardInterrupt:
        book.save(path)
        report(f"stopped; {len(book)} positions saved to {path} (rerun to resume)")
        raise
    return book


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m boardlab.solvers.book",
        description="Build (or resume) the Connect Four opening book of the perfect agent.",
    )
    parser.add_argument("--max-ply", type=int, default=6, help="deepest position (stones on the board) to store")
    parser.add_argument("--out", type=Path, default=Path("src/boardlab/data") / BOOK_NAME, help="book file (.npz)")
    parser.add_argument("--tt-size", type=int, default=16777259,
                        help="transposition-table entries (a prime; 5 bytes each); the default is the first prime above 2**24")
    args = parser.parse_args(argv)
    build_book(args.max_ply, args.out, Solver(tt_size=args.tt_size), report=lambda line: print(line, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
