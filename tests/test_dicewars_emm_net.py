"""dw-emm:leaf=net: the win-probability network as the search's leaf (batched, checked, playing)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.bots.dicewars import emm_net, network
from boardlab.bots.dicewars.emm_search import Pos, Search, Settings
from boardlab.core.errors import BoardlabError
from boardlab.core.registry import make


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A small untrained network: its values are arbitrary but fixed, which is all the search needs here."""
    torch.manual_seed(0)
    config = network.NetConfig(hidden=16)
    return (network.save(tmp_path_factory.mktemp("net") / "tiny.pt", network.WinProbNet(config), config),)


def test_a_wrong_model_or_game_for_the_leaf_is_one_clear_error(tmp_path, tiny_model):
    game = make("dicewars")
    with pytest.raises(BoardlabError, match="none.pt"):
        make_agent(f"dw-emm:leaf=net,net={tmp_path / 'none.pt'}", game)
    with pytest.raises(BoardlabError, match="leaf=net"):
        make_agent(f"dw-emm:net={tiny_model[0]}", game)
    two = make("dicewars:players=2")
    with pytest.raises(BoardlabError, match="trained for 4 players and 29 areas; this game has 2 players"):
        make_agent(f"dw-emm:leaf=net,net={tiny_model[0]}", two).step(two.new_initial_state(1))


def test_the_batched_leaf_searches_exactly_as_one_board_at_a_time(tiny_model):
    game = make("dicewars")
    loaded = emm_net.load_model(tiny_model[0])
    for seed in (3, 4):
        state = game.new_initial_state(seed)
        root = Pos(list(state.owner), list(state.dice), list(state.reserve), state.current_player(), 0, 0, 0)
        found = []
        for batched in (True, False):
            leaf = emm_net.NetLeaf(loaded, state.adjacent, 4, batched=batched)
            search = Search(state.adjacent, 4, Settings(reinforce="sample", breadth=2), np.random.default_rng(seed), None, None, leaf)
            move, options = leaf.root(search, root, 2, record=True)
            found.append((move, [o["value"] for o in options], search.nodes, leaf.evaluated, len(search.rec.parent)))
        (m1, v1, n1, e1, r1), (m2, v2, n2, e2, r2) = found
        assert (n1, e1, r1) == (n2, e2, r2) and e1 > 0  # the same tree, the same leaves
        assert v1 == pytest.approx(v2, abs=1e-6)  # float32 sums of a batch may differ in the last bits
        assert m1 == m2 or abs(max(v1) - sorted(v1)[-2]) < 1e-6


def test_the_default_network_leaf_plays_a_legal_game():
    game = make("dicewars")
    agent = make_agent("dw-emm:leaf=net,turns=2,max_nodes=200", game)
    leaves = []
    step = agent.step

    def noting(state):
        action = step(state)
        leaves.append(agent.last_search.get("net_leaves", 0))
        return action

    agent.step = noting
    record = play_game(game, [agent, make_agent("dw-ste"), make_agent("dw-sdc"), make_agent("dw-wpm")], seed=11)
    assert record.replay().end_reason() in ("won", "stalled", "battle-limit")
    stats = agent.statistics()
    assert stats["decisions"] > 0 and stats["searched"] > 0
    assert sum(leaves) > 0  # the network, not the score, valued the leaves
