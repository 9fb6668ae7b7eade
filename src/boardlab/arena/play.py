"""Play one game between agents and keep its record."""

from __future__ import annotations

import time
from typing import Callable, Sequence

import numpy as np

from boardlab.agents.base import Agent
from boardlab.core.errors import BoardlabError, IllegalActionError
from boardlab.core.game import Game, State
from boardlab.core.records import GameRecord
from boardlab.core.rng import derive_seed, sample_chance

#: the cap for a game that does not say how long it can last
DEFAULT_MOVE_CAP = 100_000


def move_cap(game: Game) -> int:
    """The most moves a game is played for: its rules' ``max_game_length()`` where it declares one
    (a fixed 100,000 once stopped legal Dice Wars games of 10,000 battles, whose turns each end with
    up to 64 placements, and lost a whole evaluation with them), else :data:`DEFAULT_MOVE_CAP`."""
    try:
        return max(DEFAULT_MOVE_CAP, int(game.max_game_length()))
    except NotImplementedError:
        return DEFAULT_MOVE_CAP


def play_game(
    game: Game,
    agents: Sequence[Agent],
    seed: int | None = None,
    on_move: Callable[[State, int, int], None] | None = None,
    max_moves: int | None = None,
    on_step: Callable[[int, float], None] | None = None,
) -> GameRecord:
    """Play ``agents`` (one per seat, seat 0 first) to the end of a game.

    Each agent is reset with a seed derived from ``seed`` and its seat, and
    chance outcomes are drawn from their own derived stream, so the same seed
    gives the same game. ``on_move(state_before, player, action)`` is called
    for every move, chance moves included (player -1); ``on_step(seat, seconds)``
    after every decision of an agent, with the wall time its ``step`` took. A game longer than
    ``max_moves`` moves (by default :func:`move_cap`: the most its rules allow, chance moves
    included) is an error in the rules or in an agent.
    """
    return play_to_end(game, agents, seed, on_move, max_moves, on_step)[0]


def play_to_end(
    game: Game,
    agents: Sequence[Agent],
    seed: int | None = None,
    on_move: Callable[[State, int, int], None] | None = None,
    max_moves: int | None = None,
    on_step: Callable[[int, float], None] | None = None,
) -> tuple[GameRecord, State]:
    """:func:`play_game`, also giving the final state (the move labels are noted as the game goes,
    so the record costs no replay)."""
    if len(agents) != game.num_players():
        raise BoardlabError(f"{game.name} with these parameters needs {game.num_players()} agents, got {len(agents)}")
    state = game.new_initial_state(seed)
    for seat, agent in enumerate(agents):
        agent.reset(game, seat, None if seed is None else derive_seed(seed, "seat", seat))
    chance_rng = np.random.default_rng(None if seed is None else derive_seed(seed, "chance"))
    limit = move_cap(game) if max_moves is None else max_moves
    moves = 0
    labels: list[str] = []
    while not state.is_terminal():
        if moves >= limit:
            raise BoardlabError(f"{game.spec()}: the game did not end within {limit} moves")
        player = state.current_player()
        if state.is_chance_node():
            action = sample_chance(state, chance_rng)
        else:
            started = time.perf_counter()
            action = agents[player].step(state)
            if on_step is not None:
                on_step(player, time.perf_counter() - started)
            if action not in state.legal_actions():
                raise IllegalActionError(
                    f"agent {agents[player].spec} chose illegal action {action} in seat {player}"
                )
        if on_move is not None:
            on_move(state, player, action)
        labels.append(state.action_to_string(action))
        state.apply_action(action)
        moves += 1
    return GameRecord.from_state(state, [agent.spec for agent in agents], labels), state


def replay_to_end(game: Game, actions: Sequence[int], seed: int | None, agents: Sequence[str]) -> tuple[GameRecord, State]:
    """Replay a finished game's actions (from ``new_initial_state(seed)``): its record and final state."""
    state = game.new_initial_state(seed)
    labels: list[str] = []
    for index, action in enumerate(actions):
        labels.append(state.action_to_string(action))
        try:
            state.apply_action(int(action))
        except IllegalActionError as exc:
            raise IllegalActionError(f"move {index + 1} of a compiled game: {exc}") from None
    if not state.is_terminal():
        raise BoardlabError(f"a compiled game of {game.spec()} ended after {len(actions)} moves before the game was over")
    return GameRecord.from_state(state, list(agents), labels), state
