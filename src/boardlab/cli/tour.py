"""``boardlab tour``: a short guided demo of what boardlab does."""

from __future__ import annotations

import typer

from boardlab.agents.registry import make_agent
from boardlab.arena.duel import duel
from boardlab.arena.play import play_game
from boardlab.cli.app import command
from boardlab.commands.console import console
from boardlab.core.registry import make


@command("tour")
def tour(seed: int = typer.Option(7, "--seed", min=0, help="Seed of the demo game and duel.")) -> None:
    """Play one Connect Four game and a 200-game duel, explaining each step."""
    game = make("connect4")
    console.rule("1. one game of Connect Four, random vs random")
    record = play_game(game, [make_agent("random"), make_agent("random")], seed)
    final = record.replay()
    console.print(str(final), highlight=False)
    console.print(f"moves: {' '.join(record.moves)}")
    console.print("The record (game, seed, agents, moves, returns) replays exactly: `boardlab replay` checks it.\n")
    console.rule("2. a duel: 200 games, seats alternating")
    result = duel(game, "random", "random:seed=1", 200, seed)
    console.print(f"W D L = {result.wins} {result.draws} {result.losses}")
    console.print(f"the player moving first won {100 * result.first_player_wins / result.games:.1f} % of games")
    console.print("\nNext: `boardlab games`, `boardlab agents`, `boardlab play connect4`, `boardlab duel --help`.")
