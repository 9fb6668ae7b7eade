"""Dice Wars maps: areas of hexes grown on a hex grid from a seed.

The generator follows the course engine (rules-dicewars.md, "Board generation"):

* the grid is ``width`` x ``height`` hexes in "odd-r" offset coordinates
  (odd rows shifted half a hex right): 32 x 28 as the engine's doubled
  coordinates x in [-32, 30], y in [-14, 13];
* the first area starts on a random hex; every later one starts on a random
  free hex that touches no used hex but has a neighbour that does (the
  one-hex gap), then grows by random free neighbouring hexes until it has
  ``randint(min_hexes, max_hexes)`` hexes. An area that gets stuck is
  discarded and started again;
* hole filling: after an area has grown, every free hex next to it with at
  most 2 of its 6 neighbours outside the area is absorbed (so an area can
  end up larger than ``max_hexes``, never smaller than ``min_hexes``);
* two areas are adjacent when a hex of one shares an edge with a hex of the other.

The course engine does not check that the areas form one connected map. This
generator **rejects** a disconnected map (or one where some area found no room)
and grows the whole map again from the next attempt's stream
(``derive_seed(seed, attempt)``); :attr:`Map.rejected` says how many attempts
were thrown away and why, so a map is always exactly ``areas`` connected areas
and the same seed always gives the same map.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from boardlab.core.errors import BoardlabError
from boardlab.core.rng import derive_seed

WIDTH, HEIGHT = 32, 28
MAX_ATTEMPTS = 200
#: restarts of one area that got stuck before the attempt is given up
AREA_RESTARTS = 40


def neighbours(x: int, y: int, width: int, height: int) -> list[tuple[int, int]]:
    """The on-grid neighbours of hex (x, y) in odd-r offset coordinates."""
    if y % 2 == 0:
        cand = ((x - 1, y), (x + 1, y), (x - 1, y - 1), (x, y - 1), (x - 1, y + 1), (x, y + 1))
    else:
        cand = ((x - 1, y), (x + 1, y), (x, y - 1), (x + 1, y - 1), (x, y + 1), (x + 1, y + 1))
    return [(a, b) for a, b in cand if 0 <= a < width and 0 <= b < height]


@dataclass(frozen=True)
class Map:
    """A generated map. Areas are numbered 0..n-1 (people see them as 1..n)."""

    seed: int
    width: int
    height: int
    #: the hexes (x, y) of each area
    hexes: tuple[tuple[tuple[int, int], ...], ...]
    #: ``cells[y][x]``: the area of each hex, -1 for sea
    cells: tuple[tuple[int, ...], ...]
    #: the areas adjacent to each area, ascending
    adjacent: tuple[tuple[int, ...], ...]
    #: attempts thrown away before this map, with the reason of each
    rejected: tuple[str, ...] = field(default=())
    #: the size each area grew to (randint(min_hexes, max_hexes)) before hole filling added hexes
    grown: tuple[int, ...] = field(default=())

    @property
    def areas(self) -> int:
        return len(self.hexes)

    def adjacency_matrix(self) -> np.ndarray:
        n = self.areas
        m = np.zeros((n, n), dtype=np.bool_)
        for a, near in enumerate(self.adjacent):
            m[a, list(near)] = True
        return m

    def is_connected(self) -> bool:
        return _connected(self.adjacent)

    def centre(self, area: int) -> tuple[float, float]:
        """The mean position of an area's hexes, in hex-column/row units (odd rows shifted by 0.5)."""
        pts = self.hexes[area]
        return (sum(x + 0.5 * (y % 2) for x, y in pts) / len(pts), sum(y for _, y in pts) / len(pts))

    def to_dict(self) -> dict:
        """What a board view needs: the grid size, each area's hexes and neighbours."""
        return {"width": self.width, "height": self.height,
                "areas": [[[x, y] for x, y in h] for h in self.hexes],
                "adjacent": [list(a) for a in self.adjacent]}


def _connected(adjacent) -> bool:
    n = len(adjacent)
    if n == 0:
        return False
    seen = {0}
    todo = [0]
    while todo:
        a = todo.pop()
        for b in adjacent[a]:
            if b not in seen:
                seen.add(b)
                todo.append(b)
    return len(seen) == n


def _grow(rng: np.random.Generator, areas: int, min_hexes: int, max_hexes: int, width: int, height: int):
    """One attempt: the hexes of each area, or None (with the reason) when an area found no room."""
    owner: dict[tuple[int, int], int] = {}
    near = {(x, y): neighbours(x, y, width, height) for x in range(width) for y in range(height)}
    all_hexes = sorted(near, key=lambda h: (h[1], h[0]))
    result: list[list[tuple[int, int]]] = []
    sizes: list[int] = []
    for k in range(areas):
        for _ in range(AREA_RESTARTS):
            if k == 0:
                start = all_hexes[int(rng.integers(len(all_hexes)))]
            else:
                touching = {h for u in owner for h in near[u] if h not in owner}  # free hexes next to used ones
                candidates = [h for h in all_hexes if h not in owner and h not in touching
                              and any(n in touching for n in near[h])]
                if not candidates:
                    return None, f"no room to start area {k + 1}", []
                start = candidates[int(rng.integers(len(candidates)))]
            target = int(rng.integers(min_hexes, max_hexes + 1))
            area = [start]
            owner[start] = k
            stuck = False
            while len(area) < target:
                options = sorted({n for h in area for n in near[h] if n not in owner}, key=lambda h: (h[1], h[0]))
                if not options:
                    stuck = True
                    break
                pick = options[int(rng.integers(len(options)))]
                owner[pick] = k
                area.append(pick)
            if stuck:
                for h in area:
                    del owner[h]
                continue
            # hole filling: a free hex next to the area with at most 2 neighbours outside it joins it
            for h in sorted({n for a in area for n in near[a] if n not in owner}, key=lambda h: (h[1], h[0])):
                outside = 6 - sum(1 for n in near[h] if owner.get(n) == k)
                if outside <= 2:
                    owner[h] = k
                    area.append(h)
            result.append(area)
            sizes.append(target)
            break
        else:
            return None, f"area {k + 1} got stuck {AREA_RESTARTS} times", []
    return result, "", sizes


@lru_cache(maxsize=256)
def generate(seed: int, areas: int = 29, min_hexes: int = 12, max_hexes: int = 18,
             width: int = WIDTH, height: int = HEIGHT) -> Map:
    """The map of ``seed``: ``areas`` connected areas (disconnected attempts are rejected)."""
    if not 2 <= areas <= 64 or not 1 <= min_hexes <= max_hexes:
        raise BoardlabError(f"a map needs 2..64 areas and 1 <= min_hexes <= max_hexes, not {areas}, {min_hexes}..{max_hexes}")
    rejected: list[str] = []
    for attempt in range(MAX_ATTEMPTS):
        rng = np.random.default_rng(derive_seed(seed, "map", attempt))
        grown, why, sizes = _grow(rng, areas, min_hexes, max_hexes, width, height)
        if grown is None:
            rejected.append(why)
            continue
        cells = [[-1] * width for _ in range(height)]
        for k, area in enumerate(grown):
            for x, y in area:
                cells[y][x] = k
        adjacent = []
        for k, area in enumerate(grown):
            near = {cells[ny][nx] for x, y in area for nx, ny in neighbours(x, y, width, height)}
            near.discard(-1)
            near.discard(k)
            adjacent.append(tuple(sorted(near)))
        if not _connected(adjacent):
            rejected.append("disconnected")
            continue
        return Map(seed, width, height, tuple(tuple(sorted(a, key=lambda h: (h[1], h[0]))) for a in grown),
                   tuple(tuple(r) for r in cells), tuple(adjacent), tuple(rejected), tuple(sizes))
    raise BoardlabError(f"no connected map of {areas} areas on a {width}x{height} grid in {MAX_ATTEMPTS} attempts "
                        f"(seed {seed}; last: {rejected[-1]})")


def grid_for(areas: int) -> tuple[int, int]:
    """The grid for ``areas`` areas: the engine's 32 x 28 up to 29 areas, taller beyond."""
    if areas <= 29:
        return WIDTH, HEIGHT
    return WIDTH, int(np.ceil(HEIGHT * areas / 29))
