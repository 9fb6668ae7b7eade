"""Tournaments: a configuration, its schedule, and the loop that plays what is missing.

A :class:`TournamentConfig` holds what decides the games (game, agents,
players per game, games, format, seed); its :attr:`~TournamentConfig.id` is a
hash of exactly that, so the same command finds the same tournament in the
store and resumes it. How the games are played (workers, backend) is not part
of the id: every game depends only on its seed and seating.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterator, NamedTuple, Sequence

from boardlab.agents.registry import make_agent
from boardlab.arena import backends
from boardlab.arena.schedule import FORMATS, ScheduledGame, make_schedule
from boardlab.arena.store import GameResult, ResultStore
from boardlab.arena.worker import Job
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.registry import game_class, make, parse_game_spec


@dataclass(frozen=True)
class TournamentConfig:
    game: str                  # canonical game spec (``players=K`` included for variable games)
    agents: tuple[str, ...]    # canonical agent specs; an agent's number is its position here
    players: int               # players per game
    games: int                 # games per group (round-robin, gauntlet) or in all (random-seating)
    format: str
    seed: int

    @property
    def id(self) -> str:
        """12 hex digits of the SHA-256 of the configuration."""
        text = json.dumps(self.to_dict(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["agents"] = list(self.agents)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TournamentConfig":
        return cls(data["game"], tuple(data["agents"]), data["players"], data["games"], data["format"], data["seed"])

    def schedule(self) -> list[ScheduledGame]:
        return make_schedule(len(self.agents), self.players, self.games, self.format, self.seed)


def game_for_players(game_spec: str, players: int | None) -> Game:
    """The game for ``players`` players, checking the game's player range.

    Games with a ``players`` parameter get ``players=K``; games without one
    play only their fixed number of players.
    """
    name, raw = parse_game_spec(game_spec)
    cls = game_class(name)
    if players is None:
        return make(game_spec)
    if not cls.min_players <= players <= cls.max_players:
        span = str(cls.min_players) if cls.min_players == cls.max_players else f"{cls.min_players} to {cls.max_players}"
        raise BoardlabError(f"{name} is played by {span} players, not {players}")
    if "players" in cls.parameters:
        if "players" in raw:
            game = make(game_spec)
            if game.num_players() != players:
                raise BoardlabError(f"game spec {game_spec!r} says players={raw['players']} but --players-per-game is {players}")
            return game
        return make(game_spec, players=players)
    game = make(game_spec)
    if game.num_players() != players:
        raise BoardlabError(f"{game.spec()} is played by {game.num_players()} players, not {players}")
    return game


def prepare(
    game: str,
    agents: Sequence[str],
    players: int | None = None,
    games: int = 10,
    fmt: str = "round-robin",
    seed: int = 0,
) -> TournamentConfig:
    """Check a tournament's settings and return its configuration; errors name the bad setting."""
    if fmt not in FORMATS:
        raise BoardlabError(f"unknown tournament format {fmt!r} (formats: {', '.join(FORMATS)})")
    if not agents:
        raise BoardlabError("a tournament needs agents: --agents A B ...")
    the_game = game_for_players(game, players)
    players = the_game.num_players()
    specs = []
    for spec in agents:
        agent = make_agent(spec, the_game)
        if agent.interactive:
            raise BoardlabError(f"agent {agent.spec!r} needs a person; tournaments are unattended")
        specs.append(agent.spec)
    doubled = sorted({s for s in specs if specs.count(s) > 1})
    if doubled:
        raise BoardlabError(f"agent {doubled[0]!r} is given twice; give each agent once (random:seed=1, random:seed=2 differ)")
    if players > len(specs):
        raise BoardlabError(f"{the_game.spec()} needs {players} players per game but only {len(specs)} agents are given")
    config = TournamentConfig(the_game.spec(), tuple(specs), players, games, fmt, seed)
    config.schedule()  # checks games >= 1 and the format's needs
    return config


@dataclass
class Progress:
    """What the tournament loop tells its caller after each game it played."""

    done: int      # finished games in the store, this one included
    total: int
    result: GameResult
    #: False when another process running the same tournament had stored this game first
    stored: bool = True


class PlayCount(NamedTuple):
    """What one call of :func:`play_missing` did."""

    already_stored: int    # games found in the store when it started
    played: int            # games this process played
    stored_by_others: int  # of those, games another process had stored first (so not stored again)


def play_missing(
    config: TournamentConfig,
    store: ResultStore,
    command: str = "",
    workers: int = 1,
    backend: str = "process",
    address: str | None = None,
    on_game: Callable[[Progress], None] | None = None,
    compiled: bool = True,
) -> PlayCount:
    """Play the tournament's games that are not in ``store`` yet; return what was found and played.

    ``workers`` = 1 with the process backend plays in this process. Every game
    is committed as it arrives. Two processes may run the same tournament on
    one store: no game is lost or stored twice (the store's key sees to it),
    and each counts the games it played itself, telling apart those the other
    had stored first. ``compiled``: agents that offer a compiled match for a game
    play it there (:meth:`~boardlab.agents.base.Agent.compiled_match`); the games
    are the same either way.
    """
    if backend not in backends.BACKENDS:
        raise BoardlabError(f"unknown backend {backend!r} (backends: {', '.join(backends.BACKENDS)})")
    if workers < 1:
        raise BoardlabError("--workers must be at least 1")
    schedule = config.schedule()
    tid = config.id
    store.open_tournament(tid, config.to_dict(), command, len(schedule))
    finished = store.finished_indices(tid)
    missing = [g for g in schedule if g.index not in finished]
    job = Job.for_specs(config.game, config.agents, compiled)
    results: Iterator[GameResult]
    if not missing:
        return PlayCount(len(finished), 0, 0)
    if backend == "ray":
        results = backends.run_ray(job, missing, workers, address)
    elif workers == 1:
        results = backends.run_serial(job, missing)
    else:
        results = backends.run_process_pool(job, missing, min(workers, len(missing)))
    done = len(finished)
    played = others = 0
    for result in results:
        stored = store.add_game(tid, result)
        played += 1
        others += not stored
        done += 1  # stored now, by this process or by another
        if on_game is not None:
            on_game(Progress(min(done, len(schedule)), len(schedule), result, stored))
    return PlayCount(len(finished), played, others)
