"""One agent against copies of another at a table of any size, its seat rotated: the many-player duel.

Game ``g`` seats the agent under test at seat ``g % players`` and the opponent
everywhere else, so over a multiple of ``players`` games it sits everywhere
equally often (seat-fair). The opponent may be a mixed table, specs joined by
``+`` (``dw-ste+dw-sdc+dw-wpm``): they fill the other seats in turn, their
order rotated after each round of ``players`` games. Each game gives the agent a *win share*: ``1/k``
when it is among the ``k`` seats with the best return (a tie shares the win),
0 otherwise, and 0 for everybody when the best return is the worst possible
(a Dice Wars game cancelled at the move limit is lost by all). A fair share
is ``1/players``. Where the game keeps the rules' scores (``provides_scores``),
the agent's mean score and the opponents' mean score come with 95 % intervals
too, so that "a lower mean score than" can be read off the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from boardlab.agents.registry import make_agent
from boardlab.arena.backends import check_backend, chunked, map_tasks
from boardlab.arena.play import play_to_end
from boardlab.arena.stats import mean_interval, wilson
from boardlab.core.game import Game
from boardlab.core.records import GameRecord
from boardlab.core.rng import derive_seed


def win_share(returns: list[float], seat: int, worst: float) -> float:
    best = max(returns)
    if returns[seat] != best or best <= worst:
        return 0.0
    return 1.0 / sum(1 for r in returns if r == best)


@dataclass(frozen=True)
class TableGame:
    """One game of a table: the agent's win share and, where the game keeps scores, its score and the
    mean of the other seats' scores."""

    index: int
    share: float
    score: float | None
    opponent_score: float | None
    record: GameRecord


def play_table_games(game: Game, mine: str, opponent: str, indices: Iterable[int], seed: int) -> Iterator[TableGame]:
    """Games ``indices`` of the table of ``mine`` against copies of ``opponent``: game ``g`` seats ``mine``
    at ``g % players`` and takes its seed from ``(seed, g)`` alone, so any subset of the games, played
    anywhere, gives the same games as the whole table played in order."""
    players = game.num_players()
    me = make_agent(mine, game)
    specs = opponent.split("+")
    others = [make_agent(specs[k % len(specs)], game) for k in range(players - 1)]
    worst = game.game_type.min_utility
    for g in indices:
        seat = g % players
        shift = (g // players) % len(others)
        rest = iter(others[shift:] + others[:shift])
        agents = [me if s == seat else next(rest) for s in range(players)]
        record, state = play_to_end(game, agents, derive_seed(seed, "table", g))
        returns = [float(r) for r in state.returns()]
        score = opponent_score = None
        if game.game_type.provides_scores:
            points = [float(x) for x in state.scores()]
            score = points[seat]
            opponent_score = float(np.mean([x for s, x in enumerate(points) if s != seat]))
        yield TableGame(g, win_share(returns, seat, worst), score, opponent_score, record)


def _play_chunk(task: tuple[str, str, str, list[int], int]) -> list[TableGame]:
    """A pool worker's share of a table (module level: it is pickled)."""
    from boardlab.core.registry import make

    game_spec, mine, opponent, indices, seed = task
    return list(play_table_games(make(game_spec), mine, opponent, indices, seed))


def table_score(game: Game, mine: str, opponent: str, games: int, seed: int,
                on_game: Callable[[int, GameRecord], None] | None = None, workers: int = 1,
                backend: str = "process", address: str | None = None) -> dict[str, Any]:
    """``mine`` against ``players - 1`` copies of ``opponent`` (or the mixed table ``a+b+c``) for ``games``
    seat-rotated games, played here or, with ``workers`` > 1 or the Ray ``backend``, in chunks on a pool
    (the same games either way; ``on_game(index, record)`` is called as each comes back, in any order).

    Returns ``opponent``, ``games``, ``players``, ``fair`` (1/players), ``share`` (mean win share) with
    ``share_low``/``share_high`` (95 %), ``wins`` (games won alone or shared), and where the game keeps
    scores ``score``/``score_low``/``score_high`` (the agent's mean) and ``opponent_score`` with its
    interval (the opponents' mean, one value per game: the mean of the other seats)."""
    check_backend(backend, address)
    players = game.num_players()
    if backend == "process" and workers <= 1:
        played: Iterable[TableGame] = play_table_games(game, mine, opponent, range(games), seed)
    else:
        for spec in {mine, *opponent.split("+")}:
            make_agent(spec, game)  # a wrong spec fails here, not in every worker
        tasks = [(game.spec(), mine, opponent, chunk, seed) for chunk in chunked(list(range(games)), workers)]
        played = (one for chunk_games in map_tasks(_play_chunk, tasks, workers, backend, address) for one in chunk_games)
    results: list[TableGame] = []
    for one in played:
        results.append(one)
        if on_game is not None:
            on_game(one.index, one.record)
    results.sort(key=lambda one: one.index)
    return table_summary(opponent, players, [one.share for one in results],
                         [one.score for one in results if one.score is not None],
                         [one.opponent_score for one in results if one.opponent_score is not None])


def table_summary(opponent: str, players: int, shares: list[float], scores: list[float],
                  opponent_scores: list[float]) -> dict[str, Any]:
    """The keys of :func:`table_score` from each game's win share and, where the game keeps scores, the
    agent's score and the opponents' mean score (empty lists where it keeps none)."""
    games = len(shares)
    share, share_low, share_high = mean_interval(shares)
    share_low, share_high = max(0.0, share_low), min(1.0, share_high)  # a share lies in 0..1 whatever the t interval says
    out: dict[str, Any] = {"opponent": opponent, "games": games, "players": players, "fair": 1.0 / players,
                           "share": share, "share_low": share_low, "share_high": share_high,
                           "wins": sum(1 for s in shares if s > 0)}
    if set(shares) <= {0.0, 1.0}:  # no shared wins: a proportion, whose Wilson interval stays within 0..1
        out["share_low"], out["share_high"] = wilson(sum(shares), games)
    if scores:
        out["score"], out["score_low"], out["score_high"] = mean_interval(scores)
        out["opponent_score"], out["opponent_score_low"], out["opponent_score_high"] = mean_interval(opponent_scores)
    return out
