"""Fuzzing every reader of a user's file: only a clear error naming the file, never anything else.

Readers: search trees (.tree, .csv), game records, the Q-learning configs, the
No Thanks! configs, metrics and checkpoints, the Connect Four checkpoints and
model files, the opening book and the arena's results store. Each gets damaged
files (random bytes; valid files with bytes flipped, cut, inserted or removed)
and valid files with a value replaced by a hostile one (NaN, infinities, huge or
negative numbers, wrong types, deep nesting). The only outcomes allowed: the
file is read, or a :class:`BoardlabError` names it; and a command that failed
leaves no output behind. The budget is fixed and the examples derandomized
(tests/conftest.py), so CI runs the same inputs every time; inputs are small, so
nothing can take long.
"""

from __future__ import annotations

import io
import json
import pickle
import sqlite3
import tempfile
from pathlib import Path

import numpy as np
import pytest
import torch
from fuzz_helpers import HOSTILE_JSON, HOSTILE_VALUES, damaged, put_json, read_cleanly, value_paths
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from boardlab.cli import app

runner = CliRunner()
FUZZ = settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(FUZZ, max_examples=30)


def scratch() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="fuzz-")


def write(folder: str, name: str, data: bytes | str) -> Path:
    path = Path(folder) / name
    path.write_bytes(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    return path


# --- search trees ---------------------------------------------------------------------------------


def _valid_tree():
    from boardlab.trees.generate import random_mcts_tree

    return random_mcts_tree(12, seed=4, branching=3)


def _tree_bytes(kind: str) -> bytes:
    from boardlab.trees import binary, csvformat

    return (binary if kind == "tree" else csvformat).to_bytes(_valid_tree())


def _load_tree(path: Path):
    from boardlab.trees.io import load_tree

    tree = load_tree(path)
    tree.check(str(path))  # what is read is one well-formed tree
    assert np.isfinite(tree.mean_payout).all() and (tree.visits >= 0).all()
    return tree


@FUZZ
@given(damaged(_tree_bytes("tree")))
def test_binary_tree_files(data: bytes) -> None:
    with scratch() as folder:
        read_cleanly(_load_tree, write(folder, "t.tree", data))


@FUZZ
@given(damaged(_tree_bytes("csv")))
def test_csv_tree_files(data: bytes) -> None:
    with scratch() as folder:
        read_cleanly(_load_tree, write(folder, "t.csv", data))


@FUZZ
@given(st.data())
def test_binary_tree_files_with_hostile_numbers(data: st.DataObject) -> None:
    valid = bytearray(_tree_bytes("tree"))
    at = data.draw(st.integers(0, len(valid) - 8))
    if data.draw(st.booleans()):
        value = data.draw(st.sampled_from([-1, -(2**31), 2**31 - 1, 2**30, 10**6, 0, 1]))
        valid[at : at + 4] = int(value).to_bytes(4, "little", signed=True)
    else:
        valid[at : at + 8] = np.float64(data.draw(st.sampled_from([np.nan, np.inf, -np.inf, 1e308, -0.0]))).tobytes()
    with scratch() as folder:
        read_cleanly(_load_tree, write(folder, "t.tree", bytes(valid)))


CSV_FIELDS = st.sampled_from([
    "nan", "-nan", "inf", "-inf", "infinity", "1e999", "-1", "2147483647", "2147483648", "99999999999999999999", "",
    '"', '"open', '""', "1.5", "0x10", " 1", "1 ", "+1", "١", "é", "\x00", "a,b", '"a""b"', "\r", "1e-400",
])


@FUZZ
@given(st.data())
def test_csv_tree_files_with_hostile_fields(data: st.DataObject) -> None:
    rows = [row.split(",") for row in _tree_bytes("csv").decode().splitlines()]
    for _ in range(data.draw(st.integers(1, 3))):
        row = data.draw(st.integers(0, len(rows) - 1))
        rows[row][data.draw(st.integers(0, 5))] = data.draw(CSV_FIELDS)
    with scratch() as folder:
        read_cleanly(_load_tree, write(folder, "t.csv", "\n".join(",".join(r) for r in rows) + "\n"))


@FEW
@given(damaged(_tree_bytes("tree")))
def test_tree_convert_leaves_no_output_after_a_bad_input(data: bytes) -> None:
    with scratch() as folder:
        source = write(folder, "in.tree", data)
        target = Path(folder) / "out.csv"
        result = runner.invoke(app, ["tree", "convert", str(source), str(target)])
        assert result.exit_code in (0, 2), result.exception
        assert target.exists() == (result.exit_code == 0)
        assert sorted(p.name for p in Path(folder).iterdir()) == ["in.tree"] + (["out.csv"] if target.exists() else [])


# --- game records ----------------------------------------------------------------------------------


def _valid_record() -> dict:
    from boardlab.agents.registry import make_agent
    from boardlab.arena.play import play_game
    from boardlab.core.registry import make

    game = make("connect4:rows=4,cols=5")
    return play_game(game, [make_agent("random", game), make_agent("random", game)], seed=3).to_dict()


RECORD = _valid_record()


def _replay(path: Path):
    from boardlab.core.records import GameRecord

    return GameRecord.load(path).replay()


@FUZZ
@given(damaged(json.dumps(RECORD, indent=1).encode()))
def test_game_records(data: bytes) -> None:
    with scratch() as folder:
        read_cleanly(_replay, write(folder, "r.json", data))


@FUZZ
@given(st.sampled_from(value_paths(RECORD)), HOSTILE_JSON)
def test_game_records_with_hostile_values(where: tuple, raw: str) -> None:
    with scratch() as folder:
        read_cleanly(_replay, write(folder, "r.json", put_json(json.loads(json.dumps(RECORD)), where, raw)))


@FEW
@given(st.sampled_from(value_paths(RECORD)), HOSTILE_JSON)
def test_replay_command_on_hostile_records(where: tuple, raw: str) -> None:
    with scratch() as folder:
        path = write(folder, "r.json", put_json(json.loads(json.dumps(RECORD)), where, raw))
        result = runner.invoke(app, ["replay", str(path)])
        assert result.exit_code in (0, 2), result.exception
        if result.exit_code == 2:
            assert result.stderr.startswith(f"error: {path}") and result.stderr.count("\n") == 1


# --- Q-learning configs and checkpoints --------------------------------------------------------------

Q_CONFIG = {
    "board": {"rows": 4, "cols": 5}, "needed_to_win": 3, "games_to_play": 4, "saving_rate": 2,
    "learning_rate": 0.05, "discount_factor": 1, "estimated_optimal_future_value": "mean",
    "boltzmann_temperature": 1, "rewards": {"win": 2, "loss": -2, "tie": 0, "each_move": -0.01},
    "neural_storage": {"hidden_neurons": [6], "encoding": "planes"}, "seed": 1,
}


def _load_q_config(path: Path):
    from boardlab.bots.connect4.qnet_files import MAX_PARAMETERS, load_config, parameter_count

    cfg = load_config(path)
    assert parameter_count(cfg) <= MAX_PARAMETERS  # a config read is one that can be built
    return cfg


@FUZZ
@given(damaged(json.dumps(Q_CONFIG).encode()))
def test_q_learning_configs(data: bytes) -> None:
    with scratch() as folder:
        read_cleanly(_load_q_config, write(folder, "c.json", data))


@FUZZ
@given(st.sampled_from(value_paths(Q_CONFIG)), HOSTILE_JSON)
def test_q_learning_configs_with_hostile_values(where: tuple, raw: str) -> None:
    with scratch() as folder:
        read_cleanly(_load_q_config, write(folder, "c.json", put_json(json.loads(json.dumps(Q_CONFIG)), where, raw)))


def _q_checkpoint() -> dict:
    from boardlab.bots.connect4.qnet_files import config_from_dict
    from boardlab.studies.c4rl.training import Learner

    return Learner.new(config_from_dict(Q_CONFIG)).checkpoint()


def _torch_bytes(payload) -> bytes:
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    return buffer.getvalue()


def _load_learner(path: Path):
    from boardlab.bots.connect4.qnet_files import load_qnet

    cfg, net = load_qnet(path)
    assert all(torch.isfinite(p).all() for p in net.parameters())
    return cfg


Q_CHECKPOINT = _torch_bytes(_q_checkpoint())


@FEW
@given(damaged(Q_CHECKPOINT))
def test_q_learning_checkpoints(data: bytes) -> None:
    with scratch() as folder:
        read_cleanly(_load_learner, write(folder, "c.pt", data))


Q_FIELDS = ["format", "version", "config", "games_played", "model", "optimizer", "rng", "stats"]


@FUZZ
@given(st.sampled_from(Q_FIELDS), st.one_of(HOSTILE_VALUES, HOSTILE_JSON), st.booleans())
def test_q_learning_checkpoints_with_hostile_fields(field: str, value, inside: bool) -> None:
    payload = _q_checkpoint()
    if inside and isinstance(payload[field], dict) and payload[field]:
        key = sorted(payload[field])[0]
        payload[field][key] = torch.full((3,), float("nan")) if isinstance(value, float) else value
    else:
        payload[field] = value
    with scratch() as folder:
        try:
            data = _torch_bytes(payload)
        except Exception:  # torch cannot save this value at all: nothing to read
            return
        read_cleanly(_load_learner, write(folder, "c.pt", data))


class _Exploit:
    def __reduce__(self):
        return (Path.touch, (Path(tempfile.gettempdir()) / "boardlab-fuzz-pwned",))


@pytest.mark.parametrize("dump", [pickle.dumps, _torch_bytes])
def test_checkpoints_that_are_pickled_code_are_refused_without_running_it(dump) -> None:
    from boardlab.studies.nothanks.training import load_checkpoint

    marker = Path(tempfile.gettempdir()) / "boardlab-fuzz-pwned"
    marker.unlink(missing_ok=True)
    with scratch() as folder:
        path = write(folder, "evil.pt", dump({"format": "boardlab-c4-qnet", "model": _Exploit()}))
        for read in (_load_learner, load_checkpoint):
            assert read_cleanly(read, path) is None
    assert not marker.exists()


# --- No Thanks! networks, configs and metrics ----------------------------------------------------------


def _nothanks_payload() -> dict:
    from dataclasses import asdict

    from boardlab.bots.nothanks.network import CHECKPOINT_FORMAT, NoThanksNet
    from boardlab.studies.nothanks.training import TrainConfig

    config = TrainConfig(hidden=4)
    return {"format": CHECKPOINT_FORMAT, "config": asdict(config),
            "state_dict": NoThanksNet(4).state_dict(), "metrics": {"epochs_run": 1}}


def _load_nothanks(path: Path):
    from boardlab.studies.nothanks.training import load_checkpoint

    model, config, metrics = load_checkpoint(path)
    assert all(torch.isfinite(p).all() for p in model.parameters())
    return config


@FEW
@given(damaged(_torch_bytes(_nothanks_payload())))
def test_nothanks_checkpoints(data: bytes) -> None:
    with scratch() as folder:
        read_cleanly(_load_nothanks, write(folder, "n.pt", data))


@FUZZ
@given(st.sampled_from(["format", "config", "state_dict", "metrics"]), st.booleans(), HOSTILE_VALUES)
def test_nothanks_checkpoints_with_hostile_fields(field: str, inside: bool, value) -> None:
    payload = _nothanks_payload()
    if inside and isinstance(payload[field], dict) and payload[field]:
        key = sorted(payload[field])[len(str(value)) % len(payload[field])]
        payload[field][key] = torch.full((4,), float("nan")) if isinstance(value, float) and field == "state_dict" else value
    else:
        payload[field] = value
    with scratch() as folder:
        try:
            data = _torch_bytes(payload)
        except Exception:
            return
        read_cleanly(_load_nothanks, write(folder, "n.pt", data))


def _shipped(name: str) -> dict:
    from importlib import resources

    return json.loads(resources.files("boardlab.models").joinpath(name).read_text("utf-8"))


NOTHANKS_CONFIG = _shipped("nothanks.config.json")
NOTHANKS_METRICS = _shipped("nothanks.metrics.json")
NOTHANKS_METRICS["history"] = {k: v[:5] for k, v in NOTHANKS_METRICS["history"].items()}


@FUZZ
@given(st.one_of(
    damaged(json.dumps(NOTHANKS_CONFIG).encode()).map(lambda b: b),
    st.tuples(st.sampled_from(value_paths(NOTHANKS_CONFIG)), HOSTILE_JSON).map(
        lambda a: put_json(json.loads(json.dumps(NOTHANKS_CONFIG)), *a).encode("utf-8", "surrogatepass")),
))
def test_nothanks_training_configs(data: bytes) -> None:
    from boardlab.studies.nothanks.training import load_train_config

    with scratch() as folder:
        read_cleanly(load_train_config, write(folder, "n.config.json", data))


@FUZZ
@given(st.one_of(
    damaged(json.dumps(NOTHANKS_METRICS).encode()),
    st.tuples(st.sampled_from(value_paths(NOTHANKS_METRICS)), HOSTILE_JSON).map(
        lambda a: put_json(json.loads(json.dumps(NOTHANKS_METRICS)), *a).encode("utf-8", "surrogatepass")),
))
def test_nothanks_metrics_sidecars(data: bytes) -> None:
    from boardlab.studies.nothanks.training import read_metrics

    with scratch() as folder:
        metrics = read_cleanly(read_metrics, write(folder, "n.metrics.json", data))
        if metrics is not None:
            assert all(np.isfinite(metrics["history"][k]).all() for k in ("train_loss", "validation_loss"))


# --- the opening book -----------------------------------------------------------------------------------


def _book_arrays() -> dict:
    from boardlab.games.connect4.book import default_book

    full = np.load(io.BytesIO(default_book().to_bytes()), allow_pickle=False)
    return {"keys": full["keys"][:40], "scores": full["scores"][:40], "best": full["best"][:40],
            "max_ply": full["max_ply"], "done_layers": full["done_layers"]}


def _npz(arrays: dict) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def _load_book(path: Path):
    from boardlab.games.connect4.book import OpeningBook

    book = OpeningBook.load(path)
    for key, (score, best) in book.entries.items():
        assert 0 <= key < 2**49 and -18 <= score <= 18 and 0 <= best < 128
    return book


@FUZZ
@given(damaged(_npz(_book_arrays())))
def test_opening_books(data: bytes) -> None:
    with scratch() as folder:
        read_cleanly(_load_book, write(folder, "b.npz", data))


BOOK_VALUES = st.one_of(
    HOSTILE_VALUES.map(lambda v: np.asarray(v) if not isinstance(v, (dict, bytes)) else np.asarray(str(v))),
    st.sampled_from([
        np.array([np.nan, 1.0]), np.full(40, -1, np.int64), np.full(40, 2**62, np.uint64), np.zeros((2, 3)),
        np.array(["a", "b"]), np.zeros(0, np.uint64), np.full(40, 127, np.int8), np.full(40, 255, np.uint8),
        np.int64(-5), np.int64(10**15), np.array([1, 2, 3], dtype=np.uint64),
    ]),
)


@FUZZ
@given(st.sampled_from(["keys", "scores", "best", "max_ply", "done_layers", "complete_ply"]), BOOK_VALUES, st.booleans())
def test_opening_books_with_hostile_arrays(name: str, value, drop: bool) -> None:
    arrays = _book_arrays()
    if drop and name in arrays:
        del arrays[name]
    else:
        arrays[name] = value
    with scratch() as folder:
        read_cleanly(_load_book, write(folder, "b.npz", _npz(arrays)))


def test_an_opening_book_that_claims_a_huge_array_is_refused_without_allocating_it() -> None:
    import zipfile

    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<u8", "fortran_order": False, "shape": (10**12,)})
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("keys.npy", header.getvalue() + bytes(64))
        for name in ("scores", "best", "max_ply", "done_layers"):
            buffer = io.BytesIO()
            np.save(buffer, np.zeros(1, np.int64))
            zf.writestr(f"{name}.npy", buffer.getvalue())
    with scratch() as folder:
        assert read_cleanly(_load_book, write(folder, "b.npz", data.getvalue())) is None


# --- the arena's results store ---------------------------------------------------------------------------


def _store_bytes() -> bytes:
    from boardlab.arena.store import ResultStore
    from boardlab.arena.tournament import play_missing, prepare

    with scratch() as folder:
        path = Path(folder) / "s.sqlite"
        with ResultStore(path) as store:
            play_missing(prepare("connect4:rows=4,cols=5", ["random", "random:seed=1"], games=2), store, workers=1)
        return path.read_bytes()


STORE = _store_bytes()


def _read_store(path: Path):
    from boardlab.arena.report import build_report
    from boardlab.arena.store import ResultStore

    with ResultStore(path) as store:
        return build_report(store, bootstrap=5)


@FUZZ
@given(damaged(STORE, max_insert=256))
def test_results_stores(data: bytes) -> None:
    with scratch() as folder:
        read_cleanly(_read_store, write(folder, "s.sqlite", data))


STORE_COLUMNS = {
    "tournaments": ["config", "command", "total_games", "created"],
    "games": ["game_index", "seed", "seats", "agents", "returns", "scores", "record", "seconds"],
}


@FUZZ
@given(st.sampled_from([(t, c) for t, cols in STORE_COLUMNS.items() for c in cols]), st.one_of(HOSTILE_JSON, HOSTILE_VALUES))
def test_results_stores_with_hostile_values(where: tuple, value) -> None:
    table, column = where
    if isinstance(value, (list, dict, tuple)):
        value = json.dumps(value)
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**63:
        value = str(value)  # SQLite integers are 64-bit: the text is what a hostile file could hold
    with scratch() as folder:
        path = write(folder, "s.sqlite", STORE)
        db = sqlite3.connect(path)
        try:
            with db:
                db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = 1", (value,))
        except sqlite3.IntegrityError:  # NOT NULL: SQLite itself keeps this value out
            return
        finally:
            db.close()
        read_cleanly(_read_store, path)


@pytest.mark.parametrize("schema", [
    "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)",
    "CREATE TABLE games (id INTEGER, name TEXT)",
    "CREATE TABLE meta (key TEXT, value TEXT); CREATE TABLE games (x); CREATE TABLE tournaments (y)",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema', '99')",
])
def test_a_foreign_sqlite_file_is_refused_and_left_untouched(schema: str) -> None:
    with scratch() as folder:
        path = Path(folder) / "other.sqlite"
        with sqlite3.connect(path) as db:
            db.executescript(schema)
        db.close()
        before = path.read_bytes()
        assert read_cleanly(_read_store, path) is None
        assert path.read_bytes() == before and sorted(p.name for p in Path(folder).iterdir()) == ["other.sqlite"]
        result = runner.invoke(app, ["report", str(path), "--out", str(Path(folder) / "report")])
        assert result.exit_code == 2 and result.stderr.startswith(f"error: {path}"), result.output
        assert not (Path(folder) / "report").exists()


# --- no reader unpickles ----------------------------------------------------------------------------------


def test_every_torch_load_is_weights_only_and_every_np_load_refuses_pickles() -> None:
    import ast

    import boardlab

    calls = []
    for source in Path(boardlab.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text("utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "load"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in ("torch", "np", "numpy")):
                keywords = {k.arg: k.value for k in node.keywords}
                required = "weights_only" if node.func.value.id == "torch" else "allow_pickle"
                value = keywords.get(required)
                safe = isinstance(value, ast.Constant) and value.value is (required == "weights_only")
                calls.append((f"{source.name}:{node.lineno}", safe))
    assert calls and all(safe for _, safe in calls), calls
