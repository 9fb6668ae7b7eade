"""``boardlab experiment ttr-study``: the study's games as resumable tournaments and its table."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from boardlab.arena.store import ResultStore
from boardlab.cli import app
from boardlab.core.errors import BoardlabError
from boardlab.studies.tickettoride import study as ttr_study

runner = CliRunner()


def test_the_settings_are_checked_before_any_game():
    with pytest.raises(BoardlabError, match="variant"):
        ttr_study.configs("house")
    with pytest.raises(BoardlabError, match="player counts"):
        ttr_study.configs("study", players=[6])
    with pytest.raises(BoardlabError, match="seed="):
        ttr_study.configs("study", agent="ttr-algorithmic:seed=3")
    plans = ttr_study.configs("official", games=4, players=[2, 5])
    assert [c.players for c in plans.values()] == [2, 5]
    assert plans[5].agents == tuple(f"ttr-algorithmic:seed={i}" for i in range(1, 6))
    assert plans[2].game == "tickettoride:players=2" and len(plans[2].schedule()) == 4


def test_a_run_fills_the_store_resumes_and_gives_the_studys_rows(tmp_path):
    store = tmp_path / "results.sqlite"
    by_count = ttr_study.run("study", games=3, players=[2, 3], store=store)
    assert [len(v) for v in by_count.values()] == [3, 3]
    rows = ttr_study.table(by_count)
    assert set(rows) == {"2", "3", "all"}
    assert rows["2"]["players"] == 6 and rows["3"]["players"] == 9 and rows["all"]["players"] == 15
    assert rows["all"]["forbidden_moves"] == 0 and rows["all"]["forbidden_games"] == 0
    assert rows["all"]["min"] <= rows["all"]["median"] <= rows["all"]["max"]
    assert 0 <= rows["all"]["above_110"] <= 100 and rows["all"]["tickets_done"] >= 0
    for result in by_count[2]:
        assert result.stats["game"]["score"] == result.scores and len(result.stats["agents"]) == 2
    # a rerun plays nothing more and reads the same games
    with ResultStore(store) as results:
        before = sum(1 for t in results.tournaments() for _ in results.games(t.id))
    again = ttr_study.run("study", games=3, players=[2, 3], store=store)
    assert ttr_study.table(again) == rows
    with ResultStore(store) as results:
        assert sum(1 for t in results.tournaments() for _ in results.games(t.id)) == before
    assert "| AVG |" in ttr_study.markdown(rows) and "(107.02)" in ttr_study.markdown(rows)


def test_compiled_games_are_the_python_games(tmp_path):
    compiled = ttr_study.run("official", games=2, players=[4], store=tmp_path / "a.sqlite", compiled=True)
    python = ttr_study.run("official", games=2, players=[4], store=tmp_path / "b.sqlite", compiled=False)
    for a, b in zip(compiled[4], python[4]):
        assert a.record["actions"] == b.record["actions"] and a.scores == b.scores
        # the same counts; only a game played step by step times its seats' decisions
        assert "decisions" not in a.stats and len(b.stats.pop("decisions")) == 4 and a.stats == b.stats
        assert a.record["moves"] == b.record["moves"]


def test_the_command_prints_json_and_draws_the_figures(tmp_path):
    result = runner.invoke(app, ["experiment", "ttr-study", "--games", "2", "--players", "2,3", "--workers", "1",
                                 "--store", str(tmp_path / "s.sqlite"), "--plots", str(tmp_path / "fig"), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data["rows"]) == {"2", "3", "all"} and data["study"]["all"]["mean"] == 98.16
    assert sorted(p.rsplit("/", 1)[1] for p in data["plots"]) == ["scores-by-players.png", "scores-overall.png", "scores-range.png"]
    assert all(open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n" for p in data["plots"])
    text = runner.invoke(app, ["experiment", "ttr-study", "--games", "2", "--players", "2", "--workers", "1",
                               "--store", str(tmp_path / "s.sqlite")])
    assert text.exit_code == 0 and "AVG" in text.stdout and "107.02" in text.stdout
    bad = runner.invoke(app, ["experiment", "ttr-study", "--variant", "house", "--store", str(tmp_path / "s.sqlite")])
    assert bad.exit_code == 2 and "variant" in bad.output and len(bad.output.strip().splitlines()) == 1


def test_a_store_written_before_games_kept_statistics_opens_and_gains_the_column(tmp_path):
    import sqlite3

    from boardlab.arena import store as store_module

    path = tmp_path / "old.sqlite"
    old_schema = store_module._SCHEMA.replace(
        "    stats TEXT,                    -- JSON: {\"game\": state.statistics(), \"agents\": [agent.statistics()]}, or NULL\n", "")
    assert "stats TEXT" not in old_schema
    db = sqlite3.connect(path)
    db.executescript(old_schema)
    db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(store_module.SCHEMA_VERSION),))
    db.commit()
    db.close()
    with ResultStore(path) as results:
        columns = [row[1] for row in results.db.execute("PRAGMA table_info(games)")]
        assert columns[-1] == "stats"
    by_count = ttr_study.run("study", games=1, players=[2], store=path)
    assert by_count[2][0].stats["game"]["score"] == by_count[2][0].scores
