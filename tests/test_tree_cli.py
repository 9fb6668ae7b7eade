"""``boardlab tree ...``: info, convert, layout, diff and render on real files, text and --json."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from boardlab.cli import app
from boardlab.trees.generate import random_mcts_tree
from boardlab.trees.io import load_tree, save_tree
from boardlab.trees.layout import tidy_layout

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_info_text_and_json(tmp_path) -> None:
    tree = random_mcts_tree(500, seed=1)
    save_tree(tree, tmp_path / "t.csv")
    result = run("tree", "info", tmp_path / "t.csv")
    assert result.exit_code == 0, result.output
    assert "500 nodes" in result.output and "mean payout" in result.output
    data = json.loads(run("tree", "info", tmp_path / "t.csv", "--json").output)
    children = np.flatnonzero(tree.parent == 0)
    assert data["nodes"] == 500 and data["depth"] == int(tree.depth().max()) and data["format"] == "csv"
    assert [c["visits"] for c in data["children"]] == tree.visits[children].tolist()
    assert [c["wins"] for c in data["children"]] == tree.visits2[children].tolist()
    assert sum(c["subtree_nodes"] for c in data["children"]) == 499


def test_convert_both_ways_is_lossless(tmp_path) -> None:
    save_tree(random_mcts_tree(300, seed=2), tmp_path / "a.tree")
    assert run("tree", "convert", tmp_path / "a.tree", tmp_path / "b.csv").exit_code == 0
    result = run("tree", "convert", tmp_path / "b.csv", tmp_path / "c.tree", "--json")
    assert json.loads(result.output) == {"input": str(tmp_path / "b.csv"), "output": str(tmp_path / "c.tree"), "nodes": 300}
    assert (tmp_path / "a.tree").read_bytes() == (tmp_path / "c.tree").read_bytes()


def test_layout_writes_one_row_per_node(tmp_path) -> None:
    tree = random_mcts_tree(200, seed=3)
    save_tree(tree, tmp_path / "t.tree")
    result = run("tree", "layout", tmp_path / "t.tree", "-o", tmp_path / "l.csv", "--json")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(open(tmp_path / "l.csv")))
    x, y = tidy_layout(tree)
    assert [int(r["index"]) for r in rows] == list(range(200))
    assert [int(r["parent"]) for r in rows] == tree.parent.tolist()
    assert [float(r["x"]) for r in rows] == x.tolist() and [float(r["y"]) for r in rows] == y.tolist()
    assert json.loads(result.output)["nodes"] == 200


def test_diff_and_render_with_diff(tmp_path) -> None:
    save_tree(random_mcts_tree(400, seed=4), tmp_path / "a.tree")
    save_tree(random_mcts_tree(500, seed=4), tmp_path / "b.tree")
    data = json.loads(run("tree", "diff", tmp_path / "a.tree", tmp_path / "b.tree", "--json").output)
    assert (data["matched"], data["added"], data["gone"]) == (400, 100, 0)
    text = run("tree", "diff", tmp_path / "a.tree", tmp_path / "b.tree").output
    assert "100 added" in text
    result = run("tree", "render", tmp_path / "b.tree", "-o", tmp_path / "b.png", "--width", 900, "--diff", tmp_path / "a.tree", "--max-depth", 3, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["width"] == 900 and data["by_depth_parity"] and 1 < data["nodes_drawn"] < 500
    assert (tmp_path / "b.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def consecutive_searches(folder, game: str, position: str) -> tuple[Path, Path, list[str]]:
    """Two trees as two turns of a game make them, saved by ``boardlab search --save``: a search of
    ``position``, then one of the position after the move it chose and the reply it expected (its
    most visited answer). Returns the two files and those two moves."""
    first = run("search", "--game", game, "--position", position, "--agent", "mcts:iterations=3000", "--seed", "1",
                "--save", folder / "a.tree", "--json")
    assert first.exit_code == 0, first.output
    best = json.loads(first.stdout)["best_move"]
    earlier = load_tree(folder / "a.tree")
    chosen = next(int(c) for c in np.flatnonzero(earlier.parent == 0) if earlier.move[int(c)] == best)
    answers = np.flatnonzero(earlier.parent == chosen)
    reply = earlier.move[int(answers[np.argmax(earlier.visits[answers])])]
    later = ",".join(move for move in (position, best, reply) if move)
    second = run("search", "--game", game, "--position", later, "--agent", "mcts:iterations=3000", "--seed", "2",
                 "--save", folder / "b.tree")
    assert second.exit_code == 0, second.output
    return folder / "a.tree", folder / "b.tree", [best, reply]


@pytest.mark.parametrize("game, position", [("connect4", "4,4"), ("mancala", "c,d")])
def test_diff_of_two_consecutive_searches_starts_at_the_later_root(tmp_path, game, position) -> None:
    """The later search's root is the earlier tree's node two moves down; tree diff finds it by its
    position (the root's label names the game, inner nodes' do not) as --via finds it by the moves."""
    a, b, moves = consecutive_searches(tmp_path, game, position)
    found = json.loads(run("tree", "diff", a, b, "--json").stdout)
    told = json.loads(run("tree", "diff", a, b, "--via", ",".join(moves), "--json").stdout)
    earlier = load_tree(a)
    node = 0
    for move in moves:
        node = next(int(c) for c in np.flatnonzero(earlier.parent == node) if earlier.move[int(c)] == move)
    assert found["old_root"] == told["old_root"] == node > 0
    assert found["notes"] == [f"later root's state found at earlier node {node} (subtree reuse)"]
    assert {k: v for k, v in found.items() if k != "notes"} == {k: v for k, v in told.items() if k != "notes"}
    assert 1 < found["matched"] < found["nodes_after"] and found["root_visits_delta"] > 0
    text = run("tree", "diff", a, b).stdout
    assert "not in the earlier tree" not in text and f"found at earlier node {node}" in text


def test_bad_files_give_one_clear_line(tmp_path) -> None:
    (tmp_path / "bad.csv").write_text(",1,0,0.0,root,2\na,1,0,0.5,s,0\n")
    for args, message in [
        (("tree", "info", tmp_path / "bad.csv"), "line 1: file ends before all announced children"),
        (("tree", "info", tmp_path / "missing.tree"), "no such file"),
        (("tree", "convert", tmp_path / "bad.csv", tmp_path / "x.txt"), "unknown tree format '.txt'"),
        (("tree", "render", tmp_path / "bad.csv", "-o", tmp_path / "x.jpg"), "is a .png file"),
    ]:
        result = run(*args)
        assert result.exit_code == 2, result.output
        assert message in result.output and "Traceback" not in result.output
