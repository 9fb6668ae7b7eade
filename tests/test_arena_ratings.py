"""Ratings, statistics and reports: Bradley–Terry Elo, OpenSkill, Wilson/t intervals, report files."""

import json
import math

import arena_toy
import numpy as np
import pytest
from typer.testing import CliRunner

from boardlab.arena import stats
from boardlab.arena.ratings import bradley_terry, openskill_from_results
from boardlab.arena.store import GameResult, ResultStore
from boardlab.arena.tournament import play_missing, prepare
from boardlab.cli import app


@pytest.fixture(scope="module", autouse=True)
def toy_game():
    with arena_toy.registered():
        yield


runner = CliRunner()
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_wilson_and_t_intervals_match_textbook_values():
    low, high = stats.wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    low, high = stats.wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    assert stats.wilson(0, 0) == (0.0, 1.0)
    mean, low, high = stats.mean_interval([1.0, 2.0, 3.0, 4.0])
    # t(0.975, 3) = 3.182, sd = 1.291, half width = 3.182 * 1.291 / 2
    assert mean == 2.5 and high - mean == pytest.approx(3.1824 * 1.2910 / 2, rel=1e-3) and low < mean


def test_outcomes_and_ranks_handle_ties():
    assert stats.outcomes([1.0, -1.0]) == [1, -1]
    assert stats.outcomes([0.0, 0.0]) == [0, 0]
    assert stats.outcomes([5.0, 5.0, 1.0]) == [0, 0, -1]
    assert stats.ranks([3.0, 7.0, 3.0]) == [2.5, 1.0, 2.5]


def synthetic_games(true_elo, advantage, games_per_pair, seed):
    """Two-player games drawn from a Bradley–Terry model with seat advantage (no draws)."""
    rng = np.random.default_rng(seed)
    first, second, score = [], [], []
    n = len(true_elo)
    for a in range(n):
        for b in range(n):
            if a == b:
                continue
            p = 1 / (1 + 10 ** (-(true_elo[a] - true_elo[b] + advantage) / 400))
            wins = rng.random(games_per_pair) < p
            first += [a] * games_per_pair
            second += [b] * games_per_pair
            score += list(wins.astype(float))
    return first, second, score


def test_bradley_terry_recovers_known_strengths_and_intervals_shrink_with_more_games():
    true = np.array([1300.0, 1500.0, 1700.0, 1500.0])  # mean 1500, the fit's anchor
    names = ["weak", "mid", "strong", "mid2"]
    widths = []
    for per_pair, seed in ((60, 1), (480, 2)):
        fit = bradley_terry(*synthetic_games(true, 60, per_pair, seed), names, bootstrap=200, seed=seed)
        elo = np.array([r.elo for r in fit.ratings])
        assert elo.mean() == pytest.approx(1500)
        low = np.array([r.low for r in fit.ratings])
        high = np.array([r.high for r in fit.ratings])
        assert np.all(low <= elo) and np.all(elo <= high)
        assert np.all(np.abs(elo - true) < 1.5 * (high - low))  # the truth is close, on the intervals' scale
        widths.append(float(np.mean(high - low)))
        advantage, adv_low, adv_high = fit.first_seat
        assert adv_low < advantage < adv_high
    # the many-game fit is close to the truth and its intervals are about sqrt(8) times narrower
    assert np.all(np.abs(elo - true) < 40)
    assert abs(advantage - 60) < 40
    assert widths[1] < 0.55 * widths[0]


def test_draws_count_as_half_wins_and_sweeps_stay_finite():
    fit = bradley_terry([0, 1] * 50, [1, 0] * 50, [0.5] * 100, ["a", "b"], bootstrap=20)
    assert [round(r.elo) for r in fit.ratings] == [1500, 1500]
    # one win and one loss per pairing of seats equal a draw each time
    fit = bradley_terry([0, 1, 0, 1], [1, 0, 1, 0], [1, 0, 0, 1], ["a", "b"], bootstrap=0)
    assert fit.ratings[0].elo == pytest.approx(fit.ratings[1].elo, abs=1e-3)
    sweep = bradley_terry([0, 1] * 20, [1, 0] * 20, [1.0, 0.0] * 20, ["a", "b"], bootstrap=20)
    assert math.isfinite(sweep.ratings[0].elo) and sweep.ratings[0].elo > 1700


def test_openskill_ranks_the_greedy_player_first_in_a_three_player_game(tmp_path):
    config = prepare("sumrace", ["random", "greedy", "random:seed=1", "random:seed=2"], players=3, games=9, seed=2)
    with ResultStore(tmp_path / "r.sqlite") as store:
        play_missing(config, store, workers=1)
        games = store.games(config.id)
    rated = openskill_from_results(games, list(config.agents))
    assert [r.games for r in rated] == [27] * 4
    greedy = rated[1]
    assert all(greedy.ordinal > r.ordinal and greedy.mu > r.high for r in rated if r is not greedy)
    table = stats.agent_table(games, list(config.agents))
    assert table[1]["mean_rank"] < 1.5 and all(row["mean_rank"] > 1.5 for row in table if row["agent"] != "greedy")
    scores = stats.score_table(games, list(config.agents), thresholds=[8])
    greedy_row = next(r for r in scores if r["agent"] == "greedy")
    assert greedy_row["max"] == greedy_row["min"] == greedy_row["median"] == 9.0 and greedy_row["above"][0]["share"] == 1.0
    everyone = next(r for r in scores if r["agent"] == "all")
    assert everyone["n"] == 3 * len(games) and everyone["min"] >= 3 and everyone["max"] <= 9


def test_score_table_counts_returns_when_the_game_keeps_no_scores():
    results = [GameResult(i, 0, [0, 1], ["a", "b"], [1.0, -1.0], None, {}, 0.0) for i in range(4)]
    assert not stats.uses_scores(results)
    rows = stats.score_table(results, ["a", "b"], thresholds=[0])
    assert rows[0]["agent"] == "a" and rows[0]["mean"] == 1.0 and rows[0]["above"][0]["share"] == 1.0
    seats = stats.seat_table(results)
    assert seats[0]["win_rate"] == 1.0 and seats[1]["win_rate"] == 0.0


def test_report_writes_markdown_and_valid_pngs_and_json(tmp_path):
    store = tmp_path / "r.sqlite"
    two = prepare("connect4", ["random", "random:seed=1", "random:seed=2"], games=6, seed=1)
    three = prepare("sumrace", ["greedy", "random", "random:seed=1"], players=3, games=6, seed=1)
    with ResultStore(store) as opened:
        play_missing(two, opened, workers=1)
        play_missing(three, opened, workers=1)
    out = tmp_path / "report"
    result = runner.invoke(app, ["report", str(store), "--tournament", two.id[:6], "--tournament", three.id,
                                 "--out", str(out), "--thresholds", "6,8", "--bootstrap", "50", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [t["id"] for t in data["tournaments"]] == [two.id, three.id]
    assert [t["rating_model"] for t in data["tournaments"]] == ["elo", "openskill"]
    assert data["thresholds"] == [6.0, 8.0]
    assert sorted(data["files"]) == sorted(str(out / n) for n in ("report.md", "ratings.png", "scores.png", "seats.png"))
    for name in ("ratings.png", "scores.png", "seats.png"):
        blob = (out / name).read_bytes()
        assert blob.startswith(PNG_SIGNATURE) and len(blob) > 2000
    text = (out / "report.md").read_text()
    assert "## Tournament " + two.id in text and "## Tournament " + three.id in text
    assert "| greedy |" in text and "% > 8" in text and "![scores](scores.png)" in text
    # the latest tournament by default, printed as tables
    plain = runner.invoke(app, ["report", str(store), "--out", str(tmp_path / "latest"), "--bootstrap", "20"])
    assert plain.exit_code == 0, plain.output
    assert three.id in plain.output and "Win rate by seat" in plain.output
    missing = runner.invoke(app, ["report", str(tmp_path / "none.sqlite")])
    assert missing.exit_code == 2 and "no results store" in missing.output
    wrong = runner.invoke(app, ["report", str(store), "--thresholds", "1,x"])
    assert wrong.exit_code == 2 and "--thresholds must be numbers" in wrong.output
