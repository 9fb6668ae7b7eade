"""Load and save search trees, choosing the format by the file's extension.

``.tree``: the binary format (:mod:`boardlab.trees.binary`); ``.csv``: the CSV
format (:mod:`boardlab.trees.csvformat`). Writes are atomic: the file is
streamed to a temporary file beside it and renamed over it at the end.
"""

from __future__ import annotations

import os
from pathlib import Path

from boardlab.core.errors import FormatError
from boardlab.trees import binary, csvformat
from boardlab.trees.gamelabels import restore_players
from boardlab.trees.model import Tree

FORMATS = {".tree": "binary", ".csv": "csv"}


def tree_format(path: str | os.PathLike) -> str:
    """``"binary"`` or ``"csv"`` for ``path``'s extension; a clear error for anything else."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise FormatError(f"{path}: unknown tree format {suffix or '(no extension)'!r}; use .tree (binary) or .csv")
    return FORMATS[suffix]


def load_tree(path: str | os.PathLike, players: bool = True) -> Tree:
    """Read a ``.tree`` or ``.csv`` tree file; malformed files raise :class:`FormatError` naming the place.

    With ``players``, a tree whose root label names its game gets every node's
    player back from the state labels (:func:`~boardlab.trees.gamelabels.restore_players`).
    """
    kind = tree_format(path)
    if not Path(path).exists():
        raise FormatError(f"{path}: no such file")
    tree = binary.read_binary(path) if kind == "binary" else csvformat.read_csv(path)
    tree.meta.setdefault("source", str(path))
    if players:
        restore_players(tree)
    return tree


def save_tree(tree: Tree, path: str | os.PathLike) -> None:
    """Write ``tree`` to a ``.tree`` or ``.csv`` file, atomically."""
    kind = tree_format(path)
    if kind == "binary":
        binary.write_binary(tree, path)
    else:
        csvformat.write_csv(tree, path)
