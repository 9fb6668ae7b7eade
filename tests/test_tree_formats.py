"""The binary and CSV tree formats: hand-made bytes, round trips, and every kind of malformed file."""

from __future__ import annotations

import csv
import io
import struct

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tree_strategies import trees

from boardlab.core.errors import FormatError
from boardlab.core.game import UNKNOWN_PLAYER
from boardlab.trees import binary, csvformat
from boardlab.trees.generate import random_mcts_tree
from boardlab.trees.io import load_tree, save_tree
from boardlab.trees.model import Labels, Tree

# A root "R" with two leaves, written out by hand from the study's description.
THREE_NODES_BINARY = bytes.fromhex(
    "01000000" "52"  # state "R"
    "02000000"  # two children
    "02000000" "6534"  # move "e4"
    "07000000" "04000000"  # visits 7, visits2 4
    "000000000000e03f"  # mean payout 0.5
    "02000000" "5331"  # state "S1"
    "00000000"  # no children
    "02000000" "6434"  # move "d4"
    "03000000" "01000000"  # visits 3, visits2 1
    "000000000000d0bf"  # mean payout -0.25
    "02000000" "5332"  # state "S2"
    "00000000"
)
THREE_NODES_CSV = b",10,5,0.0,R,2\ne4,7,4,0.5,S1,0\nd4,3,1,-0.25,S2,0\n"


def three_nodes() -> Tree:
    return Tree.from_parents([-1, 0, 0], ["", "e4", "d4"], [10, 7, 3], [5, 4, 1], [0.0, 0.5, -0.25], ["R", "S1", "S2"])


def assert_same_tree(a: Tree, b: Tree, root_stats: bool = True) -> None:
    np.testing.assert_array_equal(a.parent, b.parent)
    np.testing.assert_array_equal(a.child_count, b.child_count)
    assert a.move.to_list()[1:] == b.move.to_list()[1:]
    assert a.state == b.state
    lo = 0 if root_stats else 1
    np.testing.assert_array_equal(a.visits[lo:], b.visits[lo:])
    np.testing.assert_array_equal(a.visits2[lo:], b.visits2[lo:])
    # compare bit patterns: -0.0 and 0.0 differ, nan equals nan
    np.testing.assert_array_equal(a.mean_payout[lo:].view(np.int64), b.mean_payout[lo:].view(np.int64))


# ---------------------------------------------------------------- hand-made bytes


def test_binary_writer_matches_hand_made_bytes() -> None:
    assert binary.to_bytes(three_nodes()) == THREE_NODES_BINARY


def test_binary_reader_reads_every_field_of_hand_made_bytes() -> None:
    tree = binary.parse_binary(THREE_NODES_BINARY)
    assert tree.parent.tolist() == [-1, 0, 0]
    assert tree.child_count.tolist() == [2, 0, 0]
    assert tree.move.to_list() == ["", "e4", "d4"]
    assert tree.state.to_list() == ["R", "S1", "S2"]
    assert tree.visits.tolist()[1:] == [7, 3]
    assert tree.visits2.tolist()[1:] == [4, 1]
    assert tree.mean_payout.tolist()[1:] == [0.5, -0.25]
    # the format has no root counters: visits are derived from the children
    assert tree.visits[0] == 10 and tree.meta["root_stats"] == "derived"
    assert tree.player.tolist() == [UNKNOWN_PLAYER] * 3  # the format does not say; the labels name no game


def test_csv_writer_matches_hand_made_text() -> None:
    assert csvformat.to_bytes(three_nodes()) == THREE_NODES_CSV


def test_csv_reader_reads_every_field_of_hand_made_text() -> None:
    tree = csvformat.parse_csv(THREE_NODES_CSV)
    assert_same_tree(tree, three_nodes())
    assert tree.visits.tolist() == [10, 7, 3] and tree.visits2.tolist() == [5, 4, 1]


def test_csv_quotes_labels_like_the_csv_module_and_reads_them_back() -> None:
    labels = ['a,b', 'say "hi"', "two\nlines", "cr\rhere", "", " spaced ", "żółw ♞", "plain"]
    n = len(labels) + 1
    tree = Tree.from_parents([-1] + [0] * (n - 1), [""] + labels, [n] + [1] * (n - 1), [0] * n, [0.0] * n, ["root"] + labels[::-1])
    text = csvformat.to_bytes(tree)
    rows = list(csv.reader(io.StringIO(text.decode("utf-8"), newline="")))
    assert [row[0] for row in rows[1:]] == labels
    assert [row[4] for row in rows[1:]] == labels[::-1]
    assert all(len(row) == 6 for row in rows)
    assert b'"a,b"' in text and b'"say ""hi"""' in text and b",plain," in text
    assert_same_tree(csvformat.parse_csv(text), tree)


def test_csv_reader_accepts_crlf_and_a_header_line() -> None:
    text = b"move,visits,visits2,mean_payout,state,children\r\n" + THREE_NODES_CSV.replace(b"\n", b"\r\n")
    assert_same_tree(csvformat.parse_csv(text), three_nodes())


def test_float_text_is_the_shortest_round_trip_repr() -> None:
    values = [0.1, 1 / 3, -0.0, 1e-05, 1e16, 5e-324, 1.7976931348623157e308, -2.5e-300, 123456789.125]
    n = len(values) + 1
    tree = Tree.from_parents([-1] + [0] * (n - 1), [""] + ["m"] * (n - 1), [1] * n, [0] * n, [0.0] + values, ["s"] * n)
    rows = csvformat.to_bytes(tree).decode().splitlines()[1:]
    assert [row.split(",")[3] for row in rows] == [repr(v) for v in values]
    back = csvformat.parse_csv(csvformat.to_bytes(tree))
    assert back.mean_payout[1:].view(np.int64).tolist() == np.array(values).view(np.int64).tolist()
    # NaN and infinite payouts are neither written nor read (see test_cli_hardening)


# ---------------------------------------------------------------- round trips


@given(trees())
def test_binary_round_trip(tree: Tree) -> None:
    data = binary.to_bytes(tree)
    back = binary.parse_binary(data)
    assert_same_tree(back, tree, root_stats=False)
    assert binary.to_bytes(back) == data


@given(trees())
def test_csv_round_trip(tree: Tree) -> None:
    text = csvformat.to_bytes(tree)
    back = csvformat.parse_csv(text)
    assert_same_tree(back, tree)
    assert csvformat.to_bytes(back) == text
    # and any standard CSV reader sees the same fields
    rows = list(csv.reader(io.StringIO(text.decode("utf-8"), newline="")))
    assert [row[4] for row in rows] == tree.state.to_list()


@given(trees())
def test_binary_to_csv_to_binary_is_byte_identical(tree: Tree) -> None:
    data = binary.to_bytes(tree)
    again = binary.to_bytes(csvformat.parse_csv(csvformat.to_bytes(binary.parse_binary(data))))
    assert again == data


def typeset(plain: bytes) -> bytes:
    """The study's typeset form of a plain CSV tree file: ", " between fields."""
    def field(text: str) -> str:
        return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\r\n') else text

    rows = csv.reader(io.StringIO(plain.decode("utf-8"), newline=""))
    return "".join(", ".join(map(field, row)) + "\n" for row in rows).encode("utf-8")


@given(trees())
def test_csv_typeset_form_reads_as_the_plain_form(tree: Tree) -> None:
    plain = csvformat.to_bytes(tree)
    back = csvformat.parse_csv(typeset(plain))
    assert_same_tree(back, tree)
    assert csvformat.to_bytes(back) == plain


def test_csv_typeset_form_by_hand() -> None:
    text = (
        b"move, visits, visits2, mean_payout, state, children\n"
        b", 10, 5, 0.0, R, 2\n"
        b"e4, 7, -4, 0.5,  S1, 0\n"  # the state keeps its own leading space
        b'd4, 3, 1, -0.25, "S2, quoted", 0\n'
    )
    tree = csvformat.parse_csv(text)
    assert tree.state.to_list() == ["R", " S1", "S2, quoted"]
    assert tree.move.to_list() == ["", "e4", "d4"]
    assert tree.visits.tolist() == [10, 7, 3] and tree.visits2.tolist() == [5, -4, 1]
    assert tree.mean_payout.tolist() == [0.0, 0.5, -0.25]
    assert THREE_NODES_CSV == csvformat.to_bytes(csvformat.parse_csv(typeset(THREE_NODES_CSV)))


def test_csv_mixed_separators_are_refused_with_line_and_reason() -> None:
    with pytest.raises(FormatError, match=r"^m\.csv: line 3: before field 3 \(visits2\): fields are separated by ', '"):
        csvformat.parse_csv(b", 10, 5, 0.0, R, 2\ne4, 7, 4, 0.5, S1, 0\nd4, 3,1, -0.25, S2, 0\n", "m.csv")


def test_negative_second_counter_is_read_and_written_in_both_formats() -> None:
    data = bytearray(THREE_NODES_BINARY)
    data[19:23] = le32(-(2**31))  # e4's visits2: the smallest 32-bit integer
    tree = binary.parse_binary(bytes(data))
    assert tree.visits2.tolist() == [0, -(2**31), 1]
    assert binary.to_bytes(tree) == bytes(data)
    text = csvformat.to_bytes(tree)
    assert text.splitlines()[1] == b"e4,7,-2147483648,0.5,S1,0"
    assert binary.to_bytes(csvformat.parse_csv(text)) == bytes(data)
    too_low = text.replace(b"-2147483648", b"-2147483649")
    with pytest.raises(FormatError, match=r"line 2: field 3 \(visits2\) '-2147483649' does not fit"):
        csvformat.parse_csv(too_low)


def test_negative_visits_are_refused_saying_why(tmp_path) -> None:
    with pytest.raises(FormatError, match=r"line 2: field 2 \(visits\) '-7' is negative \(only the second visit counter"):
        csvformat.parse_csv(THREE_NODES_CSV.replace(b"e4,7", b"e4,-7"))
    data = bytearray(THREE_NODES_BINARY)
    data[15:19] = le32(-7)
    with pytest.raises(FormatError, match=r"byte 15: negative visit count -7: a visit count counts playouts"):
        binary.parse_binary(bytes(data))
    tree = three_nodes()
    tree.visits[2] = -1
    with pytest.raises(FormatError, match=r"node 2: visits = -1 is negative"):
        save_tree(tree, tmp_path / "t.tree")


def test_generated_tree_round_trips_through_files(tmp_path) -> None:
    tree = random_mcts_tree(5000, seed=4)
    save_tree(tree, tmp_path / "t.tree")
    save_tree(tree, tmp_path / "t.csv")
    assert_same_tree(load_tree(tmp_path / "t.tree"), tree, root_stats=False)
    assert_same_tree(load_tree(tmp_path / "t.csv"), tree)
    save_tree(load_tree(tmp_path / "t.csv"), tmp_path / "u.tree")
    assert (tmp_path / "u.tree").read_bytes() == (tmp_path / "t.tree").read_bytes()


def test_streamed_writes_span_several_chunks(monkeypatch) -> None:
    tree = random_mcts_tree(1000, seed=2)
    whole_binary, whole_csv = binary.to_bytes(tree), csvformat.to_bytes(tree)
    monkeypatch.setattr(binary, "CHUNK_NODES", 7)
    monkeypatch.setattr(csvformat, "CHUNK_NODES", 7)
    assert binary.to_bytes(tree) == whole_binary
    assert csvformat.to_bytes(tree) == whole_csv


# ---------------------------------------------------------------- malformed binary


def le32(v: int) -> bytes:
    return struct.pack("<i", v)


@pytest.mark.parametrize("cut", range(0, len(THREE_NODES_BINARY)))
def test_binary_truncated_anywhere_is_refused_with_offset(cut: int) -> None:
    with pytest.raises(FormatError, match=r"^t\.tree: byte \d+: "):
        binary.parse_binary(THREE_NODES_BINARY[:cut], "t.tree")


@pytest.mark.parametrize(
    ("data", "offset", "message"),
    [
        (le32(1) + b"R" + le32(-1), 5, "negative child count -1: a child count counts the nodes"),
        (le32(-3) + b"R" + le32(0), 0, "negative string length -3: a string's length counts its UTF-8 bytes"),
        (le32(1) + b"R" + le32(1000) + b"\x00" * 40, 5, "more nodes than the rest of the file"),
        (le32(2) + b"\xc3\x28" + le32(0), 4, "not valid UTF-8"),
        (le32(2) + b"\xed\xa0" + le32(0), 4, "not valid UTF-8"),  # a UTF-16 surrogate
        (THREE_NODES_BINARY + b"\x00", len(THREE_NODES_BINARY), "trailing bytes"),
        (le32(1) + b"R" + le32(1) + le32(0) + le32(-5) + le32(0) + b"\x00" * 8 + le32(0) + le32(0), 13, "negative visit count"),
        (le32(1) + b"R" + le32(1) + le32(1) + b"\xff" + le32(0) * 2 + b"\x00" * 8 + le32(0) + le32(0), 13, "not valid UTF-8"),
    ],
)
def test_binary_malformed_is_refused_with_offset(data: bytes, offset: int, message: str) -> None:
    with pytest.raises(FormatError, match=rf"^bad\.tree: byte {offset}: .*{message}"):
        binary.parse_binary(data, "bad.tree")


def test_binary_empty_file_is_refused(tmp_path) -> None:
    (tmp_path / "e.tree").write_bytes(b"")
    with pytest.raises(FormatError, match=r"e\.tree: byte 0: empty file"):
        load_tree(tmp_path / "e.tree")


# ---------------------------------------------------------------- malformed CSV


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (b",10,5,0.0,R,2\ne4,7,4,0.5,S1,0\n", 1, "ends before all announced children"),
        (b",10,5,0.0,R,1\ne4,7,4,0.5,S1,0\nd4,3,1,-0.25,S2,0\n", 3, "rows after the last node"),
        (b",10,5,0.0,R,1\ne4,7,4,0.5,S1,-1\n", 2, r"field 6 \(children\) '-1' is negative"),
        (b",10,5,0.0,R,1\ne4,seven,4,0.5,S1,0\n", 2, r"field 2 \(visits\) 'seven' is not a decimal integer"),
        (b",10,5,0.0,R,1\ne4,7,4,half,S1,0\n", 2, r"field 4 \(mean_payout\) 'half' is not a number"),
        (b",10,5,0.0,R,1\ne4,7,4,1_0,S1,0\n", 2, "is not a number"),
        (b",10,5,0.0,R,1\ne4,7,4,,S1,0\n", 2, "is not a number"),
        (b",10,5,0.0,R,1\ne4,4294967296,4,0.5,S1,0\n", 2, "does not fit"),
        (b",10,5,0.0,R,1\ne4,7,4,0.5,S\xff,0\n", 2, r"field 5 \(state\) is not valid UTF-8"),
        (b",10,5,0.0,R,1\n\"e4,7,4,0.5,S1,0\n", 2, "never closed"),
        (b",10,5,0.0,R,1\ne\"4,7,4,0.5,S1,0\n", 2, "double quote inside an unquoted field"),
        (b",10,5,0.0,R,1\n\"e4\"x,7,4,0.5,S1,0\n", 2, "text after the closing quote"),
        (b",10,5,0.0,R,1\ne4,7,4,0.5,S1\n", 2, "fewer than 6 fields"),
        (b",10,5,0.0,R,1\ne4,7,4,0.5,S1,0,9\n", 2, "more than 6 fields"),
        (b",10,5,0.0,R,0\n\n", 2, "rows after the last node"),
        (b",10,5,0.0,\"multi\nline\",1\ne4,7,4,0.5,S1,x\n", 3, "not a decimal integer"),
        (b"move,visits,visits2,mean_payout,state,children\n", 2, "no rows"),
    ],
)
def test_csv_malformed_is_refused_with_line(text: bytes, line: int, message: str) -> None:
    with pytest.raises(FormatError, match=rf"^bad\.csv: line {line}: .*{message}"):
        csvformat.parse_csv(text, "bad.csv")


# ---------------------------------------------------------------- writing and io


def test_visits_beyond_32_bits_are_refused_on_write_and_the_old_file_survives(tmp_path) -> None:
    tree = three_nodes()
    for name in ("t.tree", "t.csv"):
        save_tree(tree, tmp_path / name)
        before = (tmp_path / name).read_bytes()
        big = three_nodes()
        big.visits[2] = 2**31
        with pytest.raises(FormatError, match=r"node 2: visits = 2147483648 does not fit"):
            save_tree(big, tmp_path / name)
        assert (tmp_path / name).read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv", "t.tree"]  # no temporary files left


def test_inconsistent_tree_is_refused_on_write(tmp_path) -> None:
    tree = three_nodes()
    tree.child_count[0] = 1
    with pytest.raises(FormatError, match="preorder"):
        save_tree(tree, tmp_path / "x.tree")


def test_unknown_extension_and_missing_file_are_clear_errors(tmp_path) -> None:
    with pytest.raises(FormatError, match=r"unknown tree format '\.json'"):
        save_tree(three_nodes(), tmp_path / "t.json")
    with pytest.raises(FormatError, match="no such file"):
        load_tree(tmp_path / "missing.tree")


def test_labels_take_gathers_without_python_strings() -> None:
    labels = Labels.from_strings(["a", "", "żż", "dd"])
    assert labels.take(np.array([3, 0, 2, 1])).to_list() == ["dd", "a", "żż", ""]


@given(st.lists(st.text(max_size=6), max_size=12), st.integers(0, 3))
def test_labels_read_back_every_string_whole_or_sliced(strings, skip):
    labels = Labels.from_strings(strings)
    assert labels.to_list() == strings == [labels[i] for i in range(len(labels))]
    tail = Labels(labels.data, labels.offsets[min(skip, len(strings)):])  # a view that starts mid-buffer
    assert tail.to_list() == strings[min(skip, len(strings)):]
