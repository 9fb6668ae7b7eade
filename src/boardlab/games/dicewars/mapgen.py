"""Dice Wars maps: areas of hexes grown on a hex grid from a seed.

The generator follows the course engine's board generation (the Dice Wars rules, docs/references.md):

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

The growth is compiled (numba, :func:`grow`, on a neighbour table of hex
numbers ``y * width + x``); ``grow.py_func`` is the same code run as plain
Python, the reference the tests compare it with. Randomness is the
xorshift64* stream of the compiled kernels.

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
from numba import njit

from boardlab.core.errors import BoardlabError
from boardlab.core.rng import derive_seed, kernel_random, kernel_rng

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
        """What a board view needs: the grid size, each area's hexes and neighbours (and the attempts
        the generator threw away before this map, with why)."""
        return {"width": self.width, "height": self.height,
                "areas": [[[x, y] for x, y in h] for h in self.hexes],
                "adjacent": [list(a) for a in self.adjacent],
                "rejected": list(self.rejected)}


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


def neighbour_table(width: int, height: int) -> np.ndarray:
    """``table[h, i]``: the i-th on-grid neighbour of hex ``h = y * width + x`` (-1 padded)."""
    table = np.full((width * height, 6), -1, dtype=np.int64)
    for y in range(height):
        for x in range(width):
            for i, (a, b) in enumerate(neighbours(x, y, width, height)):
                table[y * width + x, i] = b * width + a
    return table


@njit(cache=True)
def _mark(h, k, owner, used_near, nbr):
    owner[h] = k
    for i in range(6):
        n = nbr[h, i]
        if n >= 0:
            used_near[n] += 1


@njit(cache=True)
def _unmark(h, owner, used_near, nbr):
    owner[h] = -1
    for i in range(6):
        n = nbr[h, i]
        if n >= 0:
            used_near[n] -= 1


@njit(cache=True)
def _free_neighbours(hexes, size, owner, nbr, seen, stamp, out):
    """The free hexes next to ``hexes[:size]``, each once, in discovery order; their count."""
    c = 0
    for j in range(size):
        h = hexes[j]
        for i in range(6):
            n = nbr[h, i]
            if n >= 0 and owner[n] < 0 and seen[n] != stamp:
                seen[n] = stamp
                out[c] = n
                c += 1
    return c


@njit(cache=True)
def grow(areas, min_hexes, max_hexes, nbr, rng, owner, sizes):
    """One attempt of the course's growth on the grid ``nbr`` (see the module docstring); fills
    ``owner[hex]`` (area or -1) and ``sizes[area]`` (the size grown to, before hole filling).
    Returns 0, or 1 when an area found no hex to start on, 2 when one got stuck too often."""
    n = nbr.shape[0]
    owner[:] = -1
    used_near = np.zeros(n, dtype=np.int64)  # used hexes next to each hex
    seen = np.zeros(n, dtype=np.int64)
    stamp = 0
    cand = np.empty(n, dtype=np.int64)
    area = np.empty(n, dtype=np.int64)
    for k in range(areas):
        placed = False
        for _ in range(AREA_RESTARTS):
            if k == 0:
                start = np.int64(kernel_random(rng) % np.uint64(n))
            else:
                c = 0
                for h in range(n):
                    if owner[h] < 0 and used_near[h] == 0:
                        for i in range(6):
                            m = nbr[h, i]
                            if m >= 0 and owner[m] < 0 and used_near[m] > 0:
                                cand[c] = h
                                c += 1
                                break
                if c == 0:
                    return 1
                start = cand[np.int64(kernel_random(rng) % np.uint64(c))]
            target = min_hexes + np.int64(kernel_random(rng) % np.uint64(max_hexes - min_hexes + 1))
            area[0] = start
            _mark(start, k, owner, used_near, nbr)
            size = 1
            stuck = False
            while size < target:
                stamp += 1
                c = _free_neighbours(area, size, owner, nbr, seen, stamp, cand)
                if c == 0:
                    stuck = True
                    break
                pick = cand[np.int64(kernel_random(rng) % np.uint64(c))]
                _mark(pick, k, owner, used_near, nbr)
                area[size] = pick
                size += 1
            if stuck:
                for j in range(size):
                    _unmark(area[j], owner, used_near, nbr)
                continue
            # hole filling: a free hex next to the area with at most 2 of its 6 sides outside it joins it
            stamp += 1
            c = _free_neighbours(area, size, owner, nbr, seen, stamp, cand)
            for j in range(c):
                h = cand[j]
                inside = 0
                for i in range(6):
                    m = nbr[h, i]
                    if m >= 0 and owner[m] == k:
                        inside += 1
                if 6 - inside <= 2:
                    _mark(h, k, owner, used_near, nbr)
            sizes[k] = target
            placed = True
            break
        if not placed:
            return 2
    return 0


@lru_cache(maxsize=256)
def generate(seed: int, areas: int = 29, min_hexes: int = 12, max_hexes: int = 18,
             width: int = WIDTH, height: int = HEIGHT) -> Map:
    """The map of ``seed``: ``areas`` connected areas (disconnected attempts are rejected)."""
    if not 2 <= areas <= 64 or not 1 <= min_hexes <= max_hexes:
        raise BoardlabError(f"a map needs 2..64 areas and 1 <= min_hexes <= max_hexes, not {areas}, {min_hexes}..{max_hexes}")
    rejected: list[str] = []
    for attempt in range(MAX_ATTEMPTS):
        owner = np.empty(width * height, dtype=np.int64)
        sizes = np.zeros(areas, dtype=np.int64)
        status = grow(areas, min_hexes, max_hexes, _table(width, height), kernel_rng(derive_seed(seed, "map", attempt)),
                      owner, sizes)
        if status:
            rejected.append("no room to start an area" if status == 1 else f"an area got stuck {AREA_RESTARTS} times")
            continue
        table = _table(width, height)
        a, b = np.repeat(owner, 6), owner[table.ravel()]
        touch = (a >= 0) & (table.ravel() >= 0) & (b >= 0) & (a != b)
        pairs = np.unique(a[touch] * areas + b[touch])
        adjacent_lists: list[list[int]] = [[] for _ in range(areas)]
        for code in pairs.tolist():
            adjacent_lists[code // areas].append(code % areas)
        adjacent = tuple(tuple(x) for x in adjacent_lists)
        if not _connected(adjacent):
            rejected.append("disconnected")
            continue
        grown: list[list[tuple[int, int]]] = [[] for _ in range(areas)]
        for h in np.flatnonzero(owner >= 0).tolist():  # ascending hex number: by row, then column
            grown[int(owner[h])].append((h % width, h // width))
        cells = tuple(tuple(row) for row in owner.reshape(height, width).tolist())
        return Map(seed, width, height, tuple(tuple(g) for g in grown), cells, adjacent, tuple(rejected),
                   tuple(int(v) for v in sizes))
    raise BoardlabError(f"no connected map of {areas} areas on a {width}x{height} grid in {MAX_ATTEMPTS} attempts "
                        f"(seed {seed}; last: {rejected[-1]})")


@lru_cache(maxsize=8)
def _table(width: int, height: int) -> np.ndarray:
    return neighbour_table(width, height)


def grid_for(areas: int) -> tuple[int, int]:
    """The grid for ``areas`` areas: the engine's 32 x 28 up to 29 areas, taller beyond."""
    if areas <= 29:
        return WIDTH, HEIGHT
    return WIDTH, int(np.ceil(HEIGHT * areas / 29))
