"""The Connect Four solver against Pons' benchmark scores and a pure-Python negamax."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from boardlab.core.errors import BoardlabError, FormatError, IllegalActionError, SpecError
from boardlab.core.registry import make
from boardlab.games.connect4.book import OpeningBook
from boardlab.games.connect4.solver import (
    Position,
    Solver,
    canonical_key,
    depth_limited_scores,
    key_stones,
    mirror_key,
    read_positions,
    reference_score,
)

DATA = Path(__file__).parent / "data" / "connect4"


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver()


def load(name: str) -> list[tuple[str, int]]:
    return read_positions((DATA / name).read_text().splitlines(), name)


def test_pons_examples(solver):
    assert solver.solve("4455") == 18
    assert solver.solve("44455554221") == -15


@pytest.mark.parametrize("name", ["Test_L3_R1.head100", "Test_L2_R1.head50", "Test_L2_R2.head10", "Test_L1_R1.head20"])
def test_scores_match_pons_benchmark_sets(solver, name):
    lines = load(name)
    assert lines, name
    for moves, expected in lines:
        assert solver.solve(moves) == expected, moves


def test_solve_many_matches_solve(solver):
    lines = load("Test_L2_R1.head50")[:20]
    scores = solver.solve_many([moves for moves, _ in lines])
    assert [int(s) for s in scores] == [expected for _, expected in lines]


def test_a_fresh_solver_counts_nodes():
    fresh = Solver(tt_size=(1 << 17) + 29)
    assert fresh.nodes == 0
    assert fresh.solve("44455554221") == -15
    assert fresh.nodes > 0
    fresh.reset_nodes()
    assert fresh.nodes == 0


def quiet_game(seed: int, stones: int) -> str | None:
    """A seeded random game prefix of ``stones`` stones in which no move wins (None if stuck)."""
    rng = random.Random(seed)
    pos = Position.from_moves("")
    moves = ""
    for _ in range(stones):
        quiet = [c for c in pos.legal_columns() if not pos.is_winning_move(c)]
        if not quiet:
            return None
        col = rng.choice(quiet)
        pos = pos.play(col)
        moves += str(col + 1)
    return moves


@st.composite
def near_end_positions(draw):
    stones = draw(st.integers(min_value=34, max_value=39))
    moves = quiet_game(draw(st.integers(min_value=0, max_value=2**32)), stones)
    assume(moves is not None)
    return moves


@settings(max_examples=40, deadline=None)
@given(near_end_positions())
def test_compiled_search_agrees_with_plain_negamax(moves):
    solver = Solver(tt_size=(1 << 17) + 29)
    assert solver.solve(moves) == reference_score(moves)


@settings(max_examples=15, deadline=None)
@given(near_end_positions())
def test_move_scores_and_best_moves_agree(moves):
    solver = Solver(tt_size=(1 << 17) + 29)
    pos = Position.from_moves(moves)
    scores = solver.move_scores(moves)
    assert sorted(scores) == list(range(7))
    for col, score in scores.items():
        if not pos.can_play(col):
            assert score is None
        elif not pos.is_winning_move(col) and pos.moves + 1 < 42:
            assert score == -reference_score(pos.play(col))
    best = max(s for s in scores.values() if s is not None)
    assert best == solver.solve(moves)
    assert solver.best_moves(moves) == (best, [c for c, s in scores.items() if s == best])


def test_move_scores_marks_full_columns_and_immediate_wins(solver):
    # column 1 is full; X (to move) wins at once in column 4 with its 5th stone
    moves = "111111" + "424242"
    scores = solver.move_scores(moves)
    assert scores[0] is None
    assert scores[3] == 22 - 7 == solver.solve(moves)


def test_accepts_states_and_refuses_other_boards(solver):
    game = make("connect4")
    state = game.state_from_moves("44455554221")
    assert solver.solve(state) == -15
    with pytest.raises(SpecError, match="7 columns x 6 rows"):
        solver.solve(make("connect4", rows=5, cols=6).new_initial_state())
    with pytest.raises(SpecError, match="k=3"):
        solver.solve(make("connect4", k=3).new_initial_state())


@pytest.mark.parametrize(
    "moves, words",
    [
        ("448", "move 3"),
        ("4a", "move 2"),
        ("11111111", "column 1 is full"),
        ("44556671", "move 7 .* wins the game"),  # X wins with move 7: nothing may follow
    ],
)
def test_bad_positions_are_named(solver, moves, words):
    with pytest.raises(IllegalActionError, match=words):
        solver.solve(moves)


def test_finished_games_cannot_be_solved(solver):
    with pytest.raises(BoardlabError, match="over"):
        solver.solve("4455667")
    state = make("connect4").state_from_moves("4455667")
    with pytest.raises(BoardlabError, match="over"):
        solver.solve(state)


def test_depth_limited_search_sees_only_its_horizon():
    # X to move wins at once in column 3 or 7 (stones in 4, 5, 6 on the bottom row)
    scores = depth_limited_scores("445566", 1)
    assert scores[2] == scores[6] == 22 - 4 == max(scores.values())
    assert scores[0] == 0  # beyond one ply nothing is known
    # O to move must block column 4 (three X stones in it) or lose next move: depth 2 sees it
    scores = depth_limited_scores("41424", 2)
    assert scores[3] == 0
    assert all(s == -(22 - 4) for c, s in scores.items() if c != 3)
    assert depth_limited_scores("41424", 1)[0] == 0  # one ply does not see the threat


def test_mirror_keys_are_one_symmetry_class():
    a, b = Position.from_moves("1123"), Position.from_moves("7765")
    assert mirror_key(a.key()) == b.key()
    assert canonical_key(a) == canonical_key(b)


def test_book_round_trip_and_mirror_lookup(tmp_path):
    book = OpeningBook(max_ply=4, done_layers=0b111)
    book.add(Position.from_moves("12"), 3, [0, 4])
    path = tmp_path / "book.npz"
    book.save(path)
    again = OpeningBook.load(path)
    assert (again.max_ply, again.complete_ply, len(again)) == (4, 2, 1)
    assert again.best(Position.from_moves("12")) == (3, [0, 4])
    assert again.best(Position.from_moves("76")) == (3, [2, 6])  # the mirror image
    assert again.get(Position.from_moves("11")) is None
    path.write_bytes(b"not a book")
    with pytest.raises(FormatError, match="book.npz"):
        OpeningBook.load(path)


def test_read_positions_names_the_bad_line():
    assert read_positions(["4453 -2", "", "# comment", "44"]) == [("4453", -2), ("44", None)]
    with pytest.raises(BoardlabError, match="line 2"):
        read_positions(["4453 -2", "44x 3"], "f.txt")
    with pytest.raises(BoardlabError, match="line 1"):
        read_positions(["4453 two"], "f.txt")


def test_book_positions_follow_optimal_moves_then_every_reply():
    from boardlab.games.connect4.book import book_positions_at

    book = OpeningBook()
    empty = Position.from_moves("")
    book.add(empty, 1, [3])  # a book saying: from the empty board, play the centre
    following = book_positions_at(book, {empty.key(): empty}, max_ply=8)
    # "41".."47" reduce to 4 by mirror symmetry ("41" ~ "47", "42" ~ "46", "43" ~ "45", "44")
    assert sorted(len(p.legal_columns()) for p in following.values()) == [7, 7, 7, 7]
    assert {canonical_key(p) for p in following.values()} == {
        canonical_key(Position.from_moves(m)) for m in ("41", "42", "43", "44")
    }
    assert book_positions_at(book, {empty.key(): empty}, max_ply=1) == {}


def test_solver_answers_book_positions_without_search():
    moves = "44455554221"
    exact = Solver(tt_size=(1 << 17) + 29)
    best, columns = exact.best_moves(moves)
    book = OpeningBook()
    book.add(Position.from_moves(moves), best, columns)
    with_book = Solver(book=book, tt_size=(1 << 17) + 29)
    assert with_book.solve(moves) == best and with_book.best_moves(moves) == (best, columns)
    assert with_book.nodes == 0


def test_shipped_book_knows_the_first_move():
    from boardlab.games.connect4.book import default_book

    book = default_book()
    assert book.complete_ply >= 6
    # Allis and Allen (1988): the first player wins, only by starting in the centre; Pons: with the last stone
    assert book.best(Position.from_moves("")) == (1, [3])


def test_book_builds_both_seats_apart_and_merges(tmp_path):
    from boardlab.games.connect4.book import build_book, merge_books

    root = "4444443332222"  # 13 stones: every line a few plies on solves in milliseconds
    lines: list[dict] = []
    first = build_book(17, tmp_path / "first.npz", Solver(tt_size=(1 << 17) + 29), lines.append, seat="first", root=root)
    second = build_book(
        16, tmp_path / "second.npz", Solver(tt_size=(1 << 17) + 29), lines.append, seat="second", root=root,
        partner=tmp_path / "first.npz",
    )
    assert set(first.entries) <= set(second.entries)  # the partner's half was read in
    start = Position.from_moves(root)
    checker = Solver(tt_size=(1 << 17) + 29)
    assert first.best(start) == checker.best_moves(start)
    for col in start.legal_columns():  # every opponent move is answered, with exact scores
        child = start.play(col)
        assert first.best(child) is None and second.best(child) == checker.best_moves(child)
    # the perfect player's turns only: even distances from the root in one half, odd in the other
    assert {key_stones(k) for k in first.entries} == {13, 15, 17}
    assert {key_stones(k) for k in set(second.entries) - set(first.entries)} == {14, 16}
    merged = merge_books([tmp_path / "first.npz", tmp_path / "second.npz"], tmp_path / "book.npz")
    assert merged.entries == {**first.entries, **second.entries}
    assert OpeningBook.load(tmp_path / "book.npz").entries == merged.entries
    assert merged.complete_ply == -1  # lines from a root say nothing about the empty board's layers
    # a second run finds everything in place and solves nothing
    again: list[dict] = []
    build_book(17, tmp_path / "first.npz", Solver(tt_size=(1 << 17) + 29), again.append, seat="first", root=root)
    assert [e["ply"] for e in again] == [13, 15, 17] and all(e["solved"] == 0 for e in again)
    assert {e["ply"] for e in lines if e["event"] == "position"} == {13, 14, 15, 16, 17}


def test_book_layers_of_two_halves_add_up(tmp_path):
    first, second = OpeningBook(done_layers=0b10101), OpeningBook(done_layers=0b01010)
    assert (first.complete_ply, second.complete_ply) == (0, -1)
    first.merge(second)
    assert first.complete_ply == 4
    # a book written before the halves were built apart records complete_ply instead
    np.savez(tmp_path / "old.npz", keys=np.array([0], dtype=np.uint64), scores=np.array([1], dtype=np.int8),
             best=np.array([8], dtype=np.uint8), max_ply=np.int64(8), complete_ply=np.int64(0))
    old = OpeningBook.load(tmp_path / "old.npz")
    assert old.complete_ply == 0 and old.best(Position.from_moves("")) == (1, [3])


def book_command(*args: str):
    from typer.testing import CliRunner

    from boardlab.cli import app

    return CliRunner().invoke(app, ["train", "c4-book", *args])


def test_book_command_explains_bad_input(tmp_path):
    with pytest.raises(SpecError, match="odd"):
        Solver(tt_size=1 << 20)

    result = book_command("--root", "44x", "--out", str(tmp_path / "b.npz"))
    assert result.exit_code == 2 and "44x" in result.stderr and result.stdout == ""
    (tmp_path / "bad.npz").write_bytes(b"junk")
    result = book_command("--merge", str(tmp_path / "bad.npz"), "--out", str(tmp_path / "b.npz"))
    assert result.exit_code == 2 and "bad.npz" in result.stderr
    result = book_command("--check", "1", "--out", str(tmp_path / "missing.npz"))
    assert result.exit_code == 2 and "missing.npz" in result.stderr
    result = book_command("--seat", "third")
    assert result.exit_code == 2 and "--seat" in result.stderr


def test_book_command_streams_json_and_merges(tmp_path):
    import json

    out = tmp_path / "b.npz"
    result = book_command("--root", "4444443332222", "--seat", "first", "--max-ply", "15", "--out", str(out),
                          "--tt-size", str((1 << 17) + 29), "--json")
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert {e["event"] for e in events} == {"position", "layer"}
    solved = [e for e in events if e["event"] == "position"]
    assert solved[0]["ply"] == 13 and set(solved[0]) == {"event", "ply", "number", "of", "score", "columns", "seconds"}
    assert events[-1] == {**events[-1], "event": "layer", "ply": 15, "book": len(OpeningBook.load(out))}
    # the old spelling: --merge then the books
    result = book_command("--merge", str(out), str(out), "--out", str(tmp_path / "m.npz"), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "positions": len(OpeningBook.load(out)), "complete_ply": -1, "out": str(tmp_path / "m.npz"),
    }


def test_search_takes_book_scores_of_positions_below_the_root():
    root = Position.from_moves("4444443332222")
    plain = Solver(tt_size=(1 << 17) + 29)
    score = plain.solve(root)
    searched = plain.nodes
    book = OpeningBook()
    for col in root.legal_columns():  # every child's exact score, but not the root's own
        child = root.play(col)
        book.add(child, plain.solve(child), [])
    with_book = Solver(book=book, tt_size=(1 << 17) + 29)
    assert with_book.solve(root) == score
    # each null-window pass of the narrowing visits the root and looks its children up
    assert with_book.nodes <= 8 * (1 + len(root.legal_columns())) < searched // 10
    # the search trusts the book: a book claiming every child is lost for its mover makes the
    # root a win of the largest score the book allows
    liar = OpeningBook()
    for col in root.legal_columns():
        liar.add(root.play(col), -5, [])
    assert Solver(book=liar, tt_size=(1 << 17) + 29).solve(root) == 5


@given(st.lists(st.integers(0, 6), max_size=30))
@settings(max_examples=60, deadline=None)
def test_a_key_gives_back_its_position(columns):
    pos = Position.from_moves("")
    for col in columns:
        if pos.can_play(col) and not pos.is_winning_move(col) and pos.moves < 41:
            pos = pos.play(col)
    assert key_stones(pos.key()) == pos.moves == key_stones(mirror_key(pos.key()))
    again = Position.from_key(pos.key())
    assert (again.current, again.mask, again.moves) == (pos.current, pos.mask, pos.moves)


def test_shipped_book_agrees_with_a_search_without_it():
    from boardlab.games.connect4.book import check_book, default_book

    rows = check_book(default_book(), 3, seed=7, solver=Solver(tt_size=(1 << 20) + 7))
    assert len(rows) == 3 and all(row["agrees"] for row in rows), rows


def test_book_check_reports_a_wrong_entry(tmp_path):
    import json

    from typer.testing import CliRunner

    from boardlab.cli import app

    book = OpeningBook()
    pos = Position.from_moves("4444443332222")
    best, columns = Solver(tt_size=(1 << 17) + 29).best_moves(pos)
    book.add(pos, best + 1, columns)  # one point off
    book.save(tmp_path / "b.npz")
    tt = str((1 << 17) + 29)
    result = book_command("--check", "1", "--out", str(tmp_path / "b.npz"), "--tt-size", tt)
    assert result.exit_code == 1 and "DIFFERENT" in result.stdout
    # boardlab evaluate knows the file for a book and runs the same check
    result = CliRunner().invoke(app, ["evaluate", str(tmp_path / "b.npz"), "--entries", "1", "--tt-size", tt, "--json"])
    assert result.exit_code == 1
    row = json.loads(result.stdout)
    assert row["agrees"] is False and row["score"] == best + 1 and row["searched_score"] == best


def test_shipped_book_answers_every_line_of_a_perfect_player_to_ply_6():
    from boardlab.games.connect4.book import book_positions_at, default_book

    book = default_book()
    empty = Position.from_moves("")
    openings = {canonical_key(empty.play(c)): empty.play(c) for c in range(7)}
    for layer in ({canonical_key(empty): empty}, openings):  # perfect moving first, then second
        while layer:
            assert all(book.best(pos) is not None for pos in layer.values())
            layer = book_positions_at(book, layer, max_ply=6)
    # the second player's value after each first move: only the centre opening wins for the first
    assert [book.get(empty.play(c)) for c in range(7)] == [2, 1, 0, -1, 0, 1, 2]
