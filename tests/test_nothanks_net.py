"""Features, a tiny training run, and checkpoint files of the No Thanks! network."""

import pickle
from dataclasses import asdict

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from test_nothanks_expert import table

from boardlab.agents.registry import make_agent
from boardlab.bots.nothanks.expert import expert_value, generate_state, generate_states
from boardlab.bots.nothanks.net_agent import NoThanksNetAgent
from boardlab.bots.nothanks.network import FEATURE_NAMES, NoThanksNet, feature_matrix, features
from boardlab.core.config import build, load
from boardlab.core.errors import BoardlabError, FormatError, SpecError
from boardlab.core.registry import make
from boardlab.studies.nothanks.training import (
    TrainConfig,
    evaluate_model,
    label,
    load_checkpoint,
    save_checkpoint,
    train,
)


@given(st.integers(0, 2**63 - 1), st.integers(3, 7))
def test_features_have_eight_values_in_unit_range(seed, players):
    state = generate_state(make("nothanks", players=players), seed)
    x = features(state)
    assert x.shape == (8,) == (len(FEATURE_NAMES),) and x.dtype == np.float32
    assert np.all(x >= 0) and np.all(x <= 1)
    assert set(x[4:7]) <= {0.0, 1.0}


def test_features_of_a_hand_made_table():
    state = table(20, 10, [7, 0, 12, 3], [[21, 5], [19], [], []])
    x = features(state)
    assert x.tolist() == pytest.approx([20 / 35, 0.5 / 2, 7 / 55, 2 / 24, 1, 1, 1, 12 / 55])
    assert features(table(20, 100, [7, 1, 1, 1])).tolist()[1] == 1.0  # pot share capped at twice the card
    assert feature_matrix(generate_states(5, 0)).shape == (5, 8)


@pytest.fixture(scope="module")
def tiny():
    return train(TrainConfig(states=300, epochs=80, patience=80, seed=3, batch_size=16, lr=3e-3))


def test_tiny_training_learns_the_expert(tiny):
    history = tiny.metrics["history"]
    assert history["train_loss"][-1] < 0.5 * history["train_loss"][0]
    assert history["validation_loss"][tiny.metrics["best_epoch"] - 1] < history["validation_loss"][0]
    assert tiny.metrics["split"] == {"fit": 216, "validation": 24, "test": 60}
    assert tiny.metrics["test"]["agreement"] > 0.8
    # far better than always answering the majority decision on fresh states
    fresh = generate_states(300, seed=99)
    report = evaluate_model(tiny.model, fresh)
    majority = max(sum(r) for r in zip(*report["confusion"])) / 300
    expert_pass = sum(report["confusion"][1]) / 300
    assert report["agreement"] > max(expert_pass, 1 - expert_pass) + 0.15
    assert sum(map(sum, report["confusion"])) == 300 and 0 < majority <= 1


def test_training_is_seeded():
    a = train(TrainConfig(states=60, epochs=5, seed=8))
    b = train(TrainConfig(states=60, epochs=5, seed=8))
    c = train(TrainConfig(states=60, epochs=5, seed=9))
    for key, value in a.model.state_dict().items():
        assert torch.equal(value, b.model.state_dict()[key])
    assert not torch.equal(a.model.state_dict()["layers.0.weight"], c.model.state_dict()["layers.0.weight"])
    assert a.metrics["history"] == b.metrics["history"]


def test_bad_training_settings_are_named():
    with pytest.raises(SpecError, match=r"training: 'test_fraction': Input should be less than 1 \(got 1.5\)"):
        build(TrainConfig, "training", SpecError, test_fraction=1.5)
    with pytest.raises(SpecError, match="config: unknown key 'layers'"):
        load(TrainConfig, {"layers": 3}, "config", SpecError)


def test_checkpoint_round_trip(tmp_path, tiny):
    path = tmp_path / "net.pt"
    save_checkpoint(path, tiny.model, tiny.config, tiny.metrics)
    model, config, summary = load_checkpoint(path)
    assert config == tiny.config
    assert summary["test"] == tiny.metrics["test"]
    x = torch.from_numpy(feature_matrix(generate_states(50, 5)))
    with torch.no_grad():
        assert torch.equal(model(x), tiny.model(x))
    # the file is a plain dict a weights-only load accepts
    assert set(torch.load(path, weights_only=True)) == {"format", "config", "state_dict", "metrics"}


def test_corrupt_or_foreign_checkpoints_give_a_clear_error(tmp_path, tiny):
    good = tmp_path / "good.pt"
    save_checkpoint(good, tiny.model, tiny.config)
    cases = {
        "garbage.pt": b"this is not a checkpoint at all",
        "truncated.pt": good.read_bytes()[: len(good.read_bytes()) // 2],
        "empty.pt": b"",
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(FormatError, match=name):
            load_checkpoint(tmp_path / name)
    torch.save({"weights": torch.zeros(3)}, tmp_path / "foreign.pt")
    with pytest.raises(FormatError, match="not a No Thanks! network checkpoint"):
        load_checkpoint(tmp_path / "foreign.pt")
    wrong = torch.load(good, weights_only=True)
    wrong["state_dict"]["layers.0.weight"] = torch.zeros(5, 5)
    torch.save(wrong, tmp_path / "wrong_shape.pt")
    with pytest.raises(FormatError, match="damaged"):
        load_checkpoint(tmp_path / "wrong_shape.pt")
    (tmp_path / "code.pt").write_bytes(pickle.dumps(NoThanksNet()))  # arbitrary pickled objects are refused
    with pytest.raises(FormatError, match="code.pt"):
        load_checkpoint(tmp_path / "code.pt")
    with pytest.raises(BoardlabError, match="no No Thanks! model"):
        load_checkpoint(tmp_path / "missing.pt")


def test_flipped_labels_teach_the_expert_read_the_other_way_round():
    states = generate_states(40, seed=5)
    assert [label(s, "flipped") for s in states] == pytest.approx([1.0 - expert_value(s) for s in states])
    result = train(TrainConfig(states=300, epochs=80, patience=80, seed=3, batch_size=16, lr=3e-3, labels="flipped"))
    assert result.config.labels == "flipped" and result.metrics["config"]["labels"] == "flipped"
    assert result.metrics["test"]["agreement"] > 0.8  # measured against the flipped reading
    # the net agent then plays the flipped expert's moves, not the study's
    fresh = generate_states(300, seed=99)
    net = NoThanksNetAgent()
    net.model = result.model
    flipped, as_written = make_agent("nothanks-expert:read=flipped"), make_agent("nothanks-expert")
    with_flipped = np.mean([net.step(s) == flipped.step(s) for s in fresh])
    with_written = np.mean([net.step(s) == as_written.step(s) for s in fresh])
    assert with_flipped > 0.85 and with_written < 0.5


def test_labels_setting_is_checked_and_old_configs_read_as_written():
    with pytest.raises(SpecError, match="'labels': Input should be 'as-written' or 'flipped' \\(got 'upside-down'\\)"):
        build(TrainConfig, "training", SpecError, labels="upside-down")
    old = {k: v for k, v in asdict(TrainConfig()).items() if k != "labels"}  # a config from before the setting
    assert load(TrainConfig, old, "config").labels == "as-written"
