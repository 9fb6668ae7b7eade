"""The Dice Wars win-probability network: its data split, training recipe, forecast scores and baselines."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from boardlab.bots.dicewars import network
from boardlab.cli import app
from boardlab.core.errors import BoardlabError, FormatError
from boardlab.core.registry import make
from boardlab.studies.dicewars import winprob_baselines as baselines
from boardlab.studies.dicewars import winprob_metrics as metrics
from boardlab.studies.dicewars.winprob_data import generate
from boardlab.studies.dicewars.winprob_study import prepared, split
from boardlab.studies.dicewars.winprob_training import AreaShuffle

runner = CliRunner()


@pytest.fixture(scope="module")
def rows():
    data = generate(boards=3, seed=5)
    data["winner"][0] = -1  # as a cancelled game would be
    return data, prepared(data)


def test_boards_become_552_inputs_and_a_winner_and_cancelled_games_are_left_out(rows):
    data, r = rows
    over = (data["owner"] == data["owner"][:, :1]).all(axis=1)  # a game's last board: one owner, nothing to forecast
    kept = (data["game"] != 0) & ~over
    assert r["x"].shape == (kept.sum(), 552) and r["x"].dtype == np.float32
    assert 0 not in set(r["game"].tolist()) and r["cancelled"] == 1
    assert set(r["y"].tolist()) <= {0, 1, 2, 3}
    assert (r["y"] == data["winner"][r["game"]]).all()
    assert set(r["alive"].tolist()) <= {1, 2, 3, 4} and (r["alive"][:1] == 4).all()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_the_split_by_game_never_shares_a_game_nor_a_board_s_rotations_between_sides(rows, seed):
    _, r = rows
    parts = split(r, "game", 0.3, 0.3, seed)
    assert sum(len(v) for v in parts.values()) == len(r["y"])
    for a, b in (("train", "test"), ("train", "validation"), ("validation", "test")):
        assert not set(r["game"][parts[a]].tolist()) & set(r["game"][parts[b]].tolist())
        assert not set(r["group"][parts[a]].tolist()) & set(r["group"][parts[b]].tolist())


def test_the_study_s_split_by_board_puts_one_game_on_both_sides(rows):
    _, r = rows
    parts = split(r, "board", 0.2, 0.1, 0)
    assert set(r["game"][parts["train"]].tolist()) & set(r["game"][parts["test"]].tolist())
    with pytest.raises(BoardlabError, match="--split"):
        split(r, "seat", 0.2, 0.1, 0)


def test_calibration_figures_on_hand_made_forecasts():
    y = np.array([0, 1, 2, 3] * 5)
    even = np.full((20, 4), 0.25)  # a quarter each, and each seat wins a quarter of the time: perfectly calibrated
    assert metrics.ece(even, y) == pytest.approx(0.0, abs=1e-12)
    assert metrics.log_loss(even, y) == pytest.approx(np.log(4))
    assert metrics.brier(even, y) == pytest.approx(0.75)
    sure = np.tile([1.0, 0.0, 0.0, 0.0], (20, 1))
    wrong = np.full(20, 1)
    # seat 0 always "certain" and never winning: bin 1.0 (a quarter of the pairs) is off by 1, bin 0.0
    # (three quarters) forecasts 0 where a third of its seats won
    assert metrics.ece(sure, wrong) == pytest.approx(0.25 * 1 + 0.75 * (1 / 3))
    assert metrics.brier(sure, wrong) == pytest.approx(2.0) and metrics.accuracy(sure, wrong) == 0.0
    assert metrics.log_loss(sure, np.zeros(20, dtype=int)) == pytest.approx(0.0, abs=1e-12)
    assert metrics.by_phase(even, y, np.array([0] * 8 + [1] * 12), {0: "a", 1: "b"})["b"]["boards"] == 12
    with pytest.raises(BoardlabError, match="winner"):
        metrics.scores(even, np.full(20, 4))


def test_largest_regions_and_dice_come_from_the_game_s_map():
    # a line 0 - 1 - 2 - 3 - 4 as upper-triangle bits of a 5-area map
    adjacency = np.zeros((5, 5), dtype=np.int8)
    for a in range(4):
        adjacency[a, a + 1] = 1
    bits = adjacency[np.triu_indices(5, k=1)][None, :]
    owner = np.array([[0, 0, 1, 0, 0], [0, 0, 0, 0, 1]])
    dice = np.array([[1, 2, 3, 4, 5], [1, 1, 1, 1, 8]])
    region, per = baselines.regions_and_dice(owner, dice, np.array([0, 0]), bits, players=2)
    assert region.tolist() == [[2, 1], [4, 1]]
    assert per.tolist() == [[12, 3], [4, 8]]


def test_the_share_baseline_learns_that_a_bigger_region_wins():
    rng = np.random.default_rng(0)
    region = rng.integers(1, 10, size=(400, 4))
    dice = rng.integers(1, 30, size=(400, 4))
    winner = region.argmax(axis=1)
    weights = baselines.fit_all(region, dice, winner, areas=29)
    assert weights["share"][0] > 0
    p = baselines.predict_all(weights, region, dice, 29)
    for name in ("share", "wpm"):
        assert np.allclose(p[name].sum(axis=1), 1.0)
        assert metrics.accuracy(p[name], winner) > 0.8
    dead = region.copy()
    dead[:, 3] = 0
    assert (baselines.predict_all(weights, dead, dice, 29)["share"][:, 3] == 0).all()


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("winprob")
    out = folder / "tiny.pt"
    result = runner.invoke(app, ["train", "dicewars-winprob", "--boards", "3", "--hidden", "16", "--max-epochs", "2",
                                 "--out", str(out), "--data", str(folder / "data.npz"), "--json"])
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


def test_a_tiny_training_run_writes_a_model_whose_forecasts_sum_to_one(tiny_model):
    out, summary = tiny_model
    assert summary["split"] == "game" and summary["test_games_also_in_training"] == 0
    assert set(summary["test"]) == {"net", "wpm", "share", "wpm-course"}
    net = summary["test"]["net"]
    assert net["all"]["boards"] == summary["sizes"]["test"]["boards"] > 0
    assert sum(row.get("boards", 0) for row in net["alive"].values()) == net["all"]["boards"]
    assert json.loads(out.with_name("tiny.metrics.json").read_text())["test"]["net"]["all"] == net["all"]
    assert out.with_name("tiny.reliability.png").read_bytes()[:4] == b"\x89PNG"
    model, config, extra = network.load(out)
    assert config.hidden == 16 and extra["split"] == "game"
    data = np.load(out.with_name("data.npz"))
    x = prepared({k: data[k] for k in data.files})["x"][:50]
    p = network.probabilities(model, x)
    assert p.shape == (50, 4) and np.allclose(p.sum(axis=1), 1.0) and (p > 0).all()
    # the same --data with other settings is refused rather than silently reused
    result = runner.invoke(app, ["train", "dicewars-winprob", "--boards", "4", "--out", str(out.with_name("b.pt")),
                                 "--data", str(out.with_name("data.npz"))])
    assert result.exit_code == 2 and "--boards 3" in result.output


def test_a_missing_or_foreign_model_is_one_clear_error(tmp_path):
    with pytest.raises(BoardlabError, match="no Dice Wars win-probability network"):
        network.load(tmp_path / "none.pt")
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(FormatError, match="junk.pt: not a readable PyTorch checkpoint"):
        network.load(junk)
    other = tmp_path / "other.pt"
    torch.save({"format": "boardlab-ttr-net/1"}, other)
    with pytest.raises(FormatError, match="not a Dice Wars win-probability network"):
        network.load(other)


def test_renumbering_the_areas_gives_the_inputs_of_the_same_board_on_a_renumbered_map():
    from boardlab.bots.dicewars.features import adjacency_bits, features

    state = make("dicewars").new_initial_state(3)
    one = features(adjacency_bits(state.adjacent), np.array([state.owner]), np.array([state.dice]), np.array([7]))
    shuffle = AreaShuffle(29, 4, seed=0)
    out = shuffle(torch.from_numpy(np.repeat(one, 3, axis=0))).numpy()
    perm = torch.argsort(torch.rand(3, 29, generator=torch.Generator().manual_seed(0)), dim=1).numpy()
    for row, p in zip(out, perm):  # new area i is old area p[i]
        new = np.argsort(p)
        adjacent = [[int(new[b]) for b in state.adjacent[p[i]]] for i in range(29)]
        expected = features(adjacency_bits(adjacent), np.array([[state.owner[a] for a in p]]),
                            np.array([[state.dice[a] for a in p]]), np.array([7]))
        assert np.array_equal(row, expected[0])
    assert not np.array_equal(out[0], one[0])


def test_evaluate_gives_the_training_s_held_out_figures_again(tiny_model):
    out, summary = tiny_model
    result = runner.invoke(app, ["evaluate", str(out), "--data", str(out.with_name("data.npz")), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["sizes"] == summary["sizes"]
    assert report["test"]["net"]["all"] == pytest.approx(summary["test"]["net"]["all"])
    assert report["test"]["share"]["all"] == pytest.approx(summary["test"]["share"]["all"])


def test_the_regions_network_counts_a_hand_made_board_s_regions_borders_and_dice():
    from boardlab.bots.dicewars.features import features

    # a line 0 - 1 - 2 - 3 - 4: seat 0 holds 0, 1, 3, 4 (two regions of 2), seat 1 holds 2
    adjacency = np.zeros((5, 5), dtype=np.float32)
    for a in range(4):
        adjacency[a, a + 1] = 1
    x = features(adjacency[np.triu_indices(5, k=1)], np.array([[0, 0, 1, 0, 0]]), np.array([[1, 2, 3, 4, 6]]),
                 np.array([0]), players=2)
    net = network.build(network.NetConfig(areas=5, players=2, arch="regions", hidden=4))
    counts = dict(zip(network.SEAT_COUNTS, net.seat_counts(torch.from_numpy(x))[0].T.tolist()))
    assert counts["largest region / areas"] == pytest.approx([2 / 5, 1 / 5])
    assert counts["areas / areas"] == pytest.approx([4 / 5, 1 / 5])
    assert counts["dice / all dice"] == pytest.approx([13 / 16, 3 / 16])
    assert counts["border areas / areas"] == pytest.approx([2 / 5, 1 / 5])  # areas 1 and 3 touch seat 1
    assert counts["border dice / all dice"] == pytest.approx([6 / 16, 3 / 16])
    assert counts["regions / areas"] == pytest.approx([2 / 5, 1 / 5])
    assert counts["alive"] == [1.0, 1.0]


def test_the_regions_network_finds_the_largest_regions_the_baselines_find_on_real_boards(rows):
    data, r = rows
    net = network.build(network.NetConfig(arch="regions", hidden=8))
    counts = net.seat_counts(torch.from_numpy(r["x"][:400])).numpy()
    region, dice = baselines.regions_and_dice(r["owner"][:400], r["dice"][:400], r["game"][:400], data["adjacency"])
    assert np.allclose(counts[:, :, 0] * 29, region)
    assert np.allclose(counts[:, :, 2], dice / dice.sum(axis=1, keepdims=True))
    assert np.array_equal(counts[:, :, 7] > 0, region > 0)


def test_the_regions_network_does_not_care_how_the_areas_are_numbered_and_a_dead_seat_cannot_win(rows):
    _, r = rows
    net = network.build(network.NetConfig(arch="regions", hidden=8, dropout=0.0)).eval()
    x = torch.from_numpy(r["x"][-200:])
    shuffled = AreaShuffle(29, 4, seed=3)(x)
    assert not torch.equal(shuffled, x)
    with torch.inference_mode():
        assert torch.allclose(net(shuffled), net(x), atol=1e-5)
    p = network.probabilities(net, r["x"][-200:])
    dead = ~(r["x"][-200:, 406:406 + 116].reshape(-1, 29, 4).any(axis=1))
    assert dead.any() and (p[dead] < 1e-12).all() and np.allclose(p.sum(axis=1), 1.0)


def test_both_architectures_train_and_a_study_only_option_is_refused_for_regions(tmp_path, tiny_model):
    out, summary = tiny_model
    assert summary["config"]["arch"] == "regions" and "--arch regions" in summary["command"]
    assert set(summary["test_gap"]) == {"wpm", "share", "wpm-course"}
    gap = summary["test_gap"]["share"]
    assert gap["low"] - 1e-9 <= gap["gap"] <= gap["high"] + 1e-9
    data = str(out.with_name("data.npz"))
    result = runner.invoke(app, ["train", "dicewars-winprob", "--boards", "3", "--arch", "study", "--hidden", "8", "--max-epochs", "1",
                                 "--out", str(tmp_path / "study.pt"), "--data", data, "--json"])
    assert result.exit_code == 0, result.output
    _, config, _ = network.load(tmp_path / "study.pt")
    assert config.arch == "study" and config.hidden == 8 and config.dropout == 0.4
    for extra, words in ((["--permute-areas"], "permute_areas is for arch study"), (["--arch", "graph"], "--arch must be one of")):
        result = runner.invoke(app, ["train", "dicewars-winprob", "--boards", "3", "--out", str(tmp_path / "x.pt"), "--data", data, *extra])
        assert result.exit_code == 2 and words in result.output, result.output
    assert not (tmp_path / "x.pt").exists()


def test_a_model_file_from_before_the_architectures_loads_as_the_study_network(tmp_path):
    config = network.NetConfig(hidden=8)
    path = network.save(tmp_path / "old.pt", network.build(config), config)
    payload = torch.load(path, weights_only=True)
    del payload["config"]["arch"]  # as models written before --arch existed
    torch.save(payload, path)
    model, loaded, _ = network.load(path)
    assert loaded.arch == "study" and isinstance(model, network.WinProbNet)


@pytest.mark.parametrize("change, named", [
    ({"hidden": 0}, "'hidden'"),
    ({"dropout": True}, "'dropout'"),
    ({"arch": "graph"}, "'arch'"),
    ({"width": 3}, "unknown key 'width'"),
    ({"arch": "regions", "permute_areas": True}, "permute_areas is for arch study"),
])
def test_a_model_file_with_a_bad_config_names_the_file_and_the_key(tmp_path, change, named):
    config = network.NetConfig(hidden=8)
    path = network.save(tmp_path / "bad.pt", network.build(config), config)
    payload = torch.load(path, weights_only=True)
    payload["config"].update(change)
    torch.save(payload, path)
    with pytest.raises(FormatError) as caught:
        network.load(path)
    assert str(caught.value).startswith(f"{path}: ") and named in str(caught.value)


def test_the_committed_models_load():
    from boardlab.bots.dicewars.emm_net import DEFAULT_MODEL

    for path in (DEFAULT_MODEL, DEFAULT_MODEL.with_name("dicewars-winprob-study.pt")):
        model, config, _ = network.load(path)
        assert isinstance(model, network.RegionNet if config.arch == "regions" else network.WinProbNet)


def test_the_log_loss_gap_moves_whole_games_and_has_the_right_sign():
    y = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    groups = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    even = np.full((8, 4), 0.25)
    sharp = np.full((8, 4), 0.1)
    sharp[np.arange(8), y] = 0.7
    same = metrics.log_loss_gap(even, even, y, groups)
    assert same["gap"] == same["low"] == same["high"] == 0.0 and same["groups"] == 4
    better = metrics.log_loss_gap(sharp, even, y, groups)
    assert better["gap"] == pytest.approx(np.log(0.25) - np.log(0.7)) and better["high"] < 0
    with pytest.raises(BoardlabError, match="one group per board"):
        metrics.log_loss_gap(sharp, even, y, groups[:3])
