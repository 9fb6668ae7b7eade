"""What a game declares it provides (``GameType.provides``) against what it does.

A declared capability must work: an information-state string of the game's own that tells
apart what the seat sees, compiled playouts that play legal games to their end, compiled
engines found in the ``boardlab.engines`` registry that search a position, a grading
solver that grades an agent. An undeclared one must not be offered: no tensor, no kernel, no
symmetries, the protocol's own information-state string, and no engine registered under the
game's name. (The observation tensor and the symmetries, when declared, have checks of their
own: :func:`~boardlab.conformance.views.check_observation_tensor`,
:func:`~boardlab.conformance.symmetries.check_symmetries`.)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from boardlab.conformance.failures import ConformanceError, expect
from boardlab.conformance.playing import sampled_states
from boardlab.core.engines import ENGINE_KINDS, engine_for, engine_name
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, State
from boardlab.core.plugins import engines
from boardlab.core.rng import kernel_rng
from boardlab.core.search import DenseNetwork, PUCTSettings, value_outputs

#: iterations of each search a compiled engine runs in the check
SEARCHED = 64


def check_capabilities(game: Game, games: int = 3, per_game: int = 6) -> None:
    """Each capability ``game`` declares holds, and each it does not declare is not offered."""
    declared, offered = game.game_type.provides, game.provides
    expect(offered <= declared, game, "capabilities",
           f"provides {', '.join(sorted(offered - declared))}, which its GameType does not declare")
    states = [state for seed in range(games) for state in sampled_states(game, 4000 + seed, per_game)]
    check_undeclared(game, states)
    if "information_state_string" in offered:
        check_information_state(game, states)
    if "compiled_playouts" in offered:
        check_playouts(game, states)
    if "compiled_uct" in offered:
        check_uct(game)
    if "compiled_puct" in offered:
        check_puct(game)
    if "grading_solver" in offered:
        check_grading(game)


def _refuses(call: Callable[[], Any]) -> bool:
    try:
        call()
    except BoardlabError:
        return True
    return False


def check_undeclared(game: Game, states: list[State]) -> None:
    """What the game does not provide, it does not offer."""
    offered = game.provides
    if "observation_tensor" not in offered:
        expect(_refuses(game.observation_tensor_shape) and _refuses(lambda: states[0].observation_tensor(0)), game,
               "capabilities", "offers an observation tensor but does not provide observation_tensor")
    if "compiled_playouts" not in offered:
        expect(_refuses(game.playout_kernel), game, "capabilities",
               "offers a playout kernel but does not provide compiled_playouts")
    if "symmetries" not in offered:
        expect(not game.symmetries(), game, "capabilities", "offers symmetries but does not provide symmetries")
    if "information_state_string" not in offered:
        for state in states:
            for seat in range(game.num_players()):
                expect(state.information_state_string(seat) == State.information_state_string(state, seat), state,
                       "capabilities", "writes an information-state string of its own but does not provide "
                       "information_state_string")
    for kind, capability in ENGINE_KINDS.items():
        name = engine_name(game, kind)
        expect(capability in game.game_type.provides or name not in engines, game, "capabilities",
               f"registers the boardlab.engines entry {name!r} but does not provide {capability}")


def check_information_state(game: Game, states: list[State]) -> None:
    """The game's own information-state string: a string for every seat; two states where a seat is to
    move and cannot tell them apart by it show that seat the same observation (an information-set search
    keys its nodes so; elsewhere OpenSpiel's strings need not say whose turn it is); and in a game of
    perfect information (where the protocol writes the history) it is not the protocol's own."""
    known: dict[tuple[int, str], tuple[dict, State]] = {}
    own = game.has_hidden_information
    for state in states:
        for seat in range(game.num_players()):
            text = state.information_state_string(seat)
            expect(isinstance(text, str), state, "information state", f"seat {seat}'s is not a string")
            own = own or text != State.information_state_string(state, seat)
            if state.current_player() != seat:
                continue
            seen = state.observation(seat)
            before = known.setdefault((seat, text), (seen, state))
            expect(before[0] == seen, state, "information state",
                   f"seat {seat}, to move, has the same information state after actions {before[1].history}, but sees "
                   "something else there: the string leaves out what the seat sees")
    expect(own, game, "information state", "provides information_state_string but writes the protocol's own (the history)")


def check_playouts(game: Game, states: list[State]) -> None:
    """The playout kernel plays from any state of a game (a copy of it) to an end within the utility range,
    and from a finished game gives its returns."""
    try:
        kernel = game.playout_kernel()
    except BoardlabError as exc:
        raise ConformanceError(f"{game.spec()}: compiled playouts: playout_kernel() fails: {exc}") from None
    low, high = game.game_type.min_utility, game.game_type.max_utility
    for index, state in enumerate(states):
        returns = [float(r) for r in kernel.playout_returns(state.clone(), kernel_rng(index))]
        expect(len(returns) == game.num_players() and all(math.isfinite(r) and low <= r <= high for r in returns), state,
               "compiled playouts", f"a playout returns {returns}, not one return per seat within [{low}, {high}]")
        if state.is_terminal():
            expect(returns == [float(r) for r in state.returns()], state, "compiled playouts",
                   f"a playout from a finished game returns {returns}, not its returns {state.returns()}")


def decision_state(game: Game, seed: int = 0) -> State:
    """The first state of a random game where a player is to move."""
    for state in sampled_states(game, seed, game.max_game_length() + 1):
        if not state.is_terminal() and not state.is_chance_node():
            return state
    raise ConformanceError(f"{game.spec()}: no player ever moves in a random game")


def _engine(game: Game, kind: str) -> Any:
    try:
        return engine_for(game, kind)
    except BoardlabError as exc:
        raise ConformanceError(f"{game.spec()}: {ENGINE_KINDS[kind]}: {exc}") from None


def check_search(game: Game, state: State, engine: Any, what: str) -> None:
    """A search of :data:`SEARCHED` iterations: legal root moves whose visits add up, and a tree snapshot."""
    children = engine.root_children()
    legal = set(state.legal_actions())
    expect(bool(children) and {ch.action for ch in children} <= legal, state, what,
           f"root moves {sorted(ch.action for ch in children)} are not legal moves {sorted(legal)}")
    expect(engine.root_visits() == SEARCHED == sum(ch.visits for ch in children), state, what,
           f"{SEARCHED} iterations give the root {engine.root_visits()} visits, its moves {sum(ch.visits for ch in children)}")
    snapshot = engine.snapshot()
    expect(len(snapshot.parent) > 1 and snapshot.parent[0] == -1, state, what, "the snapshot holds no tree")


def check_uct(game: Game) -> None:
    """The registered compiled UCT (``GAME.uct``) searches a position: the SearchEngine protocol."""
    factory = _engine(game, "uct")
    state = decision_state(game)
    engine = factory(state.clone(), 0, 1.4)
    done = engine.run(SEARCHED, None)
    expect(done == SEARCHED, state, "compiled UCT", f"run({SEARCHED}) ran {done} iterations")
    check_search(game, state, engine, "compiled UCT")


def random_network(game: Game, hidden: int = 16, seed: int = 0) -> DenseNetwork:
    """A small random policy-value MLP that reads ``game``'s observation tensor."""
    rng = np.random.default_rng(seed)
    inputs, actions, values = int(np.prod(game.observation_tensor_shape())), game.num_distinct_actions(), value_outputs(game)
    return DenseNetwork(w_in=rng.normal(0, 0.3, (hidden, inputs)), b_in=np.zeros(hidden),
                        w_hidden=np.zeros((0, hidden, hidden)), b_hidden=np.zeros((0, hidden)),
                        w_policy=rng.normal(0, 0.3, (actions, hidden)), b_policy=np.zeros(actions),
                        w_value=rng.normal(0, 0.3, (values, hidden)), b_value=np.zeros(values))


def check_puct(game: Game) -> None:
    """The registered compiled PUCT (``GAME.puct``) searches a position with a random network: the
    PUCTEngine protocol, a visit policy that sums to one and a legal move chosen."""
    factory = _engine(game, "puct")
    state = decision_state(game)
    engine = factory(state.clone(), random_network(game), PUCTSettings(noise=(1.0, 0.25)), np.random.default_rng(0))
    done = engine.run(SEARCHED)
    expect(done == SEARCHED == engine.simulations, state, "compiled PUCT",
           f"run({SEARCHED}) ran {done} simulations and counts {engine.simulations}")
    check_search(game, state, engine, "compiled PUCT")
    policy = engine.policy(game.num_distinct_actions())
    expect(math.isclose(float(policy.sum()), 1.0, abs_tol=1e-5), state, "compiled PUCT", "the visit policy does not sum to 1")
    for temperature in (0.0, 1.0):
        move = engine.choose(temperature)
        expect(move in state.legal_actions(), state, "compiled PUCT", f"choose({temperature}) gives illegal move {move}")


def check_grading(game: Game) -> None:
    """The registered grading (``GAME.grading``) grades a random player: shares between 0 and 1, and at
    least as many moves keep the result as are optimal; given the set its reader (``GAME.grading_set``)
    reads, it grades every position of that set."""
    from boardlab.agents.registry import make_agent

    grade = _engine(game, "grading")
    result = grade(make_agent("random", game), game, seed=0)
    share, kept = result.share, result.kept_share
    expect(result.positions > 0 and share is not None and kept is not None and 0 <= share <= kept <= 1, game,
           "grading solver", f"grading a random player gives {result.positions} positions, share {share}, kept {kept}")
    shipped = _engine(game, "grading_set")(None)
    again = grade(make_agent("random", game), game, seed=0, positions=shipped)
    expect(again.positions == len(shipped) == result.positions and again.share == share, game, "grading solver",
           f"graded on the set its reader gives ({len(shipped)} positions), a random player gets {again.positions} "
           f"positions and share {again.share}, not {result.positions} and {share} as on the default set")
