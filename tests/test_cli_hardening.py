"""Users' reproductions of command-line failures, each kept as a test.

Every user mistake must end as one line ``error: ...`` on stderr and exit status
2: never a traceback, never NaN written, never a silent success, never data lost.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from boardlab.cli import app
from boardlab.trees.generate import random_mcts_tree
from boardlab.trees.io import save_tree

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def run(*args, **kwargs):
    return runner.invoke(app, [str(a) for a in args], **kwargs)


def fails(*args, message: str):
    """Run a command that must fail with one clear line naming ``message``."""
    result = run(*args)
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert message in lines[0], lines[0]
    return lines[0]


def cli(*args, env: dict | None = None) -> subprocess.CompletedProcess:
    """``boardlab ARGS`` in a child process, its output through pipes as a script would read it."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})}
    return subprocess.run([sys.executable, "-m", "boardlab", *map(str, args)], capture_output=True, text=True,
                          env=environment, timeout=120)


# --- 9. plain output is neither wrapped nor coloured when it does not go to a terminal


def test_piped_output_is_not_wrapped_or_coloured_whatever_the_environment_says(tmp_path) -> None:
    folder = tmp_path / ("a-rather-long-folder-name-" * 4) / ("and-another-one-" * 4)
    folder.mkdir(parents=True)
    tree_file = folder / "t.csv"
    save_tree(random_mcts_tree(60, seed=1), tree_file)
    assert len(str(tree_file)) > 150
    env = {"COLUMNS": "40", "FORCE_COLOR": "1", "TTY_COMPATIBLE": "1"}
    for output in (cli("tree", "info", tree_file, env=env).stdout, run("tree", "info", tree_file, env=env).stdout):
        lines = output.splitlines()
        assert lines[0].startswith(f"{tree_file} (csv): 60 nodes, depth "), output
        assert "\x1b" not in output
        header = next(line for line in lines if "mean payout" in line)
        assert "move" in header and "subtree nodes" in header  # one header row, not squeezed to 40 columns
    # an error naming a long path is one line too
    missing = folder / ("missing-" * 10 + ".tree")
    error = cli("tree", "info", missing, env=env)
    assert error.returncode == 2 and error.stderr == f"error: {missing}: no such file\n"


def test_piped_help_is_not_wrapped_at_80_columns() -> None:
    """Help read through a pipe (less, grep, a script) keeps each option's help on one line, whatever $COLUMNS says."""
    script = Path(sys.executable).with_name("boardlab")  # the installed entry point; -m boardlab where there is none
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "boardlab"]
    via = "Comma-separated moves from A's root to the node B's root continues (subtree reuse)."  # 84 characters
    for columns in (None, "40"):
        environment = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "TERMINAL_WIDTH")}
        environment["PYTHONPATH"] = str(ROOT / "src")
        if columns:
            environment["COLUMNS"] = columns
        for args, sentence in ((["tree", "diff", "--help"], via),
                               (["search", "--help"], "Search one position of GAME with a search agent; print the chosen move and the root's children.")):
            shown = subprocess.run(command + args, capture_output=True, text=True, env=environment, timeout=120)
            assert shown.returncode == 0, shown.stderr
            assert any(sentence in line for line in shown.stdout.splitlines()), shown.stdout


def test_json_output_is_unaffected(tmp_path) -> None:
    save_tree(random_mcts_tree(60, seed=1), tmp_path / "t.tree")
    result = run("tree", "info", tmp_path / "t.tree", "--json")
    assert result.exit_code == 0 and result.stdout.count("\n") == 1 and result.stdout.startswith('{"file": ')


# --- 1. duel --records: a file, or a folder that cannot be made


def test_duel_records_into_a_file_or_an_impossible_folder_is_one_clear_line(tmp_path) -> None:
    (tmp_path / "afile").write_text("keep me")
    fails("duel", "random", "random", "-n", "2", "--records", tmp_path / "afile", message="is a file, not a folder")
    assert (tmp_path / "afile").read_text() == "keep me"
    fails("duel", "random", "random", "-n", "2", "--records", tmp_path / "no" / "such", message="does not exist")
    assert not (tmp_path / "no").exists()
    if Path("/proc/self").is_dir():  # Linux: no folder can be made in /proc, not even by root
        fails("duel", "random", "random", "-n", "2", "--records", "/proc/nope", message="/proc/nope")


def test_duel_records_makes_the_folder_it_was_given(tmp_path) -> None:
    result = run("duel", "random", "random", "-n", "2", "--records", tmp_path / "games")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == ["game-00001.json", "game-00002.json"]


# --- 6. an output file's folder must exist: it is never created


def test_output_files_in_a_missing_folder_are_refused_before_any_work(tmp_path) -> None:
    missing = tmp_path / "nonexist"
    save_tree(random_mcts_tree(30, seed=1), tmp_path / "t.tree")
    fails("search", "--agent", "mcts:iterations=50", "--save", missing / "x.tree", message=f"folder {missing} does not exist")
    fails("tree", "convert", tmp_path / "t.tree", missing / "t.csv", message="does not exist")
    fails("tree", "layout", tmp_path / "t.tree", "-o", missing / "l.csv", message="does not exist")
    fails("tree", "render", tmp_path / "t.tree", "-o", missing / "w.png", message="does not exist")
    fails("tournament", "--agents", "random", "random:seed=1", "--games", "2", "--store", missing / "s.sqlite",
          "--workers", "1", message="does not exist")
    fails("report", tmp_path / "t.tree", "--out", missing / "deeper", message="does not exist")
    assert not missing.exists()
    (tmp_path / "folder.csv").mkdir()
    fails("tree", "convert", tmp_path / "t.tree", tmp_path / "folder.csv", message="it is a folder")


def test_library_writers_never_create_folders(tmp_path) -> None:
    import pytest

    from boardlab.core.errors import BoardlabError
    from boardlab.core.records import write_atomic

    with pytest.raises(BoardlabError, match="does not exist"):
        write_atomic(tmp_path / "a" / "b.txt", "x")
    with pytest.raises(BoardlabError, match="does not exist"):
        save_tree(random_mcts_tree(5, seed=1), tmp_path / "a" / "t.csv")
    assert list(tmp_path.iterdir()) == []


def test_a_recipes_output_gets_its_folders_made_but_nothing_is_forced(tmp_path) -> None:
    import pytest

    from boardlab.core.errors import BoardlabError
    from boardlab.core.files import output_file

    assert output_file(tmp_path / "models" / "deep" / "m.pt", "--out") == tmp_path / "models" / "deep" / "m.pt"
    assert (tmp_path / "models" / "deep").is_dir() and not (tmp_path / "models" / "deep" / "m.pt").exists()
    (tmp_path / "afile").write_text("keep me")
    with pytest.raises(BoardlabError, match="afile is not a folder"):
        output_file(tmp_path / "afile" / "m.pt", "--out")
    with pytest.raises(BoardlabError, match=r"cannot create folder .*afile/x for --out"):
        output_file(tmp_path / "afile" / "x" / "m.pt", "--out")
    with pytest.raises(BoardlabError, match="it is a folder"):
        output_file(tmp_path / "models", "--out")
    assert (tmp_path / "afile").read_text() == "keep me"


# --- 8. output files get the user's umask, not mkstemp's 0600


def test_output_files_are_created_with_the_users_umask(tmp_path) -> None:
    from boardlab.core.records import write_atomic

    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "a.txt", "x")
        save_tree(random_mcts_tree(20, seed=1), tmp_path / "t.tree")
        assert run("tree", "convert", tmp_path / "t.tree", tmp_path / "t.csv").exit_code == 0
        assert run("duel", "random", "random", "-n", "1", "--records", tmp_path / "games").exit_code == 0
        for name in ("a.txt", "t.tree", "t.csv", "games/game-00001.json"):
            assert (tmp_path / name).stat().st_mode & 0o777 == 0o644, name
        os.umask(0o077)
        write_atomic(tmp_path / "private.txt", "x")
        assert (tmp_path / "private.txt").stat().st_mode & 0o777 == 0o600
        os.chmod(tmp_path / "a.txt", 0o640)  # a file written over keeps its own permissions
        write_atomic(tmp_path / "a.txt", "y")
        assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o640 and (tmp_path / "a.txt").read_text() == "y"
    finally:
        os.umask(old)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_report_without_a_store_argument_looks_in_the_data_folder(tmp_path) -> None:
    result = run("report", env={"XDG_DATA_HOME": str(tmp_path)})
    assert result.exit_code == 2 and result.stderr.startswith(f"error: no results store at {tmp_path}"), result.output


# --- 4. a file of binary garbage where JSON is expected


def test_binary_garbage_as_a_record_or_a_training_config_is_one_clear_line(tmp_path) -> None:
    import pytest

    from boardlab.bots.connect4.qnet_files import load_config
    from boardlab.core.errors import FormatError
    from boardlab.core.records import GameRecord

    bad = tmp_path / "r.json"
    bad.write_bytes(b"\x00\xff\xfe")
    fails("replay", bad, message=f"{bad}: byte 1: not UTF-8 text")
    with pytest.raises(FormatError, match="r.json: byte 1: not UTF-8"):
        GameRecord.load(bad)
    with pytest.raises(FormatError, match="r.json: byte 1: not UTF-8"):
        load_config(bad)
    fails("train", "c4-qlearning", "new", bad, "--runs-dir", tmp_path / "runs", message=f"{bad}: byte 1: not UTF-8 text")
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


# --- 6. replay checks a record's moves against its actions


def _record(tmp_path):
    import json

    result = run("duel", "random", "random", "-n", "1", "--records", tmp_path / "games")
    assert result.exit_code == 0, result.output
    path = tmp_path / "games" / "game-00001.json"
    return path, json.loads(path.read_text())


def test_replay_reports_the_first_move_that_contradicts_the_actions(tmp_path) -> None:
    import json

    path, data = _record(tmp_path)
    assert "(checked)" in run("replay", path).stdout
    data["moves"][3] = str(int(data["moves"][3]) % 7 + 1)
    path.write_text(json.dumps(data))
    fails("replay", path, message=f"{path}: move 4: the record's moves say {data['moves'][3]!r} but its action")
    data["moves"] = data["moves"][:-1]
    path.write_text(json.dumps(data))
    fails("replay", path, message="moves")


def test_replay_of_a_record_with_too_few_agents_or_nan_returns_is_one_clear_line(tmp_path) -> None:
    import json

    path, data = _record(tmp_path)
    path.write_text(json.dumps({**data, "agents": ["random"]}))
    fails("replay", path, message="1 agents for a game of 2 players")
    path.write_text(json.dumps({**data, "returns": [float("nan"), 1.0]}))
    fails("replay", path, message="NaN")
    path.write_text(json.dumps({**data, "actions": [True, *data["actions"][1:]]}))
    fails("replay", path, message="'actions' must be a list of integers")


# --- 2. and 5. every numeric option of tree layout and tree render is checked


def test_tree_layout_refuses_bad_numbers_and_writes_nothing(tmp_path) -> None:
    save_tree(random_mcts_tree(40, seed=1), tmp_path / "c4.tree")
    out = tmp_path / "l.csv"
    for option, value, message in [
        ("--separation", "0", "--separation must be a positive number"),
        ("--separation", "-1", "--separation must be a positive number"),
        ("--separation", "inf", "--separation must be a positive number"),
        ("--level-height", "nan", "--level-height must be a positive number"),
        ("--level-height", "-inf", "--level-height must be a positive number"),
        ("--max-depth", "-1", "--max-depth must be 0 or more"),
        ("--min-visits", "-5", "--min-visits must be 0 or more"),
    ]:
        fails("tree", "layout", tmp_path / "c4.tree", "-o", out, option, value, message=message)
        assert not out.exists()
    assert run("tree", "layout", tmp_path / "c4.tree", "-o", out, "--level-height", "2.5").exit_code == 0
    assert "nan" not in out.read_text().lower()


def test_tree_render_bounds_the_picture_and_refuses_negative_depths(tmp_path) -> None:
    save_tree(random_mcts_tree(40, seed=1), tmp_path / "c4.tree")
    out = tmp_path / "w.png"
    for args, message in [
        (("--width", "100000"), "at most 20,000 pixels"),
        (("--width", "20000", "--height", "20000"), "at most 100,000,000 pixels"),
        (("--width", "199"), "at least 200 pixels"),
        (("--height", "0"), "--height must be"),
        (("--max-depth", "-1"), "--max-depth must be 0 or more"),
        (("--min-visits", "-1"), "--min-visits must be 0 or more"),
    ]:
        fails("tree", "render", tmp_path / "c4.tree", "-o", out, *args, message=message)
        assert not out.exists()
    assert run("tree", "render", tmp_path / "c4.tree", "-o", out, "--width", "400", "--max-depth", "0").exit_code == 0


# --- 3. a tiny tournament's report: every interval contains its estimate, and the plots draw


def test_report_of_a_two_game_tournament_draws_its_plots(tmp_path) -> None:
    store = tmp_path / "s.sqlite"
    played = run("tournament", "--agents", "random", "mcts:iterations=50", "--games", "2", "--store", store, "--workers", "1")
    assert played.exit_code == 0, played.output
    result = run("report", store, "--out", tmp_path / "report", "--json")
    assert result.exit_code == 0, (result.output, result.exception)
    import json

    section = json.loads(result.stdout)["tournaments"][0]
    for rating in section["ratings"]["ratings"]:
        assert rating["low"] <= rating["elo"] <= rating["high"], rating
    for row in section["agent_table"] + section["seat_table"]:
        assert row["win_low"] <= row["win_rate"] <= row["win_high"], row
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == ["ratings.png", "report.md", "scores.png", "seats.png"]


def test_elo_and_wilson_intervals_always_contain_their_estimates() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from boardlab.arena import stats
    from boardlab.arena.ratings import bradley_terry

    games = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.sampled_from([0.0, 0.5, 1.0])), min_size=1, max_size=6)

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(games, st.integers(0, 3))
    def check(rows, seed) -> None:
        rows = [(a, b, s) for a, b, s in rows if a != b] or [(0, 1, 1.0)]
        fit = bradley_terry(*zip(*rows), names=["a", "b", "c"], bootstrap=40, seed=seed)
        for rating in fit.ratings:
            assert rating.low <= rating.elo <= rating.high
        assert fit.first_seat[1] <= fit.first_seat[0] <= fit.first_seat[2]

    check()
    for n in range(1, 40):
        for k in range(n + 1):
            low, high = stats.wilson(k, n)
            assert 0.0 <= low <= k / n <= high <= 1.0, (k, n)


# --- 7. two copies of one tournament on one store: each counts what it played itself


def test_a_tournament_counts_the_games_it_played_when_another_process_stored_them_first(tmp_path, monkeypatch) -> None:
    import json

    from boardlab.arena.store import ResultStore

    store = tmp_path / "s.sqlite"
    args = ["tournament", "--agents", "random", "random:seed=1", "random:seed=2", "--games", "4", "--store", store,
            "--workers", "1", "--json"]
    first = run(*args)
    assert first.exit_code == 0, first.output
    summary = json.loads(first.stdout.splitlines()[-1])
    assert (summary["already_stored"], summary["played"], summary["stored_by_others"]) == (0, 12, 0)
    # the second copy started before the first stored anything: it plays every game, and finds each stored
    monkeypatch.setattr(ResultStore, "finished_indices", lambda self, tid: set())
    second = run(*args)
    assert second.exit_code == 0, second.output
    lines = [json.loads(line) for line in second.stdout.splitlines()]
    games, summary = lines[:-1], lines[-1]
    assert len(games) == 12 and not any(g["stored"] for g in games)
    assert (summary["already_stored"], summary["played"], summary["stored_by_others"]) == (0, 12, 12)
    assert summary["agent_table"][0]["games"] == 8  # the store holds each game once
    text = run(*args[:-1])
    assert text.exit_code == 0, text.output
    assert text.stdout.splitlines()[0].startswith(
        "played 12 games (0 already stored when it started; another process running this tournament stored "
        "all 12 of them first, so this run stored none)"
    )


def test_two_copies_of_one_tournament_at_once_store_every_game_once_and_account_for_all(tmp_path) -> None:
    import json
    import sqlite3

    store = tmp_path / "s.sqlite"
    args = [sys.executable, "-m", "boardlab", "tournament", "--agents", "random", "random:seed=1", "random:seed=2",
            "--games", "10", "--store", str(store), "--workers", "1", "--json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    copies = [subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [copy.communicate(timeout=120) for copy in copies]
    assert [copy.returncode for copy in copies] == [0, 0], outputs
    summaries = [json.loads(out.splitlines()[-1]) for out, _ in outputs]
    # however the two interleaved: each game is stored once, by exactly one of them
    assert sum(s["played"] - s["stored_by_others"] for s in summaries) == 30
    for (out, _), summary in zip(outputs, summaries):
        games = [json.loads(line) for line in out.splitlines()[:-1]]
        assert len(games) == summary["played"] == 30 - summary["already_stored"]
        assert sum(not g["stored"] for g in games) == summary["stored_by_others"]
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*), COUNT(DISTINCT game_index) FROM games").fetchone() == (30, 30)


# --- 6. solve reads positions as search does; float options are finite; tree files are checked


def test_solve_accepts_every_notation_search_accepts() -> None:
    import json

    answers = []
    for position in ("445", "4 4 5", "4,4,5", " 4, 4 ,5 "):
        result = run("solve", "--position", position, "--json")
        assert result.exit_code == 0, (position, result.output)
        data = json.loads(result.stdout)
        answers.append((data["score"], data["moves"]))
    assert answers == [answers[0]] * 4
    fails("solve", "--position", "4 44 5", message="'44'")


def test_float_options_of_game_and_agent_specs_must_be_finite() -> None:
    import math

    import pytest

    from boardlab.agents.registry import make_agent
    from boardlab.core.errors import SpecError
    from boardlab.core.params import Option, resolve_options
    from boardlab.core.registry import make

    game = make("connect4")
    for spec in ("mcts:c=inf", "mcts:c=nan", "mcts:c=1e999", "mcts:time=inf", "mcts:time=-inf", "mcts:c=-nan"):
        with pytest.raises(SpecError, match="must be a finite number"):
            make_agent(spec, game)
    fails("duel", "mcts:c=inf,iterations=5", "random", "-n", "1", message="option c=inf must be a finite number")
    options = {"c": Option("c", float, 1.0, "a number")}
    with pytest.raises(SpecError, match="finite"):
        resolve_options("agent x", options, {"c": float("nan")})  # a value from JSON, not from text
    anything = {"t": Option("t", float, 1.0, "may be infinite", finite=False)}
    assert resolve_options("agent x", anything, {"t": "inf"})["t"] == math.inf


def _binary_tree(mean: float, grandchild_visits: int) -> bytes:
    import struct

    def text(s: str) -> bytes:
        return struct.pack("<i", len(s)) + s.encode()

    root = text("r") + struct.pack("<i", 1)
    child = text("a") + struct.pack("<iid", 3, 1, mean) + text("s") + struct.pack("<i", 1)
    grandchild = text("b") + struct.pack("<iid", grandchild_visits, 0, 0.5) + text("t") + struct.pack("<i", 0)
    return root + child + grandchild


def test_tree_files_with_non_finite_payouts_or_children_visited_more_than_their_parent_are_refused(tmp_path) -> None:
    import pytest

    from boardlab.core.errors import FormatError
    from boardlab.trees.io import load_tree

    cases = {
        "nan.csv": (b',10,0,0.0,root,2\na,4,1,nan,"two\nlines",0\nb,5,2,0.5,s2,0\n',
                    "line 2: field 4 (mean_payout) 'nan' is not a finite number"),
        "inf.csv": (b",10,0,0.0,root,2\na,4,1,0.5,s1,0\nb,5,2,1e999,s2,0\n",
                    "line 3: field 4 (mean_payout) '1e999' is not a finite number"),
        "above.csv": (b',10,0,0.0,root,1\na,4,1,0.5,"x\n\ny",1\nb,5,2,0.5,s2,0\n',
                      "line 5: field 2 (visits) '5' is more than its parent's 4 visits"),
        "nan.tree": (_binary_tree(float("nan"), 2), "byte 22: mean payout nan is not a finite number"),
        "above.tree": (_binary_tree(0.5, 4), "byte 44: visit count 4 is more than its parent's 3"),
    }
    assert load_tree(_write(tmp_path / "ok.tree", _binary_tree(0.5, 3))).visits.tolist() == [3, 3, 3]
    for name, (data, message) in cases.items():
        path = _write(tmp_path / name, data)
        with pytest.raises(FormatError) as info:
            load_tree(path)
        assert str(info.value) == f"{path}: {message}"
        fails("tree", "info", path, message=message)


def _write(path, data: bytes):
    path.write_bytes(data)
    return path


def test_tree_writers_refuse_what_the_readers_refuse(tmp_path) -> None:
    import pytest

    from boardlab.core.errors import FormatError
    from boardlab.trees.model import Tree

    nan = Tree.from_parents([-1, 0], ["", "a"], [2, 1], [0, 0], [0.0, float("nan")], ["r", "s"])
    above = Tree.from_parents([-1, 0, 1], ["", "a", "b"], [5, 2, 3], [0, 0, 0], [0.0] * 3, ["r", "s", "t"])
    for tree, message in ((nan, "node 1: mean payout nan is not a finite number"),
                          (above, "node 2: 3 visits, more than its parent's 2")):
        for name in ("t.tree", "t.csv"):
            with pytest.raises(FormatError, match=message):
                save_tree(tree, tmp_path / name)
    assert list(tmp_path.iterdir()) == []


def test_evaluate_with_a_damaged_metrics_file_beside_the_model_is_one_clear_line(tmp_path) -> None:
    import shutil
    from importlib import resources

    model = tmp_path / "nothanks.pt"
    shutil.copyfile(resources.files("boardlab.models").joinpath("nothanks.pt"), model)
    (tmp_path / "nothanks.metrics.json").write_bytes(b"\x00\xff\xfe")
    plot = tmp_path / "curve.png"  # the metrics are read only to draw the learning curve
    fails("evaluate", model, "--states", "5", "--plot", plot, message=f"{tmp_path / 'nothanks.metrics.json'}: byte 1: not UTF-8")
    (tmp_path / "nothanks.metrics.json").write_text('{"history": {"train_loss": [NaN], "validation_loss": [1]}}')
    fails("evaluate", model, "--states", "5", "--plot", plot, message="NaN")
    assert not plot.exists()


def test_report_refuses_thresholds_that_are_not_finite_and_endless_bootstraps(tmp_path) -> None:
    store = tmp_path / "s.sqlite"
    assert run("tournament", "--agents", "random", "random:seed=1", "--games", "2", "--store", store, "--workers", "1").exit_code == 0
    out = tmp_path / "report"
    fails("report", store, "--out", out, "--thresholds", "110,nan", message="--thresholds must be finite numbers")
    fails("report", store, "--out", out, "--thresholds", "inf", message="--thresholds must be finite numbers")
    fails("report", store, "--out", out, "--bootstrap", "100000000", message="--bootstrap must be between 0 and 100,000")
    assert not out.exists()


def test_training_refuses_to_stop_before_the_first_game(tmp_path) -> None:
    import json

    import pytest

    from boardlab.core.errors import BoardlabError
    from boardlab.studies.c4rl.training import new_run, train_run

    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({
        "board": {"rows": 4, "cols": 5}, "needed_to_win": 3, "games_to_play": 2, "saving_rate": 1,
        "learning_rate": 0.05, "discount_factor": 1, "estimated_optimal_future_value": "mean",
        "boltzmann_temperature": 1, "rewards": {"win": 2, "loss": -2, "tie": 0, "each_move": -0.01},
        "neural_storage": {"hidden_neurons": 4},
    }))
    run_, _ = new_run(config, tmp_path / "runs")
    for stop in (0, -3):
        with pytest.raises(BoardlabError, match="stop after at least 1 game"):
            train_run(run_, stop_after=stop)


def test_positions_and_grading_files_of_binary_garbage_are_one_clear_line(tmp_path) -> None:
    bad = tmp_path / "p.txt"
    bad.write_bytes(b"4453 \xff\xfe\n")
    fails("solve", "--positions", bad, message=f"{bad}: byte 5: not UTF-8 text")
    fails("grade", "random", "--positions", bad, message=f"{bad}: byte 5: not UTF-8 text")
