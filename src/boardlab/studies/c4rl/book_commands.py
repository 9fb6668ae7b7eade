"""The Connect Four opening book as a recipe (entry point ``c4-book``).

``boardlab train c4-book`` builds (or resumes, merges, checks) the ``perfect``
agent's opening book; ``boardlab evaluate BOOK.npz`` re-solves some of its
entries without the book. The work is in :mod:`boardlab.games.connect4.book`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, List, Optional

import typer

from boardlab.commands.console import console, print_json
from boardlab.commands.plugin import Recipe
from boardlab.core.errors import BoardlabError
from boardlab.core.files import check_output_file, output_file

DEFAULT_OUT = Path("src/boardlab/data/connect4_book.npz")
TT_HELP = "Transposition-table entries (odd, above 2**17; 5 bytes each); the default is the first prime above 2**24."
TtSize = Annotated[int, typer.Option("--tt-size", help=TT_HELP)]
CHECK_JSON = "{key, stones, score, columns, searched_score, searched_columns, agrees, seconds}"


def _line(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def _check(book_path: Path, count: int, min_stones: Optional[int], seed: int, tt_size: int, json_out: bool) -> None:
    """Re-solve ``count`` entries without the book; exit status 1 when one disagrees."""
    from boardlab.games.connect4.book import OpeningBook, check_book
    from boardlab.games.connect4.solver import Solver

    if count < 1:
        raise BoardlabError(f"the number of entries to check must be positive, not {count}")
    if not book_path.is_file():
        raise BoardlabError(f"{book_path}: no such book file")
    rows = check_book(OpeningBook.load(book_path), count, min_stones, seed=seed, solver=Solver(tt_size=tt_size))
    if not rows:
        raise BoardlabError(f"{book_path}: no entries to check" + (f" of at least {min_stones} stones" if min_stones is not None else ""))
    for row in rows:
        if json_out:
            print_json(row)
        else:
            _line(f"{row['stones']:2d} stones: book {row['score']:+d} {''.join(map(str, row['columns']))}, "
                  f"search {row['searched_score']:+d} {''.join(map(str, row['searched_columns']))} "
                  f"({row['seconds']:.2f} s) {'ok' if row['agrees'] else 'DIFFERENT'}")
    if not all(row["agrees"] for row in rows):
        raise typer.Exit(1)


def train(
    books: Annotated[Optional[List[Path]], typer.Argument(metavar="BOOKS", help="With --merge: the books to merge into --out.", show_default=False)] = None,
    max_ply: Annotated[int, typer.Option("--max-ply", help="Deepest position (stones on the board) to store.")] = 6,
    seat: Annotated[str, typer.Option("--seat", help="Whose lines to build: the perfect player's moving first (even plies), second (odd), or both.")] = "both",
    root: Annotated[str, typer.Option(
        "--root", metavar="MOVES", help="Build the lines from this position (Pons moves, e.g. 4453) instead of the empty board.",
    )] = "",
    out: Annotated[Path, typer.Option(
        "--out", help="Book file (.npz); building resumes from it. The default is the shipped book, relative to a source checkout.",
    )] = DEFAULT_OUT,
    partner: Annotated[Optional[Path], typer.Option(
        "--partner", metavar="BOOK", help="The book another process builds at the same time (the other seat): "
        "its scores are read in as they come and used by the search.",
        show_default=False,
    )] = None,
    merge: Annotated[bool, typer.Option("--merge", help="Instead of building: merge the BOOKS into --out.")] = False,
    check: Annotated[Optional[int], typer.Option(
        "--check", metavar="N", help="Instead of building: re-solve N entries of --out without the book and compare (as boardlab evaluate BOOK --entries N).",
        show_default=False,
    )] = None,
    check_min_stones: Annotated[Optional[int], typer.Option(
        "--check-min-stones", metavar="S", help="With --check: draw among entries of at least S stones "
        "(default: the deepest ply; early plies take minutes each).",
        show_default=False,
    )] = None,
    tt_size: TtSize = 16777259,
    json_out: Annotated[bool, typer.Option(
        "--json",
        help="One JSON object per line: {event: position, ply, number, of, score, columns, seconds} per solved position, "
        "{event: layer, ply, positions, solved, seconds, book} per finished ply, {event: stopped, book, path}, "
        "{event: warning, message}; with --merge one object {positions, complete_ply, out}; with --check one object per entry "
        + CHECK_JSON + ".",
    )] = False,
) -> None:
    """Build (or resume) the Connect Four opening book of the perfect agent; or merge books, or check one.

    The book holds every position a perfect player meets up to --max-ply stones, with its exact score and optimal columns.
    Ctrl-C saves what is solved; the same command resumes.
    """
    from boardlab.games.connect4.book import SEATS, build_book, describe, merge_books
    from boardlab.games.connect4.solver import Solver

    if books and not merge:
        raise BoardlabError(f"BOOK arguments ({books[0]}, ...) go with --merge")
    if merge and check is not None:
        raise BoardlabError("give --merge or --check, not both")
    if check is None:
        output_file(out, "--out")  # before hours of solving
    else:
        check_output_file(out, "--out")  # the book to check is read: no folder is made for it
    if seat not in SEATS:
        raise BoardlabError(f"--seat must be one of {', '.join(SEATS)}, not {seat!r}")
    try:
        if merge:
            if not books:
                raise BoardlabError("--merge needs the books to merge: --merge BOOK... --out FILE")
            for path in books:
                if not path.is_file():
                    raise BoardlabError(f"{path}: no such book file")
            book = merge_books(books, out)
            result = {"positions": len(book), "complete_ply": book.complete_ply, "out": str(out)}
            if json_out:
                print_json(result)
            else:
                _line(f"{result['positions']} positions, complete to ply {result['complete_ply']}, written to {out}")
            return
        if check is not None:
            _check(out, check, check_min_stones, 0, tt_size, json_out)
            return

        def emit(event: dict) -> None:
            if json_out:
                print_json(event)
            else:
                _line(describe(event))

        try:
            build_book(max_ply, out, Solver(tt_size=tt_size), report=emit, seat=seat, root=root, partner=partner)
        except KeyboardInterrupt:  # build_book saved the book and reported it
            raise typer.Exit(130) from None
    except OSError as exc:
        raise BoardlabError(f"{exc.filename or out}: {exc.strerror or exc}") from None


def evaluate(
    book: Annotated[Path, typer.Argument(metavar="BOOK", help="An opening book (.npz) written by boardlab train c4-book.", show_default=False)],
    entries: Annotated[int, typer.Option("--entries", "-n", help="Entries to re-solve by a search that does not use the book.")] = 5,
    min_stones: Annotated[Optional[int], typer.Option(
        "--min-stones", help="Draw among entries of at least this many stones (default: the deepest ply; early plies take minutes each).", show_default=False,
    )] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Seed of the draw.")] = 0,
    tt_size: TtSize = 16777259,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per line and entry: " + CHECK_JSON + ".")] = False,
) -> None:
    """Re-solve some of the book's entries without the book and compare scores and optimal columns (exit status 1 if one differs)."""
    _check(book, entries, min_stones, seed, tt_size, json_out)


def _recognises(path: Path) -> bool:
    from boardlab.games.connect4.book import is_book

    return is_book(path)


recipe = Recipe(
    train=train,
    summary="Connect Four opening book of the perfect agent: exact scores and optimal columns, computed by the solver",
    game="connect4",
    makes="opening book (.npz: keys, scores, best); the shipped one is boardlab/data/connect4_book.npz",
    evaluate=evaluate,
    recognises=_recognises,
)
