"""Tournaments: a configuration, its schedule, and the loop that plays what is missing.

A :class:`TournamentConfig` holds what decides the games (game, agents,
players per game, games, format, seed); its :attr:`~TournamentConfig.id` is a
hash of exactly that, so the same command finds the same tournament in the
store and resumes it. How the games are played (workers, backend) is not part
of the id: every game depends only on its seed and seating.

Agent specs are canonical, so they leave out options at their defaults: when a
release changes an agent's defaults, the same spec names another agent under
the same id. The config therefore also records every agent's options, defaults
included (``resolved_agents``; not part of the id, so stores written before it
keep their ids), with a digest of every model file an agent plays with
(``model:OPTION``, :meth:`~boardlab.agents.base.Agent.model_files`: a network
retrained in place is another agent behind the same spec), and resuming a
tournament whose agents' options or networks have changed since is refused
rather than mixing games of the old and the new agent.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, NamedTuple, Sequence

from boardlab.agents.base import Agent
from boardlab.agents.registry import agent_class, make_agent
from boardlab.arena import backends
from boardlab.arena.schedule import FORMATS, ScheduledGame, make_schedule
from boardlab.arena.store import GameResult, ResultStore
from boardlab.arena.worker import Job
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.params import parse_spec
from boardlab.core.registry import game_class, make, parse_game_spec

#: the config keys the id is a hash of
ID_KEYS = ("game", "agents", "players", "games", "format", "seed")


@dataclass(frozen=True)
class TournamentConfig:
    game: str                  # canonical game spec (``players=K`` included for variable games)
    agents: tuple[str, ...]    # canonical agent specs; an agent's number is its position here
    players: int               # players per game
    games: int                 # games per group (round-robin, gauntlet) or in all (random-seating)
    format: str
    seed: int
    #: each agent's every option, defaults included, as JSON values (None: not recorded). Left out
    #: of the id and of equality: it tells whether a stored tournament's agents are still today's.
    resolved_agents: tuple[dict[str, Any], ...] | None = field(default=None, compare=False)

    @property
    def id(self) -> str:
        """12 hex digits of the SHA-256 of the configuration (``resolved_agents`` left out)."""
        text = json.dumps(self.id_dict(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def id_dict(self) -> dict[str, Any]:
        """What the id is a hash of: the fields that were the whole config before options were recorded."""
        return {"game": self.game, "agents": list(self.agents), "players": self.players, "games": self.games,
                "format": self.format, "seed": self.seed}

    def to_dict(self) -> dict[str, Any]:
        data = self.id_dict()
        if self.resolved_agents is not None:
            data["resolved_agents"] = [dict(options) for options in self.resolved_agents]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TournamentConfig":
        resolved = data.get("resolved_agents")
        return cls(data["game"], tuple(data["agents"]), data["players"], data["games"], data["format"], data["seed"],
                   None if resolved is None else tuple(dict(options) for options in resolved))

    def schedule(self) -> list[ScheduledGame]:
        return make_schedule(len(self.agents), self.players, self.games, self.format, self.seed)

    def with_resolved_agents(self) -> "TournamentConfig":
        """This config with its agents' options recorded, building the agents when they are not."""
        if self.resolved_agents is not None:
            return self
        game = make(self.game)
        return replace(self, resolved_agents=tuple(resolved_options(make_agent(spec, game), game) for spec in self.agents))


def _plain(value: Any) -> Any:
    """``value`` as the store's JSON keeps it (the store refuses NaN and infinities, so those become text)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return str(value)


#: the prefix of a recorded model file's digest among an agent's options ("model:path": its SHA-256)
MODEL_KEY = "model:"


def resolved_options(agent: Agent, game: Game) -> dict[str, Any]:
    """Every option of ``agent`` with its value, defaults included, as it was built, and the digest of
    every model file it plays ``game`` with (``model:OPTION``: the first 16 hex digits of its SHA-256)."""
    out = {name: _plain(value) for name, value in agent.config.items()}
    for option, path in agent.model_files(game).items():
        out[MODEL_KEY + option] = file_digest(path)
    return out


def file_digest(path: Path) -> str:
    """The first 16 hex digits of the file's SHA-256 ("missing" for a file that is not there: the agent
    will say so when it plays)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return "missing"
    return digest.hexdigest()[:16]


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
    specs, resolved = [], []
    for spec in agents:
        agent = make_agent(spec, the_game)
        if agent.interactive:
            raise BoardlabError(f"agent {agent.spec!r} needs a person; tournaments are unattended")
        specs.append(agent.spec)
        resolved.append(resolved_options(agent, the_game))
    doubled = sorted({s for s in specs if specs.count(s) > 1})
    if doubled:
        raise BoardlabError(f"agent {doubled[0]!r} is given twice; give each agent once (random:seed=1, random:seed=2 differ)")
    if players > len(specs):
        raise BoardlabError(f"{the_game.spec()} needs {players} players per game but only {len(specs)} agents are given")
    config = TournamentConfig(the_game.spec(), tuple(specs), players, games, fmt, seed, tuple(resolved))
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


_ABSENT = object()


def _shown(value: Any) -> str:
    if value is _ABSENT:
        return "(no such option)"
    return "(unset)" if value is None else str(value)


def _changes(stored: Mapping[str, Any], today: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """(option, stored value, today's value) for each option whose value differs, in today's order."""
    names = list(today) + [name for name in stored if name not in today]
    # records made before model files were digested have no model keys: nothing to compare those with
    names = [n for n in names if not (n.startswith(MODEL_KEY) and n not in stored)]
    pairs = [(name, stored.get(name, _ABSENT), today.get(name, _ABSENT)) for name in names]
    # True == 1 in Python, but a flag that became a count (or back) is a change
    return [(name, old, new) for name, old, new in pairs if old != new or isinstance(old, bool) != isinstance(new, bool)]


def _old_spec(spec: str, changes: list[tuple[str, Any, Any]]) -> str | None:
    """``spec`` with the stored values of the changed options written out, or None when one cannot be written."""
    name, raw = parse_spec(spec)
    for option, old, new in changes:
        if old is _ABSENT or new is _ABSENT or old is None or option.startswith(MODEL_KEY):
            return None  # an option added, removed or unset since, or another model file: no spec of today's agent says it
        raw[option] = str(old)
    return name + ":" + ",".join(f"{k}={v}" for k, v in raw.items())


def resume_check(config: TournamentConfig, stored: Mapping[str, Any], where: str) -> str | None:
    """Check that ``stored`` (the stored config of ``config``'s tournament) was played by today's agents.

    Raise a :class:`BoardlabError` naming every agent option whose value differs between the stored
    record and ``config`` (a release changed a default the canonical spec leaves out); return a warning
    when the stored tournament predates the record, so nothing can be compared; else None.
    """
    recorded = stored.get("resolved_agents")
    if recorded is None:
        return (f"{where}: tournament {config.id} was stored before boardlab recorded its agents' options, so a "
                "change of an agent's default options since cannot be detected: its stored games may have been "
                "played by another version of an agent than today's")
    today = config.with_resolved_agents().resolved_agents
    assert today is not None  # with_resolved_agents records them
    recorded = [{**agent_class(parse_spec(spec)[0]).options_added_since, **old} for spec, old in zip(config.agents, recorded)]
    changed = [(spec, _changes(old, new)) for spec, old, new in zip(config.agents, recorded, today)]
    changed = [(spec, changes) for spec, changes in changed if changes]
    if not changed:
        return None
    described = "; ".join(
        f"agent {spec!r}: " + ", ".join(f"{name} stored {_shown(old)} vs today {_shown(new)}" for name, old, new in changes)
        for spec, changes in changed
    )
    olds = [_old_spec(spec, changes) for spec, changes in changed]
    written = [old for old in olds if old is not None]  # all of them where `again` is used
    again = (f"to play the old ones again, name their old options in their specs ({', '.join(written)}), which starts "
             "a new tournament too, its id coming from the specs; " if all(olds) else "")
    raise BoardlabError(
        f"{where}: tournament {config.id} was begun with other agent options than today's (specs leave out options "
        f"at their defaults, and defaults have changed since): {described}. Resuming would mix games of the old and "
        "new agents, so no game was played. To play today's agents, start a new tournament with another --store or "
        f"--seed; {again}to finish this one, run the boardlab release it was begun with."
    )


def _print_warning(text: str) -> None:
    sys.stderr.write(f"warning: {text}\n")


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
    on_warning: Callable[[str], None] = _print_warning,
) -> PlayCount:
    """Play the tournament's games that are not in ``store`` yet; return what was found and played.

    ``workers`` = 1 with the process backend plays in this process. Every game
    is committed as it arrives. Two processes may run the same tournament on
    one store: no game is lost or stored twice (the store's key sees to it),
    and each counts the games it played itself, telling apart those the other
    had stored first. ``compiled``: agents that offer a compiled match for a game
    play it there (:meth:`~boardlab.agents.base.Agent.compiled_match`); the games
    are the same either way.

    A tournament in the store is resumed only when its recorded agent options are today's
    (:func:`resume_check`); one stored before options were recorded is resumed with a warning
    passed to ``on_warning`` (default: a ``warning:`` line on stderr).
    """
    backends.check_backend(backend, address)
    if workers < 1:
        raise BoardlabError("--workers must be at least 1")
    schedule = config.schedule()
    config = config.with_resolved_agents()
    tid = config.id
    known = store.find_tournament(tid)
    if known is not None:
        warning = resume_check(config, known.config, str(store.path))
        if warning:
            on_warning(warning)
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
