"""The Ticket to Ride study's 26 features of a turn and its 4 decision classes (numpy only, no torch).

The study's classifier (Łabno 2018, table "Dane wejściowe sieci neuronowej")
reads 26 numbers about the player to move and names the *type* of its action;
the concrete route, cards or tickets still come from the algorithmic player.
The features, in the table's order (docs/tickettoride-classifier.md says where
the study's text and table disagree and what is chosen here):

===  =====================  ==============================================================
 0   turn                   the player's own turns so far, this one included
 1   cards                  train cards in the player's hand
 2   face_up                face-up cards lying on the table (0-5)
 3   deck                   cards in the draw pile
 4   discards               cards in the discard pile
 5   tickets                tickets the player holds
 6   tickets_left           tickets left in the ticket deck
 7   trains                 the player's trains
 8   points                 the player's score now: routes, tickets done minus tickets not
                            done (the score if the game ended now, without the longest-path bonus)
 9   cards_left             cards in the draw pile and face up (the table: "in the deck and
                            on the board")
10   claimable              routes the player may claim now (the turn preparation's *possible*)
11   fitting                of those, the ones on its tickets' routes (*fitting*)
12   target                 links its unfinished tickets still need (*goal*)
13   missing                goal links it cannot pay for yet (*missing*)
14   players                number of players
15-18 trains_min/max/mean/median   the opponents' trains
19-22 tickets_min/max/mean/median  the opponents' tickets held
23   tickets_failed         the player's tickets not done now
24   tickets_done           the player's tickets done now
25   route_points           the player's score without tickets (route points)
===  =====================  ==============================================================

Classes (the study's table "Klasy określane przez klasyfikator"): 0 pass, 1 draw
train cards, 2 draw tickets, 3 claim a route.
"""

from __future__ import annotations

import statistics
from typing import Sequence

import numpy as np

from boardlab.bots.tickettoride.planning import Plan
from boardlab.games.tickettoride import scoring
from boardlab.games.tickettoride.state import (
    CLAIM_BASE,
    DRAW_DECK,
    DRAW_TICKETS,
    PASS,
    TicketToRideState,
)

FEATURE_NAMES = (
    "turn", "cards", "face_up", "deck", "discards", "tickets", "tickets_left", "trains", "points", "cards_left",
    "claimable", "fitting", "target", "missing", "players",
    "trains_min", "trains_max", "trains_mean", "trains_median",
    "tickets_min", "tickets_max", "tickets_mean", "tickets_median",
    "tickets_failed", "tickets_done", "route_points",
)
NUM_FEATURES = len(FEATURE_NAMES)
CLASS_NAMES = ("pass", "draw cards", "draw tickets", "claim")
PASS_CLASS, CARDS_CLASS, TICKETS_CLASS, CLAIM_CLASS = range(4)
NUM_CLASSES = len(CLASS_NAMES)


def action_class(action: int) -> int:
    """The decision class of a turn's first action."""
    if action == PASS:
        return PASS_CLASS
    if action == DRAW_TICKETS:
        return TICKETS_CLASS
    if action >= CLAIM_BASE:
        return CLAIM_CLASS
    if 0 <= action <= DRAW_DECK:
        return CARDS_CLASS
    raise ValueError(f"action {action} does not start a turn")


def legal_classes(legal: Sequence[int]) -> list[bool]:
    """Which of the four classes the rules allow, from the legal actions of a turn's first decision."""
    allowed = [False] * NUM_CLASSES
    for action in legal:
        allowed[action_class(action)] = True
    return allowed


def features(state: TicketToRideState, plan: Plan, turn: int) -> np.ndarray:
    """The 26 features of the player to move (``plan``: its turn preparation; ``turn``: its turns so far,
    this one included), as float32, unscaled as the study fed them."""
    p = plan.player
    n = state.n
    done = scoring.tickets_done(state.board, state.claimed[p], state.tickets[p])
    ticket_points = state.board.ticket_points
    gained = sum(int(ticket_points[t]) for t, d in zip(state.tickets[p], done) if d)
    lost = sum(int(ticket_points[t]) for t, d in zip(state.tickets[p], done) if not d)
    others = [q for q in range(n) if q != p]
    trains = [state.trains[q] for q in others]
    tickets = [len(state.tickets[q]) for q in others]
    face_up = sum(1 for c in state.faceup if c >= 0)
    row = [
        turn, sum(state.hands[p]), face_up, len(state.deck), sum(state.discards), len(state.tickets[p]),
        len(state.ticket_deck), state.trains[p], state.points[p] + gained - lost, len(state.deck) + face_up,
        len(plan.possible), len(plan.fitting), len(plan.goal), len(plan.missing), n,
        min(trains), max(trains), sum(trains) / len(trains), statistics.median(trains),
        min(tickets), max(tickets), sum(tickets) / len(tickets), statistics.median(tickets),
        sum(1 for d in done if not d), sum(done), state.points[p],
    ]
    return np.asarray(row, dtype=np.float32)
