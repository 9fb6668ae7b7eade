"""The USA map of Ticket to Ride as arrays: cities, tracks, tickets and the deck.

The facts come from ``boardlab/data/tickettoride/usa.json`` (hand-typed from the
rulebook and cross-checked against four public implementations, see
``data/tickettoride/PROVENANCE.md``) and the city positions from
``usa_cities.csv`` (real latitude and longitude). :func:`usa_map` loads them
once and checks every figure of the file's ``verification`` block, so a damaged
copy fails loudly instead of playing a different game.

Numbering used everywhere (the engine, the compiled kernel, the agents, the web view):

* card colours ``0..7`` = red, orange, yellow, green, blue, pink, black, white;
  ``8`` = locomotive (:data:`LOCO`);
* a track's colour is ``0..7`` or :data:`GRAY` (-1: paid with any one colour);
* tracks ``0..99`` in the file's order; the two tracks of a double route share a
  ``pair`` and each knows its ``twin``; ``link[t]`` numbers the 78 city pairs
  (a double route's tracks share one link);
* cities ``0..35`` and tickets ``0..29`` in the file's order.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from boardlab.core.errors import FormatError

COLOURS = ("red", "orange", "yellow", "green", "blue", "pink", "black", "white")
LOCO = 8
CARD_NAMES = COLOURS + ("locomotive",)
#: two letters per card in the one-line notation, one code per card (blue "bu", black "bk")
CARD_CODES = ("re", "or", "ye", "gr", "bu", "pi", "bk", "wh", "lo")
NUM_CARD_TYPES = 9
GRAY = -1
#: CSS colours of the card and track colours, for the board view
CSS = {
    "red": "#d7301f", "orange": "#f28e2b", "yellow": "#f2cf3c", "green": "#3a9a3a", "blue": "#2f6fd0",
    "pink": "#e377c2", "black": "#2b2b2b", "white": "#f4f4f0", "gray": "#9a9a9a", "locomotive": "#8c5fd0",
}
MAX_LENGTH = 6


@dataclass(frozen=True)
class TTRMap:
    """One board: everything the rules need, as tuples and numpy arrays (read-only by convention)."""

    name: str
    cities: tuple[str, ...]
    latitude: np.ndarray
    longitude: np.ndarray
    track_a: np.ndarray       # city index of each track's ends
    track_b: np.ndarray
    track_length: np.ndarray
    track_colour: np.ndarray  # 0..7, or GRAY
    track_twin: np.ndarray    # the other track of a double route, or -1
    track_link: np.ndarray    # city pair number of each track
    link_a: np.ndarray        # city pair ends
    link_b: np.ndarray
    ticket_a: np.ndarray
    ticket_b: np.ndarray
    ticket_points: np.ndarray
    deck: np.ndarray          # cards of each of the 9 kinds
    trains: int
    route_points: np.ndarray  # points of a route by length (index 0 unused)
    longest_bonus: int
    raw: dict[str, Any]       # the file as loaded (for provenance and views)

    @property
    def num_cities(self) -> int:
        return len(self.cities)

    @property
    def num_tracks(self) -> int:
        return len(self.track_length)

    @property
    def num_links(self) -> int:
        return len(self.link_a)

    @property
    def num_tickets(self) -> int:
        return len(self.ticket_points)

    @property
    def num_cards(self) -> int:
        return int(self.deck.sum())

    def colour_name(self, colour: int) -> str:
        return "gray" if colour == GRAY else COLOURS[colour]

    def track_name(self, track: int) -> str:
        """``Seattle–Portland`` (the ends of a track)."""
        return f"{self.cities[self.track_a[track]]}\u2013{self.cities[self.track_b[track]]}"

    def ticket_name(self, ticket: int) -> str:
        return f"{self.cities[self.ticket_a[ticket]]}\u2013{self.cities[self.ticket_b[ticket]]} ({self.ticket_points[ticket]})"

    def view(self) -> dict[str, Any]:
        """The map for a board view: cities with latitude and longitude, tracks, colours (JSON ready;
        a fresh copy, so that a caller may change it)."""
        return json.loads(_map_view_json(self.name))


def _read_data(name: str) -> tuple[dict[str, Any], list[dict[str, str]]]:
    folder = resources.files("boardlab.data") / "tickettoride"
    try:
        data = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
        rows = list(csv.DictReader((folder / f"{name}_cities.csv").read_text(encoding="utf-8").splitlines()))
    except (OSError, json.JSONDecodeError) as exc:
        raise FormatError(f"Ticket to Ride map {name!r}: cannot read its data files ({exc})") from None
    return data, rows


def _check(name: str, condition: bool, what: str) -> None:
    if not condition:
        raise FormatError(f"Ticket to Ride map {name!r}: {what}")


@lru_cache(maxsize=None)
def load_map(name: str = "usa") -> TTRMap:
    """Load and check a map shipped in ``boardlab/data/tickettoride``."""
    data, rows = _read_data(name)
    cities = tuple(data["cities"])
    index = {c: i for i, c in enumerate(cities)}
    where = {row["city"]: (float(row["latitude"]), float(row["longitude"])) for row in rows}
    _check(name, set(where) == set(cities), "the cities of the CSV and the JSON differ")
    routes = data["routes"]
    _check(name, [r["id"] for r in routes] == list(range(len(routes))), "route ids are not 0..n-1 in order")
    track_a = np.array([index[r["a"]] for r in routes], dtype=np.int64)
    track_b = np.array([index[r["b"]] for r in routes], dtype=np.int64)
    length = np.array([r["length"] for r in routes], dtype=np.int64)
    colour = np.array([GRAY if r["color"] == "gray" else COLOURS.index(r["color"]) for r in routes], dtype=np.int64)
    twin = np.full(len(routes), -1, dtype=np.int64)
    by_pair: dict[int, list[int]] = {}
    for r in routes:
        if r["pair"] is not None:
            by_pair.setdefault(r["pair"], []).append(r["id"])
    for pair, members in by_pair.items():
        _check(name, len(members) == 2, f"double route {pair} has {len(members)} tracks")
        first, second = members
        _check(name, {routes[first]["a"], routes[first]["b"]} == {routes[second]["a"], routes[second]["b"]}
               and routes[first]["length"] == routes[second]["length"], f"double route {pair} joins different cities")
        twin[first], twin[second] = second, first
    link = np.full(len(routes), -1, dtype=np.int64)
    link_a, link_b = [], []
    for t in range(len(routes)):
        if twin[t] >= 0 and twin[t] < t:
            link[t] = link[twin[t]]
            continue
        link[t] = len(link_a)
        link_a.append(int(track_a[t]))
        link_b.append(int(track_b[t]))
    tickets = data["tickets"]
    points = np.zeros(MAX_LENGTH + 1, dtype=np.int64)
    for key, value in data["route_points"].items():
        points[int(key)] = value
    deck = np.array([data["deck"][c] for c in CARD_NAMES], dtype=np.int64)
    board = TTRMap(
        name=name, cities=cities,
        latitude=np.array([where[c][0] for c in cities]), longitude=np.array([where[c][1] for c in cities]),
        track_a=track_a, track_b=track_b, track_length=length, track_colour=colour, track_twin=twin, track_link=link,
        link_a=np.array(link_a, dtype=np.int64), link_b=np.array(link_b, dtype=np.int64),
        ticket_a=np.array([index[t["a"]] for t in tickets], dtype=np.int64),
        ticket_b=np.array([index[t["b"]] for t in tickets], dtype=np.int64),
        ticket_points=np.array([t["points"] for t in tickets], dtype=np.int64),
        deck=deck, trains=int(data["trains_per_player"]), route_points=points,
        longest_bonus=int(data["longest_path_bonus"]), raw=data,
    )
    _verify(board)
    for array in (board.latitude, board.longitude, track_a, track_b, length, colour, twin, link, board.link_a,
                  board.link_b, board.ticket_a, board.ticket_b, board.ticket_points, deck, points):
        array.setflags(write=False)
    return board


def _verify(board: TTRMap) -> None:
    """The figures of the file's ``verification`` block, recomputed from the data."""
    v = board.raw["verification"]
    name = board.name
    _check(name, board.num_cities == v["n_cities"], f"{board.num_cities} cities, expected {v['n_cities']}")
    _check(name, board.num_links == v["n_city_pairs"], f"{board.num_links} city pairs, expected {v['n_city_pairs']}")
    _check(name, int((board.track_twin >= 0).sum()) // 2 == v["n_double_routes"], "double routes miscounted")
    _check(name, board.num_tracks == v["n_routes_counting_each_track"], "tracks miscounted")
    _check(name, int(board.track_length.sum()) == v["total_track_length"], "total track length differs")
    spaces = {board.colour_name(c): int(board.track_length[board.track_colour == c].sum()) for c in [GRAY, *range(8)]}
    _check(name, spaces == v["spaces_per_colour"], f"spaces per colour {spaces}")
    by_length = {str(k): int((board.track_length == k).sum()) for k in range(1, MAX_LENGTH + 1)}
    _check(name, by_length == v["routes_by_length_counting_each_track"], f"tracks by length {by_length}")
    _check(name, board.num_tickets == v["n_tickets"] and int(board.ticket_points.sum()) == v["ticket_points_total"],
           "tickets miscounted")
    _check(name, board.num_cards == v["deck_total"], f"{board.num_cards} cards, expected {v['deck_total']}")


@lru_cache(maxsize=None)
def _map_view_json(name: str) -> str:
    """The map view as JSON text: every observation carries it, and parsing it again is the cheap
    way to a fresh copy (a deep copy of its thousand small objects costs ten times as much)."""
    return json.dumps(_map_view(name))


def _map_view(name: str) -> dict[str, Any]:
    board = load_map(name)
    return {
        "name": name,
        "cities": [{"name": c, "lat": float(board.latitude[i]), "lon": float(board.longitude[i])}
                   for i, c in enumerate(board.cities)],
        "tracks": [{"id": t, "a": int(board.track_a[t]), "b": int(board.track_b[t]), "length": int(board.track_length[t]),
                    "colour": board.colour_name(int(board.track_colour[t])), "twin": int(board.track_twin[t])}
                   for t in range(board.num_tracks)],
        "colours": dict(CSS),
    }


def usa_map() -> TTRMap:
    return load_map("usa")
