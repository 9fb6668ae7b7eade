"""The inputs of ``features=plan``: for the observing seat, the cheapest way left to complete each of its
tickets, and the tracks that lie on such a way.

A flat vector of track owners hides what a Ticket to Ride player reasons about first: how many more trains a
ticket still costs along routes nobody else has taken, and which tracks are worth claiming for it. A small
network does not find shortest paths by itself, so this module hands them to it, computed only from what the
seat sees (the public owners and its own tickets and offer): it stays the same under ``resample(seat, rng)``.

A track costs the seat nothing when it owns it, its length when it is free and open to it, and cannot be used
when another seat owns it or when it is the second track of a double route the seat may not take (see the
rules in :mod:`boardlab.games.tickettoride.state`). Distances are cities' shortest paths over those costs
(Dijkstra on the 36 cities). Entries, all in 0..1, :func:`~boardlab.games.tickettoride.state.plan_entries` of them after the plain tensor:

* per ticket (30): for a ticket the seat holds and has not completed, or has on offer, the trains its cheapest
  way still needs / 45 (1 when no way is left); 0 otherwise;
* per ticket (30): 1 when that ticket cannot be completed any more (no way left, or more trains than the seat
  has); 0 otherwise;
* per track (100): of the seat's held, uncompleted and still completable tickets, on how many a cheapest way
  passes this free track (/ 3, at most 1);
* the trains all those tickets' ways need together / 90 (at most 1); the points of the held tickets still
  completable but not complete / 100, and of those that cannot be completed any more / 100 (each at most 1).

Compiled with numba (imported when the option is first used), one function for the rules' tensor and the
compiled search's, so the two cannot drift apart.
"""

from __future__ import annotations

import numpy as np
from numba import njit

BLOCKED = -1
UNREACHABLE = 1 << 30


@njit(cache=True)
def track_costs(owner, player, doubles, track_length, track_twin, cost):
    """Each track's cost to ``player`` into ``cost``: 0 its own, its length free and open, :data:`BLOCKED` otherwise."""
    for t in range(owner.shape[0]):
        o = owner[t]
        if o == player:
            cost[t] = 0
        elif o >= 0:
            cost[t] = BLOCKED
        else:
            tw = track_twin[t]
            if tw >= 0 and owner[tw] >= 0 and (owner[tw] == player or not doubles):
                cost[t] = BLOCKED
            else:
                cost[t] = track_length[t]


@njit(cache=True)
def distances(source, cost, track_a, track_b, cities, dist):
    """Shortest path costs from ``source`` to every city into ``dist`` (:data:`UNREACHABLE` where none)."""
    done = np.zeros(cities, dtype=np.bool_)
    for c in range(cities):
        dist[c] = UNREACHABLE
    dist[source] = 0
    for _ in range(cities):
        u = -1
        for c in range(cities):
            if not done[c] and (u < 0 or dist[c] < dist[u]):
                u = c
        if u < 0 or dist[u] >= UNREACHABLE:
            return
        done[u] = True
        for t in range(cost.shape[0]):
            if cost[t] < 0:
                continue
            if track_a[t] == u:
                v = track_b[t]
            elif track_b[t] == u:
                v = track_a[t]
            else:
                continue
            if dist[u] + cost[t] < dist[v]:
                dist[v] = dist[u] + cost[t]


@njit(cache=True)
def plan_features(owner, player, doubles, trains_left, held, held_done, offers, track_length, track_twin, track_a,
                  track_b, ticket_a, ticket_b, ticket_points, cities, trains, out):
    """The entries of the module docstring into ``out`` (length :func:`~boardlab.games.tickettoride.state.plan_entries`) for ``player``, who holds
    tickets ``held`` (``held_done``: completed) and has ``offers`` on offer."""
    tracks, tickets = owner.shape[0], ticket_a.shape[0]
    for i in range(out.shape[0]):
        out[i] = 0.0
    cost = np.empty(tracks, dtype=np.int64)
    track_costs(owner, player, doubles, track_length, track_twin, cost)
    from_a = np.empty(cities, dtype=np.int64)
    from_b = np.empty(cities, dtype=np.int64)
    flag, on_way, totals = tickets, 2 * tickets, 2 * tickets + tracks
    needed = 0
    open_points = 0
    lost_points = 0
    for k in range(held.shape[0] + offers.shape[0]):
        is_held = k < held.shape[0]
        ticket = held[k] if is_held else offers[k - held.shape[0]]
        if is_held and held_done[k]:
            continue
        distances(ticket_a[ticket], cost, track_a, track_b, cities, from_a)
        need = from_a[ticket_b[ticket]]
        if need >= UNREACHABLE or need > trains_left:
            out[ticket] = 1.0 if need >= UNREACHABLE else min(need, trains) / trains
            out[flag + ticket] = 1.0
            if is_held:
                lost_points += ticket_points[ticket]
            continue
        out[ticket] = need / trains
        if not is_held:
            continue
        needed += need
        open_points += ticket_points[ticket]
        distances(ticket_b[ticket], cost, track_a, track_b, cities, from_b)
        for t in range(tracks):
            if cost[t] <= 0:
                continue  # taken, or already the seat's
            a, b = track_a[t], track_b[t]
            if from_a[a] + cost[t] + from_b[b] == need or from_a[b] + cost[t] + from_b[a] == need:
                out[on_way + t] = min(out[on_way + t] + 1.0 / 3.0, 1.0)
    out[totals] = min(needed / (2.0 * trains), 1.0)
    out[totals + 1] = min(open_points / 100.0, 1.0)
    out[totals + 2] = min(lost_points / 100.0, 1.0)
