"""The study's algorithmic Ticket to Ride player: legal, sensible, and the same in Python and compiled."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.core.registry import make


@pytest.mark.parametrize("spec", ["tickettoride:players=2,variant=study", "tickettoride:players=3", "tickettoride:variant=study", "tickettoride:players=5"])
def test_the_compiled_player_plays_the_python_players_games(spec):
    from boardlab.bots.ttr_compiled import CompiledPlayer

    game = make(spec)
    compiled = CompiledPlayer(game)
    for seed in range(3):
        agents = [make_agent("ttr-algorithmic", game) for _ in range(game.num_players())]
        record = play_game(game, agents, seed=seed)
        played = compiled.play(seed)
        assert played.actions == record.actions
        final = game.state_from_history(record.actions, seed)
        assert played.scores == final.scores() and played.returns == final.returns()
        assert played.forbidden == [a.forbidden for a in agents] == [0] * game.num_players()
