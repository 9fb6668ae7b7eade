"""Duels: N games between two agents, alternating who starts.

The Connect Four study printed three numbers, ``W D L``: the first agent's
wins, the draws and the second agent's wins. A duel adds the same numbers by
seat, because the first player's advantage is large in most games.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
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


def duel(
    game: Game,
    spec_a: str,
    spec_b: str,
    games: int,
    seed: int = 0,
    keep_records: bool = False,
    on_game: Callable[[int, GameRecord], None] | None = None,
) -> DuelResult:
    """Play ``games`` games of ``spec_a`` against ``spec_b``; ``spec_a`` starts the even-numbered ones.

    Game ``i`` uses seed ``derive_seed(seed, i)``, so any single game can be
    replayed on its own.
    """
    if game.num_players() != 2:
        raise BoardlabError(f"a duel needs a two-player game; {game.name} here has {game.num_players()} players")
    if games < 1:
        raise BoardlabError("a duel needs at least one game")
    agent_a = make_agent(spec_a, game)
    agent_b = make_agent(spec_b, game)
    for agent in (agent_a, agent_b):
        if agent.interactive:
            raise BoardlabError(f"agent {agent.spec!r} needs a person; use 'boardlab play' instead")
    result = DuelResult(game.spec(), (agent_a.spec, agent_b.spec), seed)
    for index in range(games):
        seat_a = index % 2
        seats = [agent_a, agent_b] if seat_a == 0 else [agent_b, agent_a]

        def timed(seat: int, seconds: float, seat_a: int = seat_a) -> None:
            which = 0 if seat == seat_a else 1
            result.moves[which] += 1
            result.seconds[which] += seconds

        record = play_game(game, seats, derive_seed(seed, index), on_step=timed)
        margin = record.returns[seat_a] - record.returns[1 - seat_a]
        outcome = (margin > 0) - (margin < 0)
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
    return result
