"""Ticket to Ride's ``features=plan``: each ticket's cheapest way left and the tracks on it, as the seat
can know them, checked against shortest paths computed another way (Floyd-Warshall over the rules' view)."""

from __future__ import annotations

import numpy as np
import pytest
from game_helpers import random_game_positions

from boardlab.core.registry import make
from boardlab.games.tickettoride.state import KEEP_BASE, SETUP, plan_entries

INF = float("inf")


def _usable_costs(state, seat: int) -> dict[int, float]:
    """What a track costs ``seat``, from the rules' own words: its own 0, free and open its length."""
    b, owner = state.board, state.owner
    costs = {}
    for t in range(b.num_tracks):
        if owner[t] == seat:
            costs[t] = 0.0
        elif owner[t] < 0:
            twin = int(b.track_twin[t])
            if twin >= 0 and owner[twin] >= 0 and (owner[twin] == seat or not state.game.doubles_open):
                continue
            costs[t] = float(b.track_length[t])
    return costs


def _floyd_warshall(state, costs: dict[int, float]) -> np.ndarray:
    b = state.board
    d = np.full((b.num_cities, b.num_cities), INF)
    np.fill_diagonal(d, 0.0)
    for t, c in costs.items():
        a, z = int(b.track_a[t]), int(b.track_b[t])
        d[a, z] = d[z, a] = min(d[a, z], c)
    for k in range(b.num_cities):
        d = np.minimum(d, d[:, k:k + 1] + d[k:k + 1, :])
    return d


def _expected(state, seat: int) -> np.ndarray:
    b = state.board
    tickets, tracks = b.num_tickets, b.num_tracks
    out = np.zeros(plan_entries(tracks, tickets), dtype=np.float64)
    costs = _usable_costs(state, seat)
    d = _floyd_warshall(state, costs)
    done = dict(zip(state.tickets[seat], state.tickets_done(seat)))
    on_way = np.zeros(tracks)
    needed = open_points = lost_points = 0.0
    for ticket in list(state.tickets[seat]) + list(state.offers[seat]):
        held = ticket in done
        if held and done[ticket]:
            continue
        a, z = int(b.ticket_a[ticket]), int(b.ticket_b[ticket])
        need = d[a, z]
        if need == INF or need > state.trains[seat]:
            out[ticket] = 1.0 if need == INF else min(need, 45) / 45
            out[tickets + ticket] = 1.0
            lost_points += b.ticket_points[ticket] if held else 0
            continue
        out[ticket] = need / 45
        if held:
            needed += need
            open_points += b.ticket_points[ticket]
            for t, c in costs.items():
                u, v = int(b.track_a[t]), int(b.track_b[t])
                if c > 0 and min(d[a, u] + c + d[v, z], d[a, v] + c + d[u, z]) == need:
                    on_way[t] += 1
    out[2 * tickets:2 * tickets + tracks] = np.minimum(on_way / 3, 1.0)
    out[-3:] = [min(needed / 90, 1.0), min(open_points / 100, 1.0), min(lost_points / 100, 1.0)]
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_the_plan_entries_are_the_shortest_ways_left_to_each_ticket(players):
    spec = f"tickettoride:players={players},features=plan"
    plain = make(f"tickettoride:players={players}")
    checked = 0
    for state in random_game_positions(make(spec), seed=players, every=3):
        for seat in range(players):
            x = state.observation_tensor(seat)
            base = plain.observation_tensor_shape()[0]
            assert x.shape == (base + plan_entries(100, 30),)
            np.testing.assert_allclose(x[base:], _expected(state, seat), atol=1e-6)
            checked += 1
    assert checked > 100


def _holding_denver_el_paso() -> tuple:
    """A 2-player game after setup where seat 0 holds only Denver-El Paso (4 points) and nothing is claimed."""
    state = make("tickettoride:players=2,features=plan").new_initial_state(5)
    while state.phase == SETUP:
        state.apply_action(KEEP_BASE + 0b011)
    b = state.board
    ticket = next(t for t in range(30) if {b.cities[b.ticket_a[t]], b.cities[b.ticket_b[t]]} == {"Denver", "El Paso"})
    state.tickets[0], state.offers[0] = [ticket], []
    return state, ticket, make("tickettoride:players=2").observation_tensor_shape()[0]


def _track(state, a: str, z: str) -> int:
    b = state.board
    return next(t for t in range(100) if {b.cities[b.track_a[t]], b.cities[b.track_b[t]]} == {a, z})


def _claim(state, seat: int, track: int) -> None:
    state.owner[track] = seat
    state.claimed[seat].append(track)
    state.trains[seat] -= int(state.board.track_length[track])


def test_a_ticket_costs_the_trains_of_its_cheapest_way_and_marks_its_tracks():
    """Denver-El Paso: through Santa Fe, 2 + 2 trains; cheaper with one's own track, dearer when the
    opponent takes one (then two ways of 8 through Phoenix), lost when the trains are too few."""
    state, ticket, base = _holding_denver_el_paso()
    denver_santa_fe, santa_fe_el_paso = _track(state, "Denver", "Santa Fe"), _track(state, "Santa Fe", "El Paso")
    plan = state.observation_tensor(0)[base:]
    assert round(plan[ticket] * 45) == 4 and plan[30 + ticket] == 0
    assert {t for t in range(100) if plan[60 + t] > 0} == {denver_santa_fe, santa_fe_el_paso}
    assert plan[-3:].tolist() == pytest.approx([4 / 90, 4 / 100, 0.0])

    mine = state.clone()
    _claim(mine, 0, denver_santa_fe)
    plan = mine.observation_tensor(0)[base:]
    assert round(plan[ticket] * 45) == 2
    assert {t for t in range(100) if plan[60 + t] > 0} == {santa_fe_el_paso}

    theirs = state.clone()
    _claim(theirs, 1, santa_fe_el_paso)
    plan = theirs.observation_tensor(0)[base:]
    assert round(plan[ticket] * 45) == 8
    ways = {_track(state, *pair) for pair in [("Denver", "Phoenix"), ("Phoenix", "El Paso"), ("Denver", "Santa Fe"),
                                               ("Santa Fe", "Phoenix")]}
    assert {t for t in range(100) if plan[60 + t] > 0} == ways

    theirs.trains[0] = 7
    plan = theirs.observation_tensor(0)[base:]
    assert plan[30 + ticket] == 1 and plan[-3:].tolist() == pytest.approx([0.0, 0.0, 4 / 100])
    assert not plan[60:160].any()


def test_the_opponents_tickets_never_enter_the_plan():
    """What seat 0 reads is the same whatever tickets seat 1 holds (the conformance suite checks resampled worlds too)."""
    state, _, base = _holding_denver_el_paso()
    other = state.clone()
    others = [t for t in range(30) if t not in state.tickets[0] + state.tickets[1]]
    other.tickets[1] = others[:len(state.tickets[1])]  # as many (that is public), other cities
    np.testing.assert_array_equal(state.observation_tensor(0), other.observation_tensor(0))


def test_an_unknown_features_value_is_refused_by_name():
    with pytest.raises(Exception, match="features.*plain, plan"):
        make("tickettoride:features=routes")
