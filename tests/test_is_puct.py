"""PUCT for hidden information (boardlab.agents.is_puct): it decides from what its seat has seen, never
from the hidden cards, and a search that peeks is caught by the same test."""

import numpy as np
import pytest

from boardlab.agents.is_puct import InformationSetPUCT
from boardlab.agents.puct import PUCTSearch, new_search, run_simulations
from boardlab.conformance.failures import ConformanceError
from boardlab.conformance.playing import sampled_states
from boardlab.conformance.search_honesty import ProjectionNetwork, check_search_honesty, search_trace, told_apart
from boardlab.core.registry import game_names, make
from boardlab.core.search import PUCTSettings


class PeekingSearch(InformationSetPUCT):
    """The control: searches the true state, as a search that forgot to resample would."""

    def _world(self):
        return self._state.clone()


def hidden_games() -> list[str]:
    found = []
    for name in game_names():
        game = make(name)
        if game.has_hidden_information and {"observation_tensor", "information_state_string"} <= game.provides:
            found.append(name)
    return found


HIDDEN = hidden_games()


def test_the_shipped_hidden_information_games_are_checked():
    assert {"nothanks", "tickettoride"} <= set(HIDDEN)


@pytest.mark.parametrize("spec", [*HIDDEN, "nothanks:players=3", "tickettoride:players=4"])
def test_the_search_decides_alike_in_states_its_seat_cannot_tell_apart_and_a_peeking_one_does_not(spec):
    game = make(spec)
    assert check_search_honesty(game) > 0
    with pytest.raises(ConformanceError, match="search honesty"):
        check_search_honesty(game, PeekingSearch)


@pytest.mark.parametrize("spec", HIDDEN)
def test_the_peeking_control_changes_its_decisions_not_only_its_inputs(spec):
    """Visit counts (what self-play trains on) and, in some pair, the move itself."""
    game = make(spec)
    differ = []
    for seed in range(3):
        for state in sampled_states(game, 4000 + seed, 4):
            if state.is_terminal():
                continue
            twin = state.resample(state.current_player(), np.random.default_rng(99))
            if told_apart(state, twin):
                honest = search_trace(new_search, state, game, 48, seed)[1:], search_trace(new_search, twin, game, 48, seed)[1:]
                assert honest[0] == honest[1]
                differ.append(search_trace(PeekingSearch, state, game, 48, seed)[1:] !=
                              search_trace(PeekingSearch, twin, game, 48, seed)[1:])
    assert differ and any(differ)


def test_the_az_search_of_a_hidden_information_game_draws_worlds_and_counts_its_simulations():
    game = make("nothanks")
    state = game.new_initial_state(3)
    search = new_search(state, PUCTSettings(), np.random.default_rng(0))
    assert isinstance(search, InformationSetPUCT)
    assert isinstance(new_search(make("connect4").new_initial_state(), PUCTSettings(), np.random.default_rng(0)), PUCTSearch)
    network = ProjectionNetwork(game)
    run_simulations([search], 40, network.evaluate)
    children = search.root_children()
    assert search.simulations == 40 == sum(ch.visits for ch in children) == search.root_visits()
    assert {ch.action for ch in children} == set(state.legal_actions())
    assert search.policy(game.num_distinct_actions()).sum() == pytest.approx(1.0)
    assert state.to_json() == game.new_initial_state(3).to_json()  # the true state is never changed
    # each node is one information state of the player to move there; the root's is the owner's
    assert search.root_key == (0, state.information_state_string(0))
    assert all(key[1] for key in search.nodes) and len(search.nodes) == len(search.order)
    snap = search.snapshot()
    assert snap.visits[0] == 40 and (snap.parent[1:] < np.arange(1, len(snap.parent))).all()


def test_the_search_refuses_what_it_cannot_do():
    from boardlab.core.errors import BoardlabError

    state = make("nothanks").new_initial_state(0)
    with pytest.raises(BoardlabError, match="discounted"):
        InformationSetPUCT(state, PUCTSettings(discount=0.9), np.random.default_rng(0))
    with pytest.raises(BoardlabError, match="cannot prove"):
        InformationSetPUCT(state, PUCTSettings(solve=True), np.random.default_rng(0))
    search = InformationSetPUCT(state, PUCTSettings(), np.random.default_rng(0))
    with pytest.raises(BoardlabError, match="without a pending leaf"):
        search.resolve(np.ones(2), np.zeros(4))
