"""Playing scheduled games in any process: the part of a tournament that runs on workers.

Everything a worker needs travels in a :class:`Job` (plain data, so it pickles
for a process pool or Ray): the game spec, the agent specs, and the registry
entries for them, so that games and agents registered at run time (plug-ins,
tests) are found in a fresh worker process too.

Agents are made afresh for every game, so a game's result depends only on its
seed and seating, never on which games the same worker played before.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Sequence

from boardlab.agents import registry as agent_registry
from boardlab.arena.play import play_to_end, replay_to_end
from boardlab.arena.schedule import ScheduledGame
from boardlab.arena.store import GameResult
from boardlab.core import registry as game_registry
from boardlab.core.game import Game


@dataclass(frozen=True)
class Job:
    game: str                          # full game spec, players included
    agents: tuple[str, ...]            # agent specs, by agent number
    game_targets: tuple[tuple[str, str], ...] = ()   # (name, "module:Class") registry entries
    agent_targets: tuple[tuple[str, str], ...] = ()
    #: let agents that offer it play whole games in compiled code (:meth:`Agent.compiled_match`)
    compiled: bool = True

    @classmethod
    def for_specs(cls, game: str, agents: Sequence[str], compiled: bool = True) -> "Job":
        """A job carrying the registry entries its game and agents are made from."""
        from boardlab.core.params import parse_spec, spec_name

        game_name = spec_name(game)
        agent_names = sorted({parse_spec(spec)[0] for spec in agents})
        return cls(
            game=game,
            agents=tuple(agents),
            game_targets=((game_name, game_registry.game_target(game_name)),),
            agent_targets=tuple((name, agent_registry.agent_target(name)) for name in agent_names),
            compiled=compiled,
        )


_games: dict[Job, Game] = {}


def _game_for(job: Job) -> Game:
    game = _games.get(job)
    if game is None:
        for name, target in job.game_targets:
            if name not in game_registry.game_names():
                game_registry.register_game(name, target)
        for name, target in job.agent_targets:
            if name not in agent_registry.agent_names():
                agent_registry.register_agent(name, target)
        game = _games[job] = game_registry.make(job.game)
    return game


def final_scores(game: Game, record: Any) -> list[float] | None:
    """``state.scores()`` of the game's final state, when the game declares scores."""
    if not game.game_type.provides_scores:
        return None
    state = game.state_from_history(record.actions, record.seed, record.start)
    return [float(s) for s in state.scores()]


def play_scheduled(job: Job, scheduled: ScheduledGame) -> GameResult:
    """Play one scheduled game and return what the store keeps of it.

    When every seat holds an agent of one class that offers a compiled match for them
    (:meth:`~boardlab.agents.base.Agent.compiled_match`) and the job allows it, the game is played
    there and replayed in the Python engine for its record (an illegal compiled move fails loudly)."""
    from boardlab.agents.registry import make_agent

    game = _game_for(job)
    start = time.perf_counter()
    agents = [make_agent(job.agents[number], game) for number in scheduled.seats]
    match = None
    if job.compiled and len({type(a) for a in agents}) == 1:
        match = type(agents[0]).compiled_match(game, agents, scheduled.seed)
    decisions: list[list[float]] = []  # per seat: [decisions, wall seconds their steps took]; none for a compiled match
    if match is not None:
        record, state = replay_to_end(game, match.actions, scheduled.seed, [a.spec for a in agents])
        agent_stats = list(match.statistics)
    else:
        decisions.extend([0, 0.0] for _ in agents)

        def timed(seat: int, step_seconds: float) -> None:
            decisions[seat][0] += 1
            decisions[seat][1] += step_seconds

        record, state = play_to_end(game, agents, scheduled.seed, on_step=timed)
        agent_stats = [a.statistics() for a in agents]
    seconds = time.perf_counter() - start
    game_stats = state.statistics()
    stats: dict[str, Any] | None = None
    if game_stats is not None or any(s is not None for s in agent_stats) or decisions:
        stats = {"game": game_stats, "agents": agent_stats}
        if decisions:
            stats["decisions"] = decisions
    return GameResult(
        index=scheduled.index,
        seed=scheduled.seed,
        seats=list(scheduled.seats),
        agents=list(record.agents),
        returns=[float(r) for r in record.returns],
        scores=[float(x) for x in state.scores()] if game.game_type.provides_scores else None,
        record=record.to_dict(),
        seconds=seconds,
        stats=stats,
    )


def play_chunk(job: Job, chunk: Sequence[ScheduledGame]) -> list[GameResult]:
    """Play several scheduled games (one task for a worker, to save round trips)."""
    return [play_scheduled(job, scheduled) for scheduled in chunk]
