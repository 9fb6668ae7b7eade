"""evaluate MODEL shows each game as it ends, and with --store keeps them: a stopped evaluation resumes where it was."""

import json
import sqlite3
from pathlib import Path

import pytest
from az_helpers import neutral_model
from typer.testing import CliRunner

from boardlab.arena.gauntlet import duel_summary, gauntlet_config
from boardlab.arena.schedule import ScheduledGame
from boardlab.arena.store import GameResult, ResultStore
from boardlab.arena.worker import Job, play_scheduled
from boardlab.cli import app
from boardlab.core.errors import BoardlabError
from boardlab.core.registry import make

runner = CliRunner()
MANCALA = Path(__file__).resolve().parents[1] / "src" / "boardlab" / "models" / "az-mancala.pt"
DUEL = ["evaluate", str(MANCALA), "--games", "4", "--simulations", "8", "--no-baselines", "-o", "random"]


def game_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("evaluate: against random: game ")]


def test_evaluate_reports_every_game_on_stderr_when_it_is_not_a_terminal():
    result = runner.invoke(app, DUEL)
    assert result.exit_code == 0, result.output
    lines = game_lines(result.stderr)
    assert [line.split(" (")[0] for line in lines] == [f"evaluate: against random: game {k} of 4" for k in (1, 2, 3, 4)]
    assert all("so far" in line and "after" in line and "actions" in line for line in lines)
    final = lines[-1].split("so far ")[1]
    assert final in result.stdout  # the last tally is the table's counts


def test_a_stored_evaluation_plays_the_duels_games_and_resumes_with_only_the_missing_ones(tmp_path):
    store = tmp_path / "eval.sqlite"
    plain = json.loads(runner.invoke(app, [*DUEL, "--json"]).stdout)["duels"]["random"]
    first = runner.invoke(app, [*DUEL, "--store", str(store), "--json"])
    assert first.exit_code == 0, first.output
    doc = json.loads(first.stdout)
    stored = doc["duels"]["random"]
    assert doc["store"] == str(store) and len(stored["tournament"]) == 12
    # a duel in the store is the same games as without it
    assert (stored["wins"], stored["draws"], stored["losses"]) == (plain["wins"], plain["draws"], plain["losses"])
    assert stored["seconds_per_move"] > 0 and stored["opponent_seconds_per_move"] > 0
    with ResultStore(store) as opened:
        assert sorted(opened.finished_indices(stored["tournament"])) == [0, 1, 2, 3]
    # stopped after two games: the other two are lost, and the same command plays only them
    with sqlite3.connect(store) as db:
        db.execute("DELETE FROM games WHERE game_index >= 2")
    again = runner.invoke(app, [*DUEL, "--store", str(store), "--json"])
    assert again.exit_code == 0, again.output
    assert [line.split(" (")[0] for line in game_lines(again.stderr)] == [
        "evaluate: against random: game 3 of 4", "evaluate: against random: game 4 of 4"]
    resumed = json.loads(again.stdout)["duels"]["random"]
    assert {k: resumed[k] for k in ("wins", "draws", "losses", "tournament")} == {
        k: stored[k] for k in ("wins", "draws", "losses", "tournament")}
    # nothing missing: nothing played, the same table
    done = runner.invoke(app, [*DUEL, "--store", str(store)])
    assert done.exit_code == 0 and game_lines(done.stderr) == [] and "against random: " in done.stdout


def test_a_stored_table_needs_one_different_opponent_per_other_seat():
    game = make("nothanks:players=3")
    config = gauntlet_config(game, "random", "nothanks-expert+nothanks-net", 3, seed=1)
    assert config.format == "gauntlet" and config.players == 3 and len(config.agents) == 3
    assert [g.seats for g in config.schedule()] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]  # every seat once
    with pytest.raises(BoardlabError, match=r"needs 2 different opponents joined by \+"):
        gauntlet_config(game, "random", "nothanks-expert", 3, seed=1)


def test_a_table_of_copies_in_a_store_is_refused_before_any_game(tmp_path):
    model = tmp_path / "nothanks-3.pt"
    neutral_model(make("nothanks:players=3"), model)
    result = runner.invoke(app, ["evaluate", str(model), "--games", "3", "--store", str(tmp_path / "s.sqlite")])
    assert result.exit_code != 0 and "different opponents" in result.output
    assert not (tmp_path / "s.sqlite").exists()
    mixed = runner.invoke(app, ["evaluate", str(model), "--games", "3", "--simulations", "4", "--no-baselines",
                                "-o", "nothanks-expert+random", "--store", str(tmp_path / "s.sqlite"), "--json"])
    assert mixed.exit_code == 0, mixed.output
    table = json.loads(mixed.stdout)["tables"]["nothanks-expert+random"]
    assert table["games"] == 3 and table["players"] == 3 and len(table["tournament"]) == 12
    assert 0 <= table["share_low"] <= table["share"] <= table["share_high"] <= 1 and "score" in table
    lines = [line for line in mixed.stderr.splitlines() if line.startswith("evaluate: at a table of nothanks-expert+random: game ")]
    assert len(lines) == 3 and "win share" in lines[-1]


def test_stored_games_time_each_seats_decisions_and_the_duel_summary_reads_them():
    game = make("connect4")
    job = Job.for_specs(game.spec(), ("random", "mcts:iterations=20"), compiled=False)
    result = play_scheduled(job, ScheduledGame(0, (1, 0), 5))
    counts = [int(n) for n, _seconds in result.stats["decisions"]]
    assert sum(counts) == len(result.record["actions"])  # no chance moves: every action is a decision
    assert counts[0] in (counts[1], counts[1] + 1)  # the first seat moves first
    assert all(seconds >= 0 for _n, seconds in result.stats["decisions"])

    def stored(index, seats, returns, decisions):
        return GameResult(index, 0, seats, ["a", "b"], returns, None, {}, 1.0,
                          None if decisions is None else {"game": None, "agents": [None, None], "decisions": decisions})

    results = [stored(0, [0, 1], [1.0, -1.0], [[10, 1.0], [10, 3.0]]),   # agent 0 first: won
               stored(1, [1, 0], [1.0, -1.0], [[5, 2.0], [5, 0.5]]),     # agent 0 second: lost
               stored(2, [1, 0], [0.0, 0.0], None)]                      # drawn, not timed (a compiled match)
    summary = duel_summary("b", results)
    assert (summary["wins"], summary["draws"], summary["losses"], summary["score"]) == (1, 1, 1, 0.5)
    assert summary["seconds_per_move"] == pytest.approx(1.5 / 15) and summary["opponent_seconds_per_move"] == pytest.approx(5.0 / 15)
    assert duel_summary("b", results[2:])["seconds_per_move"] is None
