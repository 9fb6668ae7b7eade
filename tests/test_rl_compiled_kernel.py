"""The compiled Q-learning kernel ("kernel": "compiled") against the NumPy one it must reproduce.

Small boards (4x5, three in a row) keep these fast; numba compiles the kernel once
(cached on disk afterwards).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from boardlab.bots.connect4.network import view_of, views_from_boards
from boardlab.bots.connect4.qnet_files import QConfig, config_from_dict
from boardlab.cli import app
from boardlab.core.errors import BoardlabError, FormatError
from boardlab.studies.c4rl.kernel import CompiledSelfPlay
from boardlab.studies.c4rl.training import Learner, boltzmann_probabilities, new_runs, train_run, training_samples

SMALL = {
    "board": {"rows": 4, "cols": 5}, "needed_to_win": 3, "games_to_play": 40, "saving_rate": 10,
    "learning_rate": 0.05, "discount_factor": 1, "estimated_optimal_future_value": "best_known",
    "boltzmann_temperature": 1, "rewards": {"win": 2, "loss": -2, "tie": 0, "each_move": -0.01},
    "neural_storage": {"hidden_neurons": 12}, "seed": 5, "kernel": "compiled",
}
ENCODINGS = [("study", (12,), 0.05), ("study", (9, 6), 0.05), ("planes", (16,), 0.01), ("planes", (10, 6), 0.01)]


def _config(**changes) -> dict:
    data = json.loads(json.dumps(SMALL))
    data.update(changes)
    return data


def _write(tmp_path: Path, data: dict, name: str = "small.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _random_views(game, rng: np.random.Generator, count: int) -> np.ndarray:
    """Views of positions reached by random moves (both players' stones, some columns full)."""
    own, other = [], []
    for _ in range(count):
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, game.rows * game.cols - 2))):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        own.append(state.boards[0])
        other.append(state.boards[1])
    return views_from_boards(own, other, game.rows, game.cols)


@pytest.mark.parametrize("encoding, hidden, lr", ENCODINGS)
def test_compiled_values_equal_the_numpy_and_torch_ones(encoding: str, hidden, lr) -> None:
    cfg = QConfig(rows=4, cols=5, needed_to_win=3, encoding=encoding, hidden=hidden, seed=2)
    learner = Learner.new(cfg)
    views = _random_views(cfg.game(), np.random.default_rng(0), 40)
    compiled = CompiledSelfPlay(cfg.game(), learner.net).values(views)
    with torch.no_grad():
        expected = learner.net.all_values(torch.from_numpy(views)).numpy()
    assert np.allclose(compiled, learner.q()(views), atol=1e-5)
    assert np.allclose(compiled, expected, atol=1e-5)


@pytest.mark.parametrize("encoding, hidden, lr", ENCODINGS)
def test_compiled_sgd_step_equals_the_numpy_one_with_its_mirror(encoding: str, hidden, lr) -> None:
    cfg = QConfig(rows=4, cols=5, needed_to_win=3, encoding=encoding, hidden=hidden, learning_rate=lr, seed=3)
    a, b = Learner.new(cfg), Learner.new(cfg)
    state = cfg.game().state_from_moves("3342")
    samples, _ = training_samples(cfg, a.q(), state, 1)
    assert len(samples) == 2  # the move and its mirror
    a.train_on(samples)
    CompiledSelfPlay(cfg.game(), b.net).sgd_step(np.stack([s.view for s in samples]), [s.action for s in samples],
                                                 samples[0].target, lr)
    for (name, x), y in zip(a.net.state_dict().items(), b.net.state_dict().values()):
        assert torch.allclose(x, y, atol=1e-6), name
    assert any(not torch.equal(x, y) for x, y in zip(b.net.state_dict().values(), Learner.new(cfg).net.state_dict().values()))


def _numpy_games_with_uniforms(learner: Learner, uniforms: np.ndarray) -> list[int]:
    """The NumPy kernel's games, its Boltzmann choice reading the given uniforms as the compiled kernel does."""
    game = learner.cfg.game()
    winners = []
    for row in uniforms:
        draws = iter(row)

        def choose(state, draws=draws) -> int:
            legal = state.legal_actions()
            values = learner.q()(view_of(state, state.current_player())[None])[0][legal]
            cdf = np.cumsum(boltzmann_probabilities(values, learner.cfg.temperature))
            return legal[int(np.searchsorted(cdf / cdf[-1], next(draws), side="right"))]

        learner.choose = choose  # type: ignore[method-assign]
        winners.append(learner.self_play_game(game))
    return winners


@pytest.mark.parametrize("encoding, hidden, lr, method, terminal", [
    ("study", (12,), 0.05, "best_known", "reward"),
    ("study", (12,), 0.05, "mean", "zero"),
    ("planes", (16,), 0.01, "best_known", "zero"),
    ("planes", (10, 6), 0.01, "mean", "reward"),
])
def test_compiled_games_train_as_the_numpy_kernel_does(encoding, hidden, lr, method, terminal) -> None:
    """Given the same uniforms, whole games (choices, targets, future values, mirrors, rewards) match."""
    data = _config(learning_rate=lr, estimated_optimal_future_value=method, terminal_reply_value=terminal)
    data["neural_storage"] = {"hidden_neurons": list(hidden), "encoding": encoding}
    data["rewards"]["tie"] = 0.5  # every reward distinct, so a wrong one shows
    cfg = config_from_dict(data)
    numpy_learner, compiled = Learner.new(cfg), Learner.new(cfg)
    uniforms = np.random.default_rng(9).random((6, cfg.rows * cfg.cols))
    expected = _numpy_games_with_uniforms(numpy_learner, uniforms)
    winners, done, diverged = CompiledSelfPlay(cfg.game(), compiled.net).play(cfg, uniforms)
    assert (done, diverged) == (6, False) and list(winners) == expected
    for (name, x), y in zip(numpy_learner.net.state_dict().items(), compiled.net.state_dict().values()):
        assert torch.allclose(x, y, atol=1e-5), name


@pytest.mark.parametrize("encoding", ["study", "planes"])
def test_compiled_resume_is_bit_for_bit(tmp_path: Path, encoding: str) -> None:
    data = _config(estimated_optimal_future_value="mean" if encoding == "planes" else "best_known")
    data["neural_storage"]["encoding"] = encoding
    config = _write(tmp_path, data)
    straight, interrupted = (run for run, _ in new_runs(config, tmp_path / "runs", agents=1) + new_runs(config, tmp_path / "runs"))
    a = train_run(straight)
    assert train_run(interrupted, stop_after=20).games_played == 20
    b = train_run(interrupted)  # a fresh Learner from the checkpoint, as after a kill
    assert a.games_played == b.games_played == 40
    for (name, x), y in zip(a.net.state_dict().items(), b.net.state_dict().values()):
        assert torch.equal(x, y), name
    assert a.rng.bit_generator.state == b.rng.bit_generator.state
    assert [g for g, _ in straight.snapshots()] == [10, 20, 30, 40]
    assert sum(s["first_wins"] + s["second_wins"] + s["ties"] for s in a.stats) == 40
    assert json.loads(torch.load(straight.checkpoint, weights_only=True)["config"])["kernel"] == "compiled"


def test_resuming_with_another_kernel_names_both(tmp_path: Path) -> None:
    config = _write(tmp_path, _config(games_to_play=10))
    run, _ = new_runs(config, tmp_path / "runs")[0]
    train_run(run, stop_after=5)
    with pytest.raises(BoardlabError, match="'compiled' kernel.*checkpoint.*--kernel 'numpy'"):
        train_run(run, kernel="numpy")
    result = CliRunner().invoke(app, ["train", "c4-qlearning", "resume", run.name, "--runs-dir", str(tmp_path / "runs"),
                                      "--kernel", "numpy"])
    assert result.exit_code == 2 and "'compiled' kernel" in result.stderr and "'numpy'" in result.stderr
    assert train_run(run, kernel="compiled").games_played == 10


def test_unknown_kernel_names_the_key_the_file_and_the_choices(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"small.json: 'kernel': Input should be 'numpy' or 'compiled' \(got 'cuda'\)"):
        from boardlab.bots.connect4.qnet_files import load_config

        load_config(_write(tmp_path, _config(kernel="cuda")))
    result = CliRunner().invoke(app, ["train", "c4-qlearning", "new", str(_write(tmp_path, _config())), "--kernel", "fast",
                                      "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 2 and "--kernel must be one of numpy, compiled, not 'fast'" in result.stderr
    assert not (tmp_path / "runs").exists()  # refused before a run folder is made


def test_cli_kernel_overrides_the_config_and_two_agents_differ(tmp_path: Path) -> None:
    data = _config(games_to_play=20)
    del data["kernel"]  # the config says numpy (the default); --kernel compiled wins
    result = CliRunner().invoke(app, ["train", "c4-qlearning", "new", str(_write(tmp_path, data)), "--agents", "2", "--kernel", "compiled",
                                      "--runs-dir", str(tmp_path / "runs"), "--json"])
    assert result.exit_code == 0, result.output
    runs = [Path(r["path"]) for r in json.loads(result.stdout)]
    assert [json.loads((p / "config.json").read_text())["kernel"] for p in runs] == ["compiled", "compiled"]
    first, second = (Learner.load(p / "checkpoint.pt") for p in runs)
    assert first.games_played == second.games_played == 20
    assert any(not torch.equal(x, y) for x, y in zip(first.net.state_dict().values(), second.net.state_dict().values()))


def test_divergence_in_the_compiled_kernel_is_a_clear_error(tmp_path: Path) -> None:
    from boardlab.studies.c4rl.training import TrainingDiverged

    run, _ = new_runs(_write(tmp_path, _config(learning_rate=1000.0, games_to_play=200, saving_rate=1)), tmp_path / "runs")[0]
    with pytest.raises(TrainingDiverged, match="diverged.*learning_rate 1000.0 is too large"):
        train_run(run)
    saved = torch.load(run.checkpoint, weights_only=True) if run.checkpoint.exists() else None
    assert saved is None or all(torch.isfinite(v).all() for v in saved["model"].values())


def test_compiled_training_beats_random_more_often() -> None:
    """3000 compiled self-play games on 4x5, k=3 lift the greedy player's wins against random.

    Seeded. Measured: 72.0 % before, 89.8 % after (300 games per seat). Each figure's
    standard error is about 2 points, so a 10-point margin is not luck; it leaves room
    for another CPU's float rounding to take the training elsewhere (other seeds on
    4x4 ended 72-78 % from 54-64 %, as the NumPy kernel's did).
    """
    from boardlab.studies.c4rl.ranking import play_vs_random

    data = _config(games_to_play=3000, saving_rate=3000, seed=0, learning_rate=0.01)
    data["neural_storage"] = {"hidden_neurons": 32, "encoding": "planes"}
    learner = Learner.new(config_from_dict(data))
    game = learner.cfg.game()

    def win_percent() -> float:
        q = learner.q()
        return (play_vs_random(q, game, 300, 0, seed=11)["wins"] + play_vs_random(q, game, 300, 1, seed=12)["wins"]) / 6

    before = win_percent()
    learner.self_play_games(game, 3000)
    after = win_percent()
    print(f"before {before:.1f} %, after {after:.1f} %")
    assert after >= before + 10, (before, after)


def test_stages_take_the_kernel_and_keep_it(tmp_path: Path) -> None:
    from boardlab.studies.c4rl.stages import PRESETS

    assert PRESETS["study"]["kernel"] == "compiled" and "kernel" not in PRESETS["fast"]
    args = ["experiment", "c4-stages", "--scale", "fast", "--stages", "1", "--agents", "1", "--stage-one-games", "2,4",
            "--eval-games", "2", "--out", str(tmp_path)]
    result = CliRunner().invoke(app, [*args, "--kernel", "compiled", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["base"]["kernel"] == "compiled"
    config = json.loads((tmp_path / "runs" / "stage_one_mean-1" / "config.json").read_text())
    assert config["kernel"] == "compiled"
    run = tmp_path / "runs" / "stage_one_mean-1"
    (run / "checkpoint.pt").write_bytes((run / "snapshots" / "games-2.pt").read_bytes())  # as if killed after 2 games
    result = CliRunner().invoke(app, [*args, "--kernel", "numpy"])  # an unfinished run, resumed with the other kernel
    assert result.exit_code == 2 and "'compiled' kernel" in result.stderr and "'numpy'" in result.stderr
