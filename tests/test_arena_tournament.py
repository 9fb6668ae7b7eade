"""Tournaments: schedules, seeds, the results store, resuming after SIGKILL, backends and the CLI."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import arena_toy
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from boardlab.arena.schedule import make_schedule
from boardlab.arena.store import ResultStore, default_store_path
from boardlab.arena.tournament import play_missing, prepare
from boardlab.arena.worker import Job, play_scheduled
from boardlab.cli import app
from boardlab.core.errors import BoardlabError, IllegalActionError, SpecError
from boardlab.core.records import GameRecord
from boardlab.core.rng import derive_seed


@pytest.fixture(scope="module", autouse=True)
def toy_game():
    with arena_toy.registered():
        yield


ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def seat_counts(schedule):
    return Counter((agent, seat) for game in schedule for seat, agent in enumerate(game.seats))


@pytest.mark.parametrize("agents, players, games", [(4, 2, 4), (3, 2, 2), (4, 3, 6), (5, 4, 4), (3, 3, 3)])
def test_round_robin_seats_every_agent_in_every_seat_equally_often(agents, players, games):
    schedule = make_schedule(agents, players, games, "round-robin", seed=7)
    counts = seat_counts(schedule)
    assert set(counts) == {(a, s) for a in range(agents) for s in range(players)}
    assert len(set(counts.values())) == 1
    # every group of K agents plays exactly `games` games, each seating a distinct agent per seat
    groups = Counter(frozenset(g.seats) for g in schedule)
    assert all(len(set(g.seats)) == players for g in schedule)
    assert set(groups.values()) == {games}
    assert [g.index for g in schedule] == list(range(len(schedule)))


@given(agents=st.integers(2, 6), players=st.integers(2, 4), rounds=st.integers(1, 3),
       fmt=st.sampled_from(["round-robin", "gauntlet"]), seed=st.integers(0, 2**40))
def test_any_balanced_schedule_seats_each_agent_equally_often(agents, players, rounds, fmt, seed):
    assume(players <= agents)
    games = players * rounds  # a multiple of K: the rotation covers every seat equally
    schedule = make_schedule(agents, players, games, fmt, seed)
    per_agent_seat = seat_counts(schedule)
    for agent in range(agents):
        assert len({per_agent_seat[(agent, seat)] for seat in range(players)}) == 1
    assert all(len(set(g.seats)) == players for g in schedule)
    assert [g.seed for g in schedule] == [derive_seed(seed, i) for i in range(len(schedule))]


def test_gauntlet_puts_the_first_agent_in_every_game_and_balances_seats():
    schedule = make_schedule(4, 2, 6, "gauntlet", seed=1)
    assert len(schedule) == 3 * 6
    assert all(0 in g.seats for g in schedule)
    counts = seat_counts(schedule)
    assert counts[(0, 0)] == counts[(0, 1)] == 9
    assert all(counts[(a, s)] == 3 for a in (1, 2, 3) for s in (0, 1))


def test_random_seating_is_reproducible_and_valid():
    first = make_schedule(6, 3, 50, "random-seating", seed=3)
    assert first == make_schedule(6, 3, 50, "random-seating", seed=3)
    assert first != make_schedule(6, 3, 50, "random-seating", seed=4)
    assert len(first) == 50 and all(len(set(g.seats)) == 3 for g in first)
    assert {a for g in first for a in g.seats} == set(range(6))


def test_each_game_seed_comes_from_the_tournament_seed_and_index_and_replays_alone(tmp_path):
    config = prepare("connect4", ["random", "random:seed=5"], games=6, seed=11)
    with ResultStore(tmp_path / "r.sqlite") as store:
        play_missing(config, store, workers=1)
        stored = store.games(config.id)
    assert [g.seed for g in stored] == [derive_seed(11, i) for i in range(6)]
    job = Job.for_specs(config.game, config.agents)
    for scheduled, result in zip(config.schedule(), stored):
        again = play_scheduled(job, scheduled)  # the game played on its own, out of order
        assert again.record["actions"] == result.record["actions"] and again.returns == result.returns
        assert GameRecord.from_dict(result.record).replay().returns() == result.returns
        assert result.agents == [config.agents[a] for a in result.seats]


def test_tournament_id_depends_on_what_decides_the_games():
    a = prepare("connect4", ["random", "random:seed=1"], games=4, seed=0)
    assert a.id == prepare("connect4", ["random", "random:seed=1"], games=4, seed=0).id
    assert a.id != prepare("connect4", ["random", "random:seed=1"], games=4, seed=1).id
    assert a.id != prepare("connect4", ["random:seed=1", "random"], games=4, seed=0).id


def test_variable_player_game_is_made_for_k_players_and_scores_are_stored(tmp_path):
    config = prepare("sumrace", ["greedy", "random", "random:seed=1", "random:seed=2"], players=4, games=4)
    assert config.game == "sumrace:players=4" and config.players == 4
    with ResultStore(tmp_path / "r.sqlite") as store:
        play_missing(config, store, workers=1)
        games = store.games(config.id)
    assert len(games) == 4 and all(len(g.scores) == 4 for g in games)
    for g in games:
        assert g.scores[g.seats.index(0)] == 9.0  # greedy always adds 3 in each of 3 rounds


def test_clear_errors():
    with pytest.raises(SpecError, match="unknown agent 'nope'"):
        prepare("connect4", ["random", "nope"])
    with pytest.raises(BoardlabError, match="only 2 agents"):
        prepare("sumrace", ["random", "greedy"], players=3)
    with pytest.raises(BoardlabError, match="connect4 is played by 2 players, not 3"):
        prepare("connect4", ["random", "random:seed=1", "random:seed=2"], players=3)
    with pytest.raises(BoardlabError, match="sumrace is played by 2 to 5 players, not 6"):
        prepare("sumrace", [f"random:seed={i}" for i in range(7)], players=6)
    with pytest.raises(BoardlabError, match="unknown tournament format 'swiss'"):
        prepare("connect4", ["random", "greedy"], fmt="swiss")
    with pytest.raises(BoardlabError, match="given twice"):
        prepare("connect4", ["random", "random"])
    with pytest.raises(BoardlabError, match="--games must be at least 1"):
        prepare("connect4", ["random", "greedy"], games=0)
    with pytest.raises(SpecError, match="unknown game"):
        prepare("nogame", ["random", "greedy"])


def test_cli_errors_are_one_line(tmp_path):
    store = str(tmp_path / "r.sqlite")
    for args, message in [
        (["--agents", "random", "nope"], "unknown agent 'nope'"),
        (["--agents", "random", "greedy", "-k", "3"], "connect4 is played by 2 players, not 3"),
        (["--game", "sumrace", "--agents", "random", "greedy", "-k", "3"], "needs 3 players per game but only 2 agents"),
        (["--agents", "random", "greedy", "--address", "x:1"], "--address needs --backend ray"),
    ]:
        result = runner.invoke(app, ["tournament", "--store", store, *args])
        assert result.exit_code == 2, result.output
        assert message in result.output and "Traceback" not in result.output


def test_store_keeps_games_once_and_reports_corrupt_files(tmp_path):
    config = prepare("connect4", ["random", "random:seed=1"], games=2)
    with ResultStore(tmp_path / "r.sqlite") as store:
        play_missing(config, store, workers=1)
        game = store.games(config.id)[0]
        assert store.add_game(config.id, game) is False  # a second copy is refused
        assert len(store.games(config.id)) == 2
        assert store.tournament().id == config.id and store.tournament(config.id[:4]).id == config.id
        with pytest.raises(BoardlabError, match="no tournament with id 'zzz'"):
            store.tournament("zzz")
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(BoardlabError, match="not a boardlab results store"):
        ResultStore(bad)


def test_default_store_is_in_the_user_data_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_store_path() == tmp_path / "boardlab" / "results.sqlite"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_store_path() == Path.home() / ".local" / "share" / "boardlab" / "results.sqlite"


def test_process_pool_plays_the_same_games_as_serial_play(tmp_path):
    config = prepare("sumrace", ["greedy", "random", "random:seed=1"], players=3, games=9, seed=5)
    results = {}
    for workers in (1, 2):
        with ResultStore(tmp_path / f"w{workers}.sqlite") as store:
            assert play_missing(config, store, workers=workers) == (0, 9, 0)
            results[workers] = [(g.index, g.seats, g.returns, g.scores, g.record["actions"]) for g in store.games(config.id)]
    assert results[1] == results[2]


def test_an_illegal_move_in_a_worker_is_reported_as_itself_and_finished_games_stay(tmp_path):
    config = prepare("sumrace", ["greedy", "random", "cheater"], players=3, games=3)
    with ResultStore(tmp_path / "r.sqlite") as store:
        with pytest.raises(IllegalActionError, match="agent cheater chose illegal action 99"):
            play_missing(config, store, workers=2)
        with pytest.raises(IllegalActionError, match="agent cheater chose illegal action 99"):
            play_missing(config, store, workers=1)


def _count(path):
    with sqlite3.connect(path) as db:
        return db.execute("SELECT COUNT(*), COUNT(DISTINCT game_index) FROM games").fetchone()


def test_sigkill_then_rerun_resumes_without_losing_or_doubling_games(tmp_path):
    store = tmp_path / "r.sqlite"
    args = [sys.executable, "-m", "boardlab", "tournament", "--game", "connect4", "--agents", "random", "random:seed=1",
            "random:seed=2", "--games", "300", "--seed", "3", "--store", str(store), "--workers", "2"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests")])}
    process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if store.exists() and process.poll() is None:
                try:
                    if _count(store)[0] >= 10:
                        break
                except sqlite3.OperationalError:  # tables not created yet
                    pass
            assert process.poll() is None, "the tournament ended before it could be killed"
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)  # the parent only: its pool workers must notice and exit
        process.wait()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                os.killpg(process.pid, 0)  # any process left in the tournament's session?
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("pool workers outlived the killed tournament")
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # whatever is left, if the test failed
        except ProcessLookupError:
            pass
        process.wait()
    stored, distinct = _count(store)
    assert 10 <= stored < 900 and stored == distinct
    rerun = subprocess.run(args + ["--json"], env=env, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    summary = json.loads(rerun.stdout.splitlines()[-1])
    assert summary["type"] == "summary"
    assert summary["already_stored"] == stored and summary["played"] == 900 - stored
    assert _count(store) == (900, 900)
    # the games finished before the kill are the games the schedule says, with their own seeds
    config = prepare("connect4", ["random", "random:seed=1", "random:seed=2"], games=300, seed=3)
    job = Job.for_specs(config.game, config.agents)
    with ResultStore(store) as opened:
        games = opened.games(config.id)
    assert [g.index for g in games] == list(range(900))
    for scheduled in config.schedule()[::37]:
        assert play_scheduled(job, scheduled).record["actions"] == games[scheduled.index].record["actions"]


def test_cli_json_streams_games_then_a_summary(tmp_path):
    store = str(tmp_path / "r.sqlite")
    args = ["tournament", "--game", "sumrace", "--agents", "greedy", "random", "random:seed=1", "-k", "3",
            "--games", "3", "--store", store, "--workers", "1", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    games, summary = lines[:-1], lines[-1]
    assert len(games) == 3 and all(g["type"] == "game" for g in games)
    assert set(games[0]) == {"type", "tournament", "index", "seed", "seats", "agents", "returns", "scores", "seconds", "done", "total", "stored",
                             "stats"}
    for one in games:  # each seat's decisions and the wall time they took
        decisions = one["stats"]["decisions"]
        assert len(decisions) == 3 and all(n >= 1 and seconds >= 0 for n, seconds in decisions)
    assert sorted(g["done"] for g in games) == [1, 2, 3] and games[0]["total"] == 3
    assert summary["type"] == "summary" and summary["played"] == 3 and summary["already_stored"] == 0
    assert summary["config"]["agents"] == ["greedy", "random", "random:seed=1"]
    assert summary["rating_model"] == "openskill"
    assert [r["agent"] for r in summary["agent_table"]] == ["greedy", "random", "random:seed=1"]
    assert summary["agent_table"][0]["wins"] == 3
    again = runner.invoke(app, args)  # the same command: nothing left to play
    last = json.loads(again.stdout.splitlines()[-1])
    assert len(again.stdout.splitlines()) == 1 and last["played"] == 0 and last["already_stored"] == 3


@given(agents=st.integers(4, 7), boards=st.integers(1, 30), seed=st.integers(0, 2**31 - 1))
@settings(max_examples=40, deadline=None)
def test_rotations_under_test_seat_the_first_agent_in_every_game_and_keep_boards_seat_fair(agents, boards, seed):
    schedule = make_schedule(agents, 4, boards, "rotations-under-test", seed)
    assert len(schedule) == 4 * boards and [g.index for g in schedule] == list(range(4 * boards))
    met = [0] * agents
    for board in range(boards):
        games = schedule[4 * board: 4 * board + 4]
        assert len({g.seed for g in games}) == 1  # one board, one chance stream for every rotation
        first = games[0].seats
        assert 0 in first and len(set(first)) == 4
        assert [g.seats for g in games] == [first[k:] + first[:k] for k in range(4)]
        # as the course's script: an opponent the first agent has met least so far is always in the group
        assert min(met[a] for a in first if a != 0) == min(met[1:])
        for a in first:
            met[a] += 1
