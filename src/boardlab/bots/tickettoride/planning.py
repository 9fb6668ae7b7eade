"""Route planning for Ticket to Ride players: the study's "turn preparation".

The board is a graph of the 36 cities and the 78 city pairs (*links*; the two
tracks of a double route are one link). For one player a link costs

* nothing when the player holds one of its tracks,
* its length in trains when one of its tracks is still open to the player
  (free, and not closed by the double-route rule),
* infinity otherwise (taken by others).

A ticket's route is the cheapest path between its cities in trains, ties broken
by the route points the path's links are worth (the study's comparison): the
edge weights are ``BIG * length - points`` (plus a fixed jitter below 1e-4 per
link, so that no two paths tie), so one shortest-path search orders paths by
trains first and points second. The paths come from
:func:`scipy.sparse.csgraph.dijkstra` on a sparse matrix whose structure is built
once; only its weights change from turn to turn.

:func:`prepare` is the study's turn preparation, recomputed at every turn:

* **goal** (*cel*): the open links on the routes of the player's unfinished
  tickets whose route fits in its trains;
* **possible** (*możliwości*): the routes the player can claim this turn with
  its cards and trains that are in the goal, or at least 5 long, or any route
  when the goal is empty;
* **fitting** (*pasujące*): the goal links among the possible ones;
* **missing** (*brakujące*): the goal links the player cannot claim yet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Sequence

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from boardlab.games.tickettoride.map import GRAY, LOCO, TTRMap
from boardlab.games.tickettoride.state import NO_COLOUR, TicketToRideState, claim_action, decode_claim

BIG = 1000.0
OWNED = 1e-3
BLOCKED = 1e9
UNREACHABLE = 1e8


def link_jitter(num_links: int) -> np.ndarray:
    """A fixed tiny weight per link (below 1e-4) that makes every shortest path unique: two paths of
    equal trains and points go the same way in every implementation (scipy's Dijkstra here, the
    compiled player's own)."""
    return np.random.default_rng(20180912).random(num_links) * 1e-4


class Planner:
    """The board's graph, built once per map: links, their tracks, and the sparse matrix."""

    def __init__(self, board: TTRMap) -> None:
        self.board = board
        nl = board.num_links
        self.link_tracks: list[list[int]] = [[] for _ in range(nl)]
        for t in range(board.num_tracks):
            self.link_tracks[int(board.track_link[t])].append(t)
        self.link_length = [int(board.track_length[ts[0]]) for ts in self.link_tracks]
        self.link_points = [int(board.route_points[n]) for n in self.link_length]
        self.link_a = [int(x) for x in board.link_a]
        self.link_b = [int(x) for x in board.link_b]
        self.track_colour = [int(x) for x in board.track_colour]
        self.track_length = [int(x) for x in board.track_length]
        self.track_twin = [int(x) for x in board.track_twin]
        self.ticket_a = [int(x) for x in board.ticket_a]
        self.ticket_b = [int(x) for x in board.ticket_b]
        self.ticket_points = [int(x) for x in board.ticket_points]
        self.link_of = {}
        rows, cols, ids = [], [], []
        for link in range(nl):
            a, b = self.link_a[link], self.link_b[link]
            self.link_of[a, b] = self.link_of[b, a] = link
            rows += [a, b]
            cols += [b, a]
            ids += [link + 1, link + 1]
        graph = csr_matrix((np.array(ids, dtype=float), (rows, cols)), shape=(board.num_cities, board.num_cities))
        graph.sort_indices()
        self.graph = graph
        self.data_link = (graph.data.astype(np.int64) - 1)  # the link of each stored entry
        self.jitter = link_jitter(nl)
        self.base_weight = np.array([BIG * n - pts for n, pts in zip(self.link_length, self.link_points)]) + self.jitter
        self.owned_weight = OWNED + self.jitter
        self._routes_cache: dict = {}

    # --- the player's view of the links ---------------------------------------------------
    def link_states(self, state: TicketToRideState, player: int) -> list[int]:
        """Per link: 1 held by ``player``, 0 open to it, -1 closed."""
        owner = state.owner
        doubles = state.game.doubles_open
        out = []
        for tracks in self.link_tracks:
            status = -1
            for t in tracks:
                o = owner[t]
                if o == player:
                    status = 1
                    break
                if o < 0:
                    tw = self.track_twin[t]
                    if tw < 0 or doubles or owner[tw] < 0:
                        status = 0
            out.append(status)
        return out

    def shortest_paths(self, status: Sequence[int], sources: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Distances and predecessors from each of ``sources`` (weights: trains first, then points)."""
        code = np.asarray(status)
        weights = np.where(code > 0, self.owned_weight, np.where(code < 0, BLOCKED, self.base_weight))
        self.graph.data = weights[self.data_link]
        return dijkstra(self.graph, directed=True, indices=list(sources), return_predecessors=True)

    def path_links(self, pred: np.ndarray, source: int, target: int) -> list[int]:
        links = []
        node = target
        while node != source:
            prev = int(pred[node])
            if prev < 0:
                return []
            links.append(self.link_of[prev, node])
            node = prev
        return links


@dataclass
class TicketPlan:
    ticket: int
    done: bool
    reachable: bool
    cost: int             # trains still needed (0 when done)
    links: list[int]      # open links of its route (empty when done)


@dataclass
class Plan:
    """The study's turn preparation for one player (see the module docstring)."""

    player: int
    status: list[int]
    tickets: list[TicketPlan]
    goal: list[int]                       # open links needed for the unfinished tickets
    possible: list[int] = field(default_factory=list)   # claim actions possible now (one per track)
    fitting: list[int] = field(default_factory=list)    # those on goal links
    missing: list[int] = field(default_factory=list)    # goal links not claimable now
    cost: int = 0                         # trains the goal needs
    need: list[int] = field(default_factory=lambda: [0] * 9)  # cards of each colour the goal needs (8: any)
    goal_set: set[int] = field(default_factory=set)

    @property
    def active(self) -> bool:
        """Whether some ticket is unfinished and can still be finished."""
        return any(not t.done and t.reachable for t in self.tickets)


def ticket_routes(planner: Planner, status: Sequence[int], tickets: Sequence[int], trains: int | None = None) -> list[TicketPlan]:
    """The cheapest route of each ticket (done when its cities are joined by the player's links).

    Remembered for the last few link states: the second card of a turn changes no route."""
    if not tickets:
        return []
    key = (tuple(status), tuple(tickets), trains)
    cache = planner._routes_cache
    found = cache.get(key)
    if found is None:
        if len(cache) > 64:
            cache.clear()
        found = cache[key] = _ticket_routes(planner, status, tickets, trains)
    return [TicketPlan(tp.ticket, tp.done, tp.reachable, tp.cost, list(tp.links)) for tp in found]


def _ticket_routes(planner: Planner, status: Sequence[int], tickets: Sequence[int], trains: int | None) -> list[TicketPlan]:
    sources = sorted({planner.ticket_a[t] for t in tickets})
    row = {s: i for i, s in enumerate(sources)}
    dist, pred = planner.shortest_paths(status, sources)
    out = []
    for t in tickets:
        a, b = planner.ticket_a[t], planner.ticket_b[t]
        d = float(dist[row[a], b])
        if d >= UNREACHABLE:
            out.append(TicketPlan(t, False, False, 0, []))
            continue
        links = planner.path_links(pred[row[a]], a, b)
        open_links = [link for link in links if status[link] == 0]
        cost = sum(planner.link_length[link] for link in open_links)
        reachable = trains is None or cost <= trains
        out.append(TicketPlan(t, not open_links, reachable, cost, open_links))
    return out


def prepare(planner: Planner, state: TicketToRideState, player: int, spare: bool = True) -> Plan:
    """The turn preparation: routes of the tickets, then the goal, possible, fitting and missing sets.

    ``spare``: a route off the goal (5 or 6 long) is possible only when it can be paid with spare
    cards: no locomotive, and the colour left still covers what the goal needs of it (the study's
    player claimed such routes with any cards, starving its tickets; docs/tickettoride.md measures it)."""
    status = planner.link_states(state, player)
    trains = state.trains[player]
    tickets = ticket_routes(planner, status, state.tickets[player], trains)
    goal: list[int] = []
    for tp in tickets:
        if not tp.done and tp.reachable:
            for link in tp.links:
                if link not in goal:
                    goal.append(link)
    plan = Plan(player, status, tickets, goal, cost=sum(planner.link_length[link] for link in goal))
    plan.goal_set = goal_set = set(goal)
    plan.need = colour_needs(planner, goal, state, player)
    hand = state.hands[player]
    for link, s in enumerate(status):
        if s != 0:
            continue
        length = planner.link_length[link]
        payable = length <= trains and (link in goal_set or length >= 5 or not goal)
        action = best_claim(planner, state, player, link, plan) if payable else None
        if action is not None and spare and goal and link not in goal_set:
            _, c, k = decode_claim(action)
            if k > 0 or c == NO_COLOUR or hand[c] - (length - k) < plan.need[c]:
                action = None
        if action is not None:
            plan.possible.append(action)
            if link in goal_set:
                plan.fitting.append(action)
        elif link in goal_set:
            plan.missing.append(link)
    return plan


# --- cards --------------------------------------------------------------------------
def colour_needs(planner: Planner, links: Sequence[int], state: TicketToRideState, player: int) -> list[int]:
    """Cards of each colour (index 8: any colour, for gray links) the ``links`` need, by their open
    tracks: a coloured track needs its colour; of a double route the colour the player holds most."""
    need = [0] * 9
    for link in links:
        kind = link_need(planner, state, player, link)
        if kind >= 0:
            need[kind] += planner.link_length[link]
    return need


def link_need(planner: Planner, state: TicketToRideState, player: int, link: int) -> int:
    """The card colour ``link`` asks for (8: any, a gray route), or -1 when no track of it is open."""
    hand = state.hands[player]
    best = -1
    for t in planner.link_tracks[link]:
        if not _open(planner, state, player, t):
            continue
        colour = planner.track_colour[t]
        if colour == GRAY:
            return 8
        if best < 0 or hand[colour] > hand[best]:
            best = colour
    return best


def shortfall(planner: Planner, state: TicketToRideState, player: int, links: Sequence[int]) -> list[int]:
    """Cards of each colour the player still lacks to pay for all of ``links``, counting its hand.

    The links are paid one after the other, longest first: a coloured track with its colour, a gray
    one with the colour the hand holds most of after the links before it (a gray route is paid with
    cards of ONE colour), each topped up with locomotives while they last. What no card covers is the
    shortfall, by colour."""
    hand = list(state.hands[player])
    short = [0] * 8
    asks = []
    for link in links:
        kind = link_need(planner, state, player, link)
        if kind >= 0:
            asks.append((planner.link_length[link], kind))
    asks.sort(key=lambda a: (a[1] == 8, -a[0]))  # coloured links first: their colour is not a choice
    for length, kind in asks:
        c = kind if kind < 8 else max(range(8), key=lambda k: hand[k])
        pay = min(hand[c], length)
        hand[c] -= pay
        rest = length - pay
        locos = min(hand[LOCO], rest)
        hand[LOCO] -= locos
        short[c] += rest - locos
    return short


def _open(planner: Planner, state: TicketToRideState, player: int, track: int) -> bool:
    owner = state.owner
    if owner[track] >= 0:
        return False
    tw = planner.track_twin[track]
    if tw >= 0 and (owner[tw] == player or (owner[tw] >= 0 and not state.game.doubles_open)):
        return False
    return True


def best_claim(planner: Planner, state: TicketToRideState, player: int, link: int, plan: Plan | None = None) -> int | None:
    """The claim action the player would use for ``link`` now, or None when it cannot pay for it.

    Of the open tracks and payments: as few locomotives as possible; for a gray route the colour
    the other goal links need least, then the one held most (the study: the colour held most)."""
    hand = state.hands[player]
    locos = hand[LOCO]
    length = planner.link_length[link]
    if length > state.trains[player]:
        return None
    need = list(plan.need) if plan is not None else [0] * 9
    if plan is not None and link in plan.goal_set:
        kind = link_need(planner, state, player, link)
        if kind >= 0:
            need[kind] -= length  # what the other goal links need
    best = None
    best_key = None
    for t in planner.link_tracks[link]:
        if not _open(planner, state, player, t):
            continue
        tw = planner.track_twin[t]
        if tw >= 0 and tw < t and state.owner[tw] < 0 and planner.track_colour[tw] == planner.track_colour[t]:
            continue  # the first of two gray tracks stands for both
        colour = planner.track_colour[t]
        for c in (range(8) if colour == GRAY else (colour,)):
            have = hand[c]
            if have == 0:
                continue
            k = max(0, length - have)
            if k > locos or k >= length:
                continue
            key = (k, max(0, need[c] - (have - (length - k))), -have)
            if best_key is None or key < best_key:
                best_key, best = key, claim_action(t, c, k)
        if locos >= length:
            key = (length, 0, 0)
            if best_key is None or key < best_key:
                best_key, best = key, claim_action(t, NO_COLOUR, length)
    return best


# --- tickets ------------------------------------------------------------------------
def choose_tickets(planner: Planner, state: TicketToRideState, player: int, offer: Sequence[int], least: int) -> int:
    """The study's ticket decision: of every subset of the offer that keeps at least ``least``, the one
    whose routes cost the fewest trains beyond what the player's unfinished tickets already need, ties
    going to the most ticket points; subsets that fit in the trains left come first (when none fits,
    the cheapest). Returns the keep mask."""
    status = planner.link_states(state, player)
    trains = state.trains[player]
    held = state.tickets[player]
    plans = {tp.ticket: tp for tp in ticket_routes(planner, status, list(held) + list(offer), None)}
    base: set[int] = set()
    for t in held:
        tp = plans[t]
        if not tp.done and tp.reachable and tp.cost <= trains:
            base.update(tp.links)
    base_cost = sum(planner.link_length[link] for link in base)
    best_fit = best_any = None
    for size in range(max(1, least), len(offer) + 1):
        for chosen in combinations(range(len(offer)), size):
            links = set(base)
            reachable = True
            for i in chosen:
                tp = plans[offer[i]]
                reachable &= tp.reachable
                links.update(tp.links)
            total = sum(planner.link_length[link] for link in links)
            extra = total - base_cost if reachable else 10**6
            points = sum(planner.ticket_points[offer[i]] for i in chosen)
            mask = sum(1 << i for i in chosen)
            key = (extra, -points)
            if reachable and total <= trains and (best_fit is None or key < best_fit[0]):
                best_fit = (key, mask)
            if best_any is None or key < best_any[0]:
                best_any = (key, mask)
    return (best_fit or best_any)[1]
