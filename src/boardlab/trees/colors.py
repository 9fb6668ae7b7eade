"""Colours of a drawn search tree, as the tree study asks: nodes by player, edges by visits.

* A node's colour says whose turn it is there (a palette for up to 8 players).
  Trees read from the file formats do not know the player (``player == -1``
  everywhere); then nodes are coloured by depth parity, which is the player to
  move in an alternating two-player game, and the legend says so.
* An edge's colour says how often the search went through its child, on a log
  scale (light: rarely, dark: often), explained by a colour bar.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: one colour per player (tab10 without its grey, so grey can mean "unknown")
PLAYER_COLORS = np.array(
    [(31, 119, 180), (214, 39, 40), (44, 160, 44), (255, 127, 14), (148, 103, 189), (140, 86, 75), (227, 119, 194), (23, 190, 207)],
    dtype=np.uint8,
)
UNKNOWN_COLOR = np.array((128, 128, 128), dtype=np.uint8)
#: rings drawn around nodes in a diff
ADDED_COLOR = np.array((0, 200, 80), dtype=np.uint8)
CHANGED_COLOR = np.array((255, 190, 0), dtype=np.uint8)
BACKGROUND = (255, 255, 255)
EDGE_COLORMAP = "plasma_r"


@dataclass
class NodeColoring:
    colors: np.ndarray  # uint8 [n, 3]
    #: (label, rgb) pairs for the legend
    legend: list[tuple[str, tuple[int, int, int]]]
    by_depth_parity: bool


def node_colors(player: np.ndarray, depth: np.ndarray) -> NodeColoring:
    """Colour by player to move; by depth parity when no node knows its player."""
    player = np.asarray(player)
    if len(player) == 0 or np.all(player < 0):
        parity = (np.asarray(depth) % 2).astype(np.int64)
        legend = [
            ("even depth (player unknown: coloured by depth parity)", tuple(int(c) for c in PLAYER_COLORS[0])),
            ("odd depth", tuple(int(c) for c in PLAYER_COLORS[1])),
        ]
        return NodeColoring(PLAYER_COLORS[parity], legend, True)
    colors = np.where((player >= 0)[:, None], PLAYER_COLORS[np.maximum(player, 0) % len(PLAYER_COLORS)], UNKNOWN_COLOR)
    present = sorted(int(p) for p in np.unique(player))
    legend = [(f"player {p} to move" if p >= 0 else "terminal / unknown", tuple(int(c) for c in (PLAYER_COLORS[p % 8] if p >= 0 else UNKNOWN_COLOR))) for p in present]
    return NodeColoring(colors.astype(np.uint8), legend, False)


def edge_lut(size: int = 256) -> np.ndarray:
    """The edge colour map as ``size`` RGB rows (index 0: fewest visits)."""
    from matplotlib import colormaps

    return (colormaps[EDGE_COLORMAP](np.linspace(0.08, 1.0, size))[:, :3] * 255).round().astype(np.uint8)


def visit_levels(visits: np.ndarray, vmax: int, size: int = 256) -> np.ndarray:
    """Index into :func:`edge_lut` of each visit count: ``log(1 + v) / log(1 + vmax)``, scaled."""
    scale = np.log1p(max(int(vmax), 1))
    t = np.log1p(np.maximum(np.asarray(visits, dtype=np.float64), 0)) / scale
    return np.clip((t * (size - 1)).round(), 0, size - 1).astype(np.int64)
