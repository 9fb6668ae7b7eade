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

from typing import Any, Callable

import numpy as np

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_to_end
from boardlab.arena.stats import mean_interval, wilson
from boardlab.core.game import Game
from boardlab.core.rng import derive_seed


def win_share(returns: list[float], seat: int, worst: float) -> float:
    best = max(returns)
    if returns[seat] != best or best <= worst:
        return 0.0
    return 1.0 / sum(1 for r in returns if r == best)


def table_score(game: Game, mine: str, opponent: str, games: int, seed: int,
                on_game: Callable[[int, Any], None] | None = None) -> dict[str, Any]:
    """``mine`` against ``players - 1`` copies of ``opponent`` (or the mixed table ``a+b+c``) for ``games``
    seat-rotated games.

    Returns ``opponent``, ``games``, ``players``, ``fair`` (1/players), ``share`` (mean win share) with
    ``share_low``/``share_high`` (95 %), ``wins`` (games won alone or shared), and where the game keeps
    scores ``score``/``score_low``/``score_high`` (the agent's mean) and ``opponent_score`` with its
    interval (the opponents' mean, one value per game: the mean of the other seats)."""
    players = game.num_players()
    me = make_agent(mine, game)
    specs = opponent.split("+")
    others = [make_agent(specs[k % len(specs)], game) for k in range(players - 1)]
    worst = game.game_type.min_utility
    shares, scores, opponent_scores = [], [], []
    for g in range(games):
        seat = g % players
        shift = (g // players) % len(others)
        rest = iter(others[shift:] + others[:shift])
        agents = [me if s == seat else next(rest) for s in range(players)]
        record, state = play_to_end(game, agents, derive_seed(seed, "table", g))
        returns = [float(r) for r in state.returns()]
        shares.append(win_share(returns, seat, worst))
        if game.game_type.provides_scores:
            points = [float(x) for x in state.scores()]
            scores.append(points[seat])
            opponent_scores.append(float(np.mean([x for s, x in enumerate(points) if s != seat])))
        if on_game is not None:
            on_game(g, record)
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
