"""train az --imitate: the network's first lesson from another agent's games, before self-play."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from boardlab.agents.base import Agent
from boardlab.cli import app
from boardlab.core.errors import BoardlabError
from boardlab.core.plugins import agents as agent_plugins
from boardlab.core.registry import make
from boardlab.experiments.az_imitation import agent_games
from boardlab.experiments.az_training import AZConfig, Trainer
from boardlab.games.nothanks.rules import PASS, TAKE

runner = CliRunner()
SMALL = "connect4:rows=4,cols=5,k=3"


def test_a_lesson_holds_each_move_the_agent_chose_and_the_result_for_the_seat_that_chose_it():
    game = make(SMALL)
    samples, games = agent_games(game, "mcts:iterations=8", [3, 4, 5])
    assert len(samples) == sum(g["moves"] for g in games) and len(games) == 3
    start = 0
    for summary in games:
        state = game.new_initial_state(summary["seed"])
        for k in range(start, start + summary["moves"]):
            mover = state.current_player()
            assert np.array_equal(samples.obs[k], state.observation_tensor(mover))
            assert np.array_equal(samples.mask[k], state.legal_actions_mask())
            action = int(np.flatnonzero(samples.policy[k])[0])
            assert samples.policy[k].sum() == 1 and samples.mask[k][action]  # one-hot on a legal move
            state.apply_action(action)
        assert state.is_terminal() and [float(r) for r in state.returns()] == summary["returns"]
        for k in range(start, start + summary["moves"]):  # seat 0 moves first, then they alternate
            assert samples.value[k][0] == summary["returns"][(k - start) % 2]
        start += summary["moves"]
    discounted, _ = agent_games(game, "mcts:iterations=8", [3], discount=0.5)
    last = games[0]["moves"] - 1
    assert discounted.value[last][0] == 0.5 * samples.value[last][0]  # the last move is one ply from the end
    assert discounted.value[0][0] == samples.value[0][0] * 0.5 ** games[0]["moves"]


def _agreement(net, game, samples) -> float:
    """How often the network's most likely legal move is the one the agent chose."""
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(samples.obs))
    chosen = np.argmax(np.where(samples.mask, logits.numpy(), -np.inf), axis=1)
    return float(np.mean(chosen == np.argmax(samples.policy, axis=1)))


class PotTaker(Agent):
    """Takes the face-up card once three chips or more lie on it (or when it must), else passes: a rule the
    observation shows, so a network can learn it exactly."""

    name = "pot-taker"
    games = ("nothanks",)

    def step(self, state) -> int:
        return TAKE if state.pot >= 3 or PASS not in state.legal_actions() else PASS


def test_the_lesson_teaches_the_network_the_agents_moves_before_self_play(tmp_path):
    """A lesson of a teacher's games makes the network choose the teacher's moves in games it has not seen, which
    the same network untrained does not."""
    game = make("nothanks:players=3")
    cfg = AZConfig(game=game.spec(), iterations=1, games=2, lockstep=2, simulations=4, steps=1, batch=64, hidden=32, layers=1,
                   eval_every=100000, eval_games=2, eval_simulations=2, eval_mcts=4, seed=1,
                   imitate="pot-taker", imitate_games=60, imitate_steps=1500)
    with agent_plugins.registered("pot-taker", f"{__name__}:PotTaker"):
        fresh = Trainer(tmp_path / "fresh", AZConfig(**{**cfg.__dict__, "imitate": ""}))
        taught = Trainer(tmp_path / "taught", cfg)
        lesson = taught.imitate()
        unseen, _ = agent_games(game, "pot-taker", list(range(1000, 1010)))
    before, after = _agreement(fresh.net, game, unseen), _agreement(taught.net, game, unseen)
    assert after >= 0.95 and after > before + 0.2, (before, after)
    assert lesson["games"] == 60 and lesson["agent"] == "pot-taker" and lesson["positions"] == taught.buffer.added
    assert set(lesson["eval"]) == {"random", "mcts"} and (tmp_path / "taught" / "models" / "iter-0000.pt").is_file()


def test_train_az_imitate_reports_the_lesson_and_a_resumed_run_does_not_repeat_it(tmp_path):
    out = tmp_path / "run"
    args = ["train", "az", "--game", SMALL, "--games", "2", "--lockstep", "2", "--simulations", "4", "--steps", "2",
            "--batch", "16", "--net", "mlp", "--hidden", "8", "--layers", "1", "--eval-games", "2", "--eval-simulations", "2",
            "--eval-mcts", "4", "--eval-every", "1", "--seed", "2", "--imitate", "mcts:iterations=4", "--imitate-games", "30",
            "--imitate-steps", "5", "--out", str(out), "--json"]
    only = runner.invoke(app, [*args, "--iterations", "0"])  # the lesson alone
    assert only.exit_code == 0, only.output
    alone = json.loads(only.stdout)
    lesson = alone["imitation"]
    assert alone["iterations"] == 0 and alone["history"] == [] and alone["positions"] == lesson["positions"]
    assert torch.load(out / "model.pt", weights_only=True)["meta"]["iteration"] == 0  # what az:path=RUN/model.pt plays
    first = runner.invoke(app, ["train", "az", "--out", str(out), "--iterations", "1", "--json"])
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert lesson["games"] == 30 and lesson["agent"] == "mcts:iterations=4" and lesson["positions"] > 30
    assert data["imitation"] == lesson  # kept in the checkpoint, not played again
    assert data["positions"] > lesson["positions"]  # the lesson's positions, then the iteration's own
    assert lesson["cpu_hours"] <= data["cpu_hours"] and set(lesson["eval"]) == {"random", "mcts"}
    assert (out / "models" / "iter-0000.pt").is_file()
    weights = torch.load(out / "models" / "iter-0000.pt", weights_only=True)
    assert weights["meta"]["iteration"] == 0
    again = runner.invoke(app, ["train", "az", "--out", str(out), "--iterations", "2", "--json"])
    assert again.exit_code == 0, again.output
    second = json.loads(again.stdout)
    assert second["imitation"] == lesson
    assert second["positions"] - data["positions"] < lesson["positions"]
    assert "previous" in second["last_eval"]


@pytest.mark.parametrize("teacher, message", [
    ("human", "is a person's seat"),
    ("ttr-algorithmic", "ttr-algorithmic"),
    ("nosuchagent", "nosuchagent"),
])
def test_a_teacher_that_cannot_play_the_game_by_itself_is_refused_before_a_run_starts(tmp_path, teacher, message):
    with pytest.raises(BoardlabError, match=message):
        Trainer(tmp_path / "run", AZConfig(game=SMALL, imitate=teacher))
    refused = runner.invoke(app, ["train", "az", "--game", SMALL, "--imitate", teacher, "--out", str(tmp_path / "cli")])
    assert refused.exit_code != 0 and message in refused.output and "Traceback" not in refused.output
    assert not (tmp_path / "cli" / "checkpoint.pt").exists()
    zero = runner.invoke(app, ["train", "az", "--game", SMALL, "--imitate", "random", "--imitate-games", "0",
                               "--out", str(tmp_path / "zero")])
    assert zero.exit_code != 0 and "imitate_games must be at least 1" in zero.output
    nothing = runner.invoke(app, ["train", "az", "--game", SMALL, "--iterations", "0", "--out", str(tmp_path / "nothing")])
    assert nothing.exit_code != 0 and "0 runs the --imitate lesson alone" in nothing.output
    assert "Traceback" not in nothing.output and not (tmp_path / "nothing" / "checkpoint.pt").exists()
