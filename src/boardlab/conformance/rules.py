"""The rules as the protocol promises them, checked along random legal games."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from boardlab.conformance.failures import expect
from boardlab.conformance.playing import random_game
from boardlab.core.errors import BoardlabError, IllegalActionError
from boardlab.core.game import CHANCE, TERMINAL, Game, GameType, State


def check_declaration(game: Game) -> None:
    """The game's declared facts agree with each other and with the game made from them."""
    declared = game.game_type
    expect(isinstance(declared, GameType), game, "declaration", "game_type must be a GameType")
    expect(declared.short_name == game.name, game, "declaration", f"name {game.name!r} is not the declared {declared.short_name!r}")
    n = game.num_players()
    expect(declared.min_players <= n <= declared.max_players, game, "declaration",
           f"{n} players is outside the declared {declared.min_players}..{declared.max_players}")
    expect(game.num_distinct_actions() > 0, game, "declaration", "num_distinct_actions() must be positive")
    expect(game.max_game_length() > 0, game, "declaration", "max_game_length() must be positive")
    for field in ("player_names", "player_colors"):
        values = getattr(declared, field)
        expect(not values or len(values) >= declared.max_players, game, "declaration",
               f"{field} names {len(values)} seats; the game seats up to {declared.max_players}")
    expect(game.spec() and "]" not in game.spec(), game, "declaration", f"spec {game.spec()!r} cannot name the game in a tree file")
    expect(not game.has_hidden_information or "information_state_string" in game.provides, game, "declaration",
           "a game with hidden information must provide information_state_string (the protocol's own shows everything)")
    if "observation_tensor" in game.provides:
        shape = game.observation_tensor_shape()
        expect(isinstance(shape, tuple) and len(shape) > 0 and all(isinstance(n, int) and n > 0 for n in shape), game,
               "declaration", f"observation_tensor_shape() {shape!r} must be a tuple of positive integers")
        low, high = game.observation_tensor_bounds()
        expect(low < high, game, "declaration", f"observation_tensor_bounds() {low, high} is not a range")
    default = game.default_evaluator()
    if default is not None:
        from boardlab.agents.evaluators import evaluator_for

        evaluator_for(game, default)  # raises when it is unknown or judges another game
    agent = game.default_agent()
    if agent is not None:
        from boardlab.agents.registry import make_agent

        make_agent(agent, game)  # raises when it is unknown or plays another game


#: states of each random game checked in full (each costs a JSON and a notation round trip)
CHECKED = 24


def check_random_play(game: Game, examples: int = 25) -> None:
    """Random legal games under hypothesis: every state keeps the protocol's promises."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    ends: list[list[float]] = []

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.integers(min_value=0, max_value=2**31 - 1))
    def one_game(seed: int) -> None:
        states = [state.clone() for state in random_game(game, seed)]
        expect(len(states) - 1 <= game.max_game_length(), states[-1], "length",
               f"{len(states) - 1} actions, longer than max_game_length() = {game.max_game_length()}")
        # every promise at up to CHECKED states spread over the game, its first and last included
        picks = np.unique(np.linspace(0, len(states) - 1, min(len(states), CHECKED)).round().astype(int))
        for index in picks:
            check_state(states[int(index)])
        notations, players = [], []
        if not game.has_hidden_information:
            notations = [s.notation() for s in states]
            players = [s.current_player() for s in states]
        state = states[-1]
        ends.append(list(state.returns()))
        if notations:
            batch = np.asarray(game.players_of_notations(notations)).tolist()
            expect(batch == players, game, "notation", "players_of_notations disagrees with current_player()")

    one_game()
    if game.game_type.utility == "constant_sum" and ends:
        totals = {round(sum(r), 9) for r in ends}
        expect(len(totals) == 1, game, "returns", f"declared constant-sum, but final returns sum to {sorted(totals)}")


def check_state(state: State) -> None:
    """Every promise one state makes (the state is left exactly as it was)."""
    game = state.game
    n = game.num_players()
    player = state.current_player()
    legal = state.legal_actions()
    terminal = state.is_terminal()
    expect(terminal == (player == TERMINAL), state, "terminal", "is_terminal() and current_player() == TERMINAL disagree")
    expect(state.is_chance_node() == (player == CHANCE), state, "chance", "is_chance_node() and current_player() disagree")
    if terminal:
        expect(legal == [], state, "legal actions", "a finished game has legal actions")
    elif player == CHANCE:
        expect(game.game_type.has_chance, state, "chance", "a chance node in a game not declared chance='explicit'")
        outcomes = state.chance_outcomes()
        actions = [a for a, _ in outcomes]
        expect(len(set(actions)) == len(actions) and all(0 <= a < game.num_distinct_actions() for a in actions),
               state, "chance", f"outcomes {actions} repeat or leave range(num_distinct_actions())")
        expect(all(p > 0 for _, p in outcomes) and math.isclose(sum(p for _, p in outcomes), 1.0, abs_tol=1e-9),
               state, "chance", "outcome probabilities must be positive and sum to 1")
    else:
        expect(0 <= player < n, state, "player", f"current_player() {player} is not a seat of {n}")
        expect(bool(legal), state, "legal actions", "a state in play has no legal action")
        expect(len(set(legal)) == len(legal) and all(0 <= a < game.num_distinct_actions() for a in legal),
               state, "legal actions", f"{legal} repeat or leave range(num_distinct_actions())")
        mask = state.legal_actions_mask()
        expect(mask.shape == (game.num_distinct_actions(),) and sorted(np.flatnonzero(mask).tolist()) == sorted(legal),
               state, "legal-action mask", "legal_actions_mask() disagrees with legal_actions()")
        for action in legal:
            label = state.action_to_string(action)
            expect(bool(label), state, "move labels", f"action {action} has an empty label")
    check_returns(state)
    check_views_are_json(state)
    check_round_trips(state)
    check_clone_and_illegal(state)


def check_returns(state: State) -> None:
    game = state.game
    n = game.num_players()
    returns = list(state.returns())
    expect(len(returns) == n and all(math.isfinite(r) for r in returns), state, "returns", f"{returns} for {n} players")
    if not state.is_terminal():
        expect(all(r == 0 for r in returns), state, "returns", "returns must be zero until the game is over")
    else:
        low, high = game.game_type.min_utility, game.game_type.max_utility
        expect(all(low <= r <= high for r in returns), state, "returns",
               f"{returns} leave the declared utility range [{low}, {high}]")
        if game.game_type.utility == "zero_sum":
            expect(math.isclose(sum(returns), 0.0, abs_tol=1e-9), state, "returns", f"declared zero-sum, but {returns}")
    if game.game_type.provides_scores:
        scores = list(state.scores())
        expect(len(scores) == n and all(math.isfinite(float(s)) for s in scores), state, "scores", f"{scores}")


def _has_key(value: Any, key: str) -> bool:
    if isinstance(value, dict):
        return key in value or any(_has_key(v, key) for v in value.values())
    if isinstance(value, list):
        return any(_has_key(v, key) for v in value)
    return False


def check_views_are_json(state: State) -> None:
    for seat in [None, *range(state.game.num_players())]:
        seen = state.observation(seat)
        try:
            text = json.dumps(seen)
        except (TypeError, ValueError) as exc:
            raise AssertionError(f"{state.game.spec()}: observation({seat}) is not JSON: {exc}") from None
        expect(json.loads(text) == seen, state, "observation", f"observation({seat}) does not survive JSON")
        expect(seen.get("to_move") == state.current_player(), state, "observation", f"observation({seat})['to_move'] is not current_player()")
        expect(isinstance(seen.get("text"), str), state, "observation", f"observation({seat}) has no 'text'")
        expect(not _has_key(seen, "seed"), state, "observation", f"observation({seat}) holds a seed, which may fix hidden cards")
        expect(isinstance(state.information_state_string(seat), str), state, "information state", "not a string")


def check_round_trips(state: State) -> None:
    game = state.game
    again = game.state_from_json(state.to_json())
    expect(again.history == state.history and again.current_player() == state.current_player()
           and again.legal_actions() == state.legal_actions() and again.notation() == state.notation(),
           state, "JSON round trip", "state_from_json(to_json()) is another state")
    notation = state.notation()
    expect(isinstance(notation, str) and "\n" not in notation, state, "notation", "notation() must be one line of text")
    expect(game.player_of_notation(notation) == state.current_player(), state, "notation",
           f"player_of_notation({notation!r}) is not current_player()")
    if game.has_hidden_information:
        return  # a public notation fixes no state
    try:
        parsed = game.state_from_notation(notation)
    except BoardlabError as exc:
        raise AssertionError(f"{game.spec()}: notation {notation!r} does not read back: {exc}") from None
    expect(parsed.notation() == notation and parsed.current_player() == state.current_player()
           and sorted(parsed.legal_actions()) == sorted(state.legal_actions()),
           state, "notation round trip", f"state_from_notation({notation!r}) is another position")


def check_clone_and_illegal(state: State) -> None:
    before = (state.to_json(), state.notation(), list(state.legal_actions()), state.current_player())
    legal = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
    if legal:
        copy = state.clone()
        copy.apply_action(legal[0])
        expect((state.to_json(), state.notation(), list(state.legal_actions()), state.current_player()) == before,
               state, "clone", "playing on a clone changed the original")
    illegal = next((a for a in range(state.game.num_distinct_actions()) if a not in legal), state.game.num_distinct_actions())
    for bad in (illegal, -1):
        try:
            state.apply_action(bad)
        except IllegalActionError:
            pass
        else:
            raise AssertionError(f"{state.game.spec()}: illegal action {bad} was played after actions {state.history[:-1]}")
        expect((state.to_json(), state.notation(), list(state.legal_actions()), state.current_player()) == before,
               state, "illegal action", f"refusing action {bad} changed the state")
