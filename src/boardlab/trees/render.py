"""Draw a search tree as a PNG: tidy layout, nodes coloured by player, edges by visits, legend, title.

Edges and nodes are rasterised by compiled kernels straight into an RGB array
(a million edges is a few tens of millions of pixel writes; a plotting
library's line collections would take minutes). Pillow then adds the title,
the legend and the colour bar, with matplotlib's DejaVu Sans font, and writes
the PNG atomically.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from boardlab.core.errors import SpecError
from boardlab.core.records import write_atomic
from boardlab.trees.colors import (
    ADDED_COLOR,
    BACKGROUND,
    CHANGED_COLOR,
    Palette,
    edge_lut,
    node_colors,
    rgb_tuple,
    visit_levels,
)
from boardlab.trees.diff import TreeDiff
from boardlab.trees.gamelabels import identify, node_notation
from boardlab.trees.layout import cut, tidy_layout
from boardlab.trees.model import Tree

#: the largest picture drawn: pixels a side, and in all (100 million RGB pixels are 300 MB
#: in memory, twice that while the PNG is encoded)
MAX_SIDE = 20_000
MAX_PIXELS = 100_000_000
MIN_WIDTH = 200
MIN_HEIGHT = 100


def picture_size(width: int, height: int | None, names: tuple[str, str] = ("width", "height")) -> tuple[int, int]:
    """The checked (width, height) of a picture, the height defaulting to 0.6 x width.

    Too small or too large a picture is a :class:`SpecError` naming the limit
    (``names`` are what the caller calls the two numbers, e.g. ``--width``).
    """
    checked: list[int] = []
    for name, value, low in ((names[0], width, MIN_WIDTH), (names[1], height, MIN_HEIGHT)):
        if value is None:
            value = round(checked[0] * 0.6)
        value = int(value)
        if value < low:
            raise SpecError(f"{name} must be at least {low} pixels, not {value}")
        if value > MAX_SIDE:
            raise SpecError(f"{name} {value} is too large: a picture is at most {MAX_SIDE:,} pixels a side")
        checked.append(value)
    if checked[0] * checked[1] > MAX_PIXELS:
        raise SpecError(f"a {checked[0]}x{checked[1]} picture is too large: at most {MAX_PIXELS:,} pixels in all")
    return checked[0], checked[1]


@dataclass
class RenderInfo:
    path: Path
    width: int
    height: int
    #: indices (in the tree given) of the nodes drawn, and their pixel centres
    kept: np.ndarray
    px: np.ndarray
    py: np.ndarray
    node_rgb: np.ndarray
    radius: int
    by_depth_parity: bool
    title: str


@numba.njit(cache=True)
def _draw_edges(img, px, py, parent, order, level, lut):
    h, w = img.shape[0], img.shape[1]
    for k in range(len(order)):
        i = order[k]
        p = parent[i]
        if p < 0:
            continue
        x0, y0, x1, y1 = px[p], py[p], px[i], py[i]
        steps = max(abs(x1 - x0), abs(y1 - y0))
        r, g, b = lut[level[i], 0], lut[level[i], 1], lut[level[i], 2]
        for s in range(steps + 1):
            t = s / steps if steps > 0 else 0.0
            x = int(round(x0 + (x1 - x0) * t))
            y = int(round(y0 + (y1 - y0) * t))
            if 0 <= x < w and 0 <= y < h:
                img[y, x, 0] = r
                img[y, x, 1] = g
                img[y, x, 2] = b


@numba.njit(cache=True)
def _draw_discs(img, px, py, nodes, colors, radius):
    """Filled discs at the given nodes; ``colors`` has one row per node or a single row for all."""
    h, w = img.shape[0], img.shape[1]
    r2 = radius * radius + radius  # a rounder disc than r*r for small radii
    one = colors.shape[0] == 1
    for k in range(len(nodes)):
        i = nodes[k]
        c = 0 if one else i
        for dy in range(-radius, radius + 1):
            y = py[i] + dy
            if y < 0 or y >= h:
                continue
            for dx in range(-radius, radius + 1):
                if dx * dx + dy * dy > r2:
                    continue
                x = px[i] + dx
                if 0 <= x < w:
                    img[y, x, 0] = colors[c, 0]
                    img[y, x, 1] = colors[c, 1]
                    img[y, x, 2] = colors[c, 2]


def _font(size: int):
    import matplotlib
    from PIL import ImageFont

    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    return ImageFont.truetype(str(path), size) if path.exists() else ImageFont.load_default(size)


def default_title(tree: Tree, drawn: int) -> str:
    game = tree.meta.get("game") or tree.meta.get("game_spec") or tree.meta.get("source") or "search tree"
    root = node_notation(tree, 0) if len(tree) else ""
    if len(root) > 60:
        root = root[:57] + "..."
    return f"{game}  ·  root state {root or '(unnamed)'}  ·  {drawn:,} of {len(tree):,} nodes drawn"


def render_png(
    tree: Tree,
    path: str | os.PathLike,
    width: int = 4000,
    height: int | None = None,
    max_depth: int | None = None,
    min_visits: int | None = None,
    diff: TreeDiff | None = None,
    title: str | None = None,
) -> RenderInfo:
    """Draw ``tree`` (optionally pruned by depth and visits) to a PNG ``width`` pixels wide.

    With ``diff`` (from :func:`boardlab.trees.diff.diff` against an earlier
    tree, ``tree`` being the later one), nodes added since are ringed green and
    nodes whose visit count changed are ringed gold.
    """
    from PIL import Image, ImageDraw

    width, height = picture_size(width, height)
    sub, kept = cut(tree, max_depth=max_depth, min_visits=min_visits)
    x, _ = tidy_layout(sub)
    depth = sub.depth()
    n = len(sub)

    # the frame: title band, tree area, legend band
    margin = max(10, width // 100)
    title_h = max(30, width // 55)
    legend_h = max(70, width // 22)
    left, right = margin, width - margin
    top, bottom = title_h + margin, height - legend_h - margin
    span = float(x.max()) if n else 0.0
    levels = int(depth.max()) if n else 0
    unit_x = (right - left) / span if span > 0 else float(right - left)
    unit_y = (bottom - top) / levels if levels > 0 else float(bottom - top)
    radius = int(max(0.0, min(unit_x * 0.4, unit_y * 0.25, 8.0)))
    pad = radius + 2
    if span > 0:
        px = np.round(left + pad + x * ((right - left - 2 * pad) / span)).astype(np.int64)
    else:
        px = np.full(n, (left + right) // 2, dtype=np.int64)
    py = np.round(top + pad + depth * ((bottom - top - 2 * pad) / max(levels, 1))).astype(np.int64)

    img = np.empty((height, width, 3), dtype=np.uint8)
    img[:] = BACKGROUND
    visits = np.asarray(sub.visits, dtype=np.int64)
    vmax = int(visits[1:].max()) if n > 1 else 1
    lut = edge_lut()
    order = np.argsort(visits, kind="stable")  # heavy edges drawn last, on top
    _draw_edges(img, px, py, np.asarray(sub.parent, dtype=np.int64), order, visit_levels(visits, vmax), lut)
    if diff is not None:
        added = np.zeros(len(tree), dtype=bool)
        added[diff.added] = True
        changed = np.zeros(len(tree), dtype=bool)
        changed[diff.changed] = True
        ring = radius + max(2, radius // 2)
        _draw_discs(img, px, py, np.flatnonzero(changed[kept]), CHANGED_COLOR[None, :], ring)
        _draw_discs(img, px, py, np.flatnonzero(added[kept]), ADDED_COLOR[None, :], ring)
    game, _ = identify(tree)
    coloring = node_colors(sub.player, depth, Palette.for_game(game))
    _draw_discs(img, px, py, np.arange(n), coloring.colors, radius)

    # title, legend and colour bar
    image = Image.fromarray(img)
    draw = ImageDraw.Draw(image)
    title = title if title is not None else default_title(tree, n)
    if diff is not None:
        s = diff.summary()
        title += f"  ·  diff: {s['added']:,} added, {s['changed']:,} changed, {s['gone']:,} gone"
    draw.text((margin, margin // 2), title, fill=(0, 0, 0), font=_font(int(title_h * 0.62)))
    font = _font(max(11, legend_h // 6))
    y = height - legend_h
    x_pos = margin
    sw = max(10, legend_h // 6)
    entries = list(coloring.legend)
    if diff is not None:
        entries += [("added since the earlier tree", rgb_tuple(ADDED_COLOR)), ("visits changed", rgb_tuple(CHANGED_COLOR))]
    col_w = max(1, (width // 2 - margin) // max(1, (len(entries) + 1) // 2))
    for k, (label, rgb) in enumerate(entries):
        ex = x_pos + (k // 2) * col_w
        ey = y + (k % 2) * (sw + sw // 2) + sw // 2
        draw.ellipse((ex, ey, ex + sw, ey + sw), fill=rgb)
        draw.text((ex + sw + 6, ey - sw // 4), label, fill=(0, 0, 0), font=font)
    # colour bar of edge visits, log scale
    bar_x0, bar_x1 = width // 2 + margin, width - 2 * margin
    bar_y0 = y + sw // 2
    bar_h = sw
    ramp = lut[np.linspace(0, len(lut) - 1, max(1, bar_x1 - bar_x0)).astype(int)]
    image.paste(Image.fromarray(np.repeat(ramp[None, :, :], bar_h, axis=0)), (bar_x0, bar_y0))
    draw.rectangle((bar_x0 - 1, bar_y0 - 1, bar_x1, bar_y0 + bar_h), outline=(0, 0, 0))
    scale = np.log1p(max(vmax, 1))
    tick = 1
    while tick <= vmax:
        tx = bar_x0 + int(np.log1p(tick) / scale * (bar_x1 - bar_x0 - 1))
        draw.line((tx, bar_y0 + bar_h, tx, bar_y0 + bar_h + sw // 3), fill=(0, 0, 0))
        draw.text((tx - sw // 3, bar_y0 + bar_h + sw // 3), f"{tick:,}" if tick < 10**6 else f"1e{len(str(tick)) - 1}", fill=(0, 0, 0), font=font)
        tick *= 10
    draw.text((bar_x0, bar_y0 + bar_h + sw + sw // 2), f"edge colour: visits of the child node (log scale, max {vmax:,})", fill=(0, 0, 0), font=font)

    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    path = Path(path)
    write_atomic(path, buffer.getvalue())
    return RenderInfo(path, width, height, kept, px, py, coloring.colors, radius, coloring.by_depth_parity, title)
