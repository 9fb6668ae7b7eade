"""Duels and tables on a pool of processes play the same games as in one process (boardlab duel and
evaluate --workers): each game's seed and seats come from its index alone."""

import json
from pathlib import Path

from typer.testing import CliRunner

import boardlab
from boardlab.arena.duel import duel
from boardlab.arena.table import table_score
from boardlab.cli import app
from boardlab.core.registry import make

runner = CliRunner()


def _timeless(result) -> dict:
    return {key: value for key, value in result.to_dict().items() if key != "seconds_per_move"}


def test_a_duel_on_two_workers_plays_the_same_games_in_order():
    game = make("connect4")
    alone = duel(game, "random", "mcts:iterations=10", 37, seed=4, keep_records=True)
    seen: list[int] = []
    pooled = duel(game, "random", "mcts:iterations=10", 37, seed=4, keep_records=True, workers=2, on_game=lambda i, _record: seen.append(i))
    assert _timeless(pooled) == _timeless(alone) and pooled.moves == alone.moves
    assert [r.actions for r in pooled.records] == [r.actions for r in alone.records]
    assert sorted(seen) == list(range(37))


def test_a_table_on_two_workers_gives_the_same_shares_scores_and_intervals():
    game = make("nothanks:players=3")
    alone = table_score(game, "nothanks-net", "random+nothanks-expert", 12, seed=2)
    seats: dict[int, list[str]] = {}
    pooled = table_score(game, "nothanks-net", "random+nothanks-expert", 12, seed=2, workers=2,
                         on_game=lambda i, record: seats.__setitem__(i, record.agents))
    assert pooled == alone
    assert [seats[i].index("nothanks-net") for i in range(12)] == [i % 3 for i in range(12)]


def test_duel_and_evaluate_take_workers_and_refuse_an_address_without_ray(tmp_path):
    out = runner.invoke(app, ["duel", "random", "mcts:iterations=10", "--games", "6", "--seed", "1", "--workers", "2", "--json"])
    assert out.exit_code == 0, out.output
    one = runner.invoke(app, ["duel", "random", "mcts:iterations=10", "--games", "6", "--seed", "1", "--json"])
    assert {k: v for k, v in json.loads(out.stdout).items() if k != "seconds_per_move"} == \
        {k: v for k, v in json.loads(one.stdout).items() if k != "seconds_per_move"}
    refused = runner.invoke(app, ["duel", "random", "mcts:iterations=10", "--address", "ray://x:1"])
    assert refused.exit_code != 0 and "--address needs --backend ray" in refused.output


def test_evaluate_on_two_workers_plays_only_the_named_table_with_no_baselines():
    model = str(Path(boardlab.__file__).parent / "models" / "az-nothanks_players_3.pt")
    args = ["evaluate", model, "--games", "6", "--simulations", "4", "-o", "nothanks-expert", "--no-baselines", "--seed", "2", "--json"]
    pooled = runner.invoke(app, [*args, "--workers", "2"])
    assert pooled.exit_code == 0, pooled.output
    alone = runner.invoke(app, args)
    assert set(json.loads(pooled.stdout)["tables"]) == {"nothanks-expert"}
    assert json.loads(pooled.stdout)["tables"] == json.loads(alone.stdout)["tables"]
    empty = runner.invoke(app, ["evaluate", model, "--no-baselines"])
    assert empty.exit_code != 0 and "name an --opponent" in empty.output
