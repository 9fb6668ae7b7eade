"""Self-play Q-learning: configs, training targets, checkpoints and bit-for-bit resume."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from boardlab.bots.connect4.network import is_own_mirror_view, make_qnet, mirror_view, q_function, view_of, views_from_boards
from boardlab.bots.connect4.qnet_files import QConfig, config_from_dict, load_config, read_checkpoint
from boardlab.core.errors import BoardlabError, FormatError
from boardlab.core.registry import make
from boardlab.studies.c4rl.training import Learner, boltzmann_probabilities, future_value, new_run, train_run, training_samples

STUDY_CONFIG = {  # listing 6.1 of the study
    "board": {"rows": 6, "cols": 7},
    "needed_to_win": 4,
    "games_to_play": 5000,
    "saving_rate": 1000,
    "learning_rate": 0.05,
    "discount_factor": 1,
    "estimated_optimal_future_value": "best_known",
    "boltzmann_temperature": 1,
    "rewards": {"win": 2, "loss": -2, "tie": 0, "each_move": -0.01},
    "neural_storage": {"hidden_neurons": 50},
}


def tiny_config(**changes) -> dict:
    data = json.loads(json.dumps(STUDY_CONFIG))
    data.update({"board": {"rows": 4, "cols": 4}, "needed_to_win": 3, "games_to_play": 30, "saving_rate": 5, "seed": 7})
    data["neural_storage"] = {"hidden_neurons": 16}
    data.update(changes)
    return data


# --- configs -------------------------------------------------------------------


def test_study_config_loads_with_its_values(tmp_path: Path) -> None:
    path = tmp_path / "stage.json"
    path.write_text(json.dumps(STUDY_CONFIG))
    cfg = load_config(path)
    assert (cfg.rows, cfg.cols, cfg.needed_to_win) == (6, 7, 4)
    assert cfg.future_value == "best_known" and cfg.hidden == (50,) and cfg.encoding == "study"
    assert (cfg.reward_win, cfg.reward_loss, cfg.reward_tie, cfg.reward_move) == (2, -2, 0, -0.01)
    assert config_from_dict(cfg.to_json_dict()) == cfg  # round trip


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda d: d.update(bonus=1), ["'bonus'"]),
        (lambda d: d["rewards"].update(draw=0), ["'rewards.draw'"]),
        (lambda d: d.pop("learning_rate"), ["missing", "'learning_rate'"]),
        (lambda d: d.update(games_to_play="many"), ["'games_to_play'"]),
        (lambda d: d.update(estimated_optimal_future_value="max"), ["'estimated_optimal_future_value'", "best_known"]),
        (lambda d: d.update(discount_factor=1.5), ["'discount_factor'"]),
        (lambda d: d["neural_storage"].update(encoding="pixels"), ["'neural_storage.encoding'"]),
        (lambda d: d["neural_storage"].update(hidden_neurons=0), ["'neural_storage.hidden_neurons'"]),
    ],
)
def test_bad_config_names_the_key_and_the_file(tmp_path: Path, change, words) -> None:
    data = json.loads(json.dumps(STUDY_CONFIG))
    change(data)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    with pytest.raises(FormatError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message
    for word in words:
        assert word in message


def test_config_that_is_not_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"board":\n  oops}')
    with pytest.raises(FormatError, match=r"x.json: not JSON \(line 2"):
        load_config(path)


# --- views, mirror and perspective ----------------------------------------------

GRID_6x7 = [
    ".......",
    ".......",
    ".......",
    ".......",
    "...O...",
    ".XXO...",
]  # X to move? X 2, O 2 -> X to move; we make O the mover below


def test_view_swaps_stones_for_the_second_player() -> None:
    game = make("connect4")
    state = game.state_from_grid(GRID_6x7, to_move=1)  # O to move
    view = view_of(state, 1)
    # plane 0: the mover's (O's) stones; plane 1: X's; row 0 is the top
    assert view[0, 4, 3] == 1 and view[0, 5, 3] == 1 and view[0].sum() == 2
    assert view[1, 5, 1] == 1 and view[1, 5, 2] == 1 and view[1].sum() == 2
    # ... which is the first player's view of the study's switch_players() board
    swapped = state.switch_players()
    assert np.array_equal(view, view_of(swapped, 0))


def test_mirror_view_matches_the_state_mirror() -> None:
    game = make("connect4")
    state = game.state_from_moves("4436")
    assert np.array_equal(mirror_view(view_of(state, 0)), view_of(state.mirror(), 0))
    assert is_own_mirror_view(view_of(game.state_from_moves("44"), 0)) == game.state_from_moves("44").is_own_mirror()
    assert not is_own_mirror_view(view_of(state, 0)) and not state.is_own_mirror()


def _zero_q(views: np.ndarray) -> np.ndarray:
    return np.zeros((len(views), views.shape[-1]))


def test_update_trains_the_move_and_its_mirror_from_the_movers_view() -> None:
    cfg = QConfig()
    game = cfg.game()
    state = game.state_from_grid(GRID_6x7, to_move=1)  # O to move
    samples, after = training_samples(cfg, _zero_q, state, 4)  # O plays column 5 (index 4)
    assert after.history == [4]
    assert len(samples) == 2
    original, mirrored = samples
    # the stones are swapped (O sees itself as the first player) and the action kept
    assert np.array_equal(original.view, view_of(state.switch_players(), 0))
    assert original.action == 4
    # the mirror: reflected board, reflected action, same target
    reflected = state.switch_players().mirror()
    assert np.array_equal(mirrored.view, view_of(reflected, 0))
    assert mirrored.action == 7 - 1 - 4
    assert original.target == mirrored.target == pytest.approx(cfg.reward_move)  # zero Q: reward only


def test_a_symmetric_position_trains_only_once() -> None:
    cfg = QConfig()
    state = cfg.game().state_from_moves("44")
    samples, _ = training_samples(cfg, _zero_q, state, 0)
    assert len(samples) == 1


def test_winning_move_target_is_the_win_reward() -> None:
    cfg = QConfig(reward_win=3.0)
    game = cfg.game()
    state = game.state_from_grid([".......", ".......", ".......", "O......", "O......", "OXXX..."], to_move=0)
    samples, after = training_samples(cfg, lambda v: np.full((len(v), 7), 9.0), state, 4)
    assert after.winner == 0
    assert samples[0].target == 3.0  # a terminal position has no future value


# A hand-made 4x4, k=3 position (row 0 at the top). O (player 1, the learner here)
# plays column 4; then X can win at once in column 1 (vertical three).
GRID_4x4 = [
    "....",
    "....",
    "X...",
    "XOOX",
]
CONSTANT_Q = np.array([0.1, 0.5, -0.3, 0.2])


def _constant_q(views: np.ndarray) -> np.ndarray:
    return np.tile(CONSTANT_Q, (len(views), 1))


def _position():
    game = make("connect4", rows=4, cols=4, k=3)
    state = game.state_from_grid(GRID_4x4)
    assert state.current_player() == 1
    after = state.clone()
    after.apply_action(3)
    assert not after.is_terminal()
    return after


def test_best_known_future_value_follows_the_opponents_best_reply() -> None:
    after = _position()
    cfg = QConfig(rows=4, cols=4, needed_to_win=3, future_value="best_known")
    # X's best reply by Q is column 2 (0.5): no win; then O's best value is 0.5
    assert future_value(cfg, _constant_q, after, 1) == pytest.approx(0.5)


def test_mean_future_value_averages_every_reply_including_the_loss() -> None:
    after = _position()
    cfg = QConfig(rows=4, cols=4, needed_to_win=3, future_value="mean")
    # replies: column 1 wins for X (loss, -2); columns 2, 3, 4 leave O a best value of 0.5
    assert future_value(cfg, _constant_q, after, 1) == pytest.approx((-2 + 3 * 0.5) / 4)
    study = QConfig(rows=4, cols=4, needed_to_win=3, future_value="mean", terminal_reply_value="zero")
    assert future_value(study, _constant_q, after, 1) == pytest.approx((0 + 3 * 0.5) / 4)


def test_targets_add_reward_and_discounted_future_value() -> None:
    game = make("connect4", rows=4, cols=4, k=3)
    state = game.state_from_grid(GRID_4x4)
    for method, fv in (("best_known", 0.5), ("mean", -0.125)):
        cfg = QConfig(rows=4, cols=4, needed_to_win=3, future_value=method, discount_factor=0.5)
        samples, _ = training_samples(cfg, _constant_q, state, 3)
        assert samples[0].target == pytest.approx(-0.01 + 0.5 * fv)


def test_opponent_reply_is_chosen_from_the_opponents_own_view() -> None:
    # Q(view, a) = the viewer's stones minus the other's stones in column a: X (to reply)
    # must rate column 1 (two X stones) best from *its* side and win there.
    def column_q(views: np.ndarray) -> np.ndarray:
        return views[:, 0].sum(axis=1) - views[:, 1].sum(axis=1)

    after = _position()
    cfg = QConfig(rows=4, cols=4, needed_to_win=3, future_value="best_known")
    assert future_value(cfg, column_q, after, 1) == cfg.reward_loss


def test_boltzmann_probabilities_follow_the_formula() -> None:
    q = np.array([1.0, 0.0, -1.0])
    for t in (0.5, 1.0, 2.0):
        expected = np.exp(q / t) / np.exp(q / t).sum()
        assert np.allclose(boltzmann_probabilities(q, t), expected)


def test_numpy_values_equal_the_torch_forward() -> None:
    torch.manual_seed(0)
    views = views_from_boards([0b1011, 0b100000011], [0b10100, 0b1100000], 6, 7)
    for encoding in ("study", "planes"):
        net = make_qnet(encoding, 6, 7, (12, 8))
        with torch.no_grad():
            expected = net.all_values(torch.from_numpy(views)).numpy()
        assert np.allclose(q_function(net)(views), expected, atol=1e-5)


# --- training, checkpoints, resume ---------------------------------------------


def _write(tmp_path: Path, name: str, data: dict) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("encoding, method", [("study", "best_known"), ("planes", "mean")])
def test_resume_is_bit_for_bit(tmp_path: Path, encoding: str, method: str) -> None:
    data = tiny_config(estimated_optimal_future_value=method)
    data["neural_storage"]["encoding"] = encoding
    config = _write(tmp_path, "resume.json", data)
    straight, _ = new_run(config, tmp_path / "runs")
    interrupted, _ = new_run(config, tmp_path / "runs")
    assert (straight.name, interrupted.name) == ("resume-1", "resume-2")
    a = train_run(straight)
    half = train_run(interrupted, stop_after=15)
    assert half.games_played == 15
    b = train_run(interrupted)  # a fresh Learner read from the checkpoint
    assert a.games_played == b.games_played == 30
    for (name, x), (_, y) in zip(a.net.state_dict().items(), b.net.state_dict().items()):
        assert torch.equal(x, y), name
    assert a.rng.bit_generator.state == b.rng.bit_generator.state
    # and training moved the weights at all
    fresh = Learner.new(config_from_dict(data))
    assert any(not torch.equal(x, y) for x, y in zip(fresh.net.state_dict().values(), a.net.state_dict().values()))
    assert [g for g, _ in straight.snapshots()] == [5, 10, 15, 20, 25, 30]


def test_checkpoint_loads_with_weights_only(tmp_path: Path) -> None:
    run, _ = new_run(_write(tmp_path, "c.json", tiny_config(games_to_play=5)), tmp_path / "runs")
    train_run(run)
    data = torch.load(run.checkpoint, weights_only=True)
    assert data["games_played"] == 5 and set(data["rng"]) == {"numpy", "python", "torch"}


def test_corrupt_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    run, _ = new_run(_write(tmp_path, "c.json", tiny_config(games_to_play=5)), tmp_path / "runs")
    train_run(run)
    good = run.checkpoint.read_bytes()
    run.checkpoint.write_bytes(good[: len(good) // 2])
    with pytest.raises(FormatError, match="checkpoint.pt"):
        train_run(run)
    run.checkpoint.write_bytes(b"not a checkpoint at all")
    with pytest.raises(FormatError, match="checkpoint.pt"):
        read_checkpoint(run.checkpoint)
    other = tmp_path / "other.pt"
    torch.save({"format": "something-else"}, other)
    with pytest.raises(FormatError, match="other.pt"):
        read_checkpoint(other)
    with pytest.raises(BoardlabError, match="no checkpoint"):
        read_checkpoint(tmp_path / "missing.pt")


@pytest.mark.parametrize("encoding, hidden", [("study", (9,)), ("planes", (10, 6))])
def test_numpy_sgd_step_equals_torch_autograd_sgd(encoding: str, hidden) -> None:
    cfg = QConfig(encoding=encoding, hidden=hidden, learning_rate=0.05, seed=3)
    a, b = Learner.new(cfg), Learner.new(cfg)
    game = cfg.game()
    state = game.state_from_moves("4435")
    samples, _ = training_samples(cfg, a.q(), state, 1)
    assert len(samples) == 2
    loss_a = a.train_on(samples)
    loss_b = b.train_on_autograd(samples)
    assert loss_a == pytest.approx(loss_b, rel=1e-5)
    for (name, x), y in zip(a.net.state_dict().items(), b.net.state_dict().values()):
        assert torch.allclose(x, y, atol=1e-6), name
    assert any(not torch.equal(x, y) for x, y in zip(a.net.state_dict().values(), Learner.new(cfg).net.state_dict().values()))


def test_divergence_is_a_clear_error_and_keeps_the_last_checkpoint(tmp_path: Path) -> None:
    from boardlab.studies.c4rl.training import TrainingDiverged

    data = tiny_config(learning_rate=1000.0, games_to_play=200, saving_rate=1)
    run, _ = new_run(_write(tmp_path, "hot.json", data), tmp_path / "runs")
    with pytest.raises(TrainingDiverged, match="diverged.*learning_rate 1000.0 is too large"):
        train_run(run)
    saved = read_checkpoint(run.checkpoint)
    assert all(torch.isfinite(v).all() for v in saved["model"].values())
