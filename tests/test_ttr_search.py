"""ttr-ismcts: determinised search over the algorithmic player's playouts."""

from boardlab.bots.tickettoride.algorithmic import TTRAlgorithmicAgent
from boardlab.bots.tickettoride.search import TTRSearchAgent
from boardlab.games.tickettoride.state import CLAIM_BASE, DRAW_DECK, DRAW_TICKETS, KEEP, SETUP, TURN, TicketToRide


def opening(players=2, seed=4):
    game = TicketToRide(players=players)
    state = game.new_initial_state(seed)
    agent = TTRAlgorithmicAgent()
    while state.phase != TURN:
        state.apply_action(agent.step(state))
    return state


def test_candidates_hold_the_algorithms_move_the_deck_tickets_and_every_ticket_choice():
    state = opening()
    agent = TTRSearchAgent()
    legal = state.legal_actions()
    arms = agent.candidates(state, legal)
    assert arms[0] == TTRAlgorithmicAgent().choose(state)
    assert {DRAW_DECK, DRAW_TICKETS} <= set(arms) <= set(legal) and len(arms) == len(set(arms))
    assert all(a in legal for a in arms if a >= CLAIM_BASE)
    state.apply_action(DRAW_TICKETS)
    assert state.phase == KEEP
    assert sorted(agent.candidates(state, state.legal_actions())) == sorted(state.legal_actions())
    first = TicketToRide(players=2).new_initial_state(1)
    assert first.phase == SETUP and set(agent.candidates(first, first.legal_actions())) == set(first.legal_actions())


def test_without_budget_for_one_deal_it_plays_the_algorithms_move():
    state = opening()
    assert TTRSearchAgent(iterations=1).step(state) == TTRAlgorithmicAgent().step(state)


def test_search_is_seeded_and_legal_and_counts_its_work():
    state = opening(seed=9)
    a, b = TTRSearchAgent(iterations=40, seed=3), TTRSearchAgent(iterations=40, seed=3)
    for agent in (a, b):
        agent.reset(state.game, state.player, 1)
    move = a.step(state)
    assert move == b.step(state) and move in state.legal_actions()
    stats = a.statistics()
    assert stats["searches"] == 1 and 0 < stats["playouts"] <= 40 and stats["seconds"] > 0
    assert sum(c["visits"] for c in a.last_search["children"]) == stats["playouts"]


def test_a_whole_game_against_the_algorithm():
    game = TicketToRide(players=2)
    state = game.new_initial_state(5)
    seats = [TTRSearchAgent(iterations=6, seed=1), TTRAlgorithmicAgent()]
    for p, agent in enumerate(seats):
        agent.reset(game, p, 5)
    while not state.is_terminal():
        state.apply_action(seats[state.current_player()].step(state))
    assert seats[0].statistics()["searches"] > 10


def test_a_move_replaces_the_algorithms_only_when_clearly_better_on_the_same_deals():
    agent = TTRSearchAgent(z=1.0)
    assert agent._better([1, 1, 1, 1], [0, 0, 0, 0])
    assert not agent._better([1, 0, 1, 0], [0, 1, 0, 1])  # as good on average: the algorithm's move stays
    assert not agent._better([1.0], [0.0])  # one deal proves nothing
    assert not agent._better([0.6, 0.4, 0.6, 0.4], [0.5, 0.5, 0.5, 0.5])
