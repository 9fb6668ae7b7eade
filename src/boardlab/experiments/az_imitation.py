"""A network's first lessons from another player's games (``boardlab train az --imitate AGENT``).

Self-play from random weights spends its first hours rediscovering what a
hand-written player already knows; in a long game with thousands of actions
(Ticket to Ride) that is most of the budget. So a run may first watch an agent
play itself, ``AGENT`` in every seat, and learn from those games what it learns
from its own: the policy head the agent's choice (one-hot, over the legal
actions), the value head each seat's result, from the observation tensor of the
seat to move (the agent itself sees whatever the arena shows it). The positions
also go into the replay buffer, where self-play pushes them out as it fills it:
AlphaGo's supervised start, with the agent as the expert.

The games are seeded from the run's seed and played in fixed chunks, so the
lesson is the same whichever number of workers plays it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.agents.az_selfplay import Record, Samples, SelfPlaySettings, training_samples
from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_to_end
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, State
from boardlab.core.registry import make
from boardlab.core.rng import derive_seed
from boardlab.core.search import value_outputs
from boardlab.nn.az_net import relative_values

#: games per task handed to a worker (fixed, so the samples do not depend on the number of workers)
CHUNK = 25
#: chunks per round: the positions of a round are added to the buffer and learnt from before the next round
#: is played, so that a lesson far larger than the buffer (or the memory) still teaches all of its games
ROUND = 4


def check_teacher(spec: str, game: Game) -> str:
    """The agent's canonical spec, or a clear error if it cannot play this game unattended."""
    agent = make_agent(spec, game)
    if agent.interactive:
        raise BoardlabError(f"train az: --imitate {spec!r} is a person's seat; name an agent that plays by itself")
    return agent.spec


def agent_games(game: Game, spec: str, seeds: list[int], discount: float = 1.0,
                discount_toward: float = 0.0) -> tuple[Samples, list[dict[str, Any]]]:
    """One game per seed with ``spec`` in every seat: a sample per decision (the mover's observation
    tensor, legal mask, the chosen action as the policy target, each seat's result as the value
    target, discounted like self-play's) and a summary per game (``seed``, ``moves``, ``returns``)."""
    outputs = value_outputs(game)
    actions = game.num_distinct_actions()
    played: list[tuple[State, list[Record]]] = []
    summary = []
    for seed in seeds:
        records: list[Record] = []

        def note(state: State, player: int, action: int, records: list[Record] = records) -> None:
            if player < 0:  # a chance outcome: nothing to learn
                return
            target = np.zeros(actions, np.float32)
            target[action] = 1.0
            records.append((state.observation_tensor(player), state.legal_actions_mask(), target, player,
                            len(state.history), 0.0))

        agents = [make_agent(spec, game) for _ in range(game.num_players())]
        _, final = play_to_end(game, agents, seed, on_move=note)
        played.append((final, records))
        summary.append({"seed": seed, "moves": len(records), "returns": [float(r) for r in final.returns()]})
    settings = SelfPlaySettings(discount=discount, discount_toward=discount_toward)  # the value target is always the result: no search to average with
    samples = training_samples(game, played, settings, lambda returns, mover: relative_values(np.asarray(returns), mover, outputs))
    return samples, summary


def agent_games_job(item: tuple) -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    """One chunk in a worker: ``(chunk index, game spec, agent spec, seeds, discount, discount_toward)``."""
    index, game_spec, spec, seeds, discount, toward = item
    samples, summary = agent_games(make(game_spec), spec, seeds, discount, toward)
    return index, {"obs": samples.obs, "mask": samples.mask, "policy": samples.policy, "value": samples.value}, summary


def lesson_rounds(game: Game, spec: str, games: int, seed: int, discount: float,
                  discount_toward: float = 0.0) -> list[list[tuple]]:
    """The worker tasks of a lesson of ``games`` games, seeded from the run's ``seed``, in rounds of
    :data:`ROUND` chunks (each round's positions are learnt from before the next is played)."""
    seeds = [derive_seed(seed, "imitate", g) for g in range(games)]
    chunks = [(k, game.spec(), spec, seeds[s: s + CHUNK], discount, discount_toward) for k, s in enumerate(range(0, games, CHUNK))]
    return [chunks[r: r + ROUND] for r in range(0, len(chunks), ROUND)]
