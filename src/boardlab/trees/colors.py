"""Colours of a drawn search tree, as the tree study asks: nodes by player, edges by visits.

* A node's colour says whose turn it is there: the colour of that seat's
  pieces when the game declares them (``GameType.player_colors``: red and
  yellow in Connect Four, white and black in chess), else a palette for up to
  8 players; chance nodes and finished games have colours of their own. A tree
  that does not know its players (a file from another tool) is coloured by
  depth parity, which is the player to move in an alternating two-player
  game, and the legend says so.
* An edge's colour says how often the search went through its child, on a log
  scale (light: rarely, dark: often), explained by a colour bar.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from boardlab.core.game import CHANCE, TERMINAL, UNKNOWN_PLAYER

#: one colour per player (tab10 without its grey, so grey can mean "unknown")
PLAYER_COLORS = np.array(
    [(31, 119, 180), (214, 39, 40), (44, 160, 44), (255, 127, 14), (148, 103, 189), (140, 86, 75), (227, 119, 194), (23, 190, 207)],
    dtype=np.uint8,
)
UNKNOWN_COLOR = np.array((200, 200, 200), dtype=np.uint8)
#: a chance node (dice, a card drawn): magenta, in no seat palette
CHANCE_COLOR = np.array((230, 0, 230), dtype=np.uint8)
#: a node where the game is over
TERMINAL_COLOR = np.array((110, 110, 110), dtype=np.uint8)
#: rings drawn around nodes in a diff
ADDED_COLOR = np.array((0, 200, 80), dtype=np.uint8)
CHANGED_COLOR = np.array((255, 190, 0), dtype=np.uint8)
BACKGROUND = (255, 255, 255)
EDGE_COLORMAP = "plasma_r"


def rgb_of(css: str) -> tuple[int, int, int]:
    """``"#d62728"`` -> ``(214, 39, 40)``."""
    text = css.strip().lstrip("#")
    if len(text) == 3:
        text = "".join(c * 2 for c in text)
    return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)


def rgb_tuple(colour: np.ndarray) -> tuple[int, int, int]:
    """An RGB row of the palette arrays as three ints: ``np.array((214, 39, 40))`` -> ``(214, 39, 40)``."""
    red, green, blue = (int(c) for c in colour)
    return red, green, blue


@dataclass
class Palette:
    """Seat colours and names of one game (or the generic palette), with the special codes' colours."""

    players: np.ndarray  # uint8 [seats, 3]
    names: list[str]
    game: str = ""

    @classmethod
    def for_game(cls, game=None) -> "Palette":
        """The game's declared seat colours and names; the generic palette for missing ones."""
        seats = max(len(PLAYER_COLORS), game.max_players if game is not None else 0)
        colours = [tuple(int(c) for c in PLAYER_COLORS[p % len(PLAYER_COLORS)]) for p in range(seats)]
        names = [f"player {p}" for p in range(seats)]
        if game is not None:
            declared = game.game_type
            for p, css in enumerate(declared.player_colors[:seats]):
                colours[p] = rgb_of(css)
            names = [game.player_name(p) for p in range(seats)]
        return cls(np.array(colours, dtype=np.uint8), names, game.name if game is not None else "")

    def colour(self, code: int) -> np.ndarray:
        if code >= 0:
            return self.players[code % len(self.players)]
        return {CHANCE: CHANCE_COLOR, TERMINAL: TERMINAL_COLOR}.get(code, UNKNOWN_COLOR)

    def label(self, code: int) -> str:
        if code >= 0:
            return f"{self.names[code % len(self.names)]} to move"
        return {CHANCE: "chance", TERMINAL: "game over"}.get(code, "unknown")


@dataclass
class NodeColoring:
    colors: np.ndarray  # uint8 [n, 3]
    #: (label, rgb) pairs for the legend
    legend: list[tuple[str, tuple[int, int, int]]]
    by_depth_parity: bool


def node_colors(player: np.ndarray, depth: np.ndarray, palette: Palette | None = None) -> NodeColoring:
    """Colour by player to move (chance and game-over nodes apart); by depth parity when no node knows its player."""
    palette = palette or Palette.for_game(None)
    player = np.asarray(player)
    if len(player) == 0 or np.all(player == UNKNOWN_PLAYER):
        parity = (np.asarray(depth) % 2).astype(np.int64)
        legend = [
            ("even depth (player unknown: coloured by depth parity)", rgb_tuple(palette.players[0])),
            ("odd depth", rgb_tuple(palette.players[1])),
        ]
        return NodeColoring(palette.players[parity], legend, True)
    codes = np.unique(player)
    table = {int(code): palette.colour(int(code)) for code in codes}
    lookup = np.zeros((256, 3), dtype=np.uint8)
    for code, colour in table.items():
        lookup[code & 0xFF] = colour
    colors = lookup[player.astype(np.int64) & 0xFF]
    order = sorted(table, key=lambda c: (c < 0, c if c >= 0 else -c))
    legend = [(palette.label(c), rgb_tuple(table[c])) for c in order]
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
