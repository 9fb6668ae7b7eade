"""A search for a game with hidden information must not peek: what it does may depend only on what
the searching seat has seen and on its own seed.

The check plays random games, and at some states makes a twin the seat to move
cannot tell apart (``state.resample(seat, ...)``: same information state, other
hidden cards). Searching both with the same seed and the same network must give
the same network inputs, in the same order, the same visit counts and the same
move. The network here is a fixed random projection of the observation tensor
(no training, no torch): any dependence on the hidden cards shows in its inputs.
A search that reads the true state (the peeking control in the tests) fails. A game's compiled
PUCT engine (``GAME.puct``), which the ``az`` agent uses in its place, is checked the same way with a
random network of its own (its inputs are not logged: the visits and the move must agree).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from boardlab.conformance.capabilities import random_network
from boardlab.conformance.failures import expect
from boardlab.conformance.playing import sampled_states
from boardlab.core.engines import puct_engine
from boardlab.core.game import Game, State
from boardlab.core.search import PUCTSettings


class ProjectionNetwork:
    """Priors and values from fixed random projections of the mover's observation tensor; every input is logged."""

    def __init__(self, game: Game, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        size = int(np.prod(game.observation_tensor_shape()))
        self.players = game.num_players()
        self.policy = rng.normal(size=(game.num_distinct_actions(), size)) / np.sqrt(size)
        self.value = rng.normal(size=(self.players, size)) / np.sqrt(size)
        self.inputs: list[bytes] = []

    def evaluate(self, states: list[State]) -> tuple[np.ndarray, np.ndarray]:
        priors, values = [], []
        for state in states:
            mover = state.current_player()
            x = state.observation_tensor(mover).astype(np.float64).ravel()
            self.inputs.append(x.tobytes())
            logits = self.policy @ x
            mask = np.zeros(len(logits), bool)
            mask[state.legal_actions()] = True
            p = np.where(mask, np.exp(logits - logits[mask].max()), 0.0)
            priors.append(p / p.sum())
            values.append(np.roll(np.tanh(self.value @ x), mover))  # relative to the mover, as a network's are
        return np.asarray(priors), np.asarray(values)


def told_apart(a: State, b: State, moves: int = 40) -> bool:
    """Whether playing the same moves on ``a`` and ``b`` ever shows some seat something different."""
    a, b = a.clone(), b.clone()
    for _ in range(moves):
        if a.is_terminal() or b.is_terminal():
            return a.is_terminal() != b.is_terminal() or a.returns() != b.returns()
        if any(a.information_state_string(p) != b.information_state_string(p) for p in range(a.num_players())):
            return True
        if a.is_chance_node() or b.is_chance_node() or a.legal_actions() != b.legal_actions():
            return True
        action = a.legal_actions()[0]
        a.apply_action(action)
        b.apply_action(action)
    return False


def search_trace(make_search: Callable, state: State, game: Game, simulations: int, seed: int) -> tuple:
    """The network inputs, root visits and chosen move of one search of ``state`` from ``seed``; a compiled
    engine (one that runs itself, with its own network) logs no inputs."""
    from boardlab.agents.puct import run_simulations

    network = ProjectionNetwork(game)
    search = make_search(state, PUCTSettings(c=1.5), np.random.default_rng(seed))
    if hasattr(search, "run"):
        search.run(simulations)
    else:
        run_simulations([search], simulations, network.evaluate)
    visits = sorted((ch.action, ch.visits) for ch in search.root_children())
    return network.inputs, visits, search.choose(0.0)


def compiled_search(game: Game, engine: Callable | None = None) -> Callable | None:
    """``make_search`` for ``game``'s compiled PUCT engine (or ``engine``, a class of the same signature)
    with a fixed random network, or None when the game has none."""
    factory = engine or puct_engine(game)
    if factory is None:
        return None
    network = random_network(game)
    return lambda state, settings, rng: factory(state, network, settings, rng)


def check_search_honesty(game: Game, make_search: Callable | None = None, games: int = 3, per_game: int = 4,
                         simulations: int = 48) -> int:
    """Run the check on ``make_search(state, settings, rng)`` (default: the az agent's search); returns the
    number of twin pairs that differ in their hidden part: 0 when no redraw along these games changed what
    is still to come (in Goofspiel through OpenSpiel, say), so that nothing could be tested. By default
    both searches the ``az`` agent may use are checked: the generic one and the game's compiled engine."""
    if make_search is None:
        from boardlab.agents.puct import new_search

        compiled = compiled_search(game)
        if compiled is not None:
            check_search_honesty(game, compiled, games, per_game, simulations)
        make_search = new_search
    pairs = 0
    for seed in range(games):
        for state in sampled_states(game, 4000 + seed, per_game):
            if state.is_terminal() or state.is_chance_node():
                continue
            seat = state.current_player()
            twin = state.resample(seat, np.random.default_rng(99))
            if not told_apart(state, twin):
                continue
            pairs += 1
            truth, other = search_trace(make_search, state, game, simulations, seed), \
                search_trace(make_search, twin, game, simulations, seed)
            expect(truth[0] == other[0], state, "search honesty",
                   f"the search's network inputs for seat {seat} differ between two states it cannot tell apart: it reads "
                   f"hidden information")
            expect(truth[1:] == other[1:], state, "search honesty",
                   f"seat {seat}'s search decides differently in two states it cannot tell apart "
                   f"({truth[1]} -> {truth[2]} against {other[1]} -> {other[2]})")
    return pairs
