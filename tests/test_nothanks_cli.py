"""No Thanks! agents, the experiment helpers and the train / evaluate / experiment commands."""

import json

import numpy as np
import pytest
import torch
from test_nothanks_expert import table
from typer.testing import CliRunner

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.arena.stats import wilson
from boardlab.bots.nothanks.expert import expert_value, generate_states
from boardlab.bots.nothanks.net_agent import AS_WRITTEN_MODEL, DEFAULT_MODEL
from boardlab.cli import app
from boardlab.core.errors import BoardlabError, SpecError
from boardlab.core.registry import make
from boardlab.games.nothanks import PASS, TAKE
from boardlab.studies.nothanks.experiments import (
    agreement_in_play,
    four_player_table,
    mean_spread,
    seating_for,
)

runner = CliRunner()


def test_expert_agent_follows_the_expert_and_takes_when_broke():
    agent = make_agent("nothanks-expert", make("nothanks"))
    for state in generate_states(100, seed=7):
        expected = PASS if expert_value(state) > 0.5 else TAKE
        assert agent.step(state) == expected
    assert agent.step(table(20, 30, [0, 5, 5, 5])) == TAKE
    assert agent.step(table(20, 0, [5, 5, 5, 5], [[21], [], [], []])) == PASS  # fits own run: PASS, as the study says
    flipped = make_agent("nothanks-expert:read=flipped")
    assert flipped.step(table(20, 0, [5, 5, 5, 5], [[21], [], [], []])) == TAKE
    assert flipped.step(table(20, 30, [0, 5, 5, 5])) == TAKE  # still forced
    assert flipped.step(table(20, 3, [5, 5, 5, 5])) == PASS  # under 20 %: 0.1, read as "do not take"
    with pytest.raises(SpecError, match="as-written or flipped"):
        make_agent("nothanks-expert:read=sideways")


def test_net_agent_plays_whole_games_with_the_committed_model():
    assert DEFAULT_MODEL.is_file()
    game = make("nothanks", players=4)
    agents = [make_agent(s, game) for s in ("nothanks-net", "nothanks-expert", "random", "nothanks-net")]
    record = play_game(game, agents, seed=5)
    assert record.replay().is_terminal()
    with pytest.raises(SpecError, match="plays only nothanks"):
        make_agent("nothanks-expert", make("connect4"))
    with pytest.raises(BoardlabError, match="no model file"):
        make_agent("nothanks-net:path=/nonexistent/model.pt")


def test_committed_models_imitate_their_reading_of_the_expert():
    states = generate_states(300, seed=2024)
    for net, expert in (("nothanks-net", "nothanks-expert:read=flipped"),  # the default: the strong reading
                        (f"nothanks-net:path={AS_WRITTEN_MODEL}", "nothanks-expert")):
        net, expert = make_agent(net), make_agent(expert)
        assert np.mean([net.step(s) == expert.step(s) for s in states]) > 0.93
    # both load with weights_only=True (no pickled code), and say which reading they learned
    for path, labels in ((DEFAULT_MODEL, "flipped"), (AS_WRITTEN_MODEL, "as-written")):
        assert torch.load(path, weights_only=True)["config"].get("labels", "as-written") == labels


def test_four_player_table_rotates_seats_and_counts_everything():
    result = four_player_table(["nothanks-expert", "random", "random:seed=3", "nothanks-net"], games=8, seed=1)
    rows = result["rows"]
    assert [r["games"] for r in rows] == [8, 8, 8, 8]
    assert sum(r["win_rate"] for r in rows) == pytest.approx(1.0)
    for r in rows:
        assert r["score_ci95"][0] <= r["mean_score"] <= r["score_ci95"][1]
        assert 0 <= r["win_ci95"][0] <= r["win_rate"] <= r["win_ci95"][1] <= 1
    with pytest.raises(BoardlabError, match="4 to 8 agents"):
        four_player_table(["random"] * 3, games=1, seed=1)
    low, high = wilson(0.0, 2016)
    assert low == 0.0 and 0.0015 < high < 0.002  # about 3/n, where rate ± 1.96 SE would give [0, 0]
    assert wilson(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    assert mean_spread([1.0, 3.0]) == {"mean": 2.0, "std": pytest.approx(2**0.5), "min": 1.0, "max": 3.0}


def test_seatings_balance_seats_and_neighbours():
    block = [seating_for(i) for i in range(24)]
    assert len({tuple(s) for s in block}) == 24
    for agent in range(4):
        assert sorted(s.index(agent) for s in block) == sorted(list(range(4)) * 6)
    behind = {}
    for s in block:
        for seat in range(4):
            pair = (s[seat - 1], s[seat])  # who moves just before whom
            behind[pair] = behind.get(pair, 0) + 1
    assert len(behind) == 12 and set(behind.values()) == {8}


def test_six_agents_meet_in_every_ordered_four_equally_often():
    block = [seating_for(i, 6) for i in range(360)]
    assert len({tuple(s) for s in block}) == 360 and all(len(set(s)) == 4 for s in block)
    for agent in range(6):
        assert sorted(s.index(agent) for s in block if agent in s) == sorted(list(range(4)) * 60)
    behind = {}
    for s in block:
        for seat in range(4):
            behind[(s[seat - 1], s[seat])] = behind.get((s[seat - 1], s[seat]), 0) + 1
    assert len(behind) == 30 and len(set(behind.values())) == 1
    result = four_player_table(["random", "random:seed=2", "random:seed=3", "nothanks-expert", "nothanks-expert:read=flipped",
                                "random:seed=4"], games=12, seed=1)
    assert [r["games"] for r in result["rows"]] == [sum(a in seating_for(i, 6) for i in range(12)) for a in range(6)]
    assert sum(r["win_rate"] * r["games"] for r in result["rows"]) == pytest.approx(12)


def test_table_store_resumes_and_refuses_another_table(tmp_path):
    store = tmp_path / "table.jsonl"
    agents = ["nothanks-expert", "random", "random:seed=3", "random:seed=4"]
    first = four_player_table(agents, games=5, seed=2, store=store)
    store.write_text(store.read_text() + '{"index": 5, "sco')  # a kill in the middle of a line
    played = []
    second = four_player_table(agents, games=8, seed=2, store=store, on_game=played.append)
    lines = store.read_text().splitlines()
    assert len(lines) == 8 and [json.loads(line)["index"] for line in lines] == list(range(8))
    fresh = four_player_table(agents, games=8, seed=2)
    assert second["rows"] == fresh["rows"] and first["rows"] != second["rows"]
    assert played == list(range(8))
    with pytest.raises(BoardlabError, match="another table"):
        four_player_table(agents, games=8, seed=3, store=store)


def test_network_agrees_with_the_expert_in_real_games():
    result = agreement_in_play(["nothanks-expert", "nothanks-net", "random", "random"], games=12, seed=1)
    assert result["decisions"] > 200 and result["agreement"] > 0.95


def test_train_then_evaluate_on_the_command_line(tmp_path):
    out = tmp_path / "m" / "net.pt"
    args = ["train", "nothanks-imitation", "--states", "120", "--epochs", "15", "--seed", "2", "--out", str(out), "--json"]
    result = runner.invoke(app, args)  # a recipe makes the folder of its model
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["split"] == {"fit": 86, "validation": 10, "test": 24}
    assert out.is_file() and (tmp_path / "m" / "net.config.json").is_file()
    metrics = json.loads((tmp_path / "m" / "net.metrics.json").read_text())
    assert len(metrics["history"]["train_loss"]) == metrics["epochs_run"] <= 15
    assert json.loads((tmp_path / "m" / "net.config.json").read_text())["states"] == 120
    written = sorted(p.name for p in out.parent.iterdir())

    # boardlab evaluate finds the recipe from the file, and writes nothing beside the model
    result = runner.invoke(app, ["evaluate", str(out), "--states", "50", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert sum(map(sum, report["confusion"])) == 50 and 0 <= report["agreement"] <= 1
    assert report["plot"] is None
    assert sorted(p.name for p in out.parent.iterdir()) == written

    # the learning curve only where --plot says
    curve = tmp_path / "plots" / "curve.png"
    refused = runner.invoke(app, ["evaluate", str(out), "--states", "20", "--plot", str(curve)])
    assert refused.exit_code == 2 and "does not exist" in refused.output  # output folders are never made up
    curve.parent.mkdir()
    result = runner.invoke(app, ["evaluate", str(out), "--states", "20", "--plot", str(curve), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["plot"] == str(curve)
    assert curve.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in out.parent.iterdir()) == written

    text = runner.invoke(app, ["evaluate", str(out), "--states", "30"])
    assert text.exit_code == 0 and "agreement" in text.output and "expert \\ net" in text.output
    (tmp_path / "m" / "net.metrics.json").unlink()
    result = runner.invoke(app, ["evaluate", str(out), "--states", "20", "--plot", str(curve)])
    assert result.exit_code == 2 and "net.metrics.json" in result.stderr


def test_the_recipes_own_example_runs_in_a_fresh_folder(tmp_path, monkeypatch):
    """The command its --help shows (models/nothanks.pt, a folder a fresh checkout does not have) works as written."""
    import re
    import shlex

    from boardlab.studies.nothanks.commands import train

    shown = runner.invoke(app, ["train", "nothanks-imitation", "--help"])
    example = re.search(r"\[b\](boardlab train nothanks-imitation .*?)\[/\]", train.__doc__).group(1)
    assert example in shown.stdout  # the example the user reads
    monkeypatch.chdir(tmp_path)
    words = shlex.split(example)
    result = runner.invoke(app, [*words[1:], "--epochs", "5", "--json"])  # fewer epochs: the example's files, sooner
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["model"] == "models/nothanks.pt"
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["nothanks.config.json", "nothanks.metrics.json", "nothanks.pt"]


def test_cli_refuses_unknown_names_and_bad_files(tmp_path):
    result = runner.invoke(app, ["train", "chess-imitation"])
    assert result.exit_code == 2 and "unknown recipe 'chess-imitation'" in result.stderr
    assert "nothanks-imitation" in result.stderr
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"junk")
    result = runner.invoke(app, ["evaluate", str(bad)])
    assert result.exit_code == 2 and "bad.pt" in result.output and "Traceback" not in result.output
    result = runner.invoke(app, ["evaluate", str(bad), "--recipe", "nothanks-imitation"])
    assert result.exit_code == 2 and "bad.pt" in result.stderr and "not a readable PyTorch checkpoint" in result.stderr
    result = runner.invoke(app, ["experiment", "nothanks-imitation", "--part", "everything"])
    assert result.exit_code == 2 and "--part" in result.output


def test_experiment_table_on_the_command_line():
    result = runner.invoke(app, ["experiment", "nothanks-imitation", "--part", "table", "--games", "4",
                                 "--agents", "nothanks-expert,random,random,random", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["table"]["rows"]
    assert [r["agent"] for r in rows] == ["nothanks-expert", "random", "random", "random"]


def test_determinised_mcts_plays_no_thanks_and_beats_random():
    game = make("nothanks", players=3)
    wins = 0.0
    for seed in range(3):
        agents = [make_agent(s, game) for s in ("mcts:iterations=40", "random", "random")]
        record = play_game(game, agents, seed=seed)
        assert record.replay().is_terminal()
        wins += record.returns[0]
    assert wins >= 2  # uniform random players would win about 1 of 3
