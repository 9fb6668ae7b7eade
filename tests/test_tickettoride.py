"""Ticket to Ride's rules, including the bugs other engines shipped, and its per-seat views."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.core.errors import IllegalActionError
from boardlab.core.registry import make
from boardlab.games.tickettoride import scoring
from boardlab.games.tickettoride.map import COLOURS, GRAY, LOCO, usa_map
from boardlab.games.tickettoride.state import (
    CLAIM_BASE,
    DRAW_DECK,
    DRAW_TICKETS,
    KEEP_BASE,
    NO_COLOUR,
    NUM_ACTIONS,
    OVER,
    PASS,
    SECOND,
    SETUP,
    TURN,
    TicketToRideState,
    claim_action,
    decode_claim,
)

RED, ORANGE, YELLOW, GREEN, BLUE, PINK, BLACK, WHITE = range(8)
L = LOCO


def stacked(first: list[int], players: int = 4, variant: str = "official") -> TicketToRideState:
    """A new game whose deck deals ``first`` in that order (players' hands, then the face-up row...),
    the rest of the 110 cards after them in a fixed order; tickets in their file order."""
    game = make("tickettoride", players=players, variant=variant)
    counts = [int(x) for x in game.board.deck]
    for c in first:
        counts[c] -= 1
    assert min(counts) >= 0
    rest = [c for c in (RED, ORANGE, YELLOW, GREEN, BLUE, PINK, BLACK, WHITE) for _ in range(counts[c])]
    rest += [L] * counts[L]
    order = list(first) + rest
    return TicketToRideState(game, 0, order[::-1], list(range(30)), shuffle_seed=0)


def hands_of(players: int, cards: list[int]) -> list[int]:
    """Draw order that gives every player the 4 cards ``cards``."""
    return list(cards) * players


def skip_setup(state: TicketToRideState) -> TicketToRideState:
    while state.phase == SETUP:
        state.apply_action(KEEP_BASE + 0b011)  # keep the first two tickets
    return state


def random_play(state, rng, moves: int):
    for _ in range(moves):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
    return state


# --- the map ----------------------------------------------------------------------------
def test_the_map_has_the_boards_figures():
    board = usa_map()
    assert (board.num_cities, board.num_links, board.num_tracks, board.num_tickets, board.num_cards) == (36, 78, 100, 30, 110)
    assert int(board.track_length.sum()) == 309 and int(board.ticket_points.sum()) == 349
    assert list(board.deck) == [12] * 8 + [14]
    assert list(board.route_points[1:]) == [1, 2, 4, 7, 10, 15]
    assert int((board.track_twin >= 0).sum()) == 44
    for t in range(board.num_tracks):
        tw = board.track_twin[t]
        if tw >= 0:
            assert board.track_twin[tw] == t and board.track_link[tw] == board.track_link[t]
    sf_la = [t for t in range(100) if {board.cities[board.track_a[t]], board.cities[board.track_b[t]]} == {"San Francisco", "Los Angeles"}]
    assert sorted(COLOURS[board.track_colour[t]] for t in sf_la) == ["pink", "yellow"]


def test_the_map_view_is_the_boards_and_a_fresh_copy_each_time():
    board = usa_map()
    view = board.view()
    assert len(view["cities"]) == 36 and len(view["tracks"]) == 100
    sf = next(c for c in view["cities"] if c["name"] == "San Francisco")
    assert (sf["lat"], sf["lon"]) == (float(board.latitude[board.cities.index("San Francisco")]),
                                      float(board.longitude[board.cities.index("San Francisco")]))
    assert [t["length"] for t in view["tracks"]] == [int(x) for x in board.track_length]
    view["tracks"][0]["length"] = 99  # a caller may change what it was given
    view["cities"].clear()
    assert board.view()["tracks"][0]["length"] == int(board.track_length[0]) and len(board.view()["cities"]) == 36


def test_setup_deals_four_cards_three_tickets_and_five_face_up():
    state = make("tickettoride", players=3).new_initial_state(5)
    assert [sum(h) for h in state.hands] == [4, 4, 4]
    assert [len(o) for o in state.offers] == [3, 3, 3] and len(state.ticket_deck) == 21
    assert -1 not in state.faceup and state.faceup.count(L) < 3
    assert state.phase == SETUP and state.current_player() == 0
    state.check_invariants()


# --- face-up cards ------------------------------------------------------------------------
def test_three_face_up_locomotives_are_replaced_every_time_they_appear():
    first = hands_of(2, [RED, RED, BLUE, BLUE])
    first += [L, L, L, RED, BLUE]       # first row: three locomotives
    first += [L, GREEN, L, L, BLACK]    # second row: three again
    first += [L, GREEN, WHITE, L, PINK]  # third row: clean
    state = stacked(first, players=2)
    assert state.faceup == [L, GREEN, WHITE, L, PINK]
    assert sum(state.discards) == 10 and state.discards[L] == 6
    state.check_invariants()


def test_a_taken_card_replaced_by_a_third_locomotive_wipes_the_row():
    first = hands_of(2, [RED, RED, BLUE, BLUE]) + [L, L, RED, GREEN, BLUE] + [L] + [ORANGE, ORANGE, YELLOW, PINK, BLACK]
    state = skip_setup(stacked(first, players=2))
    assert state.faceup == [L, L, RED, GREEN, BLUE]
    state.apply_action(2)  # take the red; the locomotive that replaces it makes three
    assert state.faceup == [ORANGE, ORANGE, YELLOW, PINK, BLACK]
    assert state.discards[L] == 3 and sum(state.discards) == 5
    state.check_invariants()


def test_the_row_stays_when_no_clean_row_can_be_laid():
    state = skip_setup(stacked(hands_of(2, [RED, RED, BLUE, BLUE]), players=2))
    # move almost every non-locomotive into the hands: 2 left outside, a clean row needs 3
    outside = [L] * 14 + [RED, GREEN]
    state.hands = [[0] * 9, [0] * 9]
    counts = [12] * 8 + [14]
    for c in outside:
        counts[c] -= 1
    state.hands[0] = counts[:8] + [0]
    state.faceup = [L, L, L, RED, GREEN]
    state.deck = [L] * 11
    state.discards = [0] * 9
    state._wipe_locomotives()
    assert state.faceup == [L, L, L, RED, GREEN]  # left as it is, and no endless loop
    state.check_invariants()
    # one more non-locomotive among the discards makes a clean row possible: the row is replaced
    state.hands[0][BLUE] -= 1
    state.discards[BLUE] += 1
    state._wipe_locomotives()
    assert state.faceup.count(L) <= 2
    state.check_invariants()


def test_a_face_up_locomotive_is_the_whole_draw_and_never_the_second_card():
    first = hands_of(2, [RED, RED, BLUE, BLUE]) + [L, RED, GREEN, BLUE, WHITE] + [BLACK, PINK, PINK]
    state = skip_setup(stacked(first, players=2))
    assert 0 in state.legal_actions()  # a face-up locomotive may be the first card
    state.apply_action(0)
    assert state.phase == TURN and state.current_player() == 1  # and it ended the turn
    assert state.hands[0][L] == 1
    state.apply_action(DRAW_DECK)  # player 2 draws blind first
    assert state.phase == SECOND
    state.faceup[2] = L  # a locomotive face up at the second card
    state._legal = None
    legal = state.legal_actions()
    assert 2 not in legal and DRAW_DECK in legal
    with pytest.raises(IllegalActionError):
        state.apply_action(2)
    assert state.phase == SECOND  # refused without damage
    assert all(a < 5 or a == DRAW_DECK for a in legal)  # no claim, no tickets, no pass as a second card


def test_two_face_up_cards_of_one_colour_are_one_choice():
    first = hands_of(2, [RED, RED, BLUE, BLUE]) + [GREEN, WHITE, GREEN, BLUE, WHITE]
    state = skip_setup(stacked(first, players=2))
    faceup_actions = [a for a in state.legal_actions() if a < 5]
    assert faceup_actions == [0, 1, 3]
    with pytest.raises(IllegalActionError):
        state.apply_action(2)


def test_the_discards_are_shuffled_into_an_empty_deck():
    state = skip_setup(make("tickettoride", players=2).new_initial_state(3))
    hand = state.hands[0]
    # put the whole deck into the discards: the next blind card comes from them, reshuffled
    for c in state.deck:
        state.discards[c] += 1
    state.deck = []
    state._legal = None
    assert DRAW_DECK in state.legal_actions()
    before = sum(hand)
    state.apply_action(DRAW_DECK)
    assert state.epoch == 1 and sum(state.hands[0]) == before + 1 and sum(state.discards) == 0
    assert len(state.deck) + sum(state.hands[0]) + sum(state.hands[1]) + 5 == 110
    state.check_invariants()


def test_with_no_card_anywhere_drawing_is_illegal_and_empty_slots_wait_for_discards():
    state = skip_setup(stacked(hands_of(2, [RED, RED, RED, RED]), players=2))
    # everything in player 1's hand but the face-up row: the deck and discards are empty
    state.hands[0] = [int(x) - h - d for x, h, d in zip(state.board.deck, state.hands[1], state.discards)]
    for c in state.faceup:
        state.hands[0][c] -= 1
    state.deck = []
    state._legal = None
    state.apply_action(0)  # take a face-up card: nothing can replace it
    assert state.faceup[0] == -1
    state.check_invariants()
    assert DRAW_DECK not in state.legal_actions()
    state.apply_action(state.legal_actions()[0])  # the second card, face up
    # player 2 claims a route: the paid cards are discards, and the empty slots are filled from them
    red2 = next(t for t in range(100) if state.board.track_colour[t] == RED and state.board.track_length[t] <= 4)
    state.apply_action(claim_action(red2, RED, 0))
    assert -1 not in state.faceup or sum(state.discards) == 0
    state.check_invariants()


# --- tickets ------------------------------------------------------------------------------
def test_tickets_keep_two_at_the_start_one_later_and_return_the_rest_to_the_bottom():
    state = make("tickettoride", players=2).new_initial_state(8)
    masks = sorted(a - KEEP_BASE for a in state.legal_actions())
    assert masks == [0b011, 0b101, 0b110, 0b111]
    offer = list(state.offers[0])
    state.apply_action(KEEP_BASE + 0b101)
    assert state.tickets[0] == [offer[0], offer[2]] and state.ticket_deck[-1] == offer[1]
    state.apply_action(KEEP_BASE + 0b111)
    assert state.phase == TURN
    state.apply_action(DRAW_TICKETS)
    assert state.phase == 2 + 1 and state.current_player() == 0  # KEEP
    assert sorted(a - KEEP_BASE for a in state.legal_actions()) == list(range(1, 8))
    offer = list(state.offers[0])
    state.apply_action(KEEP_BASE + 0b010)
    assert state.tickets[0][-1] == offer[1] and state.ticket_deck[-2:] == [offer[0], offer[2]]
    assert state.current_player() == 1
    state.check_invariants()


def test_an_empty_ticket_deck_makes_drawing_tickets_illegal_instead_of_freezing():
    state = skip_setup(make("tickettoride", players=3).new_initial_state(2))
    state.ticket_deck = state.ticket_deck[:2]
    state._legal = None
    state.apply_action(DRAW_TICKETS)  # two left: both offered, keep at least one
    assert len(state.offers[0]) == 2
    assert sorted(a - KEEP_BASE for a in state.legal_actions()) == [1, 2, 3]
    state.apply_action(KEEP_BASE + 0b01)
    assert len(state.ticket_deck) == 1
    state.apply_action(DRAW_TICKETS)
    state.apply_action(KEEP_BASE + 0b1)
    assert state.ticket_deck == []
    assert DRAW_TICKETS not in state.legal_actions()
    with pytest.raises(IllegalActionError):
        state.apply_action(DRAW_TICKETS)
    random_play(state, np.random.default_rng(0), 5000)
    assert state.is_terminal()


# --- routes -------------------------------------------------------------------------------
def double_of(board, colours: tuple[str, str] | None = None) -> tuple[int, int]:
    for t in range(board.num_tracks):
        tw = int(board.track_twin[t])
        if tw > t and (colours is None or {board.colour_name(int(board.track_colour[t])), board.colour_name(int(board.track_colour[tw]))} == set(colours)):
            return t, tw
    raise AssertionError("no such double route")


@pytest.mark.parametrize("players", [2, 3])
def test_doubles_are_closed_with_two_or_three_players(players):
    state = skip_setup(stacked(hands_of(players, [L, L, RED, BLUE]), players=players))
    board = state.board
    a, b = double_of(board, ("green", "pink"))  # Portland-San Francisco, 5 long
    state.hands[0][GREEN] = 5
    state.apply_action(claim_action(a, GREEN, 0))
    for seat in range(1, players):
        assert state.current_player() == seat
        state.hands[seat][PINK] = 5
        state._legal = None
        assert not any(decode_claim(x)[0] == b for x in state.legal_actions() if x >= CLAIM_BASE)
        with pytest.raises(IllegalActionError, match="only one track"):
            state.apply_action(claim_action(b, PINK, 0))
        state.apply_action(DRAW_DECK)
        state.apply_action(DRAW_DECK)


@pytest.mark.parametrize("players", [4, 5])
def test_doubles_open_with_four_or_five_players_but_never_both_to_one_player(players):
    state = skip_setup(stacked(hands_of(players, [L, L, RED, BLUE]), players=players))
    a, b = double_of(state.board, ("green", "pink"))
    state.hands[0][GREEN] = 5
    state.hands[0][PINK] = 5
    state.apply_action(claim_action(a, GREEN, 0))
    for _seat in range(1, players):
        state.apply_action(DRAW_DECK)
        state.apply_action(DRAW_DECK)
    assert state.current_player() == 0
    with pytest.raises(IllegalActionError, match="both tracks"):
        state.apply_action(claim_action(b, PINK, 0))
    state.apply_action(DRAW_DECK)
    state.apply_action(DRAW_DECK)
    state.hands[1][PINK] = 5
    state._legal = None
    assert claim_action(b, PINK, 0) in state.legal_actions()
    state.apply_action(claim_action(b, PINK, 0))
    assert state.owner[a] == 0 and state.owner[b] == 1


def test_two_gray_tracks_of_a_double_are_one_choice():
    state = skip_setup(stacked(hands_of(4, [RED, RED, BLUE, BLUE])))
    a, b = double_of(state.board, ("gray", "gray"))
    legal = {decode_claim(x)[0] for x in state.legal_actions() if x >= CLAIM_BASE}
    assert a in legal and b not in legal
    state.apply_action(claim_action(a, RED, 0) if state.board.track_length[a] <= 4 else DRAW_DECK)


def test_payments_colour_gray_and_locomotives():
    state = skip_setup(stacked(hands_of(2, [RED, RED, L, BLUE]), players=2))
    board = state.board
    red3 = next(t for t in range(100) if board.track_colour[t] == RED and board.track_length[t] == 3 and board.track_twin[t] < 0)
    blue3 = next(t for t in range(100) if board.track_colour[t] == BLUE and board.track_length[t] == 3)
    gray2 = next(t for t in range(100) if board.track_colour[t] == GRAY and board.track_length[t] == 2 and board.track_twin[t] < 0)
    legal = state.legal_actions()
    assert claim_action(red3, RED, 1) in legal           # 2 red + 1 locomotive
    assert claim_action(red3, RED, 0) not in legal       # only 2 red
    assert claim_action(blue3, BLUE, 1) not in legal     # 1 blue + 1 locomotive is 2
    assert claim_action(gray2, RED, 0) in legal and claim_action(gray2, BLUE, 1) in legal
    assert claim_action(gray2, NO_COLOUR, 2) not in legal  # one locomotive only
    with pytest.raises(IllegalActionError):
        state.apply_action(claim_action(red3, BLUE, 1))
    state.apply_action(claim_action(red3, RED, 1))
    assert state.hands[0] == [0] * 4 + [1] + [0] * 4 and state.trains[0] == 42 and state.points[0] == 4
    assert state.discards[RED] >= 2 and state.owner[red3] == 0
    state.check_invariants()


# --- the end ------------------------------------------------------------------------------
def test_the_last_round_gives_every_player_one_more_turn():
    state = skip_setup(stacked(hands_of(3, [RED, RED, L, BLUE]), players=3))
    state.trains[0] = 3
    state.claimed[0] = []
    board = state.board
    # pretend 42 trains were used on no route: keep the trains invariant out of this test
    one = next(t for t in range(100) if board.track_length[t] == 1 and board.track_colour[t] == GRAY)
    state._legal = None
    state.apply_action(claim_action(one, RED, 0))
    assert state.trains[0] == 2 and state.last_round == 3
    turns = []
    while not state.is_terminal():
        turns.append(state.current_player())
        state.apply_action(DRAW_DECK)
        if not state.is_terminal() and state.phase == SECOND:
            state.apply_action(DRAW_DECK)
    assert turns == [1, 2, 0]


def test_a_game_where_nobody_can_act_ends_by_passing():
    state = skip_setup(stacked(hands_of(2, [RED, RED, RED, RED]), players=2))
    # no card left to draw, no ticket left, no route affordable (no cards in hand, no trains)
    everything = [int(x) for x in state.board.deck]
    state.hands = [everything, [0] * 9]
    state.faceup = [-1] * 5
    state.deck = []
    state.discards = [0] * 9
    state.ticket_deck = []
    state.trains = [0, 0]
    state._legal = None
    assert state.legal_actions() == [PASS]
    state.apply_action(PASS)
    assert not state.is_terminal() and state.legal_actions() == [PASS]
    state.apply_action(PASS)
    assert state.is_terminal() and state.returns() != [0.0, 0.0]


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.integers(0, 2**31 - 1), st.integers(2, 5), st.sampled_from(["official", "study"]))
def test_random_games_conserve_cards_trains_and_tickets_and_always_end(seed, players, variant):
    game = make("tickettoride", players=players, variant=variant)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    moves = 0
    while not state.is_terminal():
        state.check_invariants()  # 110 cards, 45 trains, 30 tickets; the face-up rules
        legal = state.legal_actions()
        assert legal and all(0 <= a < NUM_ACTIONS for a in legal)
        state.apply_action(legal[int(rng.integers(len(legal)))])
        moves += 1
        assert moves <= game.max_game_length()
    state.check_invariants()
    assert abs(sum(state.returns()) - 1.0) < 1e-9


# --- scoring ------------------------------------------------------------------------------
def tracks_between(board, *cities: str) -> list[int]:
    out = []
    for a, b in zip(cities, cities[1:]):
        ia, ib = board.cities.index(a), board.cities.index(b)
        out.append(next(t for t in range(100) if {int(board.track_a[t]), int(board.track_b[t])} == {ia, ib}))
    return out


def test_the_longest_path_may_pass_a_city_twice_but_a_route_once():
    board = usa_map()
    loop = tracks_between(board, "Seattle", "Helena", "Calgary", "Seattle")  # 6 + 4 + 4
    tail = tracks_between(board, "Seattle", "Portland")  # 1
    assert scoring.longest_path(board, loop) == 14
    assert scoring.longest_path(board, loop + tail) == 15  # Portland, Seattle, round the loop back to Seattle
    star = tracks_between(board, "Denver", "Omaha") + tracks_between(board, "Denver", "Kansas City") + tracks_between(board, "Denver", "Helena")
    assert scoring.longest_path(board, star) == 4 + 4 + 4 - min(4, 4, 4)
    assert scoring.longest_path(board, []) == 0


def test_tickets_count_only_through_own_routes():
    board = usa_map()
    route = tracks_between(board, "Denver", "Santa Fe", "El Paso")
    ticket = next(t for t in range(30) if {board.cities[board.ticket_a[t]], board.cities[board.ticket_b[t]]} == {"Denver", "El Paso"})
    assert scoring.tickets_done(board, route, [ticket]) == [True]
    assert scoring.tickets_done(board, route[:1], [ticket]) == [False]


def finished(players: int, variant: str, claims: list[list[int]], tickets: list[list[int]]) -> TicketToRideState:
    state = make("tickettoride", players=players, variant=variant).new_initial_state(1)
    board = state.board
    for p in range(players):
        state.claimed[p] = list(claims[p])
        for t in claims[p]:
            state.owner[t] = p
        state.points[p] = sum(int(board.route_points[board.track_length[t]]) for t in claims[p])
        state.trains[p] = 45 - sum(int(board.track_length[t]) for t in claims[p])
        state.tickets[p] = list(tickets[p])
        state.offers[p] = []
    state.phase = OVER
    return state


def test_scores_tickets_longest_path_and_tie_breaks():
    board = usa_map()
    den_elp = next(t for t in range(30) if {board.cities[board.ticket_a[t]], board.cities[board.ticket_b[t]]} == {"Denver", "El Paso"})
    a = tracks_between(board, "Denver", "Santa Fe", "El Paso")      # 2 + 2: 4 points, ticket +4
    b = tracks_between(board, "Seattle", "Helena")                 # 6: 15 points, ticket -4
    state = finished(2, "official", [a, b], [[den_elp], [den_elp]])
    tally = state.final_tally()["players"]
    assert [p["routes"] for p in tally] == [4, 15]
    assert [p["tickets_done"] for p in tally] == [1, 0]
    assert [p["bonus"] for p in tally] == [0, 10]  # Seattle-Helena (6) is longer than 4
    assert state.scores() == [4 + 4, 15 - 4 + 10]
    assert state.winners() == [1] and state.returns() == [0.0, 1.0]
    study = finished(2, "study", [a, b], [[den_elp], [den_elp]])
    assert study.scores() == [8, 11]


def test_a_tie_on_points_goes_to_the_most_tickets_then_the_longest_path():
    board = usa_map()
    # equal points, player 2 has one more completed ticket
    den_elp = next(t for t in range(30) if {board.cities[board.ticket_a[t]], board.cities[board.ticket_b[t]]} == {"Denver", "El Paso"})
    a = tracks_between(board, "Denver", "Santa Fe", "El Paso")    # 4 route points + 4 ticket = 8
    b = tracks_between(board, "Seattle", "Portland", "San Francisco")  # 1 + 10 = 11
    state = finished(2, "study", [a, b], [[den_elp], []])
    assert state.scores() == [8, 11]
    # three more route points for player 1 (1 + 2) make it 11 all, and its ticket wins the tie
    c = tracks_between(board, "Omaha", "Kansas City", "Saint Louis")
    state = finished(2, "study", [a + c, b], [[den_elp], []])
    assert state.scores() == [11, 11]
    assert state.winners() == [0] and state.returns() == [1.0, 0.0]
    tie = finished(2, "official", [tracks_between(board, "Seattle", "Portland"), tracks_between(board, "Vancouver", "Seattle")], [[], []])
    assert tie.scores() == [1 + 10, 1 + 10]  # both hold the longest path (1): both get the bonus
    assert tie.winners() == [0, 1] and tie.returns() == [0.5, 0.5]


# --- views --------------------------------------------------------------------------------
def test_labels_and_views_show_nothing_private():
    state = make("tickettoride", players=3).new_initial_state(11)
    assert state.action_to_string(KEEP_BASE + 0b101) == "keep tickets 1+3"
    skip_setup(state)
    assert state.action_to_string(DRAW_DECK) == "draw from deck"
    view = state.observation(1)
    board = view["board"]
    assert "hand" in board and sum(board["hand"].values()) == 4
    assert [p["cards"] for p in board["players"]] == [4, 4, 4]
    shown = []

    def tickets_in(value):
        if isinstance(value, dict):
            if "from" in value and "points" in value:
                shown.append(value["id"])
            for v in value.values():
                tickets_in(v)
        elif isinstance(value, list):
            for v in value:
                tickets_in(v)

    tickets_in(view)
    assert sorted(shown) == sorted(state.tickets[1])  # its own tickets, nobody else's
    public = state.observation(None)
    assert "hand" not in public["board"] and "tickets" not in public["board"]
    assert "seed" not in str(public)


def test_a_tie_on_points_and_tickets_goes_to_the_longest_path_holder():
    board = usa_map()
    a = tracks_between(board, "Seattle", "Portland", "San Francisco")   # 1 + 10 points, path 6, the bonus
    b = tracks_between(board, "San Francisco", "Salt Lake City") + tracks_between(board, "Phoenix", "Denver") \
        + tracks_between(board, "Dallas", "Houston")                   # 10 + 10 + 1 points, path 5
    state = finished(2, "official", [a, b], [[], []])
    tally = state.final_tally()["players"]
    assert [p["routes"] for p in tally] == [11, 21] and [p["longest"] for p in tally] == [6, 5]
    assert state.scores() == [21, 21] and [p["tickets_done"] for p in tally] == [0, 0]
    assert state.winners() == [0]
    # the study's game has no bonus: 11 against 21
    assert finished(2, "study", [a, b], [[], []]).winners() == [1]


# --- determinisation ----------------------------------------------------------------------
def mid_game(players: int, seed: int, moves: int) -> TicketToRideState:
    state = make("tickettoride", players=players).new_initial_state(seed)
    return random_play(state, np.random.default_rng(seed), moves)


def hidden_part(state: TicketToRideState, seat: int):
    return (list(state.deck), [state.hands[q] for q in range(state.n) if q != seat],
            [state.tickets[q] for q in range(state.n) if q != seat], [state.offers[q] for q in range(state.n) if q != seat])


@pytest.mark.parametrize("players,seed,moves", [(2, 1, 60), (4, 2, 150), (5, 3, 260), (3, 4, 180)])
def test_a_redraw_keeps_what_the_seat_saw_and_depends_on_nothing_else(players, seed, moves):
    state = mid_game(players, seed, moves)
    assert not state.is_terminal()
    for seat in range(players):
        known = state.information_state_string(seat)
        seen = state.observation(seat)
        twin = state.resample(seat, np.random.default_rng(99))  # a state this seat cannot tell from the truth
        differs = False
        for k in range(4):
            draw = state.resample(seat, np.random.default_rng(k))
            draw.check_invariants()
            assert draw.information_state_string(seat) == known and draw.observation(seat) == seen
            assert draw.hands[seat] == state.hands[seat] and draw.tickets[seat] == state.tickets[seat]
            assert [sum(h) for h in draw.hands] == [sum(h) for h in state.hands]
            assert [len(t) for t in draw.tickets] == [len(t) for t in state.tickets]
            assert hidden_part(draw, seat) == hidden_part(twin.resample(seat, np.random.default_rng(k)), seat)
            differs |= hidden_part(draw, seat) != hidden_part(state, seat)
        assert differs


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.integers(0, 2**31 - 1), st.integers(2, 5), st.integers(0, 400), st.integers(0, 2**31 - 1))
def test_the_observation_tensor_shows_only_what_the_seat_may_see(seed, players, moves, redraw):
    """Every seat's tensor is the same in every world a redraw for that seat deals: it holds no card
    of an opponent's hand, no opponent's ticket and nothing of the deck's order."""
    game = make("tickettoride", players=players)
    state = random_play(game.new_initial_state(seed), np.random.default_rng(seed), moves)
    shape = game.observation_tensor_shape()
    for seat in range(players):
        tensor = state.observation_tensor(seat)
        assert tensor.shape == shape and tensor.dtype == np.float32
        assert tensor.min() >= 0.0 and tensor.max() <= 1.0
        for k in range(3):
            draw = state.resample(seat, np.random.default_rng(redraw + k))
            assert np.array_equal(draw.observation_tensor(seat), tensor)
    if not state.is_terminal():  # and it is seen from the seat: the seat to move finds itself first
        mover = state.current_player()
        seats = state.observation_tensor(mover)[-5 - 6 * players:-5].reshape(players, 6)
        assert seats[0, 0] == 1.0 and seats[1:, 0].sum() == 0.0


def test_the_observation_tensor_shows_the_seats_own_cards_and_tickets_and_the_public_table():
    state = mid_game(3, 7, 90)
    b = state.board
    a, c = state.observation_tensor(0), state.observation_tensor(1)
    tracks = a[:100 * 4].reshape(100, 4)
    for t in range(100):  # unclaimed, then the owner counted from the observer on
        owner = state.owner[t]
        assert tracks[t].argmax() == (0 if owner < 0 else 1 + owner % 3) and tracks[t].sum() == 1.0
        assert c[:400].reshape(100, 4)[t].argmax() == (0 if owner < 0 else 1 + (owner - 1) % 3)
    hand = a[400:409] * b.deck
    assert np.allclose(hand, state.hands[0]) and np.allclose(c[400:409] * b.deck, state.hands[1])
    row = a[409:454].reshape(5, 9)
    assert [int(r.argmax()) if r.any() else -1 for r in row] == state.faceup
    tickets = a[463:493]
    assert sorted(np.flatnonzero(tickets).tolist()) == sorted(state.tickets[0])
    done = [t for t, d in zip(state.tickets[0], state.tickets_done(0)) if d]
    assert sorted(np.flatnonzero(a[493:523]).tolist()) == sorted(done)


def test_cards_taken_face_up_stay_in_the_opponents_hand_and_every_claim_was_payable():
    for seed in range(6):
        state = mid_game(4, 10 + seed, 120 + 20 * seed)
        for seat in range(4):
            for k in range(3):
                draw = state.resample(seat, np.random.default_rng(k))
                for q in range(4):
                    if q == seat:
                        continue
                    hand = [0] * 9
                    for event in draw.timeline[q]:  # the opponent's hand through the game, in the redrawn world
                        if event[0] == "h":
                            hand[draw.draws[event[1]][2]] += 1
                        elif event[0] == "k":
                            hand[event[1]] += 1
                        else:
                            hand = [h - s for h, s in zip(hand, event[1])]
                            assert min(hand) >= 0, "a redrawn opponent could not have paid for a route"
                    assert hand == draw.hands[q]
                    # at least the face-up cards it took and has not paid out since
                    taken = [0] * 9
                    for event in draw.timeline[q]:
                        if event[0] == "k":
                            taken[event[1]] += 1
                        elif event[0] == "s":
                            taken = [max(0, t - s) for t, s in zip(taken, event[1])]
                    assert all(h >= t for h, t in zip(hand, taken))


def test_after_a_reshuffle_the_redrawn_deck_holds_only_cards_of_the_reshuffled_discards():
    rng = np.random.default_rng(5)
    for seed in range(20):
        state = make("tickettoride", players=3).new_initial_state(seed)
        while not state.is_terminal() and state.epoch == 0:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
        if state.is_terminal():
            continue
        makeup = state.epoch_sets[-1]
        draw = state.resample(0, np.random.default_rng(seed))
        left = list(makeup)
        for epoch, _, card in draw.draws:
            if epoch == state.epoch:
                left[card] -= 1
        assert sorted(draw.deck) == sorted(c for c in range(9) for _ in range(left[c]))
        return
    pytest.skip("no reshuffle in these games")


# --- the protocol ---------------------------------------------------------------------------
def test_the_study_preset_conforms(tmp_path):
    """The official preset is checked with every registered game (tests/test_conformance.py)."""
    from boardlab.conformance import check_game

    check_game("tickettoride:variant=study", examples=8, scratch=tmp_path)


def test_determinised_mcts_plays_the_game_through_the_protocol():
    game = make("tickettoride", players=2)
    agents = [make_agent("mcts:iterations=30", game), make_agent("ttr-algorithmic", game)]
    record = play_game(game, agents, seed=4)
    state = record.replay()
    assert state.is_terminal()
    assert agents[0].last_search  # it searched, on redrawn worlds (the game declares hidden information)


def test_moves_can_be_typed_with_a_plain_hyphen_or_as_numbers():
    state = skip_setup(make("tickettoride", players=2).new_initial_state(5))
    claim = next(a for a in state.legal_actions() if a >= CLAIM_BASE)
    label = state.action_to_string(claim)
    assert "\u2013" in label
    assert state.string_to_action(label.replace("\u2013", "-").upper()) == claim
    assert state.string_to_action(str(claim)) == claim
    assert state.string_to_action("draw from deck") == DRAW_DECK
    with pytest.raises(IllegalActionError, match="not a legal move"):
        state.string_to_action("claim Boston-Miami with everything")
