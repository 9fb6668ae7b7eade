"""A tournament records its agents' every option, and refuses to resume when a default has changed since.

Canonical specs leave out options at their defaults, so a release that changes a default
would otherwise resume an old tournament under the same id with another agent.
"""

import dataclasses
import hashlib
import json
import math
import sqlite3

import arena_toy
import pytest
from typer.testing import CliRunner

from boardlab.agents.mcts import MCTSAgent
from boardlab.arena.report import build_report, markdown
from boardlab.arena.store import ResultStore
from boardlab.arena.tournament import TournamentConfig, play_missing, prepare
from boardlab.arena.worker import Job, play_scheduled
from boardlab.cli import app
from boardlab.core.errors import BoardlabError
from boardlab.core.params import Option

AGENTS = ["greedy", "random", "mcts:iterations=5"]
runner = CliRunner()


@pytest.fixture(scope="module", autouse=True)
def toy_game():
    with arena_toy.registered():
        yield


def config() -> TournamentConfig:
    return prepare("sumrace", AGENTS, players=3, games=4, seed=9)


def play_first(store: ResultStore, cfg: TournamentConfig, count: int) -> None:
    """Store the tournament and its first ``count`` games, as a run stopped early leaves it."""
    store.open_tournament(cfg.id, cfg.to_dict(), "test", len(cfg.schedule()))
    job = Job.for_specs(cfg.game, cfg.agents)
    for scheduled in cfg.schedule()[:count]:
        store.add_game(cfg.id, play_scheduled(job, scheduled))


def change_mcts_default(monkeypatch, name: str, default) -> None:
    """What a release that changes one of mcts's defaults looks like to a store."""
    options = dict(MCTSAgent.options)
    options[name] = dataclasses.replace(options[name], default=default)
    monkeypatch.setattr(MCTSAgent, "options", options)


def test_the_stored_config_holds_every_option_with_its_default(tmp_path):
    cfg = config()
    with ResultStore(tmp_path / "r.sqlite") as store:
        play_missing(cfg, store, workers=1)
        stored = store.tournament(cfg.id).config
    assert stored["agents"] == AGENTS
    greedy, random, mcts = stored["resolved_agents"]
    assert greedy == {} and random == {"seed": None}
    assert set(mcts) == set(MCTSAgent.options)
    assert mcts["iterations"] == 5 and mcts["c"] == MCTSAgent.options["c"].default and mcts["final"] == "visits"


def test_the_id_is_that_of_the_fields_alone_so_older_stores_keep_their_ids():
    cfg = config()
    assert cfg.resolved_agents is not None
    assert cfg.id == dataclasses.replace(cfg, resolved_agents=None).id == TournamentConfig.from_dict(cfg.id_dict()).id
    assert TournamentConfig.from_dict(cfg.to_dict()).to_dict() == cfg.to_dict()


def test_resuming_after_a_default_changed_is_refused_and_plays_nothing(tmp_path, monkeypatch):
    with ResultStore(tmp_path / "r.sqlite") as store:
        play_first(store, config(), 2)
        change_mcts_default(monkeypatch, "c", 2.5)
        today = config()
        assert today.id == config().id  # the same command finds the same tournament...
        with pytest.raises(BoardlabError) as refused:
            play_missing(today, store, workers=1)
        assert store.finished_indices(today.id) == {0, 1}  # ...and adds no game to it
    message = str(refused.value)
    old_c = math.sqrt(2)  # mcts's c before the change
    assert f"agent 'mcts:iterations=5': c stored {old_c} vs today 2.5." in message
    assert "greedy" not in message and "'random'" not in message  # only the agent that changed is named
    assert f"mcts:iterations=5,c={old_c}" in message  # the spec that plays the old agent again
    assert "--store" in message and "--seed" in message


def test_an_option_added_since_is_a_change_too(tmp_path, monkeypatch):
    with ResultStore(tmp_path / "r.sqlite") as store:
        play_first(store, config(), 1)
        options = {**MCTSAgent.options, "depth": Option("depth", int, 3, "a new option")}
        monkeypatch.setattr(MCTSAgent, "options", options)
        with pytest.raises(BoardlabError, match=r"depth stored \(no such option\) vs today 3"):
            play_missing(config(), store, workers=1)
        assert store.finished_indices(config().id) == {0}


def test_an_option_added_since_with_its_old_value_declared_resumes(tmp_path, monkeypatch):
    with ResultStore(tmp_path / "r.sqlite") as store:
        play_first(store, config(), 1)
        monkeypatch.setattr(MCTSAgent, "options", {**MCTSAgent.options, "depth": Option("depth", int, 3, "a new option")})
        monkeypatch.setattr(MCTSAgent, "options_added_since", {"depth": 3})  # 3 plays as mcts did before depth
        assert tuple(play_missing(config(), store, workers=1)) == (1, 3, 0)
        assert store.finished_indices(config().id) == {0, 1, 2, 3}


def test_an_option_added_since_whose_default_plays_otherwise_is_refused(tmp_path, monkeypatch):
    with ResultStore(tmp_path / "r.sqlite") as store:
        play_first(store, config(), 1)
        monkeypatch.setattr(MCTSAgent, "options", {**MCTSAgent.options, "depth": Option("depth", int, 4, "a new option")})
        monkeypatch.setattr(MCTSAgent, "options_added_since", {"depth": 3})
        with pytest.raises(BoardlabError, match=r"depth stored 3 vs today 4"):
            play_missing(config(), store, workers=1)
        assert store.finished_indices(config().id) == {0}


def test_every_agents_options_added_since_are_its_options_with_valid_values():
    from boardlab.agents.registry import agent_class, agent_names
    from boardlab.core.params import resolve_options

    declared = 0
    for name in agent_names():
        cls = agent_class(name)
        for option, value in cls.options_added_since.items():
            assert option in cls.options, f"{name}: options_added_since names {option!r}, which is not an option"
            resolve_options(name, cls.options, {option: value})  # raises on a value the option refuses
            declared += 1
    assert declared >= 2  # dw-emm's rollouts and rollout_policy


def test_resuming_with_the_same_options_plays_only_the_missing_games(tmp_path):
    warnings = []
    with ResultStore(tmp_path / "r.sqlite") as store:
        play_first(store, config(), 2)
        count = play_missing(config(), store, workers=1, on_warning=warnings.append)
        assert tuple(count) == (2, 2, 0)
        assert store.finished_indices(config().id) == {0, 1, 2, 3}
    assert warnings == []


def test_a_tournament_stored_before_options_were_recorded_resumes_with_a_warning(tmp_path):
    cfg = config()
    path = tmp_path / "old.sqlite"
    with ResultStore(path) as store:
        play_first(store, cfg, 1)
    with sqlite3.connect(path) as db:  # the config as older releases wrote it: no resolved_agents
        db.execute("UPDATE tournaments SET config=? WHERE id=?", (json.dumps(cfg.id_dict(), sort_keys=True), cfg.id))
    warnings = []
    with ResultStore(path) as store:
        count = play_missing(cfg, store, workers=1, on_warning=warnings.append)
        assert tuple(count) == (1, 3, 0)
        stored = store.tournament(cfg.id).config
        assert "resolved_agents" not in stored  # nobody knows the options its first games were played with
        data, _ = build_report(store, [cfg.id])
    assert len(warnings) == 1 and cfg.id in warnings[0] and "cannot be detected" in warnings[0]
    assert "resolved_agents" not in data["tournaments"][0]
    assert "not recorded" in markdown(data, [])


def test_cli_warns_once_on_an_old_tournament_and_reports_carry_the_options(tmp_path):
    store = tmp_path / "r.sqlite"
    args = ["tournament", "--game", "sumrace", "--agents", *AGENTS, "-k", "3", "--games", "4", "--seed", "9",
            "--store", str(store), "--workers", "1", "--json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    summary = json.loads(first.stdout.splitlines()[-1])
    assert summary["config"]["resolved_agents"][1] == {"seed": None}
    assert "warning" not in first.stderr
    report = runner.invoke(app, ["report", str(store), "--out", str(tmp_path / "rep"), "--bootstrap", "0", "--json"])
    assert report.exit_code == 0, report.output
    assert json.loads(report.stdout)["tournaments"][0]["resolved_agents"] == summary["config"]["resolved_agents"]
    lines = (tmp_path / "rep" / "report.md").read_text().splitlines()
    assert "- `random`: seed=None" in lines
    assert any(line.startswith("- `mcts:iterations=5`: ") and "iterations=5" in line and "final=visits" in line for line in lines)

    with sqlite3.connect(store) as db:
        db.execute("UPDATE tournaments SET config=?", (json.dumps(config().id_dict(), sort_keys=True),))
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    assert [line for line in again.stderr.splitlines() if line.startswith("warning:")] == [again.stderr.strip()]
    assert "resolved_agents" not in json.loads(again.stdout.splitlines()[-1])["config"]


def test_cli_refusal_is_one_line(tmp_path, monkeypatch):
    store = tmp_path / "r.sqlite"
    args = ["tournament", "--game", "sumrace", "--agents", *AGENTS, "-k", "3", "--games", "4", "--seed", "9",
            "--store", str(store), "--workers", "1"]
    assert runner.invoke(app, args).exit_code == 0
    change_mcts_default(monkeypatch, "final", "mean")
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2
    assert "final stored visits vs today mean" in refused.output and "Traceback" not in refused.output


def test_a_damaged_record_of_the_options_is_one_clear_error(tmp_path):
    cfg = config()
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        play_first(store, cfg, 0)
    with sqlite3.connect(path) as db:  # one options dict for three agents
        db.execute("UPDATE tournaments SET config=?", (json.dumps({**cfg.id_dict(), "resolved_agents": [{}]}),))
    with ResultStore(path) as store, pytest.raises(BoardlabError, match="config is not a tournament configuration"):
        play_missing(cfg, store, workers=1)


class _RacingConnection:
    """The store's connection, with another process recording the same tournament just after any
    look this one takes at the tournaments table: the race of two runs started at once."""

    def __init__(self, db, other_path, cfg):
        self.db, self.other_path, self.cfg, self.raced = db, other_path, cfg, False

    def execute(self, sql, *args):
        cursor = self.db.execute(sql, *args)
        if not self.raced and "tournaments" in sql and sql.lstrip().upper().startswith("SELECT"):
            self.raced = True
            with ResultStore(self.other_path) as other:
                other.open_tournament(self.cfg.id, self.cfg.to_dict(), "the other run", len(self.cfg.schedule()))
        return cursor

    def __getattr__(self, name):
        return getattr(self.db, name)


def test_two_runs_opening_one_tournament_at_once_both_carry_on(tmp_path):
    cfg = config()
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        store.db = _RacingConnection(store.db, path, cfg)
        assert store.open_tournament(cfg.id, cfg.to_dict(), "this run", len(cfg.schedule())) in (True, False)
        store.db = store.db.db
        assert [t.id for t in store.tournaments()] == [cfg.id]  # recorded once, by whichever came first
        with pytest.raises(BoardlabError, match="another configuration"):
            store.open_tournament(cfg.id, {**cfg.to_dict(), "seed": 10}, "this run", 1)


def test_a_tournament_is_not_resumed_with_another_model_file_behind_the_same_spec(tmp_path, monkeypatch):
    model = tmp_path / "model.bin"
    model.write_bytes(b"the network of yesterday")
    monkeypatch.setattr(MCTSAgent, "model_files", lambda self, game: {"path": model}, raising=False)
    cfg = config()
    with ResultStore(tmp_path / "r.sqlite") as store:
        play_first(store, cfg, 2)
        recorded = store.tournament(cfg.id).config["resolved_agents"]
        assert recorded[2]["model:path"] == hashlib.sha256(model.read_bytes()).hexdigest()[:16]
        play_missing(cfg, store, workers=1)  # the same file: resumed
        model.write_bytes(b"the network of today")  # retrained in place, same name, same spec
        with pytest.raises(BoardlabError) as refused:
            play_missing(config(), store, workers=1)
    message = str(refused.value)
    assert "model:path" in message and "name their old options" not in message  # no spec can name an old file


def test_records_from_before_model_digests_still_resume(tmp_path, monkeypatch):
    cfg = config()
    with ResultStore(tmp_path / "r.sqlite") as store:
        play_first(store, cfg, 2)
    model = tmp_path / "model.bin"
    model.write_bytes(b"a network")
    monkeypatch.setattr(MCTSAgent, "model_files", lambda self, game: {"path": model}, raising=False)
    with ResultStore(tmp_path / "r.sqlite") as store:
        count = play_missing(config(), store, workers=1)  # the record has no model keys: nothing to compare
        assert count.played == len(cfg.schedule()) - 2


def test_the_committed_networks_are_recorded_by_digest():
    from boardlab.agents.registry import make_agent
    from boardlab.arena.tournament import file_digest, resolved_options
    from boardlab.bots.connect4 import qnet
    from boardlab.bots.dicewars import emm_net, value
    from boardlab.core.registry import make

    connect4, dicewars = make("connect4"), make("dicewars")
    assert resolved_options(make_agent("qnet", connect4), connect4)["model:path"] == file_digest(qnet.DEFAULT_MODEL)
    with_net = resolved_options(make_agent("dw-emm:leaf=net", dicewars), dicewars)
    assert with_net["model:net"] == file_digest(emm_net.DEFAULT_MODEL) != "missing"
    # the default leaf is the trained board value: its weights file is recorded the same way
    assert resolved_options(make_agent("dw-emm", dicewars), dicewars)["model:value"] == file_digest(value.DEFAULT_MODEL)
    assert not any(k.startswith("model:") for k in resolved_options(make_agent("dw-emm:leaf=score", dicewars), dicewars))
