"""Ticket to Ride's compiled information-set PUCT: the rules' tensor and the torch network's verdict
exactly, the generic search's tree from the same generator, no peeking, and self-play through it."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from game_helpers import random_game_positions

from boardlab.agents.az_selfplay import SelfPlaySettings, self_play
from boardlab.agents.is_puct import InformationSetPUCT
from boardlab.agents.puct import run_simulations
from boardlab.agents.search_tree import snapshot_to_tree
from boardlab.conformance.failures import ConformanceError
from boardlab.conformance.search_honesty import check_search_honesty, compiled_search
from boardlab.core.engines import puct_engine
from boardlab.core.errors import BoardlabError
from boardlab.core.registry import make
from boardlab.core.search import PUCTSettings
from boardlab.games.tickettoride.hidden import PackedWorlds
from boardlab.games.tickettoride.kernel import apply_action, map_arrays, pack
from boardlab.games.tickettoride.puct import N_PLAYER, ROOM, CompiledTicketToRidePUCT, information_key, judge, observe, see
from boardlab.nn.az_net import Evaluator, dense_network, new_network, relative_values


def _network(game, seed: int = 0, hidden: int = 32):
    torch.manual_seed(seed)
    return new_network(game, {"kind": "mlp", "hidden": hidden, "layers": 2}).eval()


class PeekingCompiledSearch(CompiledTicketToRidePUCT):
    """The control: every simulation in the true state, as a search that forgot to resample would."""

    def _draw_world(self):
        return pack(self._state), np.array([information_key(self._state, p) for p in range(self.players)], dtype=np.uint64)


def test_the_engine_is_registered_for_ticket_to_ride():
    assert puct_engine(make("tickettoride:players=2")) is CompiledTicketToRidePUCT


@pytest.mark.parametrize("players,features", [(2, "plain"), (4, "plain"), (2, "plan"), (4, "plan")])
def test_the_compiled_tensor_and_verdict_are_the_rules_and_the_torch_networks(players, features):
    """For every seat of every position the network reads the floats of observation_tensor, and gives the
    legal actions, priors and seat values the torch evaluator gives."""
    game = make("tickettoride", players=players, features=features)
    net = _network(game)
    evaluator, arrays, M = Evaluator(net), dense_network(net).arrays(), map_arrays(game)
    x = np.empty(game.observation_tensor_shape()[0], dtype=np.float32)
    legal, priors, values = np.empty(ROOM, np.int64), np.empty(ROOM), np.empty(players)
    positions = random_game_positions(game, seed=players)
    assert len(positions) > 100
    for state in positions:
        S = pack(state)
        for seat in range(players):
            observe(S, M, seat, x)
            np.testing.assert_array_equal(x, state.observation_tensor(seat))
        count = judge(S, M, *arrays, x, legal, priors, values)
        assert legal[:count].tolist() == list(state.legal_actions())
        torch_priors, torch_values = evaluator.evaluate([state])
        np.testing.assert_allclose(priors[:count], torch_priors[0][legal[:count]], atol=1e-6)
        np.testing.assert_allclose(values, torch_values[0], atol=1e-6)


@pytest.mark.parametrize("players", [2, 4])
def test_packed_worlds_are_the_redrawn_states_packed(players):
    """From the same generator PackedWorlds gives pack(resample(...)), and what each opponent knows there."""
    game = make("tickettoride", players=players)
    checked = 0
    for state in random_game_positions(game, seed=30 + players, every=9):
        seat = state.current_player()
        worlds = PackedWorlds(state, seat)
        for seed in range(2):
            packed, private = worlds.draw(np.random.default_rng(seed))
            world = state.resample(seat, np.random.default_rng(seed))
            np.testing.assert_array_equal(packed, pack(world))
            assert set(private) == set(range(players)) - {seat}
            for q, (cards, offered) in private.items():
                assert cards == tuple(card for _, dest, card in world.draws if dest == q)
                assert offered == tuple(world.offered[q])
            checked += 1
    assert checked > 30


@pytest.mark.parametrize("players", [2, 3])
def test_two_worlds_give_a_seat_the_same_key_exactly_when_it_cannot_tell_them_apart(players):
    """Keys extended move by move against information_state_string: equal for a seat exactly when its
    strings are equal, along the same moves played in the true state and in worlds redrawn for one seat."""
    game = make("tickettoride", players=players)
    M = map_arrays(game)
    rng = np.random.default_rng(1)
    compared = same = 0
    for root in random_game_positions(game, seed=10 + players, every=10)[1:]:
        owner = root.current_player()
        worlds = [root.clone()] + [root.resample(owner, rng) for _ in range(3)]
        arrays = [pack(w) for w in worlds]
        keys = [np.array([information_key(w, p) for p in range(players)], dtype=np.uint64) for w in worlds]
        for _ in range(12):
            if any(w.is_terminal() for w in worlds):
                break
            common = sorted(set.intersection(*(set(w.legal_actions()) for w in worlds)))  # an opponent's hands differ
            if not common:
                break
            actor = worlds[0].current_player()
            action = common[int(rng.integers(len(common)))]
            for w, S, k in zip(worlds, arrays, keys):
                w.apply_action(action)
                apply_action(S, M, action)
                see(S, actor, action, k)
            for i in range(1, len(worlds)):
                for p in range(players):
                    equal_strings = worlds[0].information_state_string(p) == worlds[i].information_state_string(p)
                    assert (keys[0][p] == keys[i][p]) == equal_strings
                    compared += 1
                    same += equal_strings
    assert compared > 200 and 0 < same < compared  # both cases met


@pytest.mark.parametrize("players", [2, 3])
def test_the_compiled_search_grows_the_generic_searchs_tree_from_the_same_generator(players):
    """Both draw their worlds from the generator in the same order: the same root visits (and so the same
    move and training targets), with and without the root's noise."""
    game = make("tickettoride", players=players)
    net = _network(game, hidden=64)
    evaluator, dense = Evaluator(net), dense_network(net)
    compared = 0
    for index, state in enumerate(random_game_positions(game, seed=20 + players, every=20)):
        for noise in (None, (1.0, 0.25)):
            settings = PUCTSettings(c=1.5, noise=noise)
            generic = InformationSetPUCT(state, settings, np.random.default_rng(index))
            run_simulations([generic], 48, evaluator.evaluate)
            compiled = CompiledTicketToRidePUCT(state, dense, settings, np.random.default_rng(index))
            assert compiled.run(48) == 48 == compiled.simulations == compiled.root_visits()
            assert [(c.action, c.visits, c.wins) for c in compiled.root_children()] == \
                [(c.action, c.visits, c.wins) for c in generic.root_children()]
            np.testing.assert_allclose([c.mean for c in compiled.root_children()],
                                       [c.mean for c in generic.root_children()], atol=1e-6)  # float32 sums
            assert compiled.root_priors().keys() == generic.root_priors().keys()
            assert compiled.choose(0.0) == generic.choose(0.0)
            compared += 1
    assert compared >= 10


@pytest.mark.parametrize("spec", ["tickettoride:players=2", "tickettoride:players=4"])
def test_the_compiled_search_decides_alike_in_states_its_seat_cannot_tell_apart_and_a_peeking_one_does_not(spec):
    game = make(spec)
    assert check_search_honesty(game, compiled_search(game)) > 0
    with pytest.raises(ConformanceError, match="search honesty"):
        check_search_honesty(game, compiled_search(game, PeekingCompiledSearch))


def test_the_tree_exports_each_information_state_under_the_edge_that_first_reached_it():
    game = make("tickettoride:players=2")
    state = random_game_positions(game, seed=3, every=30)[2]
    engine = CompiledTicketToRidePUCT(state, dense_network(_network(game)), PUCTSettings(), np.random.default_rng(0))
    engine.run(100)
    snap = engine.snapshot()
    tree = snapshot_to_tree(snap)
    assert snap.visits[0] == 100 == sum(c.visits for c in engine.root_children())
    root_edges = np.flatnonzero(snap.parent == 0)
    assert sorted(snap.actions[root_edges].tolist()) == sorted(state.legal_actions())
    below = np.flatnonzero(snap.parent > 0)
    assert len(below) > 0  # information states met below the root
    # each information state's world, redrawn from the generator's saved state and replayed from the root,
    # has that state's seat to move and its information state's moves
    for node in range(1, int(engine.counts[0])):
        position = engine.node_position(node)
        assert position.current_player() == engine.nodes[node, N_PLAYER]
        assert position.history[: len(state.history)] == state.history
    assert len(tree) > 1 and all(tree.state[i] for i in range(len(tree)))  # every kept row is named by its position
    assert tree.move[int(root_edges[0])] == state.action_to_string(int(snap.actions[root_edges[0]]))
    assert state.to_json() == random_game_positions(game, seed=3, every=30)[2].to_json()  # the true state is never changed


def test_the_engine_refuses_what_it_cannot_do():
    game = make("tickettoride:players=2")
    state = game.new_initial_state(0)
    net = dense_network(_network(game))
    other = dense_network(_network(make("tickettoride:players=3")))
    with pytest.raises(BoardlabError, match="does not fit"):
        CompiledTicketToRidePUCT(state, other, PUCTSettings(), np.random.default_rng(0))
    with pytest.raises(BoardlabError, match="discounted"):
        CompiledTicketToRidePUCT(state, net, PUCTSettings(discount=0.9), np.random.default_rng(0))
    with pytest.raises(BoardlabError, match="prove"):
        CompiledTicketToRidePUCT(state, net, PUCTSettings(solve=True), np.random.default_rng(0))
    final = random_game_positions(game, seed=1)[-1]
    final.apply_action(final.legal_actions()[0])
    assert final.is_terminal()
    with pytest.raises(BoardlabError, match="no move"):
        CompiledTicketToRidePUCT(final, net, PUCTSettings(), np.random.default_rng(0))


def test_self_play_through_the_compiled_engine_writes_the_generic_searchs_samples():
    """Two 2-player games cut at 60 moves: the same positions, visit targets and values either way."""
    game = make("tickettoride:players=2")
    net = _network(game)
    evaluator = Evaluator(net)

    def play(engine: str):
        settings = SelfPlaySettings(simulations=12, temp_moves=10, max_moves=60, engine=engine)
        return self_play(game, evaluator.evaluate, [5, 6], settings,
                         lambda returns, mover: relative_values(np.asarray(returns), mover, game.players),
                         dense_network(net))

    compiled, compiled_summary = play("auto")
    generic, generic_summary = play("generic")
    assert compiled_summary == generic_summary and len(compiled) == 120
    np.testing.assert_array_equal(compiled.obs, generic.obs)
    np.testing.assert_allclose(compiled.policy, generic.policy)
    np.testing.assert_array_equal(compiled.value, generic.value)
