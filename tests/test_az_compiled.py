"""Connect Four's compiled PUCT engine: the same search, tree and self-play games as the generic one."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from boardlab.agents.az_selfplay import SelfPlaySettings, self_play
from boardlab.agents.puct import PUCTSearch, run_simulations
from boardlab.agents.registry import make_agent
from boardlab.core.engines import puct_engine
from boardlab.core.errors import BoardlabError, SpecError
from boardlab.core.registry import make
from boardlab.core.rng import derive_seed
from boardlab.core.search import PUCTSettings
from boardlab.experiments.az_training import AZConfig, Trainer
from boardlab.nn.az_net import Evaluator, dense_network, new_network, relative_values, save_model


def _network(game, layers: int = 2, seed: int = 0):
    torch.manual_seed(seed)
    return new_network(game, {"kind": "mlp", "hidden": 32, "layers": layers}).eval()


def _positions(game, count: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, game.rows * game.cols - 2))):
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
            if state.is_terminal():
                break
        if not state.is_terminal():
            out.append(state)
    return out


@pytest.mark.parametrize("spec,layers,discount,fpu,solve", [
    ("connect4", 2, 1.0, "zero", False), ("connect4:rows=4,cols=5,k=3", 1, 1.0, "zero", False),
    ("connect4", 2, 0.9, "zero", False), ("connect4", 2, 0.9, "mean", False),
    ("connect4", 2, 0.9, "zero", True), ("connect4:rows=4,cols=5,k=3", 1, 1.0, "mean", True),
])
def test_the_compiled_engine_grows_the_generic_search_tree(spec, layers, discount, fpu, solve):
    """Node for node: the same children, visits, wins, creation order, means and priors, the same proofs
    (with the solver) and the same drawn move."""
    game = make(spec)
    net = _network(game, layers)
    evaluator, dense = Evaluator(net), dense_network(net)
    proofs = 0
    for k, state in enumerate(_positions(game, 12, seed=len(spec))):
        for noise in (None, (1.0, 0.25)):
            settings = PUCTSettings(c=1.5, noise=noise, discount=discount, fpu=fpu, solve=solve)
            generic = PUCTSearch(state, settings, np.random.default_rng(k))
            run_simulations([generic], 150, evaluator.evaluate)
            compiled = puct_engine(game)(state, dense, settings, np.random.default_rng(k))
            assert compiled.run(150) == 150 and compiled.simulations == 150
            a, b = generic.snapshot(), compiled.snapshot()
            for column in ("parent", "actions", "visits", "wins", "player", "created"):
                assert np.array_equal(getattr(a, column), getattr(b, column)), (state.notation(), noise, column)
            assert np.allclose(a.mean, b.mean, atol=1e-5) and np.allclose(a.extra["priors"], b.extra["priors"], atol=1e-5)
            assert generic.root_children() == compiled.root_children() or np.allclose(
                [c.mean for c in generic.root_children()], [c.mean for c in compiled.root_children()], atol=1e-5)
            assert np.array_equal(generic.policy(game.cols), compiled.policy(game.cols))
            assert generic.choose(1.0) == compiled.choose(1.0) and generic.choose(0.0) == compiled.choose(0.0)
            assert generic.root_proofs() == compiled.root_proofs()
            proofs += len(compiled.root_proofs())
    assert (proofs > 0) == solve  # random positions late in the game: some root moves are proven


def test_the_compiled_engine_keeps_the_visit_contract_at_a_finished_game():
    """A winning move is terminal: every visit into it backs up a win, it has no children, and search finds it."""
    game = make("connect4")
    state = game.state_from_moves("1 2 1 2 1 2")  # X wins in column 1
    compiled = puct_engine(game)(state, dense_network(_network(game)), PUCTSettings(c=1.5), np.random.default_rng(0))
    compiled.run(300)
    tree = compiled.snapshot()
    win = [i for i in range(1, len(tree.parent)) if tree.parent[i] == 0 and tree.actions[i] == 0][0]
    assert compiled.choose(0.0) == 0 and tree.wins[win] == tree.visits[win] > 0
    assert tree.mean[win] == 1.0 and win not in set(tree.parent[1:].tolist())
    assert tree.visits[0] == 300 == sum(tree.visits[i] for i in range(1, len(tree.parent)) if tree.parent[i] == 0)


@pytest.mark.parametrize("solver", [False, True])
def test_self_play_through_the_compiled_engine_plays_the_generic_games(solver):
    game = make("connect4:rows=4,cols=5,k=3")
    net = _network(game, 1, seed=3)
    evaluator = Evaluator(net)
    targets = lambda returns, mover: relative_values(np.asarray(returns), mover, 1)  # noqa: E731
    seeds = [11, 12, 13]
    settings = SelfPlaySettings(simulations=20, solver=solver)
    generic, generic_games = self_play(game, evaluator.evaluate, seeds, replace(settings, engine="generic"), targets,
                                       dense_network(net))
    compiled, compiled_games = self_play(game, evaluator.evaluate, seeds, settings, targets, dense_network(net))
    assert generic_games == compiled_games and len(generic) == len(compiled) > 0
    assert np.array_equal(generic.obs, compiled.obs) and np.array_equal(generic.mask, compiled.mask)
    assert np.array_equal(generic.policy, compiled.policy) and np.array_equal(generic.value, compiled.value)


def test_the_az_agent_picks_its_engine_and_says_which(tmp_path):
    game = make("connect4")
    path = tmp_path / "c4.pt"
    save_model(_network(game), path, game.spec())
    state = game.state_from_moves("4 4 3")
    moves = {}
    for engine in ("auto", "compiled", "generic"):
        agent = make_agent(f"az:path={path},simulations=60,seed=2,engine={engine}", game)
        agent.reset(game, state.current_player(), 0)
        moves[engine] = agent.step(state)
        assert agent.last_search["engine"] == ("puct" if engine == "generic" else "compiled-puct")
        assert agent.last_search["simulations"] == 60 and agent.last_tree().tree().visits[0] == 60
    assert len(set(moves.values())) == 1
    torch.manual_seed(0)
    resnet = tmp_path / "resnet.pt"
    save_model(new_network(game, {"kind": "resnet", "channels": 4, "blocks": 1}), resnet, game.spec())
    agent = make_agent(f"az:path={resnet},simulations=5,engine=compiled", game)
    agent.reset(game, 0, 0)
    with pytest.raises(SpecError, match="engine=compiled is not possible here: its network is not an MLP"):
        agent.step(game.new_initial_state())
    mancala = make("mancala")
    agent = make_agent("az:simulations=5,engine=compiled", mancala)
    agent.reset(mancala, 0, 0)
    with pytest.raises(SpecError, match="engine=compiled is not possible here: mancala offers no compiled PUCT engine"):
        agent.step(mancala.new_initial_state())


@pytest.mark.parametrize("engine", ["generic", "compiled"])
def test_a_discount_counts_a_result_k_plies_down_as_discount_to_the_k(engine, tmp_path):
    """X wins at once in column 1; the network judges everything else 0. Below the root, the win is worth 1 to the
    move into it; at the root, one ply up, half of that."""
    game = make("connect4")
    state = game.state_from_moves("1 2 1 2 1 2")
    torch.manual_seed(0)
    net = new_network(game, {"kind": "mlp", "hidden": 8, "layers": 1})
    with torch.no_grad():
        net.value_head[0].weight.zero_()
        net.value_head[0].bias.zero_()
    path = tmp_path / "zero.pt"
    save_model(net, path, game.spec())
    agent = make_agent(f"az:path={path},simulations=100,discount=0.5,engine={engine},solver=off", game)
    agent.reset(game, 0, 0)
    assert agent.step(state) == 0 and agent.last_search["discount"] == 0.5
    tree = agent.last_tree().tree()
    win = [c for c in agent.last_search["children"] if c["action"] == 0][0]
    assert win["mean"] == 1.0
    assert tree.mean_payout[0] == pytest.approx(0.5 * win["visits"] / 100)


def test_self_play_targets_are_discounted_by_the_plies_left():
    game = make("connect4:rows=4,cols=5,k=3")
    net = _network(game, 1, seed=4)
    targets = lambda returns, mover: relative_values(np.asarray(returns), mover, 1)  # noqa: E731
    samples, games = self_play(game, Evaluator(net).evaluate, [1, 2, 3, 4], SelfPlaySettings(simulations=10, discount=0.9),
                               targets, dense_network(net))
    start = 0
    for played in games:
        values = samples.value[start: start + played["moves"], 0]
        start += played["moves"]
        if played["returns"][0] == 0:
            assert not values.any()
            continue
        # the last mover won: +0.9 for it one ply before the end, -0.81 for the other player before that, ...
        left = np.arange(played["moves"], 0, -1)
        assert np.allclose(values, np.where(left % 2 == 1, 1.0, -1.0) * 0.9 ** left)
    assert start == len(samples)


def test_average_value_targets_are_the_mean_of_the_result_and_the_root_value():
    game = make("connect4:rows=4,cols=5,k=3")
    net = _network(game, 1, seed=5)
    targets = lambda returns, mover: relative_values(np.asarray(returns), mover, 1)  # noqa: E731
    settings = SelfPlaySettings(simulations=12, discount=0.9)
    plain, games = self_play(game, Evaluator(net).evaluate, [7, 8], settings, targets, dense_network(net))
    averaged, again = self_play(game, Evaluator(net).evaluate, [7, 8], replace(settings, value_target="average"), targets,
                                dense_network(net))
    assert games == again and np.array_equal(plain.policy, averaged.policy)
    # replay the games' searches to read each root's value: the same seeds draw the same trees
    roots = []
    for seed in (7, 8):
        state, rng = game.new_initial_state(seed), np.random.default_rng(derive_seed(seed, "az-selfplay"))
        while not state.is_terminal():
            search = puct_engine(game)(state, dense_network(net), settings.search(), rng)
            search.run(settings.simulations)
            roots.append(search.root_value())
            state.apply_action(search.choose(1.0 if state.move_number() < settings.temp_moves else 0.0))
    assert np.allclose(averaged.value[:, 0], (plain.value[:, 0] + np.array(roots, np.float32)) / 2, atol=1e-6)
    assert not np.allclose(averaged.value, plain.value)


def test_average_value_targets_are_refused_where_there_is_no_single_value(tmp_path):
    with pytest.raises(BoardlabError, match="--value-target average needs a two-player zero-sum game"):
        Trainer(tmp_path / "dw", AZConfig(game="dicewars", value_target="average"))


@pytest.mark.parametrize("engine", ["generic", "compiled"])
def test_a_move_not_yet_tried_is_worth_its_siblings_mean_so_a_won_position_still_finds_the_quick_win(engine, tmp_path):
    """X wins at once in column 1, but the network gives column 2 nine tenths of the prior and judges X winning
    everywhere (0.9 when X is to move, -0.9 when O is: it counts the mover's stones against the other's). Worth 0
    untried, column 1 is never tried in 200 simulations; worth the mean of the moves tried, it is, and so the
    agent, which plays a win it has seen (take_wins), plays it."""
    game = make("connect4")
    state = game.state_from_moves("1 2 1 2 1 2")
    cells = game.rows * game.cols
    torch.manual_seed(0)
    net = new_network(game, {"kind": "mlp", "hidden": 8, "layers": 1})
    sure = float(np.arctanh(0.9))
    with torch.no_grad():
        first = net.trunk[1]
        first.weight.zero_()
        first.bias.zero_()
        first.weight[0, :cells] = 1.0  # the mover's stones
        first.weight[0, cells:2 * cells] = -1.0  # minus the other's: 0 when X moves, -1 when O does
        first.bias[0] = 1.0
        net.policy_head.weight.zero_()
        net.policy_head.bias.copy_(torch.tensor([0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0]))
        net.value_head[0].weight.zero_()
        net.value_head[0].weight[0, 0] = 2 * sure
        net.value_head[0].bias.fill_(-sure)
    path = tmp_path / "sure.pt"
    save_model(net, path, game.spec())
    picks = {}
    for fpu in ("zero", "mean"):
        agent = make_agent(f"az:path={path},simulations=200,fpu={fpu},engine={engine},solver=off", game)
        agent.reset(game, 0, 0)
        picks[fpu] = agent.step(state)
        tried = {c["action"] for c in agent.last_search["children"]}
        assert (0 in tried) == (fpu == "mean")
    assert picks == {"zero": 1, "mean": 0}
    # without fpu= the model's own setting decides (what its self-play used, or what it was committed with)
    for meta, expected in (({}, "zero"), ({"fpu": "mean"}, "mean"), ({"fpu": "zero"}, "zero")):
        save_model(net, path, game.spec(), meta)
        agent = make_agent(f"az:path={path},simulations=200,engine={engine},solver=off", game)
        agent.reset(game, 0, 0)
        assert agent.step(state) == picks[expected] and agent.last_search["fpu"] == expected
    with pytest.raises(SpecError, match="fpu"):
        make_agent("az:fpu=half", game)


@pytest.mark.parametrize("engine", ["generic", "compiled"])
def test_a_win_found_at_once_is_played_even_when_another_move_has_more_visits(engine, tmp_path):
    """Column 1 wins at once but has a small prior: the search tries it (and sees the win) while most of the
    visits still go to column 2, the network's favourite. take_wins plays the win; without it, the visits decide."""
    game = make("connect4")
    state = game.state_from_moves("1 2 1 2 1 2")
    torch.manual_seed(0)
    net = new_network(game, {"kind": "mlp", "hidden": 8, "layers": 1})
    with torch.no_grad():
        net.policy_head.weight.zero_()
        net.policy_head.bias.copy_(torch.tensor([0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0]))
        net.value_head[0].weight.zero_()
        net.value_head[0].bias.zero_()
    path = tmp_path / "favourite.pt"
    save_model(net, path, game.spec())
    chosen = {}
    for take in (True, False):
        agent = make_agent(f"az:path={path},simulations=150,fpu=zero,take_wins={str(take).lower()},engine={engine},solver=off",
                           game)
        agent.reset(game, 0, 0)
        chosen[take] = agent.step(state)
        visits = {c["action"]: c["visits"] for c in agent.last_search["children"]}
        assert 0 < visits[0] < visits[1]
    assert chosen == {True: 0, False: 1}


@pytest.mark.parametrize("toward", [0.0, -1.0])
def test_value_targets_fade_toward_the_loss_so_only_wins_lose_worth(toward):
    """Each seat's target, k plies before the end: ``toward + (result - toward) * discount**k``; with the loss
    (-1) as target the loser's stays -1 however far the end is, the winner's falls toward -1."""
    from boardlab.agents.az_selfplay import training_samples

    game = make("connect4:rows=4,cols=5,k=3")
    rng = np.random.default_rng(4)
    while True:
        state, records = game.new_initial_state(), []
        while not state.is_terminal():
            mover = state.current_player()
            records.append((state.observation_tensor(mover), state.legal_actions_mask(), np.zeros(game.cols, np.float32),
                            mover, len(state.history), 0.0))
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
        if state.returns()[0] != 0:
            break
    samples = training_samples(game, [(state, records)], SelfPlaySettings(discount=0.9, discount_toward=toward),
                               lambda returns, mover: relative_values(np.asarray(returns), mover, 2))
    left = len(records) - np.arange(len(records))
    won = np.array([state.returns()[r[3]] > 0 for r in records])
    mine = samples.value[:, 0]  # the mover's own entry
    assert np.allclose(mine[won], toward + (1 - toward) * 0.9 ** left[won])
    assert np.allclose(mine[~won], toward + (-1 - toward) * 0.9 ** left[~won])
    if toward == -1.0:
        assert (mine[~won] == -1).all() and (samples.value[:, 1][won] == -1).all()


def test_a_discount_toward_the_loss_is_kept_in_the_model_and_refused_where_it_means_nothing(tmp_path):
    cfg = AZConfig(game="dicewars:players=4", discount=0.99, discount_toward=-1.0, kind="mlp", hidden=8, layers=1)
    assert Trainer(tmp_path / "dw", cfg)._model_payload()["meta"]["discount_toward"] == -1.0
    with pytest.raises(BoardlabError, match="--discount-toward needs a game whose network values every seat"):
        Trainer(tmp_path / "c4", AZConfig(discount=0.99, discount_toward=-1.0))
    with pytest.raises(BoardlabError, match="no effect without a --discount below 1"):
        Trainer(tmp_path / "dw1", AZConfig(game="dicewars:players=4", discount_toward=-1.0))
    game = make("dicewars:players=4")
    path = tmp_path / "toward.pt"
    save_model(_network(game), path, game.spec(), {"discount": 0.99, "discount_toward": -1.0})
    state = game.new_initial_state(3)
    agent = make_agent(f"az:path={path},simulations=20", game)
    agent.reset(game, state.current_player(), 0)
    agent.step(state)
    assert agent.last_search["discount"] == 0.99 and agent.last_search["discount_toward"] == -1.0
    with pytest.raises(BoardlabError, match="fades toward 0 only"):
        c4 = make("connect4")
        puct_engine(c4)(c4.new_initial_state(), dense_network(_network(c4)), PUCTSettings(discount=0.9, discount_toward=-1.0),
                        np.random.default_rng(0))
