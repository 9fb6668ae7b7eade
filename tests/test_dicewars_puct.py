"""Dice Wars' compiled PUCT engine: the rules' positions, tensor and network verdict exactly, chance drawn
with its probabilities, the visit contract, and self-play through it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from boardlab.agents.az_selfplay import SelfPlaySettings, self_play
from boardlab.core.engines import puct_engine
from boardlab.core.errors import BoardlabError
from boardlab.core.game import CHANCE, TERMINAL
from boardlab.core.registry import make
from boardlab.core.rng import sample_chance
from boardlab.core.search import PUCTSettings
from boardlab.games.dicewars.puct import ACTION, PARENT, PLAYER, VISITS, CompiledDiceWarsPUCT, judge, observe
from boardlab.games.dicewars.state import upper_adjacency
from boardlab.nn.az_net import Evaluator, dense_network, new_network, relative_values

SPECS = ("dicewars:players=2", "dicewars:players=4", "dicewars:preset=web,players=8")


def _network(game, seed: int = 0, value_inputs: str = ""):
    torch.manual_seed(seed)
    return new_network(game, {"kind": "mlp", "hidden": 32, "layers": 2, "value_inputs": value_inputs}).eval()


def _decisions(game, count: int, seed: int) -> list:
    """Positions where a player is to move, met along random games (chance drawn with its probabilities)."""
    rng = np.random.default_rng(seed)
    out = []
    state = game.new_initial_state(seed)
    while len(out) < count:
        if state.is_terminal():
            state = game.new_initial_state(int(rng.integers(1 << 30)))
        elif state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            if rng.random() < 0.2:
                out.append(state.clone())
            legal = state.legal_actions()
            # attack more often than the turn ends, so that the games go on to late positions
            state.apply_action(int(legal[rng.integers(1, len(legal))]) if len(legal) > 1 and rng.random() < 0.8 else 0)
    return out


def _arrays(state):
    kernel = state.game.playout_kernel()
    adj, deg = kernel.tables(state.map)
    owner, dice, reserve, scal = kernel.arrays(state)
    return owner, dice, reserve, tuple(int(v) for v in scal), adj, deg, upper_adjacency(state.adjacent)


@pytest.mark.parametrize("spec,value_inputs", [(spec, "") for spec in SPECS] + [
    ("dicewars:players=4", "-40:"), ("dicewars:players=2,features=odds", "-27:"), ("dicewars:preset=web,players=8,features=odds", "")])
def test_the_compiled_tensor_and_verdict_are_the_rules_and_the_torch_networks(spec, value_inputs):
    """For every position the network reads the same floats as from observation_tensor, and gives
    the legal actions, priors and seat values that the torch evaluator gives (also where the value
    has a trunk of its own over the tensor's last entries, the two trunks side by side in one MLP)."""
    game = make(spec)
    net = _network(game, value_inputs=value_inputs)
    evaluator, dense = Evaluator(net), dense_network(net)
    assert dense is not None
    states = _decisions(game, 40, seed=len(spec))
    priors_torch, values_torch = evaluator.evaluate(states)
    n = game.areas
    for state, p_torch, v_torch in zip(states, priors_torch, values_torch):
        owner, dice, reserve, turn, adj, deg, upper = _arrays(state)
        x = np.empty(int(np.prod(game.observation_tensor_shape())), dtype=np.float32)
        observe(owner, dice, reserve, turn, adj, deg, upper, x)
        np.testing.assert_array_equal(x, state.observation_tensor(state.current_player()))
        legal = np.empty(8 * n + 1, dtype=np.int64)
        priors = np.empty(8 * n + 1)
        values = np.empty(game.players)
        count = judge(owner, dice, reserve, turn, adj, deg, upper, *dense.arrays(), x, legal, priors, values)
        assert legal[:count].tolist() == state.legal_actions()
        np.testing.assert_allclose(priors[:count], p_torch[legal[:count]], rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(values, v_torch, atol=1e-5)


def _engine(state, simulations: int, seed: int = 0, noise=None, fpu: str = "zero"):
    dense = dense_network(_network(state.game, seed))
    engine = puct_engine(state.game)(state, dense, PUCTSettings(noise=noise, fpu=fpu), np.random.default_rng(seed))
    engine.run(simulations)
    return engine


@pytest.mark.parametrize("spec", SPECS)
def test_every_node_is_the_position_its_path_reaches_and_visits_add_up(spec):
    """Replayed through the rules, each node has the player the engine noted, a decision node's children
    are its legal actions in order, a battle's its possible outcomes; visits follow the generic contract."""
    game = make(spec)
    for k, state in enumerate(_decisions(game, 4, seed=7)):
        engine = _engine(state, 400, seed=k, noise=(1.0, 0.25), fpu="mean" if k % 2 else "zero")
        assert isinstance(engine, CompiledDiceWarsPUCT)
        snap = engine.snapshot()
        positions = engine.positions()
        used = len(snap.parent)
        children: list[list[int]] = [[] for _ in range(used)]
        for node in range(1, used):
            assert snap.parent[node] < node
            children[snap.parent[node]].append(node)
        assert snap.visits[0] == 400 == sum(snap.visits[ch] for ch in children[0])
        for node in range(1, used):
            position, visits = positions[node], int(snap.visits[node])
            assert snap.states is not None and snap.states[node] == position.notation()
            if visits:  # a node no simulation reached is marked as the generic tree marks its own
                assert snap.player[node] == position.current_player()
            below = sum(int(snap.visits[ch]) for ch in children[node])
            if visits == 0:
                assert not children[node]
            elif position.is_terminal():
                assert not children[node]
            elif snap.player[node] == CHANCE:
                assert visits == below
                if position.phase == 1:  # a battle: its outcomes, each a possible one
                    outcomes = {a for a, p in position.chance_outcomes()}
                    assert {int(snap.actions[ch]) for ch in children[node]} <= outcomes
                else:  # a placement: each child a different drawn set of dice
                    drawn = {positions[ch].notation() for ch in children[node]}
                    assert len(drawn) == len(children[node])
            else:
                assert visits == 1 + below
                assert [int(snap.actions[ch]) for ch in children[node]] == position.legal_actions()
        assert snap.moves is not None and len(snap.moves) == used
        for node in children[0]:
            assert snap.moves[node] == state.action_to_string(int(snap.actions[node]))
        assert engine.choose(0.0) in state.legal_actions()
        policy = engine.policy(game.num_distinct_actions())
        assert policy.sum() == pytest.approx(1.0)


def test_battles_are_drawn_with_their_probabilities():
    """Over many simulations through one battle, the share of wins is the exact win probability."""
    game = make("dicewars:players=2")
    checked = 0
    for k, state in enumerate(_decisions(game, 6, seed=3)):
        engine = _engine(state, 3000, seed=k)
        # the tree's own columns: a snapshot would replay every node's position through the rules
        tree = engine.ints[: int(engine.used[0])]
        parent, action, visits_of, player = tree[:, PARENT], tree[:, ACTION], tree[:, VISITS], tree[:, PLAYER]
        won_below = np.zeros(len(tree), dtype=np.int64)
        for ch in range(1, len(tree)):
            if action[ch] == 1 and player[parent[ch]] == CHANCE:
                won_below[parent[ch]] += visits_of[ch]
        for node in range(1, len(tree)):
            visits = int(visits_of[node])
            if player[node] != CHANCE or visits < 400:
                continue
            position = engine.position(node)
            if position.phase != 1:  # a placement
                continue
            p = dict(position.chance_outcomes()).get(1, 0.0)
            wins = int(won_below[node])
            assert abs(wins / visits - p) <= 4.5 * np.sqrt(p * (1 - p) / visits) + 1e-9, (position.notation(), wins, visits, p)
            checked += 1
    assert checked >= 5


def test_the_tree_exports_with_replayed_labels():
    """The az agent keeps the compiled tree of its move; exported, every kept node is named by its
    position's notation and the move into it."""
    from boardlab.agents.search_tree import snapshot_to_tree

    game = make("dicewars:players=4")
    state = _decisions(game, 1, seed=5)[0]
    engine = _engine(state, 200)
    tree = snapshot_to_tree(engine.snapshot())
    assert len(tree) > 10
    positions = {p.notation() for p in engine.positions()}
    states = [tree.state[i] for i in range(1, len(tree))]
    moves = [tree.move[i] for i in range(1, len(tree))]
    assert all(label in positions for label in states)
    assert any(label.startswith("+") for label in moves)  # a drawn placement
    assert any(label in ("win", "loss") for label in moves)


def test_a_finished_game_below_the_root_backs_up_its_result():
    """A battle that ends the game makes a terminal node whose value is the winner's +1, the others' -1."""
    game = make("dicewars:players=2")
    # seat 0 holds every area but one, with 8 dice next to the last one: attacking it wins the game
    state = game.new_initial_state(1)
    owner = [0] * game.areas
    last = max(range(game.areas), key=lambda a: len(state.adjacent[a]))
    owner[last] = 1
    notation = state.notation().split()
    text = " ".join([notation[0], notation[1], "o=" + "".join(map(str, owner)),
                     "d=" + "".join("8" if a in state.adjacent[last] else "1" if a == last else "3" for a in range(game.areas)),
                     *notation[4:]])
    state = game.state_from_notation(text)
    engine = _engine(state, 300)
    snap = engine.snapshot()
    terminal = [node for node in range(len(snap.parent)) if snap.player[node] == TERMINAL]
    assert terminal
    for node in terminal:
        assert snap.mean[node] == 1.0  # from the view of the player who moved into it: the winner
    assert engine.root_value() > 0.5


def test_the_engine_refuses_a_network_of_another_game_and_a_chance_node():
    game = make("dicewars:players=4")
    state = game.new_initial_state(0)
    other = dense_network(_network(make("dicewars:players=2")))
    with pytest.raises(BoardlabError, match="does not fit"):
        CompiledDiceWarsPUCT(state, other, PUCTSettings(), np.random.default_rng(0))
    state.apply_action(0)
    with pytest.raises(BoardlabError, match="chance node"):
        CompiledDiceWarsPUCT(state, dense_network(_network(game)), PUCTSettings(), np.random.default_rng(0))


def test_self_play_runs_through_the_compiled_engine():
    """Self-play with the network as arrays plays whole 2-player games through the compiled search:
    legal games, one sample per decision, value targets the players' results."""
    game = make("dicewars:players=2")
    net = _network(game)
    evaluator = Evaluator(net)
    settings = SelfPlaySettings(simulations=16, temp_moves=4, max_moves=150)
    samples, summary = self_play(game, evaluator.evaluate, [11, 12], settings,
                                 lambda returns, mover: relative_values(np.asarray(returns), mover, game.players),
                                 dense_network(net))
    assert len(samples) == sum(s["moves"] for s in summary) > 0
    for game_summary in summary:
        assert game_summary["cut"] or sorted(game_summary["returns"]) in ([-1.0, 1.0], [-1.0, -1.0])
    assert np.all(np.abs(samples.value) <= 1.0)
    np.testing.assert_allclose(samples.policy.sum(axis=1), 1.0, atol=1e-5)
    assert np.all(samples.policy[~samples.mask] == 0)


@pytest.mark.parametrize("engine", ["generic", "compiled"])
@pytest.mark.parametrize("toward", [0.0, -1.0])
def test_a_discounted_value_fades_toward_its_target_one_node_up(engine, toward):
    """One simulation backs one value up one path, all in the mover's turn (an attack, its drawn outcome): each
    node keeps ``toward + (value - toward) * discount`` of the node below it, so with the loss as target a
    far win fades toward a loss and a loss stays a loss."""
    from boardlab.agents.puct import PUCTSearch, run_simulations

    game = make("dicewars:players=4")
    net = _network(game, seed=2)
    settings = PUCTSettings(c=1.5, discount=0.5, discount_toward=toward)
    for k, state in enumerate(_decisions(game, 4, seed=5)):
        if engine == "generic":
            search = PUCTSearch(state, settings, np.random.default_rng(k))
            run_simulations([search], 1, Evaluator(net).evaluate)
        else:
            search = CompiledDiceWarsPUCT(state, dense_network(net), settings, np.random.default_rng(k))
            assert search.run(1) == 1
        snap = search.snapshot()
        path = [0]
        while True:
            below = [n for n in range(1, len(snap.parent)) if snap.parent[n] == path[-1] and snap.visits[n] > 0]
            if not below:
                break
            path.extend(below)
        assert len(path) >= 2
        for parent, child in zip(path, path[1:]):
            assert snap.mean[parent] - toward == pytest.approx(0.5 * (snap.mean[child] - toward), abs=1e-6)
