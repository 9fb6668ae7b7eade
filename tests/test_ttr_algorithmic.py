"""The study's algorithmic Ticket to Ride player: legal, sensible, and the same in Python and compiled."""

from __future__ import annotations

import pytest

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.core.registry import make


@pytest.mark.parametrize("spec", ["tickettoride:players=2,variant=study", "tickettoride:players=3", "tickettoride:variant=study", "tickettoride:players=5"])
def test_the_compiled_player_plays_the_python_players_games(spec):
    from boardlab.bots.tickettoride.compiled import CompiledPlayer

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


def test_with_nothing_to_draw_the_player_claims_instead_of_a_forbidden_pass():
    from boardlab.bots.tickettoride.algorithmic import TTRAlgorithmicAgent
    from boardlab.games.tickettoride.state import KEEP_BASE, SETUP

    game = make("tickettoride", players=2, variant="study")
    state = game.new_initial_state(3)
    while state.phase == SETUP:
        state.apply_action(KEEP_BASE + 0b011)
    # every card in a hand, no ticket left: nothing to draw; the tickets' routes cannot be paid
    state.hands[0] = [1, 0, 0, 0, 0, 0, 0, 0, 0]  # one red card: a gray route of 1 is all it can pay for
    state.hands[1] = [int(x) - h for x, h in zip(game.board.deck, state.hands[0])]
    state.faceup = [-1] * 5
    state.deck = []
    state.discards = [0] * 9
    state.tickets[1] += state.ticket_deck  # the opponent drew them all
    state.ticket_deck = []
    state._legal = None
    state.check_invariants()
    agent = TTRAlgorithmicAgent()
    agent.reset(game, 0)
    action = agent.step(state)
    assert action in state.legal_actions() and action >= 15 and agent.forbidden == 0
