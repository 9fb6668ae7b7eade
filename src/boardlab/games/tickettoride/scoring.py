"""Scoring: route points, tickets completed through a player's own routes, the longest continuous path.

Plain Python over a player's claimed tracks; the compiled kernel has its own
copies (:mod:`boardlab.games.tickettoride.kernel`), tested against these.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from boardlab.games.tickettoride.map import TTRMap


def components(board: TTRMap, tracks: Iterable[int]) -> list[int]:
    """A component label for every city in the network of ``tracks`` (union-find; a city alone is its own)."""
    parent = list(range(board.num_cities))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for t in tracks:
        a, b = find(int(board.track_a[t])), find(int(board.track_b[t]))
        if a != b:
            parent[a] = b
    return [find(c) for c in range(board.num_cities)]


def tickets_done(board: TTRMap, tracks: Iterable[int], tickets: Sequence[int]) -> list[bool]:
    """Whether each ticket's two cities are joined by ``tracks`` (one player's routes)."""
    label = components(board, tracks)
    return [label[board.ticket_a[t]] == label[board.ticket_b[t]] for t in tickets]


def route_points(board: TTRMap, tracks: Iterable[int]) -> int:
    return int(sum(board.route_points[board.track_length[t]] for t in tracks))


def longest_path(board: TTRMap, tracks: Sequence[int]) -> int:
    """The length (in trains) of the longest continuous path of ``tracks``: a trail that uses each
    track at most once and may pass through a city several times (the rulebook's Longest Path)."""
    tracks = [int(t) for t in tracks]
    if not tracks:
        return 0
    ends: dict[int, list[tuple[int, int]]] = {}
    for k, t in enumerate(tracks):
        a, b = int(board.track_a[t]), int(board.track_b[t])
        ends.setdefault(a, []).append((k, b))
        ends.setdefault(b, []).append((k, a))
    lengths = [int(board.track_length[t]) for t in tracks]
    used = [False] * len(tracks)
    best = 0

    def walk(city: int, total: int) -> None:
        nonlocal best
        if total > best:
            best = total
        for k, other in ends[city]:
            if not used[k]:
                used[k] = True
                walk(other, total + lengths[k])
                used[k] = False

    for city in ends:
        walk(city, 0)
    return best
