"""Compiled Ticket to Ride (numba): the rules of :mod:`boardlab.games.tickettoride.state` on one flat
int64 array, for random playouts (MCTS, benchmarks) and for the compiled players of ``boardlab.bots``.

A state is one ``int64`` array of :data:`SIZE` cells laid out as below (room for 5 players); the
map is a tuple of arrays (:func:`map_arrays`). Every rule, the order of the legal actions and the
reshuffles (Fisher-Yates over the xorshift64* stream of
:func:`boardlab.games.tickettoride.state.shuffle_stream`) are the Python engine's, so that a state
packed from Python (:func:`pack`) and played on with the same actions stays the same state: the tests
replay random games in both and compare every cell, and :func:`reference_playout` is the kernel's
playout in plain Python. What the kernel leaves out is only what determinisation needs (the log of
who drew what), so a kernel state cannot be resampled.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.core.rng import kernel_random, kernel_rng, python_random
from boardlab.games.tickettoride.state import (
    CLAIM_BASE,
    DRAW_DECK,
    DRAW_TICKETS,
    KEEP,
    KEEP_BASE,
    MAX_WIPES,
    OVER,
    PASS,
    PER_TRACK,
    SECOND,
    SETUP,
    TURN,
    TicketToRide,
    TicketToRideState,
)

MAXP = 5
# --- the layout of a state -------------------------------------------------------------
DECK = 0            # 110 cells: the draw pile, top card last
DECKN = 110         # cards in the pile
FACEUP = 111        # 5: the face-up row (-1: empty)
DISC = 116          # 9: discards by kind
HANDS = 125         # 5 x 9
TRAINS = 170        # 5
POINTS = 175        # 5: route points
OWNER = 180         # 100: owner of each track (-1: free)
TDECK = 280         # 32: the ticket deck, a ring (top at THEAD)
THEAD = 312
TLEN = 313
TICKETS = 314       # 5 x 30: kept tickets
NTICK = 464         # 5
OFFERS = 469        # 5 x 3: tickets on offer
NOFFER = 484        # 5
PLAYER = 489
PHASE = 490
LAST = 491          # turns left in the last round (-1: not started)
PASSES = 492
EPOCH = 493
NPL = 494
DOUBLES = 495
BONUS = 496         # 1: longest-path bonus (official), 0: the study's game
FIRST = 497
SEED = 498          # the shuffle seed (its 64 bits)
MOVES = 499
SIZE = 500
RING = 32
LOCO = 8
NO_COLOUR = 8


def map_arrays(game: TicketToRide):
    """The map as the kernels take it: a tuple of int64 arrays."""
    b = game.board
    gray_twin = np.array([info[4] for info in game.track_info], dtype=np.int64)
    return (np.asarray(b.track_length, dtype=np.int64), np.asarray(b.track_colour, dtype=np.int64),
            np.asarray(b.track_twin, dtype=np.int64), gray_twin,
            np.asarray(b.track_a, dtype=np.int64), np.asarray(b.track_b, dtype=np.int64),
            np.asarray(b.ticket_a, dtype=np.int64), np.asarray(b.ticket_b, dtype=np.int64),
            np.asarray(b.ticket_points, dtype=np.int64), np.asarray(b.route_points, dtype=np.int64),
            np.asarray(b.deck, dtype=np.int64), np.array([b.trains, b.longest_bonus, b.num_cities], dtype=np.int64))


def pack(state: TicketToRideState) -> np.ndarray:
    """The kernel state of a Python state (everything but the determinisation log)."""
    S = np.zeros(SIZE, dtype=np.int64)
    n = state.n
    S[DECK:DECK + len(state.deck)] = state.deck
    S[DECKN] = len(state.deck)
    S[FACEUP:FACEUP + 5] = state.faceup
    S[DISC:DISC + 9] = state.discards
    for p in range(n):
        S[HANDS + 9 * p:HANDS + 9 * p + 9] = state.hands[p]
        S[TRAINS + p] = state.trains[p]
        S[POINTS + p] = state.points[p]
        S[TICKETS + 30 * p:TICKETS + 30 * p + len(state.tickets[p])] = state.tickets[p]
        S[NTICK + p] = len(state.tickets[p])
        S[OFFERS + 3 * p:OFFERS + 3 * p + len(state.offers[p])] = state.offers[p]
        S[NOFFER + p] = len(state.offers[p])
    S[OWNER:OWNER + 100] = state.owner
    S[TDECK:TDECK + len(state.ticket_deck)] = state.ticket_deck
    S[THEAD] = 0
    S[TLEN] = len(state.ticket_deck)
    S[PLAYER] = state.player
    S[PHASE] = state.phase
    S[LAST] = state.last_round
    S[PASSES] = state.passes
    S[EPOCH] = state.epoch
    S[NPL] = n
    S[DOUBLES] = 1 if state.game.doubles_open else 0
    S[BONUS] = 1 if state.game.longest_bonus else 0
    S[FIRST] = state.first_card
    S[SEED] = np.uint64(state.shuffle_seed & 0xFFFFFFFFFFFFFFFF).view(np.int64)
    S[MOVES] = len(state.history)
    return S


def canonical(S: np.ndarray) -> np.ndarray:
    """``S`` with its ring of tickets turned to start at cell 0 and the unused cells of the deck and the
    ring zeroed: two kernel states of the same position compare equal after this."""
    C = S.copy()
    C[DECK + S[DECKN]:DECK + 110] = 0
    ring = [S[TDECK + (S[THEAD] + i) % RING] for i in range(S[TLEN])]
    C[TDECK:TDECK + RING] = 0
    C[TDECK:TDECK + len(ring)] = ring
    C[THEAD] = 0
    for p in range(MAXP):
        C[TICKETS + 30 * p + S[NTICK + p]:TICKETS + 30 * p + 30] = 0
        C[OFFERS + 3 * p + S[NOFFER + p]:OFFERS + 3 * p + 3] = 0
    return C


# --- randomness -------------------------------------------------------------------------
@njit(cache=True)
def _stream(seed, epoch):
    """:func:`~boardlab.games.tickettoride.state.shuffle_stream` in numba (a one-element uint64 array)."""
    x = np.uint64(seed) ^ (np.uint64(epoch) * np.uint64(0x9E3779B97F4A7C15))
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    out = np.empty(1, dtype=np.uint64)
    out[0] = x if x != np.uint64(0) else np.uint64(1)
    return out


# --- cards ------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _supply(S):
    s = S[DECKN]
    for k in range(9):
        s += S[DISC + k]
    return s


@njit(cache=True)
def _reshuffle(S):
    n = 0
    for c in range(9):
        for _ in range(S[DISC + c]):
            S[DECK + n] = c
            n += 1
        S[DISC + c] = 0
    S[EPOCH] += 1
    rng = _stream(S[SEED], S[EPOCH])
    for i in range(n - 1, 0, -1):
        j = np.int64(kernel_random(rng) % np.uint64(i + 1))
        tmp = S[DECK + i]
        S[DECK + i] = S[DECK + j]
        S[DECK + j] = tmp
    S[DECKN] = n


@njit(cache=True, inline="always")
def _draw(S):
    if S[DECKN] == 0:
        _reshuffle(S)
    S[DECKN] -= 1
    return S[DECK + S[DECKN]]


@njit(cache=True, inline="always")
def _refill(S, slot):
    if _supply(S) > 0:
        S[FACEUP + slot] = _draw(S)
    else:
        S[FACEUP + slot] = -1


@njit(cache=True)
def _wipe(S):
    for _ in range(MAX_WIPES):
        locos = 0
        shown = 0
        non_loco = 0
        for k in range(5):
            c = S[FACEUP + k]
            if c == LOCO:
                locos += 1
            if c >= 0:
                shown += 1
                if c != LOCO:
                    non_loco += 1
        if locos < 3:
            return
        total = shown + _supply(S)
        size = 5 if total > 5 else total
        for i in range(S[DECKN]):
            if S[DECK + i] != LOCO:
                non_loco += 1
        for c in range(8):
            non_loco += S[DISC + c]
        if non_loco < size - 2:
            return
        for k in range(5):
            c = S[FACEUP + k]
            if c >= 0:
                S[DISC + c] += 1
        for k in range(5):
            _refill(S, k)


@njit(cache=True)
def _can_second(S):
    if _supply(S) > 0:
        return True
    for k in range(5):
        c = S[FACEUP + k]
        if c >= 0 and c < LOCO:
            return True
    return False


@njit(cache=True)
def _end_turn(S):
    S[FIRST] = -1
    p = S[PLAYER]
    n = S[NPL]
    if S[LAST] > 0:
        S[LAST] -= 1
    elif S[LAST] < 0 and S[TRAINS + p] <= 2:
        S[LAST] = n
    if S[LAST] == 0 or S[PASSES] >= n:
        S[PHASE] = OVER
        return
    S[PLAYER] = (p + 1) % n
    S[PHASE] = TURN


# --- legal actions ----------------------------------------------------------------------
@njit(cache=True)
def legal_actions(S, M, out):
    """Write the legal actions into ``out`` (room for 8192) in the Python engine's order; return how many."""
    track_len, track_col, track_twin, gray_twin = M[0], M[1], M[2], M[3]
    phase = S[PHASE]
    p = S[PLAYER]
    if phase == OVER:
        return 0
    if phase == SETUP or phase == KEEP:
        offer = S[NOFFER + p]
        least = 2 if phase == SETUP else 1
        if least > offer:
            least = offer
        n = 0
        for m in range(1, 1 << offer):
            bits = (m & 1) + (m >> 1 & 1) + (m >> 2 & 1)
            if bits >= least:
                out[n] = KEEP_BASE + m
                n += 1
        return n
    n = 0
    second = phase == SECOND
    seen = 0
    for k in range(5):
        c = S[FACEUP + k]
        if c >= 0 and (seen >> c) & 1 == 0 and not (second and c == LOCO):
            seen |= 1 << c
            out[n] = k
            n += 1
    if _supply(S) > 0:
        out[n] = DRAW_DECK
        n += 1
    if second:
        return n
    if S[TLEN] > 0:
        out[n] = DRAW_TICKETS
        n += 1
    h = HANDS + 9 * p
    locos = S[h + LOCO]
    best = 0
    for c in range(8):
        if S[h + c] > best:
            best = S[h + c]
    trains = S[TRAINS + p]
    doubles = S[DOUBLES] == 1
    for t in range(track_len.shape[0]):
        if S[OWNER + t] >= 0:
            continue
        length = track_len[t]
        if length > trains:
            continue
        colour = track_col[t]
        have = 0
        if colour >= 0:
            have = S[h + colour]
            if have + locos < length:
                continue
        elif best + locos < length:
            continue
        tw = track_twin[t]
        if tw >= 0:
            other = S[OWNER + tw]
            if other == p or (other >= 0 and not doubles):
                continue
            if gray_twin[t] >= 0 and other < 0:
                continue
        base = CLAIM_BASE + t * PER_TRACK
        top = locos if locos < length else length - 1
        if colour >= 0:
            if have > 0:
                start = base + colour * 7
                lo = length - have if length > have else 0
                for k in range(lo, top + 1):
                    out[n] = start + k
                    n += 1
        else:
            for c in range(8):
                have = S[h + c]
                if have > 0:
                    start = base + c * 7
                    lo = length - have if length > have else 0
                    for k in range(lo, top + 1):
                        out[n] = start + k
                        n += 1
        if locos >= length:
            out[n] = base + NO_COLOUR * 7 + length
            n += 1
    if n == 0:
        out[0] = PASS
        n = 1
    return n


# --- playing an action ------------------------------------------------------------------
@njit(cache=True)
def _after_card(S, card, phase):
    S[PASSES] = 0
    if phase == SECOND or card == -2:
        _end_turn(S)
    elif _can_second(S):
        S[PHASE] = SECOND
        S[FIRST] = card
    else:
        _end_turn(S)


@njit(cache=True)
def apply_action(S, M, action):
    """Play a legal ``action`` (no check: the caller took it from :func:`legal_actions`)."""
    track_len, route_pts = M[0], M[9]
    phase = S[PHASE]
    p = S[PLAYER]
    S[MOVES] += 1
    if phase == SETUP or phase == KEEP:
        mask = action - KEEP_BASE
        offer = S[NOFFER + p]
        for i in range(offer):
            t = S[OFFERS + 3 * p + i]
            if (mask >> i) & 1:
                S[TICKETS + 30 * p + S[NTICK + p]] = t
                S[NTICK + p] += 1
            else:
                S[TDECK + (S[THEAD] + S[TLEN]) % RING] = t
                S[TLEN] += 1
        S[NOFFER + p] = 0
        if phase == SETUP:
            if p + 1 < S[NPL]:
                S[PLAYER] = p + 1
            else:
                S[PLAYER] = 0
                S[PHASE] = TURN
        else:
            S[PASSES] = 0
            _end_turn(S)
        return
    h = HANDS + 9 * p
    if action < 5:
        c = S[FACEUP + action]
        S[h + c] += 1
        _refill(S, action)
        _wipe(S)
        _after_card(S, c if c != LOCO else -2, phase)
    elif action == DRAW_DECK:
        S[h + _draw(S)] += 1
        _after_card(S, -1, phase)
    elif action == DRAW_TICKETS:
        take = S[TLEN] if S[TLEN] < 3 else 3
        for i in range(take):
            S[OFFERS + 3 * p + i] = S[TDECK + S[THEAD]]
            S[THEAD] = (S[THEAD] + 1) % RING
            S[TLEN] -= 1
        S[NOFFER + p] = take
        S[PHASE] = KEEP
    elif action == PASS:
        S[PASSES] += 1
        _end_turn(S)
    else:
        x = action - CLAIM_BASE
        t = x // PER_TRACK
        c = (x % PER_TRACK) // 7
        k = x % 7
        length = track_len[t]
        if c != NO_COLOUR:
            S[h + c] -= length - k
            S[DISC + c] += length - k
        S[h + LOCO] -= k
        S[DISC + LOCO] += k
        S[OWNER + t] = p
        S[TRAINS + p] -= length
        S[POINTS + p] += route_pts[length]
        for slot in range(5):
            if S[FACEUP + slot] < 0:
                _refill(S, slot)
        _wipe(S)
        S[PASSES] = 0
        _end_turn(S)


# --- scoring ----------------------------------------------------------------------------
@njit(cache=True)
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True)
def tickets_done(S, M, p, done):
    """Fill ``done`` (one per kept ticket) for player ``p``; return how many are complete."""
    track_a, track_b, ticket_a, ticket_b = M[4], M[5], M[6], M[7]
    cities = M[11][2]
    parent = np.arange(cities)
    for t in range(track_a.shape[0]):
        if S[OWNER + t] == p:
            a = _find(parent, track_a[t])
            b = _find(parent, track_b[t])
            if a != b:
                parent[a] = b
    count = 0
    for i in range(S[NTICK + p]):
        t = S[TICKETS + 30 * p + i]
        ok = _find(parent, ticket_a[t]) == _find(parent, ticket_b[t])
        done[i] = 1 if ok else 0
        count += 1 if ok else 0
    return count


@njit(cache=True)
def longest_path(S, M, p):
    """The player's longest continuous path (each track once, cities may repeat)."""
    track_len, track_a, track_b = M[0], M[4], M[5]
    cities = M[11][2]
    m = 0
    mine = np.empty(track_len.shape[0], dtype=np.int64)
    for t in range(track_len.shape[0]):
        if S[OWNER + t] == p:
            mine[m] = t
            m += 1
    if m == 0:
        return 0
    # incidence lists: for each city its (edge, other city)
    degree = np.zeros(cities, dtype=np.int64)
    for i in range(m):
        degree[track_a[mine[i]]] += 1
        degree[track_b[mine[i]]] += 1
    start = np.zeros(cities + 1, dtype=np.int64)
    for c in range(cities):
        start[c + 1] = start[c] + degree[c]
    fill = start[:cities].copy()
    inc_edge = np.empty(2 * m, dtype=np.int64)
    inc_city = np.empty(2 * m, dtype=np.int64)
    for i in range(m):
        a, b = track_a[mine[i]], track_b[mine[i]]
        inc_edge[fill[a]] = i
        inc_city[fill[a]] = b
        fill[a] += 1
        inc_edge[fill[b]] = i
        inc_city[fill[b]] = a
        fill[b] += 1
    used = np.zeros(m, dtype=np.bool_)
    stack_city = np.empty(m + 1, dtype=np.int64)
    stack_pos = np.empty(m + 1, dtype=np.int64)
    stack_edge = np.empty(m + 1, dtype=np.int64)
    best = 0
    for origin in range(cities):
        if degree[origin] == 0:
            continue
        depth = 0
        stack_city[0] = origin
        stack_pos[0] = start[origin]
        stack_edge[0] = -1
        total = 0
        while depth >= 0:
            city = stack_city[depth]
            pos = stack_pos[depth]
            moved = False
            while pos < start[city + 1]:
                e = inc_edge[pos]
                pos += 1
                if not used[e]:
                    stack_pos[depth] = pos
                    used[e] = True
                    total += track_len[mine[e]]
                    if total > best:
                        best = total
                    depth += 1
                    stack_city[depth] = inc_city[pos - 1]
                    stack_pos[depth] = start[inc_city[pos - 1]]
                    stack_edge[depth] = e
                    moved = True
                    break
            if not moved:
                e = stack_edge[depth]
                if e >= 0:
                    used[e] = False
                    total -= track_len[mine[e]]
                depth -= 1
    return best


@njit(cache=True)
def final_scores(S, M, scores, done_counts, bonus):
    """Fill each player's score, completed tickets and bonus (0/1) as the Python engine scores them."""
    n = S[NPL]
    ticket_pts = M[8]
    longest = np.zeros(n, dtype=np.int64)
    top = 0
    for p in range(n):
        longest[p] = longest_path(S, M, p)
        if longest[p] > top:
            top = longest[p]
    done = np.zeros(32, dtype=np.int64)
    for p in range(n):
        done_counts[p] = tickets_done(S, M, p, done)
        s = S[POINTS + p]
        for i in range(S[NTICK + p]):
            t = S[TICKETS + 30 * p + i]
            s += ticket_pts[t] if done[i] == 1 else -ticket_pts[t]
        bonus[p] = 1 if (S[BONUS] == 1 and top > 0 and longest[p] == top) else 0
        scores[p] = s + M[11][1] * bonus[p]


@njit(cache=True)
def returns(S, M, out):
    """Win shares after the tie-breaks (points, completed tickets, longest-path bonus)."""
    n = S[NPL]
    scores = np.zeros(n, dtype=np.int64)
    done = np.zeros(n, dtype=np.int64)
    bonus = np.zeros(n, dtype=np.int64)
    final_scores(S, M, scores, done, bonus)
    best0, best1, best2 = -10**9, -1, -1
    for p in range(n):
        key_better = (scores[p] > best0) or (scores[p] == best0 and (done[p] > best1 or (done[p] == best1 and bonus[p] > best2)))
        if key_better:
            best0, best1, best2 = scores[p], done[p], bonus[p]
    winners = 0
    for p in range(n):
        if scores[p] == best0 and done[p] == best1 and bonus[p] == best2:
            winners += 1
    for p in range(n):
        out[p] = 1.0 / winners if (scores[p] == best0 and done[p] == best1 and bonus[p] == best2) else 0.0


# --- random play ------------------------------------------------------------------------
@njit(cache=True)
def playout(S, M, rng, out):
    """Uniformly random legal actions to the end (``S`` is changed); returns in ``out``; the moves played."""
    legal = np.empty(8192, dtype=np.int64)
    moves = 0
    while S[PHASE] != OVER:
        n = legal_actions(S, M, legal)
        apply_action(S, M, legal[np.int64(kernel_random(rng) % np.uint64(n))])
        moves += 1
    returns(S, M, out)
    return moves


@njit(cache=True)
def new_game(S, M, players, bonus, seed):
    """Deal a new game into ``S`` from ``seed`` (the kernel's own shuffles, for benchmarks)."""
    S[:] = 0
    deck_counts = M[10]
    rng = _stream(seed, 0)
    n = 0
    for c in range(9):
        for _ in range(deck_counts[c]):
            S[DECK + n] = c
            n += 1
    for i in range(n - 1, 0, -1):
        j = np.int64(kernel_random(rng) % np.uint64(i + 1))
        tmp = S[DECK + i]
        S[DECK + i] = S[DECK + j]
        S[DECK + j] = tmp
    S[DECKN] = n
    tickets = M[8].shape[0]
    for i in range(tickets):
        S[TDECK + i] = i
    for i in range(tickets - 1, 0, -1):
        j = np.int64(kernel_random(rng) % np.uint64(i + 1))
        tmp = S[TDECK + i]
        S[TDECK + i] = S[TDECK + j]
        S[TDECK + j] = tmp
    S[THEAD] = 0
    S[TLEN] = tickets
    S[NPL] = players
    S[DOUBLES] = 1 if players >= 4 else 0
    S[BONUS] = bonus
    S[SEED] = seed
    S[LAST] = -1
    S[FIRST] = -1
    S[PHASE] = SETUP
    for t in range(100):
        S[OWNER + t] = -1
    for p in range(players):
        S[TRAINS + p] = M[11][0]
        for _ in range(4):
            S[HANDS + 9 * p + _draw(S)] += 1
    for k in range(5):
        _refill(S, k)
    _wipe(S)
    for p in range(players):
        for i in range(3):
            S[OFFERS + 3 * p + i] = S[TDECK + S[THEAD]]
            S[THEAD] = (S[THEAD] + 1) % RING
            S[TLEN] -= 1
        S[NOFFER + p] = 3


@njit(cache=True)
def random_games(n_games, players, bonus, M, seed):
    """Play ``n_games`` uniformly random games from fresh deals: (wins by seat, total moves)."""
    S = np.zeros(SIZE, dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) | np.uint64(1)
    wins = np.zeros(players, dtype=np.float64)
    out = np.zeros(players, dtype=np.float64)
    total = 0
    for _g in range(n_games):
        new_game(S, M, players, bonus, kernel_random(rng) >> np.uint64(1))
        total += playout(S, M, rng, out)
        for p in range(players):
            wins[p] += out[p]
    return wins, total


@njit(cache=True)
def check_state(S, M):
    """0 when ``S`` keeps the rules' invariants, else the number of the first one broken:
    1 cards by kind not the 110 of the deck, 2 a negative count, 3 trains not conserved,
    4 tickets not conserved, 5 three face-up locomotives left though a clean row can be laid,
    6 an empty face-up slot while cards remain."""
    n = S[NPL]
    total = np.zeros(9, dtype=np.int64)
    for i in range(S[DECKN]):
        total[S[DECK + i]] += 1
    for k in range(5):
        if S[FACEUP + k] >= 0:
            total[S[FACEUP + k]] += 1
    for c in range(9):
        if S[DISC + c] < 0:
            return 2
        total[c] += S[DISC + c]
        for p in range(n):
            if S[HANDS + 9 * p + c] < 0:
                return 2
            total[c] += S[HANDS + 9 * p + c]
    for c in range(9):
        if total[c] != M[10][c]:
            return 1
    for p in range(n):
        used = 0
        for t in range(M[0].shape[0]):
            if S[OWNER + t] == p:
                used += M[0][t]
        if S[TRAINS + p] < 0 or S[TRAINS + p] + used != M[11][0]:
            return 3
    seen = np.zeros(M[8].shape[0], dtype=np.int64)
    for i in range(S[TLEN]):
        seen[S[TDECK + (S[THEAD] + i) % RING]] += 1
    for p in range(n):
        for i in range(S[NTICK + p]):
            seen[S[TICKETS + 30 * p + i]] += 1
        for i in range(S[NOFFER + p]):
            seen[S[OFFERS + 3 * p + i]] += 1
    for t in range(seen.shape[0]):
        if seen[t] != 1:
            return 4
    locos = 0
    shown = 0
    non_loco = 0
    for k in range(5):
        c = S[FACEUP + k]
        if c >= 0:
            shown += 1
            if c == LOCO:
                locos += 1
            else:
                non_loco += 1
    if locos >= 3:
        total_out = shown + _supply(S)
        size = 5 if total_out > 5 else total_out
        for i in range(S[DECKN]):
            if S[DECK + i] != LOCO:
                non_loco += 1
        for c in range(8):
            non_loco += S[DISC + c]
        if non_loco >= size - 2:
            return 5
    if _supply(S) > 0:
        for k in range(5):
            if S[FACEUP + k] < 0:
                return 6
    return 0


@njit(cache=True)
def random_games_checked(n_games, players, bonus, M, seed, max_moves, failures):
    """:func:`random_games` that checks :func:`check_state` after every move and that every game ends
    within ``max_moves``; ``failures[code]`` counts the broken states (code 7: a game that did not end).
    Returns the moves played."""
    S = np.zeros(SIZE, dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) | np.uint64(1)
    legal = np.empty(8192, dtype=np.int64)
    total = 0
    for _g in range(n_games):
        new_game(S, M, players, bonus, kernel_random(rng) >> np.uint64(1))
        code = check_state(S, M)
        if code:
            failures[code] += 1
        moves = 0
        while S[PHASE] != OVER and moves < max_moves:
            n = legal_actions(S, M, legal)
            if n == 0:
                failures[7] += 1
                break
            apply_action(S, M, legal[np.int64(kernel_random(rng) % np.uint64(n))])
            moves += 1
            code = check_state(S, M)
            if code:
                failures[code] += 1
        if S[PHASE] != OVER:
            failures[7] += 1
        total += moves
    return total


class PlayoutKernel:
    """The compiled playouts of one game (players, variant): what ``game.playout_kernel()`` gives."""

    def __init__(self, game: TicketToRide) -> None:
        self.game = game
        self.M = map_arrays(game)

    def playout_returns(self, state: TicketToRideState, rng: np.ndarray) -> list[float]:
        """Returns of a uniformly random playout from ``state``; ``rng`` is the uint64 stream it advances."""
        if state.is_terminal():
            return list(state.returns())
        S = pack(state)
        out = np.zeros(state.n, dtype=np.float64)
        playout(S, self.M, rng, out)
        return [float(x) for x in out]

    def random_games(self, n_games: int, seed: int = 0) -> tuple[np.ndarray, int]:
        return random_games(n_games, self.game.players, 1 if self.game.longest_bonus else 0, self.M, seed)

    def checked_random_games(self, n_games: int, seed: int = 0) -> tuple[np.ndarray, int]:
        """Random games with every state checked (:func:`check_state`): (failures by code, moves)."""
        failures = np.zeros(8, dtype=np.int64)
        moves = random_games_checked(n_games, self.game.players, 1 if self.game.longest_bonus else 0, self.M, seed,
                                     self.game.max_game_length(), failures)
        return failures, moves


def reference_playout(state: TicketToRideState, seed: int) -> TicketToRideState:
    """The kernel's playout in plain Python on a copy of ``state``: the same seed (as given to
    :func:`~boardlab.core.rng.kernel_rng`) makes the same moves, so both end in the same state."""
    stream = [int(kernel_rng(seed)[0])]
    state = state.clone()
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[python_random(stream) % len(legal)])
    return state
