"""The Ticket to Ride classifier: its features, its data (split by game), training, and the ttr-net agent."""

import json

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from boardlab.bots.tickettoride.algorithmic import TTRAlgorithmicAgent, planner_for
from boardlab.bots.tickettoride.features import (
    CARDS_CLASS,
    CLAIM_CLASS,
    FEATURE_NAMES,
    PASS_CLASS,
    TICKETS_CLASS,
    action_class,
    features,
    legal_classes,
)
from boardlab.bots.tickettoride.net import DEFAULT_MODEL, TTRNetAgent
from boardlab.bots.tickettoride.planning import prepare
from boardlab.cli.app import app
from boardlab.core.errors import BoardlabError, FormatError
from boardlab.games.tickettoride.state import (
    DRAW_DECK,
    DRAW_TICKETS,
    PASS,
    TURN,
    TicketToRide,
)
from boardlab.studies.tickettoride import training as ttr_net
from boardlab.studies.tickettoride.dataset import DataConfig, build, load, save

runner = CliRunner()


def first_turn(players=3, seed=5):
    game = TicketToRide(players=players, variant="study")
    state = game.new_initial_state(seed)
    agent = TTRAlgorithmicAgent()
    while state.phase != TURN:
        state.apply_action(agent.step(state))
    return state


def test_features_of_the_first_turn():
    state = first_turn(players=3)
    p = state.player
    plan = prepare(planner_for(state), state, p, True)
    x = dict(zip(FEATURE_NAMES, features(state, plan, 1).tolist()))
    assert len(x) == 26
    kept = [len(t) for t in state.tickets]
    assert x["turn"] == 1 and x["cards"] == 4 and x["face_up"] == 5 and x["deck"] == 110 - 3 * 4 - 5
    assert x["discards"] == 0 and x["trains"] == 45 and x["players"] == 3 and x["route_points"] == 0
    assert x["tickets"] == kept[p] and x["tickets_left"] == 30 - 9 + (9 - sum(kept))
    others = [kept[q] for q in range(3) if q != p]
    assert (x["tickets_min"], x["tickets_max"], x["tickets_mean"]) == (min(others), max(others), sum(others) / 2)
    assert x["trains_min"] == x["trains_max"] == x["trains_median"] == 45
    assert x["tickets_done"] == 0 and x["tickets_failed"] == kept[p]
    # nothing done yet: the score now is minus the tickets' points
    assert x["points"] == -sum(int(state.board.ticket_points[t]) for t in state.tickets[p])
    assert x["cards_left"] == x["deck"] + 5
    assert (x["claimable"], x["fitting"], x["target"], x["missing"]) == (
        len(plan.possible), len(plan.fitting), len(plan.goal), len(plan.missing))


def test_action_classes():
    assert [action_class(a) for a in (PASS, 0, 4, DRAW_DECK, DRAW_TICKETS, 15, 6000)] == [
        PASS_CLASS, CARDS_CLASS, CARDS_CLASS, CARDS_CLASS, TICKETS_CLASS, CLAIM_CLASS, CLAIM_CLASS]
    assert legal_classes([PASS]) == [True, False, False, False]
    assert legal_classes([0, DRAW_DECK, 200]) == [False, True, False, True]
    with pytest.raises(ValueError):
        action_class(9)  # keeping tickets never starts a turn


@pytest.fixture(scope="module")
def small():
    return build(DataConfig(games=6, selection="all", players=(2, 3), test_fraction=0.25, seed=7))


def test_dataset_is_split_by_game_and_labels_are_the_algorithms_choices(small):
    test, game = small["test"], small["game"]
    assert set(game[test]).isdisjoint(set(game[~test]))  # no game on both sides
    assert small["meta"]["games"] == 12 and small["meta"]["test_games"] == 3
    assert small["x"].shape == (len(small["y"]), 26)
    # every seat of every game: the label is the class of what the Python player does on that turn
    first = int(np.flatnonzero(small["players"] == 2)[0])
    seed = int(small["game_seed"][small["game"][first]])
    game = TicketToRide(players=2, variant="study")
    state = game.new_initial_state(seed)
    agents = [TTRAlgorithmicAgent(), TTRAlgorithmicAgent()]
    labels = []
    while not state.is_terminal():
        action = agents[state.current_player()].step(state)
        if state.phase == TURN:
            labels.append(action_class(action))
        state.apply_action(action)
    rows = small["y"][small["game"] == small["game"][first]]
    assert sorted(labels) == sorted(rows.tolist()) and len(labels) == len(rows)


def test_best_selection_keeps_the_best_player_games_above_the_threshold():
    data = build(DataConfig(games=8, selection="best", best=3, min_score=90, players=(2,), seed=3))
    scores = set(zip(data["game"].tolist(), data["seat"].tolist(), data["score"].tolist()))
    assert 1 <= len(scores) <= 3 and all(s >= 90 for _, _, s in scores)
    assert set(data["seat"].tolist()) <= {0, 1}
    with pytest.raises(BoardlabError, match="--min-score"):
        build(DataConfig(games=2, selection="best", min_score=400, players=(2,)))


def test_dataset_file_round_trip_and_refusals(small, tmp_path):
    path = tmp_path / "d.npz"
    save(path, small)
    back = load(path)
    assert np.array_equal(back["x"], small["x"]) and back["meta"]["games"] == small["meta"]["games"]
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a dataset")
    with pytest.raises(FormatError, match="bad.npz"):
        load(bad)
    with pytest.raises(BoardlabError, match="--selection"):
        DataConfig(selection="worst").check()


def test_training_resumes_exactly(small, tmp_path):
    from boardlab.studies.tickettoride.classifier import train_model

    config = ttr_net.NetConfig(epochs=3, seed=2)
    straight = train_model(small, config, tmp_path / "a.pt")
    train_model(small, ttr_net.NetConfig(epochs=1, seed=2), tmp_path / "b.pt")
    with pytest.raises(BoardlabError, match="other settings"):
        train_model(small, ttr_net.NetConfig(epochs=3, seed=2, lr=0.1), tmp_path / "b.pt")
    resumed = train_model(small, config, tmp_path / "b.pt")  # the same settings, more epochs: trains on
    assert resumed["resumed_from"] == 1 and resumed["epochs"] == 3
    a, b = ttr_net.load(tmp_path / "a.pt"), ttr_net.load(tmp_path / "b.pt")
    for key, value in a.model.state_dict().items():
        assert torch.equal(value, b.model.state_dict()[key])
    assert straight["history"] == resumed["history"]
    assert straight["test"]["rows"] == int(small["test"].sum())
    assert (tmp_path / "a.curves.png").read_bytes()[:4] == b"\x89PNG"


def test_committed_model_loads_weights_only_and_classifies_held_out_games():
    payload = torch.load(DEFAULT_MODEL, map_location="cpu", weights_only=True)
    assert payload["format"] == ttr_net.CHECKPOINT_FORMAT and payload["config"]["hidden1"] == 180
    metrics = json.loads(DEFAULT_MODEL.with_name("ttr_net.metrics.json").read_text())
    assert metrics["test"]["accuracy"] > 0.9 and metrics["split"]["test_games"] > 0


def test_a_checkpoints_config_is_checked_naming_the_file_and_the_key(tmp_path):
    from boardlab.bots.tickettoride.network import load_model

    payload = torch.load(DEFAULT_MODEL, map_location="cpu", weights_only=True)
    for name, change, message in (("extra", {"size": 3}, "unknown key 'size'"), ("lr", {"lr": -1.0}, "'lr'"),
                                  ("width", {"hidden1": 0}, "'hidden1'")):
        path = tmp_path / f"{name}.pt"
        torch.save(dict(payload, config=dict(payload["config"], **change)), path)
        with pytest.raises(FormatError, match=f"^{path}: .*{message}"):
            ttr_net.load(path)
    with pytest.raises(FormatError, match=f"^{tmp_path / 'width.pt'}: 'hidden1'"):
        load_model(tmp_path / "width.pt")
    # playing needs only the network's shape: the training settings are the study's to check
    assert load_model(tmp_path / "lr.pt").layers[0].out_features == 180
    refused = runner.invoke(app, ["train", "ttr-classifier", "--lr", "-1", "--out", str(tmp_path / "n.pt")])
    assert refused.exit_code == 2 and "boardlab train ttr-classifier: 'lr'" in refused.output
    assert not (tmp_path / "n.pt").exists()


def biased_model(path, favourite):
    """A network that always answers ``favourite`` (its last layer's bias dwarfs everything)."""
    run = ttr_net.new_run(ttr_net.NetConfig())
    with torch.no_grad():
        last = run.model.layers[-1]
        last.weight.zero_()
        last.bias.copy_(torch.tensor([-1e3] * 4).index_fill_(0, torch.tensor([favourite]), 1e3))
    ttr_net.save(path, run)
    return path


def play(agents, players, seed):
    game = TicketToRide(players=players, variant="study")
    state = game.new_initial_state(seed)
    for p, agent in enumerate(agents):
        agent.reset(game, p, seed)
    while not state.is_terminal():
        state.apply_action(agents[state.current_player()].step(state))
    return state


def test_masking_never_makes_a_forbidden_move_and_counts_what_the_net_wanted(tmp_path):
    path = biased_model(tmp_path / "pass.pt", PASS_CLASS)  # pass is forbidden whenever anything else is legal
    masked = [TTRNetAgent(path=str(path)) for _ in range(2)]
    play(masked, 2, 11)
    for agent in masked:
        stats = agent.statistics()
        assert stats["forbidden"] == 0 and stats["unmasked_forbidden"] == stats["net_decisions"] > 10
        assert stats["unmasked_forbidden_by_type"] == [stats["unmasked_forbidden"], 0, 0, 0]
    unmasked = [TTRNetAgent(path=str(path), mask=False) for _ in range(2)]
    play(unmasked, 2, 11)
    assert all(a.statistics()["forbidden"] == a.statistics()["unmasked_forbidden"] > 10 for a in unmasked)


def test_a_net_that_always_claims_claims_when_it_can(tmp_path):
    path = biased_model(tmp_path / "claim.pt", CLAIM_CLASS)
    agent = TTRNetAgent(path=str(path))
    state = first_turn(players=2, seed=3)
    agent.reset(state.game, state.player)
    legal = state.legal_actions()
    action = agent.step(state)
    assert action in legal
    assert (action >= 15) == any(a >= 15 for a in legal)


def test_default_agent_plays_whole_games_without_forbidden_moves():
    agents = [TTRNetAgent() for _ in range(3)]
    state = play(agents, 3, 21)
    assert state.is_terminal() and all(a.statistics()["forbidden"] == 0 for a in agents)
    assert TTRNetAgent.compiled_match(state.game, agents, 1) is None  # no compiled twin: step() plays


def test_recipe_on_the_command_line(tmp_path):
    out = tmp_path / "net.pt"
    args = ["train", "ttr-classifier", "--out", str(out), "--games", "3", "--selection", "all", "--players", "2",
            "--epochs", "2", "--data", str(tmp_path / "d.npz"), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["epochs"] == 2 and report["split"]["test_games"] + report["split"]["train_games"] == 3
    assert 0 <= report["test"]["accuracy"] <= 1 and (tmp_path / "net.curves.png").exists()
    again = runner.invoke(app, args[:-1] + ["--lr", "0.1", "--json"])
    assert again.exit_code != 0 and "other settings" in again.output  # a run with other settings is refused
    (tmp_path / "afile").write_text("")  # a model's folders are made, but a file in the way is refused before any work
    refused = runner.invoke(app, ["train", "ttr-classifier", "--out", str(tmp_path / "afile" / "x.pt")])
    assert refused.exit_code == 2 and "afile is not a folder" in refused.output


def test_evaluate_reports_the_held_out_games(tmp_path):
    out = tmp_path / "net.pt"
    data = tmp_path / "d.npz"
    trained = runner.invoke(app, ["train", "ttr-classifier", "--out", str(out), "--games", "4", "--selection", "all",
                                  "--players", "2,3", "--epochs", "2", "--data", str(data), "--json"])
    assert trained.exit_code == 0, trained.output
    result = runner.invoke(app, ["evaluate", str(out), "--data", str(data), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["test"] == json.loads(trained.stdout)["test"]
    assert sum(r["rows"] for r in report["by_players"].values()) == report["test"]["rows"]


def test_experiment_a_plays_the_net_and_the_algorithm_on_the_same_deals(tmp_path):
    args = ["experiment", "ttr-net-versus", "--games", "2", "--players", "2", "--store", str(tmp_path / "s.sqlite"),
            "--markdown", str(tmp_path / "a.md"), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    net, algo = report["net"]["2"], report["algorithmic"]["2"]
    assert net["games"] == algo["games"] == 2 and net["players"] == 4
    assert net["forbidden_moves"] == 0 and 0 <= net["net_forbidden_games"] <= 2
    assert report["study_net"]["all"]["mean"] == 99.69
    assert "(106.41)" in (tmp_path / "a.md").read_text()


def test_experiments_b_and_c_from_one_command_each(tmp_path):
    common = ["--games", "1", "--data-games", "20", "--players", "2,3", "--store", str(tmp_path / "s.sqlite"), "--json"]
    result = runner.invoke(app, ["experiment", "ttr-net-models", "--out", str(tmp_path / "b"), "--epochs", "1", *common])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    for kind in ("universal", "specific"):
        rows = report[kind]
        assert set(rows) == {"2", "3", "all"} and rows["all"]["games"] == 2
        assert 0 <= rows["all"]["completed"] <= 2 and rows["all"]["tickets_done"] >= 0
    assert set(report["held_out_accuracy"]) == {"universal", "2", "3"}
    assert (tmp_path / "b" / "players-3.pt").exists() and (tmp_path / "b" / "models-range.png").exists()
    result = runner.invoke(app, ["experiment", "ttr-net-progress", "--out", str(tmp_path / "c"), "--step", "50",
                                 "--steps", "1", *common])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert [r["rows"] for r in rows] == [0, 50] and all(r["games"] == 2 for r in rows)
    assert all(r["finished_players"] + 0 <= 5 for r in rows)  # 2 + 3 players in the two games


def test_the_agents_numpy_network_gives_the_torch_networks_outputs():
    from boardlab.bots.tickettoride.net import load_weights, logits

    model = ttr_net.load(DEFAULT_MODEL).model.eval()
    x = np.random.default_rng(3).uniform(0, 60, size=(16, model.divisor.shape[0]))
    with torch.no_grad():
        expected = model(torch.as_tensor(x, dtype=torch.float32)).double().numpy()
    assert np.allclose(logits(load_weights(DEFAULT_MODEL), x), expected, rtol=1e-4, atol=1e-4)
