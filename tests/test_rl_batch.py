"""Several Q-learning agents from one config (--agents, --seed), trained in parallel, resumed after SIGKILL."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

from boardlab.arena.backends import map_tasks
from boardlab.bots.connect4.qnet_files import Run, load_config
from boardlab.cli import app
from boardlab.core.errors import BoardlabError
from boardlab.studies.c4rl.training import Learner, _trainer_lock, new_runs, train_run

runner = CliRunner()

TINY = {
    "board": {"rows": 4, "cols": 4}, "needed_to_win": 3, "games_to_play": 6, "saving_rate": 3,
    "learning_rate": 0.05, "discount_factor": 1, "estimated_optimal_future_value": "best_known",
    "boltzmann_temperature": 1, "rewards": {"win": 2, "loss": -2, "tie": 0, "each_move": -0.01},
    "neural_storage": {"hidden_neurons": 8}, "seed": 3,
}


def _config(tmp_path: Path, **changes) -> Path:
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps({**TINY, **changes}))
    return path


def _weights(learner: Learner) -> list[torch.Tensor]:
    return [t.clone() for t in learner.net.state_dict().values()]


def test_five_agents_from_one_config_are_five_different_agents(tmp_path: Path) -> None:
    config = _config(tmp_path)
    made = new_runs(config, tmp_path / "runs", agents=5)
    assert [run.name for run, _ in made] == [f"cfg-{n}" for n in range(1, 6)]
    seeds = [cfg.seed for _, cfg in made]
    assert len(set(seeds)) == 5 and 3 not in seeds
    assert [load_config(run.config_file).seed for run, _ in made] == seeds  # each run keeps its own seed
    trained = [_weights(train_run(run)) for run, _ in made]
    for i in range(5):
        for j in range(i + 1, 5):
            assert any(not torch.equal(a, b) for a, b in zip(trained[i], trained[j])), (i, j)
    # the same config and base seed make the same agents again (as runs 6-10); another --seed makes others
    again = new_runs(config, tmp_path / "runs", agents=5)
    assert [run.name for run, _ in again] == [f"cfg-{n}" for n in range(6, 11)]
    assert [cfg.seed for _, cfg in again] == seeds
    assert not set(seeds) & {cfg.seed for _, cfg in new_runs(config, tmp_path / "runs", agents=5, seed=4)}
    # one agent keeps the base seed itself, so a plain run reproduces its config
    assert new_runs(config, tmp_path / "runs")[0][1].seed == 3
    assert new_runs(config, tmp_path / "runs", seed=11)[0][1].seed == 11


def test_the_process_pool_runs_every_task() -> None:
    assert sorted(map_tasks(abs, [-1, -2, -3], workers=2)) == [1, 2, 3]
    assert list(map_tasks(abs, [-4], workers=1)) == [4]
    with pytest.raises(BoardlabError, match="unknown backend 'dask'"):
        list(map_tasks(abs, [1], workers=2, backend="dask"))


def test_cli_trains_a_batch_and_resumes_it_by_config_name(tmp_path: Path) -> None:
    config = _config(tmp_path)
    runs_dir = tmp_path / "runs"
    result = runner.invoke(app, ["train", "c4-qlearning", "new", str(config), "--agents", "3", "--seed", "9",
                                 "--stop-after", "3", "--runs-dir", str(runs_dir), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["run"], r["games_played"], r["error"]) for r in rows] == [(f"cfg-{n}", 3, None) for n in (1, 2, 3)]
    result = runner.invoke(app, ["train", "c4-qlearning", "resume", "cfg", "--runs-dir", str(runs_dir), "--json"])
    assert result.exit_code == 0, result.output
    assert [(r["run"], r["games_played"]) for r in json.loads(result.stdout)] == [(f"cfg-{n}", 6) for n in (1, 2, 3)]
    result = runner.invoke(app, ["train", "c4-qlearning", "resume", "cfg-1", "--agents", "2", "--runs-dir", str(runs_dir)])
    assert result.exit_code == 2 and "No such option: --agents" in result.output  # a resumed run keeps its seed


def test_a_run_being_trained_refuses_a_second_trainer(tmp_path: Path) -> None:
    run, _ = new_runs(_config(tmp_path), tmp_path / "runs")[0]
    with _trainer_lock(run):
        with pytest.raises(BoardlabError, match="cfg-1 is being trained by another process"):
            train_run(run)
    assert train_run(run).games_played == 6  # the lock is gone with its holder


def _wait_until_gone(group: int) -> None:
    """Wait until no process of the group is left (the pool's workers check for their parent twice a second)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)
    raise AssertionError(f"processes of group {group} still alive 30 s after SIGKILL")


def test_a_batch_killed_with_sigkill_resumes_bit_for_bit(tmp_path: Path) -> None:
    config = _config(tmp_path, games_to_play=100_000, saving_rate=4)
    runs_dir = tmp_path / "runs"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardlab", "train", "c4-qlearning", "new", str(config), "--agents", "2", "--workers", "2",
         "--runs-dir", str(runs_dir)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True,
    )
    runs = [Run(runs_dir / "cfg-1"), Run(runs_dir / "cfg-2")]
    try:
        deadline = time.monotonic() + 300  # a loaded machine: the pool's workers import torch first
        while not all(run.checkpoint.exists() for run in runs):
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "no checkpoints within 300 s"
            time.sleep(0.02)
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # the trainer only: its pool's workers must notice and stop by themselves
        proc.wait()
    try:
        _wait_until_gone(proc.pid)  # else they would race the resumed runs (the runs' locks would refuse them)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    for run in runs:
        played = run.games_played()
        assert 4 <= played < 100_000 and played % 4 == 0
        goal = played + 3
        resumed = train_run(run, stop_after=goal)
        # the same seed trained straight through, never killed
        straight_dir = tmp_path / "straight" / run.name
        straight_dir.mkdir(parents=True)
        (straight_dir / "config.json").write_bytes(run.config_file.read_bytes())
        straight = train_run(Run(straight_dir), stop_after=goal)
        assert resumed.games_played == straight.games_played == goal
        assert all(torch.equal(a, b) for a, b in zip(_weights(resumed), _weights(straight)))
        assert resumed.rng.bit_generator.state == straight.rng.bit_generator.state
