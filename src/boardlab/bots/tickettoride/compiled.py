"""The algorithmic Ticket to Ride player compiled with numba: whole games in one call, for experiments.

Decision for decision the same player as :mod:`boardlab.bots.tickettoride.algorithmic` (its planning in
:mod:`boardlab.bots.tickettoride.planning` is the plain-Python reference): the tests play games with both and
compare every action. The one part written by hand here is Dijkstra's algorithm (an O(V^2) scan over
the 36 cities, where the Python player calls :func:`scipy.sparse.csgraph.dijkstra`); the link jitter
of the planner makes every shortest path unique, so both find the same routes.

:func:`play_games` is what ``boardlab experiment ttr-study`` runs: the games are dealt in Python
(``game.new_initial_state(seed)``, so the records replay in the Python engine), played here, and
returned as action lists with the final statistics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from numba import njit

from boardlab.bots.tickettoride.algorithmic import ENDGAME, TTRAlgorithmicAgent
from boardlab.bots.tickettoride.planning import BLOCKED, UNREACHABLE, Planner
from boardlab.games.tickettoride import kernel as K
from boardlab.games.tickettoride.state import (
    CLAIM_BASE,
    DRAW_DECK,
    DRAW_TICKETS,
    KEEP,
    KEEP_BASE,
    OVER,
    PASS,
    PER_TRACK,
    SECOND,
    SETUP,
    TicketToRide,
)

LOCO = 8
NO_COLOUR = 8
MAXLINKS = 80
#: option columns of the per-seat option array
OPT_FACEUP_WANTED, OPT_CLAIM_LONGEST, OPT_ENDGAME, OPT_SPARE = range(4)


def planner_arrays(planner: Planner):
    """The planner's graph as arrays for the compiled player."""
    nl = len(planner.link_length)
    tracks = np.full((nl, 2), -1, dtype=np.int64)
    for link, ts in enumerate(planner.link_tracks):
        tracks[link, :len(ts)] = ts
    cities = planner.board.num_cities
    degree = np.zeros(cities + 1, dtype=np.int64)
    for link in range(nl):
        degree[planner.link_a[link] + 1] += 1
        degree[planner.link_b[link] + 1] += 1
    start = np.cumsum(degree)
    fill = start[:-1].copy()
    adj_link = np.empty(2 * nl, dtype=np.int64)
    adj_city = np.empty(2 * nl, dtype=np.int64)
    for link in range(nl):
        a, b = planner.link_a[link], planner.link_b[link]
        adj_link[fill[a]], adj_city[fill[a]] = link, b
        fill[a] += 1
        adj_link[fill[b]], adj_city[fill[b]] = link, a
        fill[b] += 1
    return (tracks, np.array(planner.link_length, dtype=np.int64), np.array(planner.link_points, dtype=np.int64),
            np.asarray(planner.base_weight, dtype=np.float64), np.asarray(planner.owned_weight, dtype=np.float64),
            start.astype(np.int64), adj_link, adj_city)


# --- the player's view of the board --------------------------------------------------------------
@njit(cache=True)
def _open(S, M, p, t):
    if S[K.OWNER + t] >= 0:
        return False
    tw = M[2][t]
    if tw >= 0:
        o = S[K.OWNER + tw]
        if o == p or (o >= 0 and S[K.DOUBLES] == 0):
            return False
    return True


@njit(cache=True)
def link_states(S, M, P, p, status):
    tracks = P[0]
    doubles = S[K.DOUBLES] == 1
    for link in range(tracks.shape[0]):
        st = -1
        for i in range(2):
            t = tracks[link, i]
            if t < 0:
                continue
            o = S[K.OWNER + t]
            if o == p:
                st = 1
                break
            if o < 0:
                tw = M[2][t]
                if tw < 0 or doubles or S[K.OWNER + tw] < 0:
                    st = 0
        status[link] = st


@njit(cache=True)
def _dijkstra(P, status, source, dist, pred):
    base, owned, start, adj_link, adj_city = P[3], P[4], P[5], P[6], P[7]
    n = start.shape[0] - 1
    done = np.zeros(n, dtype=np.bool_)
    for c in range(n):
        dist[c] = np.inf
        pred[c] = -1
    dist[source] = 0.0
    for _ in range(n):
        u = -1
        best = np.inf
        for c in range(n):
            if not done[c] and dist[c] < best:
                best = dist[c]
                u = c
        if u < 0:
            break
        done[u] = True
        for i in range(start[u], start[u + 1]):
            link = adj_link[i]
            v = adj_city[i]
            s = status[link]
            w = owned[link] if s > 0 else (BLOCKED if s < 0 else base[link])
            nd = dist[u] + w
            if nd < dist[v]:
                dist[v] = nd
                pred[v] = u


@njit(cache=True)
def _link_between(P, a, b):
    start, adj_link, adj_city = P[5], P[6], P[7]
    for i in range(start[a], start[a + 1]):
        if adj_city[i] == b:
            return adj_link[i]
    return -1


@njit(cache=True)
def ticket_routes(S, M, P, status, tickets, nt, trains, done, reach, cost, links, nlinks):
    """Each ticket's cheapest route: done, reachable (within ``trains``; -1: any), its open links."""
    ticket_a, ticket_b = M[6], M[7]
    link_len = P[1]
    cities = P[5].shape[0] - 1
    dist = np.empty(cities)
    pred = np.empty(cities, dtype=np.int64)
    last_source = -1
    for i in range(nt):
        t = tickets[i]
        a, b = ticket_a[t], ticket_b[t]
        if a != last_source:
            _dijkstra(P, status, a, dist, pred)
            last_source = a
        nlinks[i] = 0
        if dist[b] >= UNREACHABLE:
            done[i], reach[i], cost[i] = 0, 0, 0
            continue
        node = b
        c = 0
        while node != a:
            prev = pred[node]
            link = _link_between(P, prev, node)
            if status[link] == 0:
                links[i, nlinks[i]] = link
                nlinks[i] += 1
                c += link_len[link]
            node = prev
        done[i] = 1 if nlinks[i] == 0 else 0
        reach[i] = 1 if (trains < 0 or c <= trains) else 0
        cost[i] = c


@njit(cache=True)
def link_need(S, M, P, p, link):
    tracks = P[0]
    h = K.HANDS + 9 * p
    best = -1
    for i in range(2):
        t = tracks[link, i]
        if t < 0 or not _open(S, M, p, t):
            continue
        colour = M[1][t]
        if colour < 0:
            return 8
        if best < 0 or S[h + colour] > S[h + best]:
            best = colour
    return best


@njit(cache=True)
def best_claim(S, M, P, p, link, need, in_goal):
    """The claim the player would use for ``link`` now, or -1."""
    tracks, link_len = P[0], P[1]
    h = K.HANDS + 9 * p
    locos = S[h + LOCO]
    length = link_len[link]
    if length > S[K.TRAINS + p]:
        return -1
    rest = need.copy()
    if in_goal:
        kind = link_need(S, M, P, p, link)
        if kind >= 0:
            rest[kind] -= length
    best = -1
    k0, k1, k2 = 1 << 30, 1 << 30, 1 << 30
    for i in range(2):
        t = tracks[link, i]
        if t < 0 or not _open(S, M, p, t):
            continue
        tw = M[2][t]
        if tw >= 0 and tw < t and S[K.OWNER + tw] < 0 and M[1][tw] == M[1][t]:
            continue
        colour = M[1][t]
        lo, hi = (0, 8) if colour < 0 else (colour, colour + 1)
        for c in range(lo, hi):
            have = S[h + c]
            if have == 0:
                continue
            k = length - have if length > have else 0
            if k > locos or k >= length:
                continue
            short = rest[c] - (have - (length - k))
            if short < 0:
                short = 0
            if (k < k0) or (k == k0 and (short < k1 or (short == k1 and -have < k2))):
                k0, k1, k2 = k, short, -have
                best = CLAIM_BASE + t * PER_TRACK + c * 7 + k
        if locos >= length:
            if (length < k0) or (length == k0 and (0 < k1 or (0 == k1 and 0 < k2))):
                k0, k1, k2 = length, 0, 0
                best = CLAIM_BASE + t * PER_TRACK + NO_COLOUR * 7 + length
    return best


@njit(cache=True)
def prepare(S, M, P, p, status, goal, need, possible, fitting, missing, counts, spare):
    """The turn preparation; ``counts`` gets (goal, possible, fitting, missing, active)."""
    link_len = P[1]
    nl = link_len.shape[0]
    link_states(S, M, P, p, status)
    trains = S[K.TRAINS + p]
    nt = S[K.NTICK + p]
    tickets = S[K.TICKETS + 30 * p:K.TICKETS + 30 * p + 30]
    done = np.zeros(32, dtype=np.int64)
    reach = np.zeros(32, dtype=np.int64)
    cost = np.zeros(32, dtype=np.int64)
    links = np.zeros((32, MAXLINKS), dtype=np.int64)
    nlinks = np.zeros(32, dtype=np.int64)
    ticket_routes(S, M, P, status, tickets, nt, trains, done, reach, cost, links, nlinks)
    in_goal = np.zeros(nl, dtype=np.bool_)
    ng = 0
    active = 0
    for i in range(nt):
        if done[i] == 0 and reach[i] == 1:
            active = 1
            for j in range(nlinks[i]):
                link = links[i, j]
                if not in_goal[link]:
                    in_goal[link] = True
                    goal[ng] = link
                    ng += 1
    for c in range(9):
        need[c] = 0
    for j in range(ng):
        kind = link_need(S, M, P, p, goal[j])
        if kind >= 0:
            need[kind] += link_len[goal[j]]
    npos = nfit = nmiss = 0
    for link in range(nl):
        if status[link] != 0:
            continue
        length = link_len[link]
        payable = length <= trains and (in_goal[link] or length >= 5 or ng == 0)
        action = best_claim(S, M, P, p, link, need, in_goal[link]) if payable else -1
        if action >= 0 and spare and ng > 0 and not in_goal[link]:
            # a route off the goal only with spare cards: no locomotive, and enough of the colour left
            x = action - CLAIM_BASE
            c = (x % PER_TRACK) // 7
            k = x % 7
            if k > 0 or c == NO_COLOUR or S[K.HANDS + 9 * p + c] - (length - k) < need[c]:
                action = -1
        if action >= 0:
            possible[npos] = action
            npos += 1
            if in_goal[link]:
                fitting[nfit] = action
                nfit += 1
        elif in_goal[link]:
            missing[nmiss] = link
            nmiss += 1
    counts[0], counts[1], counts[2], counts[3], counts[4] = ng, npos, nfit, nmiss, active


@njit(cache=True)
def shortfall(S, M, P, p, missing, nmiss, short):
    link_len = P[1]
    hand = S[K.HANDS + 9 * p:K.HANDS + 9 * p + 9].copy()
    for c in range(8):
        short[c] = 0
    lengths = np.empty(nmiss, dtype=np.int64)
    kinds = np.empty(nmiss, dtype=np.int64)
    m = 0
    for i in range(nmiss):
        kind = link_need(S, M, P, p, missing[i])
        if kind >= 0:
            lengths[m] = link_len[missing[i]]
            kinds[m] = kind
            m += 1
    # stable order: coloured links first, longest first (Python's sort by (kind == 8, -length))
    order = np.empty(m, dtype=np.int64)
    used = np.zeros(m, dtype=np.bool_)
    for r in range(m):
        bi = -1
        for i in range(m):
            if used[i]:
                continue
            if bi < 0:
                bi = i
                continue
            gi, gb = kinds[i] == 8, kinds[bi] == 8
            if (gi < gb) or (gi == gb and lengths[i] > lengths[bi]):
                bi = i
        used[bi] = True
        order[r] = bi
    for r in range(m):
        i = order[r]
        length, kind = lengths[i], kinds[i]
        c = kind
        if kind == 8:
            c = 0
            for k in range(1, 8):
                if hand[k] > hand[c]:
                    c = k
        pay = hand[c] if hand[c] < length else length
        hand[c] -= pay
        rest = length - pay
        locos = hand[LOCO] if hand[LOCO] < rest else rest
        hand[LOCO] -= locos
        short[c] += rest - locos


@njit(cache=True)
def choose_tickets(S, M, P, p, least):
    """The keep mask of the study's ticket decision (see :func:`boardlab.bots.tickettoride.planning.choose_tickets`)."""
    link_len = P[1]
    nl = link_len.shape[0]
    status = np.empty(nl, dtype=np.int64)
    link_states(S, M, P, p, status)
    trains = S[K.TRAINS + p]
    nheld = S[K.NTICK + p]
    noffer = S[K.NOFFER + p]
    tickets = np.empty(nheld + noffer, dtype=np.int64)
    for i in range(nheld):
        tickets[i] = S[K.TICKETS + 30 * p + i]
    for i in range(noffer):
        tickets[nheld + i] = S[K.OFFERS + 3 * p + i]
    n = nheld + noffer
    done = np.zeros(n, dtype=np.int64)
    reach = np.zeros(n, dtype=np.int64)
    cost = np.zeros(n, dtype=np.int64)
    links = np.zeros((n, MAXLINKS), dtype=np.int64)
    nlinks = np.zeros(n, dtype=np.int64)
    ticket_routes(S, M, P, status, tickets, n, -1, done, reach, cost, links, nlinks)
    base = np.zeros(nl, dtype=np.bool_)
    for i in range(nheld):
        if done[i] == 0 and reach[i] == 1 and cost[i] <= trains:
            for j in range(nlinks[i]):
                base[links[i, j]] = True
    base_cost = 0
    for link in range(nl):
        if base[link]:
            base_cost += link_len[link]
    fit_mask, any_mask = -1, -1
    fit0 = fit1 = any0 = any1 = 1 << 40
    first = least if least > 1 else 1
    for size in range(first, noffer + 1):
        # subsets of this size in lexicographic order of their indices (itertools.combinations)
        for mask in _subsets(noffer, size):
            chosen = base.copy()
            reachable = True
            points = 0
            for i in range(noffer):
                if (mask >> i) & 1:
                    j = nheld + i
                    reachable = reachable and reach[j] == 1
                    for q in range(nlinks[j]):
                        chosen[links[j, q]] = True
                    points += M[8][tickets[j]]
            total = 0
            for link in range(nl):
                if chosen[link]:
                    total += link_len[link]
            extra = total - base_cost if reachable else 10**6
            if reachable and total <= trains and (extra < fit0 or (extra == fit0 and -points < fit1)):
                fit0, fit1, fit_mask = extra, -points, mask
            if extra < any0 or (extra == any0 and -points < any1):
                any0, any1, any_mask = extra, -points, mask
    return fit_mask if fit_mask >= 0 else any_mask


@njit(cache=True)
def _subsets(n, size):
    """Masks of the ``size``-subsets of ``range(n)`` (n <= 3) in itertools.combinations order."""
    out = []
    if size == 1:
        for i in range(n):
            out.append(1 << i)
    elif size == 2:
        for i in range(n):
            for j in range(i + 1, n):
                out.append((1 << i) | (1 << j))
    elif size == 3:
        out.append(7)
    return out


# --- the decisions ---------------------------------------------------------------------------------
@njit(cache=True)
def _claim_from(M, pool, npool, longest):
    """The first longest (or shortest) claim of ``pool``, as Python's max/min over a list."""
    best = -1
    best_len = 0
    for i in range(npool):
        length = M[0][(pool[i] - CLAIM_BASE) // PER_TRACK]
        if best < 0 or (longest and length > best_len) or (not longest and length < best_len):
            best = pool[i]
            best_len = length
    return best


@njit(cache=True)
def _card(S, M, P, p, second, active, missing, nmiss, faceup_wanted):
    supply = K._supply(S) > 0
    takeable = np.empty(5, dtype=np.int64)
    nt = 0
    for k in range(5):
        c = S[K.FACEUP + k]
        if c >= 0 and not (second and c == LOCO):
            takeable[nt] = k
            nt += 1
    if active == 0 or nmiss == 0:
        return DRAW_DECK if supply else _any_faceup(S, takeable, nt)
    short = np.zeros(8, dtype=np.int64)
    shortfall(S, M, P, p, missing, nmiss, short)
    total = 0
    nw = 0
    for c in range(8):
        total += short[c]
        if short[c] > 0:
            nw += 1
    if total == 0:
        return DRAW_DECK if supply else _any_faceup(S, takeable, nt)
    if nw > 3 and supply:
        return DRAW_DECK
    if total < 4 or faceup_wanted:
        # wanted colours by shortfall, larger first, ties by colour (a stable sort)
        taken = np.zeros(8, dtype=np.bool_)
        for _ in range(nw):
            bc = -1
            for c in range(8):
                if short[c] > 0 and not taken[c] and (bc < 0 or short[c] > short[bc]):
                    bc = c
            taken[bc] = True
            for i in range(nt):
                k = takeable[i]
                if S[K.FACEUP + k] == bc:
                    return _leftmost(S, k)
    if total == 1 and not second:
        for i in range(nt):
            k = takeable[i]
            if S[K.FACEUP + k] == LOCO:
                return _leftmost(S, k)
    if supply:
        return DRAW_DECK
    return _any_faceup(S, takeable, nt)


@njit(cache=True)
def _leftmost(S, k):
    c = S[K.FACEUP + k]
    for j in range(5):
        if S[K.FACEUP + j] == c:
            return j
    return k


@njit(cache=True)
def _any_faceup(S, takeable, nt):
    for i in range(nt):
        if S[K.FACEUP + takeable[i]] != LOCO:
            return takeable[i]
    if nt > 0:
        return takeable[0]
    return DRAW_DECK


@njit(cache=True)
def decide(S, M, P, p, opts):
    """The player's action (the flowcharts'; the caller checks that the rules allow it)."""
    phase = S[K.PHASE]
    if phase == SETUP or phase == KEEP:
        least = 2 if phase == SETUP else 1
        noffer = S[K.NOFFER + p]
        return KEEP_BASE + choose_tickets(S, M, P, p, least if least < noffer else noffer)
    nl = P[1].shape[0]
    status = np.empty(nl, dtype=np.int64)
    goal = np.empty(nl, dtype=np.int64)
    need = np.zeros(9, dtype=np.int64)
    possible = np.empty(nl, dtype=np.int64)
    fitting = np.empty(nl, dtype=np.int64)
    missing = np.empty(nl, dtype=np.int64)
    counts = np.zeros(5, dtype=np.int64)
    prepare(S, M, P, p, status, goal, need, possible, fitting, missing, counts, opts[p, OPT_SPARE] == 1)
    ng, npos, nfit, nmiss, active = counts[0], counts[1], counts[2], counts[3], counts[4]
    faceup_wanted = opts[p, OPT_FACEUP_WANTED] == 1
    claim_longest = opts[p, OPT_CLAIM_LONGEST] == 1
    if phase == SECOND:
        return _card(S, M, P, p, True, active, missing, nmiss, faceup_wanted)
    h = K.HANDS + 9 * p
    n = S[K.NPL]
    can_draw = K._supply(S) > 0
    for k in range(5):
        if S[K.FACEUP + k] >= 0:
            can_draw = True
    tickets_left = S[K.TLEN] > 0
    others = 1 << 30
    for q in range(n):
        if q != p and S[K.TRAINS + q] < others:
            others = S[K.TRAINS + q]
    trains = S[K.TRAINS + p]
    near_end = S[K.LAST] >= 0 or others <= ENDGAME or trains <= ENDGAME
    if opts[p, OPT_ENDGAME] == 1 and near_end:
        best = _last_claim(S, M, P, p, status, goal, ng, need, fitting, nfit, claim_longest)
        if best >= 0:
            return best
    if active == 0:
        cards = 0
        top = 0
        for c in range(9):
            cards += S[h + c]
            if c < 8 and S[h + c] > top:
                top = S[h + c]
        if cards >= 8 and trains > 8 and others >= 6 and tickets_left:
            return DRAW_TICKETS
        if top >= 5 and npos > 0:
            return _claim_from(M, fitting, nfit, claim_longest) if nfit > 0 else _claim_from(M, possible, npos, True)
        if can_draw and not near_end:
            return _card(S, M, P, p, False, active, missing, nmiss, faceup_wanted)
    if npos > 0:
        return _claim_from(M, fitting, nfit, claim_longest) if nfit > 0 else _claim_from(M, possible, npos, True)
    if can_draw:
        return _card(S, M, P, p, False, active, missing, nmiss, faceup_wanted)
    if tickets_left:
        return DRAW_TICKETS
    best = _last_claim(S, M, P, p, status, goal, ng, need, fitting, nfit, claim_longest)
    return PASS if best < 0 else best


@njit(cache=True)
def _last_claim(S, M, P, p, status, goal, ng, need, fitting, nfit, claim_longest):
    """A fitting route if one can be paid, else the longest route it can pay for, else -1."""
    if nfit > 0:
        return _claim_from(M, fitting, nfit, claim_longest)
    best = -1
    best_len = 0
    for link in range(P[1].shape[0]):
        if status[link] != 0:
            continue
        a = best_claim(S, M, P, p, link, need, False if ng == 0 else _in(goal, ng, link))
        if a >= 0:
            length = P[1][link]
            if best < 0 or length > best_len:
                best, best_len = a, length
    return best


@njit(cache=True)
def _in(arr, n, x):
    for i in range(n):
        if arr[i] == x:
            return True
    return False


@njit(cache=True)
def fallback(S, M, P, p, legal, nlegal):
    """After a forbidden decision: the longest route it can pay for, else a card, tickets or a pass."""
    nl = P[1].shape[0]
    status = np.empty(nl, dtype=np.int64)
    goal = np.empty(nl, dtype=np.int64)
    need = np.zeros(9, dtype=np.int64)
    possible = np.empty(nl, dtype=np.int64)
    fitting = np.empty(nl, dtype=np.int64)
    missing = np.empty(nl, dtype=np.int64)
    counts = np.zeros(5, dtype=np.int64)
    has_claim = False
    for i in range(nlegal):
        if legal[i] >= CLAIM_BASE:
            has_claim = True
    if has_claim:
        prepare(S, M, P, p, status, goal, need, possible, fitting, missing, counts, False)
        best, best_len = -1, 0
        for link in range(nl):
            a = best_claim(S, M, P, p, link, need, _in(goal, counts[0], link))
            if a >= 0 and _in(legal, nlegal, a):
                length = P[1][link]
                if best < 0 or length > best_len:
                    best, best_len = a, length
        if best >= 0:
            return best
    for preferred in (DRAW_DECK, 0, 1, 2, 3, 4, DRAW_TICKETS, PASS):
        if _in(legal, nlegal, preferred):
            return preferred
    return legal[0]


@njit(cache=True)
def play(S, M, P, opts, actions, forbidden, decisions):
    """Play the game in ``S`` to the end with the algorithmic player in every seat; the actions go to
    ``actions``, each seat's decisions and forbidden decisions to ``decisions`` and ``forbidden``;
    return the number of actions."""
    legal = np.empty(8192, dtype=np.int64)
    moves = 0
    while S[K.PHASE] != OVER:
        n = K.legal_actions(S, M, legal)
        p = S[K.PLAYER]
        action = decide(S, M, P, p, opts)
        decisions[p] += 1
        if not _in(legal, n, action):
            forbidden[p] += 1
            action = fallback(S, M, P, p, legal, n)
        actions[moves] = action
        moves += 1
        K.apply_action(S, M, action)
    return moves


@dataclass
class CompiledGame:
    """One game played by the compiled player: its actions and what the experiment tables count."""

    seed: int
    actions: list[int]
    forbidden: list[int]
    decisions: list[int]
    scores: list[int]
    tickets_done: list[int]
    tickets_failed: list[int]
    returns: list[float]


class CompiledPlayer:
    """The compiled algorithmic player for one game (players, variant) and per-seat options."""

    def __init__(self, game: TicketToRide, options: Sequence[dict] | dict | None = None) -> None:
        from boardlab.bots.tickettoride.algorithmic import planner_for

        self.game = game
        self.M = K.map_arrays(game)
        state = game.new_initial_state(0)
        self.P = planner_arrays(planner_for(state))
        n = game.num_players()
        per_seat = [options or {}] * n if not isinstance(options, (list, tuple)) else list(options)
        self.opts = np.zeros((n, 4), dtype=np.int64)
        for p, o in enumerate(per_seat):
            self.opts[p, OPT_FACEUP_WANTED] = 1 if o.get("faceup", "study") == "wanted" else 0
            self.opts[p, OPT_CLAIM_LONGEST] = 1 if o.get("claim", "shortest") == "longest" else 0
            self.opts[p, OPT_ENDGAME] = 1 if o.get("endgame", True) else 0
            self.opts[p, OPT_SPARE] = 1 if o.get("spare", True) else 0

    def play(self, seed: int) -> CompiledGame:
        state = self.game.new_initial_state(seed)
        S = K.pack(state)
        actions = np.empty(self.game.max_game_length() + 8, dtype=np.int64)
        forbidden = np.zeros(self.game.num_players(), dtype=np.int64)
        decisions = np.zeros(self.game.num_players(), dtype=np.int64)
        moves = play(S, self.M, self.P, self.opts, actions, forbidden, decisions)
        n = self.game.num_players()
        scores, done, bonus = (np.zeros(n, dtype=np.int64) for _ in range(3))
        K.final_scores(S, self.M, scores, done, bonus)
        out = np.zeros(n)
        K.returns(S, self.M, out)
        held = [int(S[K.NTICK + p]) for p in range(n)]
        return CompiledGame(seed, actions[:moves].tolist(), forbidden.tolist(), decisions.tolist(), scores.tolist(), done.tolist(),
                            [h - d for h, d in zip(held, done.tolist())], out.tolist())


_players: dict[tuple, CompiledPlayer] = {}


def compiled_player(game: TicketToRide, options: tuple) -> CompiledPlayer:
    """A :class:`CompiledPlayer` for ``game`` and per-seat options (tuples of ``(name, value)``), kept per process."""
    key = (game.spec(), options)
    player = _players.get(key)
    if player is None:
        player = _players[key] = CompiledPlayer(game, [dict(o) for o in options])
    return player


def default_options(players: int) -> tuple:
    """The compiled player's per-seat options of the default ``ttr-algorithmic``."""
    config = TTRAlgorithmicAgent().config
    seat = tuple(sorted((k, v) for k, v in config.items() if k != "seed"))
    return (seat,) * players
