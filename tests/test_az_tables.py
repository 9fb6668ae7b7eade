"""az in games of more than two players and with hidden cards: seat-rotated tables, training evaluated at them,
and evaluate MODEL printing them."""

import json

import pytest
from typer.testing import CliRunner

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.arena.table import table_score, win_share
from boardlab.cli import app
from boardlab.core.registry import make
from boardlab.experiments.az_training import AZConfig, Trainer

runner = CliRunner()


def test_win_shares_split_ties_and_a_game_lost_by_all_is_won_by_nobody():
    assert win_share([1.0, 0.0, 0.0], 0, 0.0) == 1.0
    assert win_share([0.5, 0.5, 0.0], 1, 0.0) == 0.5
    assert win_share([0.5, 0.5, 0.0], 2, 0.0) == 0.0
    assert win_share([1 / 3] * 3, 2, 0.0) == pytest.approx(1 / 3)  # No Thanks!: all tied lowest share the win
    assert win_share([-1.0, -1.0, -1.0, -1.0], 0, -1.0) == 0.0  # Dice Wars cancelled at the move limit


def test_a_mixed_table_gives_each_opponent_every_seat():
    game = make("nothanks:players=3")
    seatings = []
    table_score(game, "random", "nothanks-net+nothanks-expert", 6, seed=1, on_game=lambda i, record: seatings.append(record.agents))
    assert seatings == [["random", "nothanks-net", "nothanks-expert"], ["nothanks-net", "random", "nothanks-expert"],
                        ["nothanks-net", "nothanks-expert", "random"], ["random", "nothanks-expert", "nothanks-net"],
                        ["nothanks-expert", "random", "nothanks-net"], ["nothanks-expert", "nothanks-net", "random"]]


def test_a_table_rotates_the_seat_and_reports_scores_with_intervals():
    game = make("nothanks:players=3")
    seats = []
    table = table_score(game, "nothanks-net", "random", 6, seed=3,
                        on_game=lambda i, record: seats.append(record.agents.index("nothanks-net")))
    assert seats == [0, 1, 2, 0, 1, 2]
    assert table["games"] == 6 and table["players"] == 3 and table["fair"] == pytest.approx(1 / 3)
    assert table["share_low"] <= table["share"] <= table["share_high"]
    assert table["score_low"] <= table["score"] <= table["score_high"]
    assert table["opponent_score_low"] <= table["opponent_score"] <= table["opponent_score_high"]
    # the imitation network takes cheap cards and keeps chips: far below random players' scores
    assert table["score"] < table["opponent_score"]


@pytest.fixture(scope="module")
def tiny_nothanks_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("az") / "run"
    cfg = AZConfig(game="nothanks:players=3", iterations=1, games=2, lockstep=2, simulations=4, steps=2, batch=16, kind="mlp",
                   hidden=16, layers=1, eval_games=3, eval_simulations=4, eval_mcts=10, seed=1)
    trainer = Trainer(folder, cfg)
    trainer.run()
    return trainer


def test_training_on_a_hidden_information_game_is_evaluated_at_tables(tiny_nothanks_run):
    evaluation = tiny_nothanks_run.history[-1]["eval"]
    assert set(evaluation) == {"random", "mcts"}
    assert all(0.0 <= share <= 1.0 for share in evaluation.values())
    assert (tiny_nothanks_run.folder / "curve.png").is_file()


def test_the_trained_model_plays_a_whole_game_as_az_and_evaluate_prints_its_tables(tiny_nothanks_run):
    model = tiny_nothanks_run.folder / "model.pt"
    game = make("nothanks:players=3")
    record = play_game(game, [make_agent(f"az:path={model},simulations=4", game), make_agent("random"), make_agent("random")], seed=2)
    assert len(record.actions) >= 24 and record.returns  # every card is taken once
    result = runner.invoke(app, ["evaluate", str(model), "--games", "3", "--simulations", "4", "--mcts", "10",
                                 "--opponent", "nothanks-expert", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["duels"] == {} and set(doc["tables"]) == {"random", "mcts", "nothanks-expert"}
    for table in doc["tables"].values():
        assert table["games"] == 3 and table["players"] == 3 and "score" in table and "opponent_score" in table
    shown = runner.invoke(app, ["evaluate", str(model), "--games", "3", "--simulations", "4", "--mcts", "10"])
    assert shown.exit_code == 0 and "at a table of mcts:iterations=10: win share" in shown.output
    refused = runner.invoke(app, ["evaluate", str(model), "--opponent", "nosuchagent"])
    assert refused.exit_code != 0 and "nosuchagent" in refused.output


def test_self_play_stops_a_game_at_max_moves_and_trains_on_it_as_lost_by_everybody():
    import numpy as np
    import torch

    from boardlab.agents.az_selfplay import SelfPlaySettings, self_play
    from boardlab.core.search import value_outputs
    from boardlab.nn.az_net import Evaluator, new_network, relative_values

    game = make("dicewars")  # 4 players, utilities -1..1: a game stopped unfinished is worth -1 to every seat
    torch.manual_seed(0)
    evaluator = Evaluator(new_network(game, {"kind": "mlp", "hidden": 8, "layers": 1}))
    outputs = value_outputs(game)
    samples, summary = self_play(game, evaluator.evaluate, [1, 2], SelfPlaySettings(simulations=4, max_moves=10),
                                 lambda returns, mover: relative_values(np.asarray(returns), mover, outputs))
    assert [g["moves"] for g in summary] == [10, 10] and all(g["cut"] for g in summary)
    assert summary[0]["returns"] == [-1.0] * 4 and len(samples) == 20
    assert (samples.value == -1).all()
