"""A search tree packed for the browser: positions, colours and edges as binary arrays.

The viewer draws straight from typed arrays, so the server sends them as one
``application/octet-stream`` body::

    bytes 0..3   b"BLT1"
    bytes 4..7   uint32 little-endian: length H of the JSON header
    bytes 8..    the header (UTF-8 JSON, padded with spaces to a multiple of 4)
    then         the arrays, each at a 4-byte aligned offset from the end of the header

The header lists each array as ``{"name", "dtype", "count", "offset"}``. Arrays
(little-endian): ``x``, ``y`` (float32, tidy-layout coordinates: one unit between
neighbouring leaves, ``y`` = depth), ``parent`` (int32, ``-1`` for the root),
``player`` (uint8: the seat to move, 252 chance, 253 game over, 255 unknown;
a tree that knows no players, as a file from another tool, gets depth parity
like the PNG renderer), ``heat`` (uint8: the
node's visits on the log scale ``255 * log1p(v) / log1p(max)``; the edge into a
node takes its colour), optionally ``created`` (uint32, the iteration that added
the node, for the growth animation) and ``diff`` (uint8: 0 as in the previous
tree, 1 added, 2 visit count changed). The header's ``colours`` are those of
:mod:`boardlab.trees.colors` for the tree's game (its seats' piece colours),
so the page and the PNG export agree, and its ``legend`` names each code in
the game's own words ("Red to move", "chance", "game over").
"""

from __future__ import annotations

import json
import struct
from typing import Any

import numpy as np

from boardlab.core.errors import BoardlabError
from boardlab.core.game import CHANCE, TERMINAL, UNKNOWN_PLAYER, Game
from boardlab.trees.model import Tree

MAGIC = b"BLT1"
CHANCE_CODE = 252
TERMINAL_CODE = 253
UNKNOWN_CODE = 255


def heat(visits: np.ndarray) -> np.ndarray:
    """Visits mapped to 0..255 on a log scale relative to the largest count."""
    top = float(visits.max()) if len(visits) else 0.0
    if top <= 0:
        return np.zeros(len(visits), np.uint8)
    return np.rint(255.0 * np.log1p(np.maximum(visits, 0)) / np.log1p(top)).astype(np.uint8)


def player_codes(player: np.ndarray) -> np.ndarray:
    """The tree's player column as the viewer's uint8 codes."""
    player = np.asarray(player, dtype=np.int64)
    out = np.full(len(player), UNKNOWN_CODE, dtype=np.uint8)
    seat = (player >= 0) & (player < CHANCE_CODE)
    out[seat] = player[seat]
    out[player == CHANCE] = CHANCE_CODE
    out[player == TERMINAL] = TERMINAL_CODE
    return out


def pack_tree(tree: Tree, meta: dict[str, Any] | None = None, diff: np.ndarray | None = None, game: Game | None = None) -> bytes:
    """The viewer's binary body for ``tree`` (see the module docstring); ``game`` gives the seats' colours and names."""
    from boardlab.trees.layout import tidy_layout

    n = len(tree)
    x, y = tidy_layout(tree)
    x = np.asarray(x, dtype=np.float32)
    y = np.asarray(y, dtype=np.float32)
    player = np.asarray(tree.player)
    # a tree that knows no players (a foreign file): assume two players alternating
    inferred = n > 1 and bool(np.all(player == UNKNOWN_PLAYER))
    if inferred:
        player = tree.depth() % 2
    player8 = player_codes(player)
    arrays: list[tuple[str, np.ndarray]] = [
        ("x", x),
        ("y", y),
        ("parent", np.asarray(tree.parent, dtype="<i4")),
        ("player", player8),
        ("heat", heat(np.asarray(tree.visits))),
    ]
    if tree.created is not None:
        arrays.append(("created", np.asarray(tree.created, dtype="<u4")))
    if diff is not None:
        arrays.append(("diff", np.asarray(diff, dtype=np.uint8)))
    present = sorted(int(p) for p in np.unique(player8))
    colours = palette(game)
    header: dict[str, Any] = {
        "nodes": n,
        "bounds": [float(x.min()) if n else 0.0, float(x.max()) if n else 0.0, float(y.max()) if n else 0.0],
        "max_visits": int(tree.visits.max()) if n else 0,
        "root_visits": int(tree.visits[0]) if n else 0,
        "players": [p for p in present if p < CHANCE_CODE],
        "players_inferred": inferred,
        "colours": colours,
        "legend": legend(present, game, inferred),
        "game": game.spec() if game is not None else None,
        "player_names": [game.player_name(p) for p in range(game.max_players)] if game is not None else [],
        "player_colors": list(game.game_type.player_colors) if game is not None else [],
        "max_created": int(tree.created.max()) if tree.created is not None and n else None,
        "meta": meta or {},
        "arrays": [],
    }
    offset = 0
    blobs = []
    for name, values in arrays:
        data = np.ascontiguousarray(values).astype(values.dtype.newbyteorder("<"), copy=False).tobytes()
        header["arrays"].append({"name": name, "dtype": values.dtype.name, "count": int(len(values)), "offset": offset})
        pad = (-len(data)) % 4
        blobs.append(data + b"\0" * pad)
        offset += len(data) + pad
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((-len(text)) % 4)
    return MAGIC + struct.pack("<I", len(text)) + text + b"".join(blobs)


def unpack_tree(body: bytes) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Read a body made by :func:`pack_tree` (used by tests and tools)."""
    if body[:4] != MAGIC:
        raise ValueError("not a packed tree (bad magic)")
    (length,) = struct.unpack_from("<I", body, 4)
    header = json.loads(body[8 : 8 + length])
    start = 8 + length
    arrays = {}
    for spec in header["arrays"]:
        dtype = np.dtype(spec["dtype"]).newbyteorder("<")
        arrays[spec["name"]] = np.frombuffer(body, dtype=dtype, count=spec["count"], offset=start + spec["offset"])
    return header, arrays


def move_path(tree: Tree, index: int) -> list[str]:
    """Move labels from the root down to node ``index``."""
    path = []
    while index > 0:
        path.append(tree.move[index])
        index = int(tree.parent[index])
    return path[::-1]


def node_details(tree: Tree, index: int) -> dict[str, Any]:
    visits = int(tree.visits[index])
    return {
        "index": index,
        "move": tree.move[index],
        "path": move_path(tree, index),
        "depth": len(move_path(tree, index)),
        "visits": visits,
        "wins": int(tree.visits2[index]),
        "mean_payout": float(tree.mean_payout[index]),
        "player": int(tree.player[index]),
        "children": int(tree.child_count[index]),
        "state": tree.state[index],
        "created": int(tree.created[index]) if tree.created is not None else None,
    }



def diff_flags(previous: Tree, tree: Tree, prefix: list[str] | tuple[str, ...] = ()) -> np.ndarray:
    """Per node of ``tree``: 0 as in ``previous``, 1 added, 2 visited more or less.

    Nodes are matched by their path of move labels (:func:`boardlab.trees.diff.diff`);
    ``prefix`` is the path in ``previous`` to ``tree``'s root (the moves played
    between the two searches), so the next move's tree is compared with the part
    of the previous tree it grew from.
    """
    from boardlab.trees.diff import diff

    try:
        found = diff(previous, tree, via=list(prefix) if prefix else None)
    except BoardlabError:
        # the later root is not in the earlier tree (it was never expanded there): all new
        return np.ones(len(tree), dtype=np.uint8)
    flags = np.zeros(len(tree), dtype=np.uint8)
    flags[found.changed] = 2
    flags[found.added] = 1
    return flags


EXPORT_FORMATS = {"csv": "text/csv", "tree": "application/octet-stream", "png": "image/png"}


def check_format(fmt: str) -> None:
    if fmt not in EXPORT_FORMATS:
        raise BoardlabError(f"unknown export format {fmt[:20]!r} (formats: {', '.join(EXPORT_FORMATS)})")


def export_bytes(tree: Tree, fmt: str) -> tuple[bytes, str, str]:
    """The tree as a file of format ``csv``, ``tree`` (the binary format) or ``png``:
    ``(bytes, media type, suffix)``."""
    import tempfile
    from pathlib import Path

    from boardlab.trees import binary, csvformat

    check_format(fmt)
    if fmt == "csv":
        return csvformat.to_bytes(tree), EXPORT_FORMATS[fmt], "csv"
    if fmt == "tree":
        return binary.to_bytes(tree), EXPORT_FORMATS[fmt], "tree"
    from boardlab.trees.render import render_png

    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "tree.png"
        render_png(tree, target)
        return target.read_bytes(), EXPORT_FORMATS[fmt], "png"


def hex_colour(rgb) -> str:
    return "#" + "".join(f"{int(c):02x}" for c in rgb[:3])


def palette(game: Game | None = None) -> dict[str, Any]:
    """The colours the viewer uses, the same as the PNG renderer's (:mod:`boardlab.trees.colors`)."""
    from boardlab.trees import colors

    lut = colors.edge_lut(256)
    seats = colors.Palette.for_game(game)
    return {
        "players": [hex_colour(c) for c in seats.players],
        "chance": hex_colour(colors.CHANCE_COLOR),
        "terminal": hex_colour(colors.TERMINAL_COLOR),
        "unknown": hex_colour(colors.UNKNOWN_COLOR),
        # five stops of the edge colour map; the shader interpolates between them
        "edges": [hex_colour(lut[i]) for i in (0, 64, 128, 191, 255)],
        "added": hex_colour(colors.ADDED_COLOR),
        "changed": hex_colour(colors.CHANGED_COLOR),
    }


def legend(codes: list[int], game: Game | None, inferred: bool) -> list[dict[str, Any]]:
    """One entry per node code present: ``{code, label, colour}``, in the game's words."""
    from boardlab.trees import colors

    seats = colors.Palette.for_game(game)
    out = []
    for code in codes:
        if inferred:
            label = "even depth (player unknown)" if code == 0 else "odd depth"
            colour = seats.players[code]
        elif code < CHANCE_CODE:
            label, colour = seats.label(code), seats.colour(code)
        else:
            special = {CHANCE_CODE: CHANCE, TERMINAL_CODE: TERMINAL}.get(code, UNKNOWN_PLAYER)
            label, colour = seats.label(special), seats.colour(special)
        out.append({"code": code, "label": label, "colour": hex_colour(colour)})
    return out
