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
``done_layers`` (bit ``p`` set when every book position with ``p`` stones is
in; files of older versions carry ``complete_ply`` instead).

The search takes every score already in the book as known, so the two seats'
halves feed each other (the one-stone position 4 costs minutes alone, a few
lookups once the first player's two-stone layer exists): build them in two
processes side by side, each reading the other's file as it grows. The shipped
book (each command resumes where it stopped; about 4 CPU-hours in all)::

    B="boardlab train c4-book"
    $B --seat first --max-ply 8 --out first.npz --partner second.npz &
    $B --seat second --max-ply 3 --out second.npz --partner first.npz
    $B --seat first --root 4 --max-ply 9 --out second.npz --partner first.npz
    for root in 1 2 3; do $B --seat first --root $root --max-ply 5 --out second.npz; done
    wait
    $B --merge first.npz second.npz --out src/boardlab/data/connect4_book.npz
    $B --seat both --max-ply 5 --out src/boardlab/data/connect4_book.npz  # records the complete plies
    boardlab evaluate src/boardlab/data/connect4_book.npz --entries 5  # re-solve 5 entries without the book

(``--seat first --root R``: the perfect player is to move at R, so these are its
lines as second player after the opening R.) docs/benchmarks/solver.md has the
times and what the book covers.
"""

from __future__ import annotations

import io
import math
import struct
import time
import zipfile
import zlib
from importlib import resources
from pathlib import Path
from typing import Callable

import numpy as np

from boardlab.core.errors import FormatError
from boardlab.core.files import read_bytes
from boardlab.core.records import write_atomic
from boardlab.games.connect4.solver import HEIGHT, WIDTH, Position, Solver, canonical_key, key_stones, mirror_key

BOOK_NAME = "connect4_book.npz"


def _mirror_columns(bits: int) -> int:
    return sum(1 << (WIDTH - 1 - c) for c in range(WIDTH) if bits >> c & 1)


class OpeningBook:
    """Scores and optimal columns of positions, looked up by canonical key."""

    def __init__(
        self, entries: dict[int, tuple[int, int]] | None = None, max_ply: int = 0, done_layers: int = 0
    ) -> None:
        self.entries: dict[int, tuple[int, int]] = entries if entries is not None else {}
        self.max_ply = max_ply
        #: bit p set: every book position with p stones is in
        self.done_layers = done_layers
        self._arrays: tuple[np.ndarray, np.ndarray, int] | None = None

    @property
    def complete_ply(self) -> int:
        """The deepest ply such that every book position up to it is in (-1: not even the empty board)."""
        ply = 0
        while self.done_layers >> ply & 1:
            ply += 1
        return ply - 1

    def search_arrays(self) -> tuple[np.ndarray, np.ndarray, int]:
        """(sorted canonical keys, scores, deepest ply): the form the compiled search reads."""
        if self._arrays is None:
            keys = np.array(sorted(self.entries), dtype=np.uint64)
            scores = np.array([self.entries[int(k)][0] for k in keys], dtype=np.int8)
            deepest = max((key_stones(int(k)) for k in keys), default=-1)
            self._arrays = (keys, scores, deepest)
        return self._arrays

    def merge(self, other: "OpeningBook") -> None:
        """Take in another book's entries and finished layers (e.g. the other seat's half)."""
        self._arrays = None
        self.entries.update(other.entries)
        self.max_ply = max(self.max_ply, other.max_ply)
        self.done_layers |= other.done_layers

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
        self._arrays = None

    # --- files -----------------------------------------------------------------
    def to_bytes(self) -> bytes:
        keys = np.array(sorted(self.entries), dtype=np.uint64)
        scores = np.array([self.entries[int(k)][0] for k in keys], dtype=np.int8)
        best = np.array([self.entries[int(k)][1] for k in keys], dtype=np.uint8)
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer, keys=keys, scores=scores, best=best,
            max_ply=np.int64(self.max_ply), done_layers=np.int64(self.done_layers),
        )
        return buffer.getvalue()

    def save(self, path: Path) -> None:
        write_atomic(Path(path), self.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "<book>") -> "OpeningBook":
        """Read a book file's bytes; anything but a well-formed book is a :class:`FormatError` naming ``source``.

        Arrays are never unpickled (``allow_pickle=False``), and each array's
        size is checked against what the file holds before it is allocated.
        """
        def bad(why: str) -> FormatError:
            return FormatError(f"{source}: not a Connect Four opening book ({why})")

        try:
            _check_npz_sizes(data, bad)
            with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
                names = set(arrays.files)
                missing = sorted({"keys", "scores", "best", "max_ply"} - names)
                if missing or not names & {"done_layers", "complete_ply"}:
                    raise bad(f"no array {(missing or ['done_layers'])[0]!r}")
                keys, scores, best = arrays["keys"], arrays["scores"], arrays["best"]
                max_ply = _small_int(arrays["max_ply"], "max_ply", 0, WIDTH * HEIGHT, bad)
                if "done_layers" in names:
                    done_layers = _small_int(arrays["done_layers"], "done_layers", 0, 2 ** (WIDTH * HEIGHT + 1) - 1, bad)
                else:  # written before the seats were built apart
                    done_layers = (1 << (_small_int(arrays["complete_ply"], "complete_ply", -1, WIDTH * HEIGHT, bad) + 1)) - 1
        except FormatError:
            raise
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error, struct.error, NotImplementedError,
                MemoryError, OverflowError, RuntimeError, TypeError) as exc:
            raise bad((str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]) from None
        for name, array in (("keys", keys), ("scores", scores), ("best", best)):
            if array.ndim != 1 or array.dtype.kind not in "iu":
                raise bad(f"{name} must be a list of integers, not {array.dtype} of shape {array.shape}")
        if not (keys.shape == scores.shape == best.shape):
            raise FormatError(f"{source}: keys, scores and best differ in length")
        limit = 1 << (WIDTH * (HEIGHT + 1))  # a key is current + mask in Pons' layout
        for name, array, low, high in (("keys", keys, 0, limit - 1), ("scores", scores, -18, 18), ("best", best, 0, 2**WIDTH - 1)):
            if len(array) and (int(array.min()) < low or int(array.max()) > high):
                raise bad(f"{name} must lie between {low} and {high}")
        entries = {int(k): (int(s), int(b)) for k, s, b in zip(keys.tolist(), scores.tolist(), best.tolist())}
        return cls(entries, max_ply, done_layers)

    @classmethod
    def load(cls, path: Path) -> "OpeningBook":
        return cls.from_bytes(read_bytes(path, "opening book"), str(path))


#: the most bytes the arrays of a book may take once read (the shipped book: 50 KB; a book to ply 12, some 100 MB)
MAX_BOOK_BYTES = 1 << 30


def _check_npz_sizes(data: bytes, bad: Callable[[str], FormatError]) -> None:
    """Refuse an ``.npz`` whose arrays, by their headers, would not fit :data:`MAX_BOOK_BYTES` or the file itself
    (numpy allocates an array from its header before reading its data)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        if sum(info.file_size for info in infos) > MAX_BOOK_BYTES:
            raise bad(f"its arrays take more than {MAX_BOOK_BYTES:,} bytes")
        for info in infos:
            with archive.open(info) as handle:
                version = np.lib.format.read_magic(handle)
                if version == (1, 0):
                    shape, _, dtype = np.lib.format.read_array_header_1_0(handle)
                elif version == (2, 0):
                    shape, _, dtype = np.lib.format.read_array_header_2_0(handle)
                else:
                    raise bad(f"array {info.filename} has the unknown .npy version {version}")
                if math.prod(shape) * dtype.itemsize > info.file_size:
                    raise bad(f"array {info.filename} claims shape {shape}, more than its {info.file_size} bytes hold")


def _small_int(array: np.ndarray, name: str, low: int, high: int, bad: Callable[[str], FormatError]) -> int:
    if array.shape != () or array.dtype.kind not in "iu" or not low <= int(array) <= high:
        raise bad(f"{name} must be one integer between {low} and {high}")
    return int(array)


def is_book(path: str | Path) -> bool:
    """Whether ``path`` is an opening-book file: a NumPy ``.npz`` holding ``keys``, ``scores`` and ``best``."""
    path = Path(path)
    if not path.is_file():
        return False
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):  # not a NumPy file at all
        return False
    if not isinstance(data, np.lib.npyio.NpzFile):
        return False
    with data:
        return {"keys", "scores", "best"} <= set(data.files)


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


SEATS = ("first", "second", "both")


def build_book(
    max_ply: int,
    path: Path,
    solver: Solver | None = None,
    report: Callable[[dict], None] = print,
    save_every: float = 1.0,
    seat: str = "both",
    root: str = "",
    partner: Path | None = None,
) -> OpeningBook:
    """Fill (or resume filling) the book at ``path`` up to ``max_ply`` stones with the lines of
    ``seat`` ("first": the perfect player is to move at ``root``, "second": its opponent is,
    "both"), from ``root`` (moves; empty: the empty board). Saves as it goes (at most
    ``save_every`` seconds of finished positions are lost when the process is killed).

    ``partner``: the book file another process is building (the other seat's lines); its
    entries are read in whenever it changes, since the search uses every known score.

    ``report`` receives one dict per event: ``{"event": "position", "ply", "number", "of",
    "score", "columns" (1-7), "seconds"}`` per position solved, ``{"event": "layer", "ply",
    "positions", "solved", "seconds", "book"}`` per finished ply, ``{"event": "stopped",
    "book", "path"}`` on Ctrl-C and ``{"event": "warning", "message"}``."""
    if seat not in SEATS:
        raise ValueError(f"seat must be one of {', '.join(SEATS)}, not {seat!r}")
    path = Path(path)
    book = OpeningBook.load(path) if path.exists() else OpeningBook()
    book.max_ply = max(max_ply, book.max_ply)
    solver = solver or Solver()
    solver.book = book
    start_pos = Position.from_moves(root)
    layers: dict[int, dict[int, Position]] = {}
    if seat in ("first", "both"):
        layers[start_pos.moves] = {canonical_key(start_pos): start_pos}
    if seat in ("second", "both"):
        replies: dict[int, Position] = {}
        for col in start_pos.legal_columns():
            if not start_pos.is_winning_move(col) and start_pos.moves + 1 < 42:
                pos = start_pos.play(col)
                replies.setdefault(canonical_key(pos), pos)
        layers[start_pos.moves + 1] = replies
    partner_seen = 0.0

    def read_partner() -> None:
        nonlocal partner_seen
        if partner is None or not Path(partner).exists():
            return
        changed = Path(partner).stat().st_mtime
        if changed != partner_seen:
            partner_seen = changed
            try:
                book.merge(OpeningBook.load(Path(partner)))
            except FormatError as exc:  # caught mid-write by a foreign tool: read it next time
                report({"event": "warning", "message": f"partner book not read: {exc}"})

    last_save = time.monotonic()
    try:
        for ply in range(start_pos.moves, max_ply + 1):
            if ply not in layers:
                continue
            positions = layers[ply]
            start, solved = time.monotonic(), 0
            # in the order they were found: siblings share most of their search (and the table)
            for number, pos in enumerate(positions.values(), 1):
                read_partner()
                if book.best(pos) is None:
                    began = time.monotonic()
                    score, columns = solver.best_moves(pos)
                    book.add(pos, score, columns)
                    solved += 1
                    report({
                        "event": "position", "ply": ply, "number": number, "of": len(positions), "score": score,
                        "columns": [c + 1 for c in columns], "seconds": round(time.monotonic() - began, 3),
                    })
                    if time.monotonic() - last_save > save_every:
                        book.save(path)
                        last_save = time.monotonic()
            if not root:  # "complete" speaks of the lines from the empty board
                book.done_layers |= 1 << ply
            book.save(path)
            last_save = time.monotonic()
            report({
                "event": "layer", "ply": ply, "positions": len(positions), "solved": solved,
                "seconds": round(time.monotonic() - start, 3), "book": len(book),
            })
            layers[ply + 2] = book_positions_at(book, positions, max_ply)
    except KeyboardInterrupt:
        book.save(path)
        report({"event": "stopped", "book": len(book), "path": str(path)})
        raise
    return book


def check_book(book: OpeningBook, count: int, min_stones: int | None = None, seed: int = 0,
               solver: Solver | None = None) -> list[dict]:
    """Re-solve ``count`` entries (drawn with ``seed`` among those of at least ``min_stones``
    stones; default: the deepest ply in the book) by a search that does not use the book.

    Returns one dict per entry: ``{"key", "stones", "score", "columns", "searched_score",
    "searched_columns", "agrees", "seconds"}`` (columns 1-7, in the orientation of the key)."""
    keys = sorted(book.entries)
    if not keys:
        return []
    if min_stones is None:
        min_stones = max(key_stones(k) for k in keys)
    pool = [k for k in keys if key_stones(k) >= min_stones]
    rng = np.random.default_rng(seed)
    picked = [pool[int(i)] for i in rng.choice(len(pool), size=min(count, len(pool)), replace=False)]
    solver = solver or Solver()
    rows = []
    for key in picked:
        pos = Position.from_key(key)
        score, bits = book.entries[key]
        solver.clear()
        began = time.monotonic()
        searched, columns = solver.best_moves(pos)
        rows.append({
            "key": key, "stones": pos.moves,
            "score": score, "columns": [c + 1 for c in range(WIDTH) if bits >> c & 1],
            "searched_score": searched, "searched_columns": [c + 1 for c in columns],
            "agrees": searched == score and sum(1 << c for c in columns) == bits,
            "seconds": round(time.monotonic() - began, 3),
        })
    return rows


def merge_books(paths: list[Path], out: Path) -> OpeningBook:
    """One book holding the entries and finished layers of all of ``paths``, written to ``out``."""
    book = OpeningBook()
    for path in paths:
        book.merge(OpeningBook.load(path))
    book.save(Path(out))
    return book


def describe(event: dict) -> str:
    """One line of text for a builder event."""
    kind = event["event"]
    if kind == "position":
        columns = "".join(str(c) for c in event["columns"])
        return (f"ply {event['ply']}: {event['number']}/{event['of']} score {event['score']:+d} "
                f"columns {columns} in {event['seconds']:.1f} s")
    if kind == "layer":
        return (f"ply {event['ply']}: {event['positions']} positions ({event['solved']} solved now) "
                f"in {event['seconds']:.1f} s; book {event['book']}")
    if kind == "stopped":
        return f"stopped; {event['book']} positions saved to {event['path']} (rerun to resume)"
    return f"warning: {event['message']}"

