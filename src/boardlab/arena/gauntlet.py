"""An agent's duel or table against one opponent, played as a gauntlet tournament in the results store.

``boardlab evaluate --store`` plays its duels and tables this way: every game is committed to the
store as it ends, so a stopped evaluation loses only the games being played, and the same command run
again plays only the missing ones (the tournament's id is a hash of the game, the agents, the number
of games and the seed; :func:`~boardlab.arena.tournament.play_missing`). ``boardlab report`` reads
them like any tournament.

The games are the gauntlet's: game ``j`` seats the agents rotated left by ``j`` (seat-fair over a
multiple of the players) with seed ``derive_seed(seed, j)``, so a duel plays exactly the games of
:func:`~boardlab.arena.duel.duel` (the first agent starts the even-numbered ones), while a table's
differ from :func:`~boardlab.arena.table.table_score`'s (other seeds; the opponents keep their order
around the table). A table needs its other seats to be different agents (``dw-ste+dw-sdc+dw-wpm`` at
4 players), since a tournament tells its agents apart by their specs. The summaries have the keys
and intervals of those two functions.
"""

from __future__ import annotations

from typing import Any, Callable

from boardlab.arena.duel import duel_keys, duel_outcome
from boardlab.arena.store import GameResult, ResultStore
from boardlab.arena.table import table_summary, win_share
from boardlab.arena.tournament import Progress, TournamentConfig, play_missing, prepare
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game


def gauntlet_config(game: Game, mine: str, opponent: str, games: int, seed: int) -> TournamentConfig:
    """The tournament of ``mine`` against ``opponent`` (at more players: the table ``a+b+c``, one agent
    per other seat) for ``games`` games; a clear error for a table of copies."""
    others = opponent.split("+") if game.num_players() > 2 else [opponent]
    if len(others) != game.num_players() - 1:
        raise BoardlabError(f"a stored table of {game.spec()} needs {game.num_players() - 1} different opponents joined "
                            f"by + (one per other seat), not {opponent!r}: the store tells agents apart by their specs")
    return prepare(game.spec(), [mine, *others], games=games, fmt="gauntlet", seed=seed)


def play_gauntlet(config: TournamentConfig, store: ResultStore, command: str = "", workers: int = 1,
                  backend: str = "process", address: str | None = None,
                  on_game: Callable[[Progress], None] | None = None) -> list[GameResult]:
    """Play the games of ``config`` missing from ``store`` (each committed as it ends) and return all of
    them, those stored before included, in game order."""
    play_missing(config, store, command, workers=workers, backend=backend, address=address, on_game=on_game)
    return store.games(config.id)


def seat_of_first_agent(result: GameResult) -> int:
    """The seat of the gauntlet's first agent (the one evaluated) in a stored game."""
    return result.seats.index(0)


def duel_summary(opponent: str, results: list[GameResult]) -> dict[str, Any]:
    """Wins, draws and losses of the first agent, its score (draws half) with the 95 % Wilson interval,
    and each side's mean wall seconds per decision (None where no game timed them)."""
    wins = draws = losses = 0
    moves, seconds = [0, 0], [0.0, 0.0]
    for result in results:
        seat = seat_of_first_agent(result)
        outcome = duel_outcome(result.returns, seat)
        wins, draws, losses = wins + (outcome > 0), draws + (outcome == 0), losses + (outcome < 0)
        decisions = (result.stats or {}).get("decisions")
        if decisions:
            for side, where in enumerate((seat, 1 - seat)):
                moves[side] += int(decisions[where][0])
                seconds[side] += float(decisions[where][1])
    return duel_keys(opponent, wins, draws, losses, [s / n if n else None for s, n in zip(seconds, moves)])


def gauntlet_table_summary(game: Game, opponent: str, results: list[GameResult]) -> dict[str, Any]:
    """:func:`~boardlab.arena.table.table_score`'s summary of the first agent's stored table games."""
    worst = game.game_type.min_utility
    shares, scores, opponent_scores = [], [], []
    for result in results:
        seat = seat_of_first_agent(result)
        shares.append(win_share(result.returns, seat, worst))
        if result.scores is not None:
            scores.append(result.scores[seat])
            others = [x for s, x in enumerate(result.scores) if s != seat]
            opponent_scores.append(sum(others) / len(others))
    return table_summary(opponent, game.num_players(), shares, scores, opponent_scores)
