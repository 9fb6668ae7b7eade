"""The az agent (PUCT with a policy-value network): search, masking, model files, trees, and train az's resume."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from az_helpers import neutral_model
from typer.testing import CliRunner

from boardlab.agents.az_selfplay import Samples
from boardlab.agents.registry import make_agent
from boardlab.cli import app
from boardlab.core.errors import BoardlabError, FormatError, SpecError
from boardlab.core.game import CHANCE, TERMINAL
from boardlab.core.registry import make
from boardlab.experiments.az_training import AZConfig, Trainer
from boardlab.nn.az_learn import ReplayBuffer, train_steps
from boardlab.nn.az_net import (
    Evaluator,
    load_model,
    new_network,
    relative_values,
    save_model,
)
from boardlab.trees.io import load_tree, save_tree

runner = CliRunner()


def test_illegal_actions_get_zero_probability():
    game = make("connect4:rows=4,cols=5,k=3")
    state = game.state_from_moves("1 1 1 1 3")  # column 1 full
    torch.manual_seed(1)
    priors, values = Evaluator(new_network(game)).evaluate([state, game.new_initial_state()])
    assert priors[0][0] == 0 and priors[0].sum() == pytest.approx(1) and np.all(priors[0][1:] > 0)
    assert np.all(priors[1] > 0)
    mover = state.current_player()
    assert values[0][mover] == pytest.approx(-values[0][1 - mover])  # zero-sum: one tanh output, negated for the other


def test_value_targets_and_evaluations_agree_on_whose_value_is_whose():
    """The value head learns values counted from the player to move; the search reads them back per seat."""
    game = make("dicewars:players=3")
    torch.manual_seed(0)
    net = new_network(game, {"kind": "mlp", "hidden": 8, "layers": 1})
    state = game.new_initial_state(2)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    mover = state.current_player()
    with torch.no_grad():
        _, raw = net(torch.from_numpy(state.observation_tensor(mover)[None]))
    _, per_seat = Evaluator(net).evaluate([state])
    assert np.allclose(relative_values(per_seat[0], mover, 3), raw[0].numpy(), atol=1e-6)
    assert relative_values(np.array([1.0, -1.0, 0.5]), 2, 3).tolist() == [0.5, 1.0, -1.0]
    assert relative_values(np.array([1.0, -1.0]), 1, 1).tolist() == [-1.0]


def test_search_takes_the_win_and_blocks_the_threat(tmp_path):
    game = make("connect4")
    agent = make_agent(f"az:path={neutral_model(game, tmp_path / 'flat.pt')},simulations=300,seed=1", game)
    win = game.state_from_moves("1 2 1 2 1 2")  # X has three in column 1
    agent.reset(game, win.current_player(), 0)
    assert agent.step(win) == 0
    block = game.state_from_moves("1 2 1 2 1")  # O must block column 1
    agent.reset(game, block.current_player(), 0)
    assert agent.step(block) == 0
    assert agent.last_search["children"][0]["move"] == "1"
    # a time budget too small for one simulation still gives a legal move, from the priors alone
    hurried = make_agent(f"az:path={tmp_path / 'flat.pt'},time=0.000001", game)
    hurried.reset(game, block.current_player(), 0)
    assert hurried.step(block) in block.legal_actions() and hurried.last_search["simulations"] == 0


def test_tree_export_keeps_the_visit_invariants_and_survives_a_binary_file(tmp_path):
    game = make("connect4:rows=4,cols=5,k=3")
    model = neutral_model(game, tmp_path / 'flat.pt')
    state = game.state_from_moves("3 3")
    for solver in ("off", "on"):
        agent = make_agent(f"az:path={model},simulations=120,seed=3,solver={solver}", game)
        agent.reset(game, state.current_player(), 0)
        agent.step(state)
        tree = agent.last_tree().tree()
        kids = [[] for _ in range(len(tree))]
        for node in range(1, len(tree)):
            kids[tree.parent[node]].append(node)
        assert tree.visits[0] == 120 == sum(tree.visits[k] for k in kids[0])
        proven = agent.last_search["children"]
        for node in range(1, len(tree)):
            below = sum(tree.visits[k] for k in kids[node])
            if tree.player[node] == TERMINAL:
                assert not kids[node]
            elif solver == "off":
                assert tree.visits[node] == below + 1, node
            else:  # a proven node collects every visit after its proof, as a terminal node does
                assert tree.visits[node] >= below + bool(kids[node]), node
        if solver == "on":  # in a 4x5 board with k=3, 120 simulations prove results
            assert any(child["proof"] is not None for child in proven)
    assert tree.state[0] == "[connect4:rows=4,cols=5,k=3] 33"
    assert tree.player[0] == state.current_player()
    # the root's mean is from its mover's view, each child's from the view of the player who moved into it
    assert np.all(np.abs(tree.mean_payout) <= 1)
    path = tmp_path / "az.tree"
    save_tree(tree, path)
    again = load_tree(path)
    assert len(again) == len(tree)
    # the format keeps a payout per edge, so the root (no edge into it) reads back as 0
    assert np.array_equal(again.visits, tree.visits) and np.allclose(again.mean_payout[1:], tree.mean_payout[1:])
    assert list(again.state) == list(tree.state)


def test_chance_nodes_and_four_players_go_through_the_same_search():
    game = make("dicewars:players=3")
    torch.manual_seed(0)
    net = new_network(game, {"kind": "mlp", "hidden": 16, "layers": 1})
    assert net.values == 3  # not zero-sum for two: one value per seat
    from boardlab.agents.puct import PUCTSearch, run_simulations
    from boardlab.core.search import PUCTSettings

    state = game.new_initial_state(4)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    search = PUCTSearch(state, PUCTSettings(c=1.5), np.random.default_rng(0))
    run_simulations([search], 60, Evaluator(net).evaluate)
    assert search.root_visits() == 60
    players = set(search.player)
    assert state.current_player() in players
    assert search.choose(0) in state.legal_actions()
    if CHANCE in players:  # the attack outcomes a simulation drew
        chance = [i for i, p in enumerate(search.player) if p == CHANCE]
        for node in chance:
            f, k = search.first[node], search.nch[node]
            assert search.visits[node] == sum(search.visits[f: f + k])


def test_model_files_refuse_the_wrong_game_and_corrupt_bytes(tmp_path):
    mancala = make("mancala")
    path = neutral_model(mancala, tmp_path / "kalah.pt")
    net, payload = load_model(path, mancala)
    assert payload["game"] == "mancala" and net.shape == (15,)
    with pytest.raises(BoardlabError, match="trained for mancala .*not connect4"):
        load_model(path, make("connect4"))
    agent = make_agent(f"az:path={path}")
    with pytest.raises(BoardlabError, match="trained for mancala"):
        agent.reset(make("connect4"), 0, 0)
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(FormatError, match="bad.pt: not a readable PyTorch checkpoint"):
        make_agent(f"az:path={bad}")
    other = tmp_path / "other.pt"
    torch.save({"format": "something-else"}, other)
    with pytest.raises(FormatError, match="not a AlphaZero model file"):
        make_agent(f"az:path={other}")
    with pytest.raises(SpecError, match="no committed model for nothanks:players=7"):
        make_agent("az", make("nothanks:players=7")).reset(make("nothanks:players=7"), 0, 0)
    with pytest.raises(SpecError, match="no committed model for connect4:rows=4"):
        make_agent("az").reset(make("connect4:rows=4"), 0, 0)


def test_a_value_with_inputs_of_its_own_reads_only_them_and_survives_its_model_file(tmp_path):
    """--value-inputs: the value ignores every other entry of the tensor, the policy does not; the model file
    keeps the slice, and a bad slice or a resnet is refused naming it."""
    game = make("dicewars:players=2")
    width = game.observation_tensor_shape()[0]
    torch.manual_seed(0)
    net = new_network(game, {"kind": "mlp", "hidden": 16, "layers": 2, "value_inputs": "-30:"}).eval()
    x = torch.from_numpy(np.stack([game.new_initial_state(seed).observation_tensor(0) for seed in (1, 2)]))
    changed = x.clone()
    changed[:, : width - 30] = torch.rand(2, width - 30)  # another map, other owners: the value must not see it
    (logits, values), (other_logits, other_values) = net(x), net(changed)
    assert torch.equal(values, other_values) and not torch.equal(logits, other_logits)
    assert not torch.equal(net(x)[1], net(x.flip(0))[1])  # it does read its own inputs
    save_model(net, tmp_path / "v.pt", game.spec())
    loaded, payload = load_model(tmp_path / "v.pt", game)
    assert payload["arch"]["value_inputs"] == "-30:" and torch.equal(loaded(x)[1], values)
    for text, message in (("30", "must be START:STOP"), ("a:b", "must be START:STOP"), (f"{width}:", "selects nothing")):
        with pytest.raises(BoardlabError, match=message):
            new_network(game, {"kind": "mlp", "value_inputs": text})
    with pytest.raises(BoardlabError, match="value_inputs is for an MLP"):
        new_network(make("connect4"), {"kind": "resnet", "value_inputs": "0:10"})


TINY = ["--game", "connect4:rows=4,cols=5,k=3", "--games", "4", "--lockstep", "2", "--simulations", "6", "--steps", "3",
        "--batch", "16", "--net", "mlp", "--hidden", "16", "--layers", "1", "--eval-games", "2", "--eval-simulations", "4",
        "--eval-mcts", "10", "--seed", "5"]


def _cfg(**changes) -> AZConfig:
    settings = dict(game="connect4:rows=4,cols=5,k=3", games=4, lockstep=2, simulations=6, steps=3, batch=16, kind="mlp",
                    hidden=16, layers=1, eval_games=2, eval_simulations=4, eval_mcts=10, seed=5)
    return AZConfig(**{**settings, **changes})


@pytest.mark.parametrize("game,augment,engine,imitate", [
    ("connect4:rows=4,cols=5,k=3", False, "auto", ""), ("connect4:rows=4,cols=5,k=3", True, "auto", ""),
    ("connect4:rows=4,cols=5,k=3", False, "generic", ""), ("nothanks:players=3", False, "auto", ""),
    ("connect4:rows=4,cols=5,k=3", False, "auto", "mcts:iterations=4")],
    ids=["plain", "augmented", "generic-engine", "hidden-information", "after-a-lesson"])
def test_train_az_resumes_after_sigkill_to_the_same_weights(tmp_path, game, augment, engine, imitate):
    killed = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    lesson = ["--imitate", imitate, "--imitate-games", "6", "--imitate-steps", "4"] if imitate else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardlab", "train", "az", *TINY, "--game", game, "--iterations", "100000", "--eval-every", "100000",
         "--out", str(killed), "--augment" if augment else "--no-augment", "--engine", engine, *lesson],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 300
        while not (killed / "history.json").exists() or len(json.loads((killed / "history.json").read_text())) < 2:
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "no second checkpoint within 300 s"
            time.sleep(0.02)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    taught = {"imitate": imitate, "imitate_games": 6, "imitate_steps": 4} if imitate else {}
    # the checkpoint, not history.json: a kill between the two writes leaves the checkpoint one ahead
    done = int(torch.load(killed / "checkpoint.pt", weights_only=True)["iteration"])
    goal = done + 2
    resumed = Trainer(killed, _cfg(game=game, iterations=goal, eval_every=100000, augment=augment, engine=engine, **taught))
    assert resumed.iteration == done
    resumed.run()
    straight = Trainer(tmp_path / "straight", _cfg(game=game, iterations=goal, eval_every=100000, augment=augment, engine=engine, **taught))
    straight.run()
    assert (killed / "model.pt").read_bytes() == (tmp_path / "straight" / "model.pt").read_bytes()
    for a, b in zip(resumed.net.state_dict().values(), straight.net.state_dict().values()):
        assert torch.equal(a, b)
    for a, b in zip(resumed.history, straight.history):
        assert {k: v for k, v in a.items() if "hours" not in k} == {k: v for k, v in b.items() if "hours" not in k}
    with pytest.raises(BoardlabError, match="started with seed=5, not 6"):
        Trainer(killed, replace(_cfg(game=game, iterations=goal, eval_every=100000, augment=augment, engine=engine, **taught), seed=6))
    if game.startswith("connect4"):  # a game with symmetries, which may be trained with or without them
        with pytest.raises(BoardlabError, match=f"started with augment={augment}, not {not augment}"):
            Trainer(killed, _cfg(game=game, iterations=goal, eval_every=100000, augment=not augment, engine=engine, **taught))


def test_augmented_minibatches_mirror_connect_four_samples():
    """Every drawn sample is the stored one or its mirror image, which is what the mirrored game itself shows."""
    game = make("connect4:rows=4,cols=5,k=3")
    one_disc, full_first = game.state_from_moves("1"), game.state_from_moves("1111")
    policies = np.array([[1, 0, 0, 0, 0], [0, 0.5, 0.3, 0.2, 0]], np.float32)  # all mass on column 1; none on the full one
    values = np.array([[0.25], [-0.5]], np.float32)
    states = [one_disc, full_first]
    buffer = ReplayBuffer(8, game.observation_tensor_shape(), 5, 1)
    buffer.add(Samples(np.stack([s.observation_tensor(s.current_player()) for s in states]),
                       np.stack([s.legal_actions_mask() for s in states]), policies, values))
    assert buffer.arrays["obs"][0, 1, 3, 0] == 1 and buffer.arrays["mask"][1].tolist() == [False, True, True, True, True]
    images = [game.state_from_moves("5"), game.state_from_moves("5555")]
    mirrored_policies = policies[:, ::-1]
    rng = np.random.default_rng(0)
    batches = [buffer.batch(rng, 2, game.symmetries()) for _ in range(16)]  # a batch holds at most the buffer's size
    batch = {f: np.concatenate([b[f].numpy() for b in batches]) for f in batches[0]}
    kinds = set()
    for obs, mask, policy, value in zip(batch["obs"], batch["mask"], batch["policy"], batch["value"]):
        k = [0.25, -0.5].index(value[0])  # the value is never transformed, so it tells the samples apart
        plain = np.array_equal(obs, buffer.arrays["obs"][k])
        seen = states[k] if plain else images[k]
        assert np.array_equal(obs, seen.observation_tensor(seen.current_player()))
        assert np.array_equal(mask, seen.legal_actions_mask())
        assert np.array_equal(policy, policies[k] if plain else mirrored_policies[k])
        kinds.add((k, plain))
    assert kinds == {(0, True), (0, False), (1, True), (1, False)}
    assert mirrored_policies[0].tolist() == [0, 0, 0, 0, 1] and batch["obs"].dtype == np.float32
    # the buffer keeps the positions as played
    assert buffer.arrays["obs"][0, 1, 3, 0] == 1 and buffer.arrays["policy"][0, 0] == 1


@pytest.mark.parametrize("game, setting, value, flags, message, shown", [
    ("mancala", "augment", True, ["--augment"], "--augment needs a game with symmetries; mancala declares none", "mancala declares none"),
    ("dicewars", "solver", True, ["--solver"], "--solver proves results in two-player zero-sum games.*dicewars has chance",
     "dicewars has chance"),
    ("nothanks", "discount", 0.9, ["--discount", "0.9"], "--discount is not used in games with hidden information", "hidden information"),
    ("connect4", "policy_q", -1.0, ["--policy-q", "-1"], "policy_q must be between 0 and 1000, not -1", "policy_q must be"),
])
def test_a_setting_the_game_cannot_take_is_refused_before_a_run_starts(tmp_path, game, setting, value, flags, message, shown):
    with pytest.raises(BoardlabError, match=message):
        Trainer(tmp_path / "run", AZConfig(game=game, **{setting: value}))
    refused = runner.invoke(app, ["train", "az", "--game", game, *flags, "--out", str(tmp_path / "cli")])
    assert refused.exit_code != 0 and shown in refused.output
    assert not (tmp_path / "cli" / "checkpoint.pt").exists()


def test_a_resumed_run_may_evaluate_more_often_and_learns_the_same_weights(tmp_path):
    """--eval-every changes only which networks are saved and evaluated: evaluations never touch what is learned."""
    sparse = Trainer(tmp_path / "sparse", _cfg(iterations=3, eval_every=100000))
    sparse.run()
    Trainer(tmp_path / "dense", _cfg(iterations=1, eval_every=100000)).run()
    dense = Trainer(tmp_path / "dense", _cfg(iterations=3, eval_every=1))
    dense.run()
    assert (tmp_path / "dense" / "model.pt").read_bytes() == (tmp_path / "sparse" / "model.pt").read_bytes()
    assert sorted(p.name for p in (tmp_path / "dense" / "models").iterdir()) == ["iter-0001.pt", "iter-0002.pt", "iter-0003.pt"]
    assert [h["iteration"] for h in json.loads((tmp_path / "dense" / "history.json").read_text()) if "eval" in h] == [1, 2, 3]
    changed = runner.invoke(app, ["train", "az", *TINY, "--out", str(tmp_path / "dense"), "--iterations", "4", "--steps", "4"])
    assert changed.exit_code != 0 and "steps=3" in changed.output and "--eval-every may change" in changed.output
    behind = runner.invoke(app, ["train", "az", *TINY, "--out", str(tmp_path / "dense"), "--iterations", "2"])
    assert behind.exit_code != 0 and "reached iteration 3" in behind.output and "--iterations 2" in behind.output
    assert (tmp_path / "dense" / "model.pt").read_bytes() == (tmp_path / "sparse" / "model.pt").read_bytes()


def test_a_run_from_before_augmentation_resumes_without_it(tmp_path):
    """Runs started before the option have no augment key in config.json nor in the checkpoint: they were plain."""
    old = tmp_path / "old"
    Trainer(old, _cfg(iterations=1, eval_every=100000)).run()
    config = json.loads((old / "config.json").read_text())
    del config["augment"]
    (old / "config.json").write_text(json.dumps(config))
    checkpoint = torch.load(old / "checkpoint.pt", weights_only=True)
    del checkpoint["config"]["augment"]
    torch.save(checkpoint, old / "checkpoint.pt")
    again = runner.invoke(app, ["train", "az", "--out", str(old), "--iterations", "2", "--eval-every", "100000", "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["iterations"] == 2 and json.loads((old / "config.json").read_text())["augment"] is False


def _self_play_both(games: int, simulations: int, **settings) -> tuple:
    """Small Connect Four self-play of one untrained network, with the default settings and with ``settings``
    (the same seeds and simulations): ``(game, (samples, summary) plain, (samples, summary) changed)``."""
    from boardlab.agents.az_selfplay import SelfPlaySettings, self_play

    game = make("connect4:rows=4,cols=5,k=3")
    torch.manual_seed(0)
    evaluator = Evaluator(new_network(game, {"kind": "mlp", "hidden": 8, "layers": 1}))
    targets = lambda returns, mover: relative_values(np.asarray(returns), mover, 1)  # noqa: E731
    seeds = list(range(games))
    return (game, self_play(game, evaluator.evaluate, seeds, SelfPlaySettings(simulations=simulations), targets),
            self_play(game, evaluator.evaluate, seeds, SelfPlaySettings(simulations=simulations, **settings), targets))


def test_random_openings_start_self_play_games_away_from_the_initial_state_and_are_not_trained_on():
    game, (plain, plain_games), (opened, opened_games) = _self_play_both(12, simulations=4, random_opening=6)
    empty = game.new_initial_state(0).observation_tensor(0)
    starts = [0, *np.cumsum([g["moves"] for g in plain_games])[:-1]]
    assert all(np.array_equal(plain.obs[k], empty) for k in starts)  # without: every game's first sample is the empty board
    opened_starts = [int(k) for k in np.cumsum([0, *[g["moves"] for g in opened_games]])[:-1]]
    stones = [int(opened.obs[k][:2].sum()) for k in opened_starts if k < len(opened)]  # the two players' planes
    assert 0 < max(stones) <= 6 and len(set(stones)) > 2  # games began 0..6 random moves in, and those moves left no samples
    assert len(opened) == sum(g["moves"] for g in opened_games) < len(plain) + 6 * 12


def test_q_tilted_policy_targets_weigh_the_visits_by_the_searched_values():
    from boardlab.core.search import ChildStats, q_tilted_policy, visit_policy

    children = [ChildStats(0, 10, 0, 0.5), ChildStats(3, 30, 0, 0.35), ChildStats(5, 0, 0, 0.9)]
    tilted = q_tilted_policy(children, 7, 10.0)
    weights = np.array([10.0, 30 * np.exp(-1.5)])  # the best mean keeps its visits; 0.15 below it, e^-1.5 of them
    assert tilted[[0, 3]] == pytest.approx(weights / weights.sum()) and tilted.sum() == pytest.approx(1)
    assert tilted[0] > tilted[3]  # the plain visit shares rank them the other way
    assert tilted[5] == 0 and tilted[[1, 2, 4, 6]].sum() == 0  # a move never tried gets no share, whatever its mean
    assert q_tilted_policy(children, 7, 0.0) == pytest.approx(visit_policy(children, 7))
    assert not q_tilted_policy([ChildStats(2, 0, 0, 0.0)], 7, 10.0).any()


def test_self_play_with_q_tilted_targets_plays_the_same_games_and_only_its_policy_targets_change():
    _, (plain, plain_games), (tilted, tilted_games) = _self_play_both(6, simulations=16, policy_q=30)
    assert plain_games == tilted_games  # moves come from the visits either way
    assert np.array_equal(plain.obs, tilted.obs) and np.array_equal(plain.value, tilted.value)
    assert tilted.policy.sum(axis=1) == pytest.approx(np.ones(len(tilted)))
    assert np.all(tilted.policy[plain.policy == 0] == 0)  # no share for a move the search never tried
    assert not np.allclose(plain.policy, tilted.policy)


def test_self_play_against_opponents_learns_only_the_networks_moves_at_their_table():
    from boardlab.agents.az_selfplay import SelfPlaySettings, opponent_table, self_play

    game = make("nothanks:players=3")
    torch.manual_seed(0)
    evaluator = Evaluator(new_network(game, {"kind": "mlp", "hidden": 8, "layers": 1}))
    targets = lambda returns, mover: relative_values(np.asarray(returns), mover, game.num_players())  # noqa: E731
    settings = SelfPlaySettings(simulations=4, opponents="nothanks-expert+random", opponent_share=0.5)
    seeds = list(range(30))
    tables = [opponent_table(game, seed, settings) for seed in seeds]
    mixed = [t for t in tables if t is not None]
    assert 0 < len(mixed) < len(seeds)  # about half the games, drawn from their seeds
    assert {t.index(None) for t in mixed} == {0, 1, 2}  # the network sits everywhere
    assert all(sorted(a.name for a in t if a is not None) == ["nothanks-expert", "random"] for t in mixed)
    samples, summary = self_play(game, evaluator.evaluate, seeds, settings, targets)
    assert [g["learner"] for g in summary] == [None if t is None else t.index(None) for t in tables]
    assert all(not g["cut"] for g in summary)  # the opponents' moves were played, every game ended
    assert all(g["moves"] > 0 for g in summary)
    # only the network's moves became samples: each game's count is its seat's decisions, not the table's
    plain, plain_games = self_play(game, evaluator.evaluate, seeds, SelfPlaySettings(simulations=4), targets)
    for g, p in zip(summary, plain_games):
        if g["learner"] is None:
            assert g == {**p, "learner": None}  # a game without opponents is plain self-play, draw for draw
    assert len(samples) == sum(g["moves"] for g in summary) < len(plain)
    for seed, table in zip(seeds, tables):
        assert (opponent_table(game, seed, settings) is None) == (table is None)  # the same seed, the same table


def test_train_az_with_opponents_reports_its_win_share_against_them_and_refuses_a_table_that_does_not_fit(tmp_path):
    cfg = _cfg(game="nothanks:players=3", iterations=1, eval_every=100000, games=6, lockstep=6,
               opponents="random", opponent_share=1.0)
    trainer = Trainer(tmp_path / "run", cfg)
    trainer.run()
    entry = trainer.history[-1]
    assert entry["opponent_games"] == 6 and 0 <= entry["opponent_win_share"] <= 1
    for settings, message in [({"opponents": "random+random+random"}, "names 3 agents; nothanks:players=3 has 2 other seats"),
                              ({"opponents": "no-such-agent"}, "--opponents: .*no-such-agent"),
                              ({"opponents": "qnet"}, "--opponents: .*qnet"),
                              ({"opponent_share": 0.0}, "--opponents and --opponent-share go together"),
                              ({"opponent_share": 1.5}, "opponent_share must be between 0 and 1")]:
        with pytest.raises(BoardlabError, match=message):
            Trainer(tmp_path / "refused", replace(cfg, **settings))
    assert not (tmp_path / "refused").exists()
    changed = runner.invoke(app, ["train", "az", "--out", str(tmp_path / "run"), "--iterations", "2", "--opponents", "nothanks-expert"])
    assert changed.exit_code != 0 and "opponents='random'" in changed.output


def test_train_az_grades_the_positions_it_is_given_and_refuses_a_bad_file_before_it_starts(tmp_path):
    from boardlab.core.rng import derive_seed
    from boardlab.experiments.az_training import graded_shares
    from boardlab.games.connect4.grading import load_grading_set, write_grading_set

    chosen = [load_grading_set()[k] for k in (0, 100, 200)]  # one position of each phase
    positions = tmp_path / "validation.txt"
    write_grading_set(positions, chosen)
    trainer = Trainer(tmp_path / "run", _cfg(game="connect4", iterations=1, eval_every=1, eval_positions=str(positions)))
    trainer.run()
    graded = trainer.history[-1]["eval"]
    spec = f"az:path={tmp_path / 'run' / 'models' / 'iter-0001.pt'},simulations=4"
    assert (graded["optimal"], graded["kept"]) == graded_shares(make("connect4"), spec, derive_seed(5, "grade", 1), positions=chosen)
    assert graded["optimal"] * 3 == round(graded["optimal"] * 3) and graded["kept"] * 3 == round(graded["kept"] * 3)

    bad = tmp_path / "bad.txt"
    bad.write_text("44 1 2 3\n")
    for path, game, message in [(bad, "connect4", r"bad.txt, line 1: expected 'MOVES BEST S1 .. S7'"),
                                (tmp_path / "none.txt", "connect4", "none.txt does not exist"),
                                (positions, "connect4:rows=4,cols=5,k=3", "connect4:rows=4,cols=5,k=3 has no grading")]:
        with pytest.raises(BoardlabError, match=message):
            Trainer(tmp_path / "refused", _cfg(game=game, eval_positions=str(path)))
    refused = runner.invoke(app, ["train", "az", *TINY, "--game", "connect4", "--eval-positions", str(bad), "--out", str(tmp_path / "cli")])
    assert refused.exit_code != 0 and "bad.txt, line 1" in refused.output
    assert not (tmp_path / "cli" / "checkpoint.pt").exists() and not (tmp_path / "refused" / "checkpoint.pt").exists()


def test_train_az_init_starts_from_a_model_of_the_same_architecture_and_refuses_another(tmp_path):
    first = Trainer(tmp_path / "first", _cfg(iterations=1, eval_every=100000))
    first.run()
    model = tmp_path / "first" / "model.pt"
    second = Trainer(tmp_path / "second", _cfg(iterations=1, eval_every=100000, init=str(model), seed=9))
    for a, b in zip(second.net.state_dict().values(), first.net.state_dict().values()):
        assert torch.equal(a, b)  # not the seed's fresh weights: the model's
    fresh = Trainer(tmp_path / "fresh", _cfg(iterations=1, eval_every=100000, seed=9))
    assert any(not torch.equal(a, b) for a, b in zip(fresh.net.state_dict().values(), first.net.state_dict().values()))
    with pytest.raises(BoardlabError, match="--init .* hidden=16.*hidden=32"):
        Trainer(tmp_path / "wider", _cfg(iterations=1, init=str(model), hidden=32))
    refused = runner.invoke(app, ["train", "az", "--game", "mancala", "--init", str(model), "--out", str(tmp_path / "m")])
    assert refused.exit_code != 0 and "trained for connect4:rows=4,cols=5,k=3" in refused.output
    missing = runner.invoke(app, ["train", "az", *TINY, "--init", str(tmp_path / "none.pt"), "--out", str(tmp_path / "n")])
    assert missing.exit_code != 0 and "no such AlphaZero model file" in missing.output


def test_train_az_json_on_mancala_and_a_rerun_carries_on(tmp_path):
    out = tmp_path / "kalah"
    args = ["train", "az", "--game", "mancala", "--games", "2", "--lockstep", "2", "--simulations", "4", "--steps", "2",
            "--batch", "8", "--hidden", "8", "--layers", "1", "--eval-games", "2", "--eval-simulations", "2",
            "--eval-mcts", "5", "--eval-every", "1", "--fpu", "mean", "--out", str(out), "--json"]
    result = runner.invoke(app, [*args, "--iterations", "1"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    # the model remembers its self-play's first-play value (the az agent's default: test_az_compiled.py)
    assert load_model(out / "model.pt")[1]["meta"]["fpu"] == "mean"
    assert data["game"] == "mancala" and data["iterations"] == 1 and data["positions"] > 0
    assert set(data["last_eval"]) == {"random", "mcts"} and 0 <= data["last_eval"]["random"] <= 1
    assert Path(data["curve"]).read_bytes()[:4] == b"\x89PNG"
    again = runner.invoke(app, ["train", "az", "--out", str(out), "--iterations", "2", "--json"])
    assert again.exit_code == 0, again.output
    second = json.loads(again.stdout)
    assert second["iterations"] == 2 and set(second["last_eval"]) == {"random", "mcts", "previous"}
    assert [h["iteration"] for h in second["history"]] == [1, 2]
    duel = runner.invoke(app, ["duel", f"az:path={out / 'model.pt'},simulations=4", "random", "--game", "mancala",
                               "--games", "2", "--json"])
    assert duel.exit_code == 0, duel.output
    wrong = runner.invoke(app, ["train", "az", "--out", str(out), "--game", "connect4", "--iterations", "3"])
    assert wrong.exit_code != 0 and "learns mancala, not connect4" in wrong.output


def test_a_committed_model_that_fails_to_load_fails_alike_on_every_reset(tmp_path, monkeypatch):
    # the agent noted the default model's path before loading it, so a second reset skipped the
    # load and crashed on the missing payload (AttributeError) instead of naming the bad file again
    import boardlab.agents.az as az_module

    bad = tmp_path / "az-connect4.pt"
    bad.write_bytes(b"not a checkpoint")
    monkeypatch.setattr(az_module, "default_model_path", lambda game: bad)
    agent = make_agent("az")
    for _ in range(2):
        with pytest.raises(FormatError, match="az-connect4.pt: not a readable PyTorch checkpoint"):
            agent.reset(make("connect4"), 0, 0)
    assert agent.model_path is None


def test_az_searches_the_simulations_its_model_file_names_unless_the_spec_names_others(tmp_path):
    from boardlab.web.limits import ServerLimits, server_caps

    game = make("connect4:rows=4,cols=5,k=3")
    plain = neutral_model(game, tmp_path / "plain.pt")
    net, payload = load_model(plain)
    named = tmp_path / "named.pt"
    save_model(net, named, payload["game"], {**payload["meta"], "simulations": 37})
    start = game.new_initial_state()
    for spec, simulations in ((f"az:path={plain}", 200), (f"az:path={named}", 37), (f"az:path={named},simulations=5", 5)):
        agent = make_agent(spec + ",seed=1", game)
        assert agent.play_budget()["simulations"] == simulations, spec  # what a web server checks
        agent.reset(game, 0, 0)
        agent.step(start)
        assert agent.last_search["simulations"] == simulations, spec
    evaluated = runner.invoke(app, ["evaluate", str(named), "--games", "2", "--no-baselines", "-o", "random", "--json"])
    assert evaluated.exit_code == 0 and json.loads(evaluated.stdout)["simulations"] == 37, evaluated.output
    # an unset count still bounds the search, so the server's time limit is added beside it
    limits = ServerLimits()
    assert server_caps("az", make_agent("az").config, limits)["time"] == limits.max_ai_seconds


def test_az_without_a_path_plays_the_committed_mancala_model():
    game = make("mancala")
    agent = make_agent("az:simulations=8", game)
    state = game.new_initial_state(3)
    agent.reset(game, state.current_player(), 0)
    assert agent.step(state) in state.legal_actions()
    assert agent.model_path.name == "az-mancala.pt"


@pytest.mark.parametrize("spec,file,simulations", [
    ("dicewars", "az-dicewars.pt", 1000), ("dicewars:features=odds", "az-dicewars_features_odds.pt", 1000),
    ("dicewars:players=2", "az-dicewars_players_2.pt", 4000),
    ("dicewars:players=2,features=odds", "az-dicewars_players_2_features_odds.pt", 4000)])
def test_az_without_a_path_plays_the_committed_dice_wars_model_at_the_simulations_its_file_names(spec, file, simulations):
    from boardlab.core.rng import sample_chance

    game = make(spec)
    state = game.new_initial_state(3)
    while state.is_chance_node():
        state.apply_action(sample_chance(state, np.random.default_rng(0)))
    agent = make_agent("az", game)
    agent.reset(game, state.current_player(), 0)
    assert agent.step(state) in state.legal_actions()
    assert agent.model_path.name == file and agent.last_search["engine"] == "compiled-puct"
    assert agent.last_search["simulations"] == simulations == agent.play_budget()["simulations"]


def test_az_names_the_missing_model_of_a_dice_wars_table_it_was_not_trained_for():
    with pytest.raises(SpecError, match="no committed model for dicewars:players=3"):
        make_agent("az").reset(make("dicewars:players=3"), 0, 0)


def test_evaluate_plays_the_committed_mancala_model_and_refuses_other_files(tmp_path):
    model = Path(__file__).resolve().parents[1] / "src" / "boardlab" / "models" / "az-mancala.pt"
    result = runner.invoke(app, ["evaluate", str(model), "--games", "2", "--simulations", "8", "--mcts", "10", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["game"] == "mancala" and doc["optimal"] is None and doc["kept"] is None
    assert set(doc["duels"]) == {"random", "mcts"}
    for found in doc["duels"].values():
        assert found["wins"] + found["draws"] + found["losses"] == 2
        assert 0 <= found["score_low"] <= found["score"] <= found["score_high"] <= 1 and found["score_high"] > found["score_low"]
        assert found["seconds_per_move"] > 0 and found["opponent_seconds_per_move"] > 0
    shown = runner.invoke(app, ["evaluate", str(model), "--games", "2", "--simulations", "8", "--mcts", "10"])
    assert shown.exit_code == 0, shown.output
    assert "against random:" in shown.output and " ms a move against " in shown.output
    foreign = tmp_path / "notes.pt"
    foreign.write_bytes(b"not a model")
    refused = runner.invoke(app, ["evaluate", str(foreign)])
    assert refused.exit_code != 0 and str(foreign) in refused.output


def nothanks_decisions(game, wanted, seeds):
    """For each seed, the first position of its random game where ``wanted(state)`` holds, if any."""
    for seed in seeds:
        state, rng = game.new_initial_state(seed), random.Random(seed)
        while not state.is_terminal():
            if state.current_player() >= 0 and len(state.legal_actions()) == 2 and wanted(state):
                yield state
                break
            state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("players", [3, 4, 5])
def test_az_without_a_path_plays_the_committed_no_thanks_model_of_each_table_size(players):
    from boardlab.games.nothanks import PASS

    game = make(f"nothanks:players={players}")
    agent = make_agent("az:simulations=50,seed=0", game)

    def dear_and_bare(state):  # a high card without chips that fits nothing, and chips to spare: pass
        card, me = state.card(), state.current_player()
        hand = state.hands[me]
        return card >= 30 and state.pot == 0 and state.chips[me] >= 6 and not hand & ((1 << (card - 1)) | (1 << (card + 1)))

    found = list(nothanks_decisions(game, dear_and_bare, range(40)))[:3]
    assert found
    for state in found:
        agent.reset(game, state.current_player(), 0)
        assert agent.step(state) == PASS, state.notation()
    expected = "az-nothanks.pt" if players == 4 else f"az-nothanks_players_{players}.pt"
    assert agent.model_path.name == expected


def test_az_without_a_path_plays_the_committed_connect_four_model_compiled_and_discounted():
    game = make("connect4")
    agent = make_agent("az", game)
    win = game.state_from_moves("1 2 1 2 1 2")  # X wins in column 1
    agent.reset(game, win.current_player(), 0)
    assert agent.step(win) == 0
    assert agent.model_path.name == "az-connect4.pt"
    assert agent.last_search["engine"] == "compiled-puct" and agent.last_search["discount"] == 0.97
    assert agent.last_search["simulations"] == 200 and agent.last_search["fpu"] == "mean"  # the file's own setting
    for moves, column in (("4 1 4 2 4", 3), ("1 4 1 6 1", 0)):  # O must block X's three in a column
        block = game.state_from_moves(moves)
        agent.reset(game, block.current_player(), 0)
        assert agent.step(block) == column, moves


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> tuple[Path, str]:
    """A one-iteration run of train az on a small board, and what the command printed."""
    # the run's parent folder is made (as runs/ of the default is, in a fresh folder); a blank in the
    # path: the printed command must quote it
    folder = tmp_path_factory.mktemp("az") / "runs" / "my run"
    result = runner.invoke(app, ["train", "az", *TINY, "--iterations", "1", "--eval-every", "100000", "--out", str(folder)])
    assert result.exit_code == 0, result.output
    return folder, result.stdout


def test_train_az_ends_with_a_play_command_that_plays_the_model(tiny_run):
    import shlex

    folder, printed = tiny_run
    line = next(line for line in printed.splitlines() if line.startswith("play it: "))
    words = shlex.split(line.removeprefix("play it: "))
    assert words[:2] == ["boardlab", "play"] and f"az:path={folder / 'model.pt'}" in words
    # the person (Red) fills the columns from the left; a full column is refused and the next line read
    moves = "".join(f"{column}\n" * 4 for column in range(1, 6))
    played = runner.invoke(app, [*words[1:], "--seed", "1"], input=moves)
    assert played.exit_code == 0, played.output
    assert "result: " in played.stdout and "az:path=" in played.stdout  # the network's moves were announced


def test_evaluate_knows_a_train_az_run_folder_is_az_s(tiny_run):
    from boardlab.commands.plugin import recipe_for

    folder, _ = tiny_run
    assert recipe_for(folder) == "az" and recipe_for(folder / "model.pt") == "az"
    result = runner.invoke(app, ["evaluate", str(folder), "--games", "2", "--simulations", "2", "--mcts", "5", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["model"] == str(folder / "model.pt")


def test_numbers_too_small_for_a_normal_float_count_as_zero_while_a_network_computes_and_only_then(monkeypatch):
    """Weight decay leaves the policy weights of actions a game seldom offers near zero; as denormal floats they
    made each step of a Ticket to Ride network ten times slower. They are flushed while a search evaluates or
    a run learns, and the process's IEEE floats are back after (tree files and hypothesis rely on them)."""
    def flushed() -> bool:
        return (torch.tensor([1e-39], dtype=torch.float32) * 2).item() == 0.0  # 1e-39: below the smallest normal

    game = make("connect4:rows=4,cols=5,k=3")
    torch.manual_seed(0)
    net = new_network(game, {"kind": "mlp", "hidden": 8, "layers": 1})
    seen = []
    net.register_forward_hook(lambda *_: seen.append(flushed()))
    Evaluator(net).evaluate([game.new_initial_state(0)])
    assert seen == [True] and not flushed()
    buffer = ReplayBuffer(8, game.observation_tensor_shape(), 5, 1)
    state = game.new_initial_state(0)
    buffer.add(Samples(state.observation_tensor(0)[None], state.legal_actions_mask()[None], np.full((1, 5), 0.2, np.float32),
                       np.zeros((1, 1), np.float32)))
    train_steps(net, torch.optim.Adam(net.parameters()), buffer, 2, 4, np.random.default_rng(0), "cpu")
    assert seen == [True] * 3 and not flushed()


def test_a_search_evaluates_on_one_thread_and_gives_the_threads_back(monkeypatch):
    """A search's few positions at a time lose time to thread hand-offs, the more so where processes share the
    cores; training, which runs large batches in the same process, keeps its threads."""
    game = make("connect4:rows=4,cols=5,k=3")
    torch.manual_seed(0)
    evaluator = Evaluator(new_network(game, {"kind": "mlp", "hidden": 8, "layers": 1}))
    seen = []
    forward = evaluator.net.forward
    monkeypatch.setattr(evaluator.net, "forward", lambda x: (seen.append(torch.get_num_threads()), forward(x))[1])
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        evaluator.evaluate([game.new_initial_state(0)])
        assert seen == [1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_cpu_hours_count_the_time_of_jobs_run_in_other_processes(tmp_path, monkeypatch):
    """A pool's workers come from a fork server, so the operating system never counted them as the run's children:
    a run on two workers reported a tenth of its CPU time. Each job now reports its own."""
    import boardlab.experiments.az_training as training

    def elsewhere(fn, tasks, *_args):  # each job as if run in another process for 100 CPU-seconds
        for task in tasks:
            result, _pid, _seconds = training.timed(task)
            yield result, -1, 100.0

    monkeypatch.setattr(training, "map_tasks", elsewhere)
    trainer = Trainer(tmp_path / "run", _cfg(iterations=1, eval_every=100000))  # 4 games in chunks of 2: two jobs
    trainer.run()
    assert 200.0 <= trainer.cpu_seconds < 200.0 + trainer.seconds * 4
    assert trainer.history[-1]["cpu_hours"] == trainer.cpu_seconds / 3600
