"""Duels: N games between two agents, alternating who starts.

The Connect Four study printed three numbers, ``W D L``: the first agent's
wins, the draws and the second agent's wins. A duel adds the same numbers by
seat, because the first player's advantage is large in most games.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from boardlab.agents.base import Agent
from boardlab.agents.registry import make_agent
from boardlab.arena.backends import check_backend, chunked, map_tasks
from boardlab.arena.play import play_game
from boardlab.arena.stats import wilson
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.records import GameRecord
from boardlab.core.rng import derive_seed


@dataclass
class SeatResult:
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, outcome: int) -> None:
        self.games += 1
        if outcome > 0:
            self.wins += 1
        elif outcome < 0:
            self.losses += 1
        else:
            self.draws += 1

    def absorb(self, other: SeatResult) -> None:
        self.games, self.wins, self.draws, self.losses = (self.games + other.games, self.wins + other.wins,
                                                          self.draws + other.draws, self.losses + other.losses)


@dataclass
class DuelResult:
    game: str
    agents: tuple[str, str]
    seed: int
    wins: int = 0
    draws: int = 0
    losses: int = 0
    #: the first agent's results when it moved first (seat 0) and second (seat 1)
    by_seat: list[SeatResult] = field(default_factory=lambda: [SeatResult(), SeatResult()])
    records: list[GameRecord] = field(default_factory=list)
    #: each agent's decisions and the wall seconds its steps took, over all games
    moves: list[int] = field(default_factory=lambda: [0, 0])
    seconds: list[float] = field(default_factory=lambda: [0.0, 0.0])

    def absorb(self, other: DuelResult) -> None:
        """Add another part of the same duel (other games of it) to this one."""
        self.wins, self.draws, self.losses = self.wins + other.wins, self.draws + other.draws, self.losses + other.losses
        for mine, theirs in zip(self.by_seat, other.by_seat):
            mine.absorb(theirs)
        self.moves = [a + b for a, b in zip(self.moves, other.moves)]
        self.seconds = [a + b for a, b in zip(self.seconds, other.seconds)]

    @property
    def seconds_per_move(self) -> list[float | None]:
        return [s / n if n else None for s, n in zip(self.seconds, self.moves)]

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def first_player_wins(self) -> int:
        """Games won by whoever moved first, whichever agent it was."""
        return self.by_seat[0].wins + self.by_seat[1].losses

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "agents": list(self.agents),
            "seed": self.seed,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "by_seat": [
                {"seat": seat, "games": r.games, "wins": r.wins, "draws": r.draws, "losses": r.losses}
                for seat, r in enumerate(self.by_seat)
            ],
            "first_player_win_rate": self.first_player_wins / self.games if self.games else None,
            "moves": list(self.moves),
            "seconds_per_move": self.seconds_per_move,
        }


def duel_outcome(returns: list[float], seat: int) -> int:
    """1, 0 or -1: the two-player game's result for ``seat`` (won, drawn, lost), from its returns."""
    margin = returns[seat] - returns[1 - seat]
    return (margin > 0) - (margin < 0)


def duel_keys(opponent: str, wins: int, draws: int, losses: int, seconds_per_move: list[float | None]) -> dict[str, Any]:
    """A duel's summary as ``evaluate`` prints it: the counts, the score (draws count half) with its 95 %
    Wilson interval, and each side's mean wall seconds per decision (None where none was timed)."""
    games = wins + draws + losses
    points = wins + 0.5 * draws
    low, high = wilson(points, games)
    return {"opponent": opponent, "wins": wins, "draws": draws, "losses": losses,
            "score": points / games if games else 0.0, "score_low": low, "score_high": high,
            "seconds_per_move": seconds_per_move[0], "opponent_seconds_per_move": seconds_per_move[1]}


def duel(
    game: Game,
    spec_a: str,
    spec_b: str,
    games: int,
    seed: int = 0,
    keep_records: bool = False,
    on_game: Callable[[int, GameRecord], None] | None = None,
    workers: int = 1,
    backend: str = "process",
    address: str | None = None,
) -> DuelResult:
    """Play ``games`` games of ``spec_a`` against ``spec_b``; ``spec_a`` starts the even-numbered ones.

    Game ``i`` uses seed ``derive_seed(seed, i)``, so any single game can be
    replayed on its own, and ``workers`` > 1 (or the Ray ``backend``) plays the
    same games in chunks on a pool; ``on_game(index, record)`` is then called as
    each chunk comes back, in any order, and the records are kept in game order.
    """
    if game.num_players() != 2:
        raise BoardlabError(f"a duel needs a two-player game; {game.name} here has {game.num_players()} players")
    if games < 1:
        raise BoardlabError("a duel needs at least one game")
    check_backend(backend, address)
    agents = (make_agent(spec_a, game), make_agent(spec_b, game))
    for agent in agents:
        if agent.interactive:
            raise BoardlabError(f"agent {agent.spec!r} needs a person; use 'boardlab play' instead")
    result = DuelResult(game.spec(), (agents[0].spec, agents[1].spec), seed)
    if backend == "process" and workers <= 1:
        _play_duel_games(game, agents, range(games), result, keep_records, on_game)
        return result
    tasks = [(game.spec(), spec_a, spec_b, chunk, seed, keep_records or on_game is not None)
             for chunk in chunked(list(range(games)), workers)]
    parts: list[tuple[int, list[GameRecord]]] = []
    for first, part in map_tasks(_duel_chunk, tasks, workers, backend, address):
        result.absorb(part)
        for index, record in enumerate(part.records, start=first):
            if on_game is not None:
                on_game(index, record)
        parts.append((first, part.records))
    if keep_records:  # each chunk is a run of consecutive games
        result.records = [record for _, records in sorted(parts, key=lambda part: part[0]) for record in records]
    return result


def _play_duel_games(game: Game, agents: tuple[Agent, Agent], indices: Iterable[int], result: DuelResult,
                     keep_records: bool, on_game: Callable[[int, GameRecord], None] | None) -> None:
    agent_a, agent_b = agents
    for index in indices:
        seat_a = index % 2
        seats = [agent_a, agent_b] if seat_a == 0 else [agent_b, agent_a]

        def timed(seat: int, seconds: float, seat_a: int = seat_a) -> None:
            which = 0 if seat == seat_a else 1
            result.moves[which] += 1
            result.seconds[which] += seconds

        record = play_game(game, seats, derive_seed(result.seed, index), on_step=timed)
        outcome = duel_outcome(record.returns, seat_a)
        if outcome > 0:
            result.wins += 1
        elif outcome < 0:
            result.losses += 1
        else:
            result.draws += 1
        result.by_seat[seat_a].add(outcome)
        if keep_records:
            result.records.append(record)
        if on_game is not None:
            on_game(index, record)


def _duel_chunk(task: tuple[str, str, str, list[int], int, bool]) -> tuple[int, DuelResult]:
    """A pool worker's share of a duel (module level: it is pickled): its first game's index and its results."""
    from boardlab.core.registry import make

    game_spec, spec_a, spec_b, indices, seed, keep_records = task
    game = make(game_spec)
    agents = (make_agent(spec_a, game), make_agent(spec_b, game))
    part = DuelResult(game.spec(), (agents[0].spec, agents[1].spec), seed)
    _play_duel_games(game, agents, indices, part, keep_records, None)
    return indices[0], part
