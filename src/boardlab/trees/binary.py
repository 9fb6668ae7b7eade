"""The binary ``.tree`` format of the tree study, read and written to the byte.

Integers are 4-byte two's complement little-endian, a string is its byte length
(integer) then its UTF-8 bytes, a float is IEEE-754 64-bit little-endian. A node
is its state name (string), its child count m (integer), then m times: move name
(string), visit count, second visit count (integers), mean payout (float), child
node. So in depth-first preorder the file is simply, node after node::

    [move, visits, visits2, mean_payout]   (every node but the root)
    state, child_count

which is what the compiled kernels below read and write, without one Python
object per node.

The format does not store the root's own counters: a tree read from a file gets
``visits[0] = sum of its children's visits`` (saturated at 2**31 - 1), ``visits2[0] = 0`` and
``mean_payout[0] = 0.0`` (and ``meta["root_stats"] = "derived"``).

Beyond the layout, a file must make sense as a search tree: mean payouts are
finite numbers (no NaN, no infinity), and no node has more visits than its
parent. The reader refuses anything else with the byte offset of the number,
and the writer refuses to write it.

Negative integers: the format's integers are signed, and the second visit
counter may take any of them (the study leaves its meaning to the search, and a
search may count losses as negative numbers), so it is read and written as is.
The other three integers refuse a negative value, each for its own reason, and
the message names the value and the reason: a string length counts bytes, a
child count counts nodes, and a visit count counts playouts through the node.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import numba
import numpy as np

from boardlab.core.errors import FormatError
from boardlab.core.game import UNKNOWN_PLAYER
from boardlab.core.records import write_chunks_atomic
from boardlab.trees.model import Labels, Tree

INT32_MAX = 2**31 - 1
INT32_MIN = -(2**31)
#: the smallest encoding of a non-root node: empty move, 3 numbers, empty state, child count
MIN_NODE_BYTES = 4 + 4 + 4 + 8 + 4 + 4
#: nodes encoded per chunk when streaming a file out
CHUNK_NODES = 1 << 18

# Error codes of the parse kernel (code, offset) -> message.
_OK, _TRUNCATED, _NEG_COUNT, _NEG_LEN, _OVERRUN, _BAD_UTF8, _TRAILING, _NEG_VISITS, _NOT_FINITE, _ABOVE_PARENT = range(10)
_MESSAGES = {
    _TRUNCATED: "file ends in the middle of a node",
    _OVERRUN: "child count needs more nodes than the rest of the file can hold",
    _BAD_UTF8: "string is not valid UTF-8",
    _TRAILING: "trailing bytes after the last node",
    # the others name their numbers: see parse_binary
}
#: why each integer that must not be negative refuses a negative value (the format's integers are signed)
_NEGATIVE_WHY = {
    _NEG_COUNT: "negative child count {}: a child count counts the nodes that follow",
    _NEG_LEN: "negative string length {}: a string's length counts its UTF-8 bytes",
    _NEG_VISITS: "negative visit count {}: a visit count counts playouts through the node"
    " (only the second visit counter may be negative)",
}


@numba.njit(cache=True, inline="always")
def _i32(buf, pos):
    v = np.int64(buf[pos]) | (np.int64(buf[pos + 1]) << 8) | (np.int64(buf[pos + 2]) << 16) | (np.int64(buf[pos + 3]) << 24)
    if v >= 2147483648:
        v -= 4294967296
    return v


@numba.njit(cache=True)
def utf8_error(buf, start, end):
    """Offset of the first byte of ``buf[start:end]`` that breaks UTF-8, else -1 (RFC 3629: no overlongs, no surrogates)."""
    i = start
    while i < end:
        b = buf[i]
        if b < 0x80:
            i += 1
            continue
        if 0xC2 <= b <= 0xDF:
            need = 1
            lo, hi = 0x80, 0xBF
        elif b == 0xE0:
            need = 2
            lo, hi = 0xA0, 0xBF
        elif 0xE1 <= b <= 0xEC or 0xEE <= b <= 0xEF:
            need = 2
            lo, hi = 0x80, 0xBF
        elif b == 0xED:
            need = 2
            lo, hi = 0x80, 0x9F
        elif b == 0xF0:
            need = 3
            lo, hi = 0x90, 0xBF
        elif 0xF1 <= b <= 0xF3:
            need = 3
            lo, hi = 0x80, 0xBF
        elif b == 0xF4:
            need = 3
            lo, hi = 0x80, 0x8F
        else:
            return i
        if i + need >= end:  # fewer continuation bytes than the lead byte announces
            return i
        c = buf[i + 1]
        if c < lo or c > hi:
            return i
        for k in range(2, need + 1):
            c = buf[i + k]
            if c < 0x80 or c > 0xBF:
                return i
        i += need + 1
    return -1


@numba.njit(cache=True)
def _parse(buf, n_max):
    """One pass over the file: structure, numbers, and where each label lies (copied later)."""
    size = len(buf)
    parent = np.empty(n_max, dtype=np.int32)
    child_count = np.empty(n_max, dtype=np.int32)
    visits = np.empty(n_max, dtype=np.int64)
    visits2 = np.empty(n_max, dtype=np.int64)
    mean = np.empty(n_max, dtype=np.float64)
    move_at = np.empty(n_max, dtype=np.int64)
    move_len = np.empty(n_max, dtype=np.int64)
    state_at = np.empty(n_max, dtype=np.int64)
    state_len = np.empty(n_max, dtype=np.int64)
    stack = np.empty(n_max, dtype=np.int64)
    remaining = np.empty(n_max, dtype=np.int64)
    mean_bytes = mean.view(np.uint8)
    err = _OK
    err_at = 0
    err_value = 0  # with _ABOVE_PARENT: the parent's visits
    pos = 0
    n = 0
    top = -1
    pending = 0  # children announced but not read yet, over the whole stack
    while True:
        if n > 0:
            while top >= 0 and remaining[top] == 0:
                top -= 1
            if top < 0:
                break
            remaining[top] -= 1
            pending -= 1
            parent[n] = stack[top]
            # edge fields: move, visits, visits2, mean payout
            if pos + 4 > size:
                err, err_at = _TRUNCATED, pos
                break
            length = _i32(buf, pos)
            if length < 0:
                err, err_at = _NEG_LEN, pos
                break
            if pos + 4 + length + 16 > size:
                err, err_at = _TRUNCATED, pos
                break
            bad = utf8_error(buf, pos + 4, pos + 4 + length)
            if bad >= 0:
                err, err_at = _BAD_UTF8, bad
                break
            move_at[n] = pos + 4
            move_len[n] = length
            pos += 4 + length
            v = _i32(buf, pos)
            v2 = _i32(buf, pos + 4)  # any signed value: see the module's docstring
            if v < 0:
                err, err_at = _NEG_VISITS, pos
                break
            # a node is visited on the way to each of its children's visits (the root's count is not stored)
            if parent[n] > 0 and v > visits[parent[n]]:
                err, err_at, err_value = _ABOVE_PARENT, pos, visits[parent[n]]
                break
            visits[n] = v
            visits2[n] = v2
            for k in range(8):
                mean_bytes[8 * n + k] = buf[pos + 8 + k]
            if not (mean[n] - mean[n] == 0.0):  # NaN or infinite
                err, err_at = _NOT_FINITE, pos + 8
                break
            pos += 16
        else:
            parent[0] = -1
            move_at[0] = 0
            move_len[0] = 0
            visits2[0] = 0
            mean[0] = 0.0
        # node fields: state, child count
        if pos + 4 > size:
            err, err_at = _TRUNCATED, pos
            break
        length = _i32(buf, pos)
        if length < 0:
            err, err_at = _NEG_LEN, pos
            break
        if pos + 4 + length + 4 > size:
            err, err_at = _TRUNCATED, pos
            break
        bad = utf8_error(buf, pos + 4, pos + 4 + length)
        if bad >= 0:
            err, err_at = _BAD_UTF8, bad
            break
        state_at[n] = pos + 4
        state_len[n] = length
        pos += 4 + length
        m = _i32(buf, pos)
        if m < 0:
            err, err_at = _NEG_COUNT, pos
            break
        pending += m
        if pending * MIN_NODE_BYTES > size - pos - 4:
            err, err_at = _OVERRUN, pos
            break
        pos += 4
        child_count[n] = m
        top += 1
        stack[top] = n
        remaining[top] = m
        n += 1
    if err == _OK and pos != size:
        err, err_at = _TRAILING, pos
    # the root's counters are not stored: derive visits from its children
    total = 0
    for i in range(1, n):
        if parent[i] == 0:
            total += visits[i]
    if n > 0:
        visits[0] = min(total, INT32_MAX)  # saturate so the tree can always be written again
    return err, err_at, err_value, n, parent, child_count, visits, visits2, mean, move_at, move_len, state_at, state_len


@numba.njit(cache=True)
def _copy_labels(buf, at, length, n):
    offsets = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        offsets[i + 1] = offsets[i] + length[i]
    data = np.empty(offsets[n], dtype=np.uint8)
    for i in range(n):
        o = offsets[i]
        a = at[i]
        for k in range(length[i]):
            data[o + k] = buf[a + k]
    return data, offsets


def _trim(array: np.ndarray, n: int) -> np.ndarray:
    # a view keeps the whole over-allocated buffer alive; copy when that would waste much
    return array[:n].copy() if n < 0.75 * len(array) else array[:n]


def parse_binary(data: bytes | np.ndarray, name: str = "<bytes>") -> Tree:
    """Parse the bytes of a ``.tree`` file; ``name`` is used in error messages."""
    buf = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data
    if len(buf) == 0:
        raise FormatError(f"{name}: byte 0: empty file, expected a root node")
    n_max = 1 + max(0, len(buf) - 8) // MIN_NODE_BYTES
    err, err_at, err_value, n, parent, child_count, visits, visits2, mean, move_at, move_len, state_at, state_len = _parse(buf, n_max)
    if err == _NOT_FINITE:
        value = float(np.frombuffer(bytes(buf[err_at : err_at + 8]), dtype="<f8")[0])
        raise FormatError(f"{name}: byte {err_at}: mean payout {value!r} is not a finite number")
    if err == _ABOVE_PARENT:
        value = int(np.frombuffer(bytes(buf[err_at : err_at + 4]), dtype="<i4")[0])
        raise FormatError(f"{name}: byte {err_at}: visit count {value} is more than its parent's {err_value}")
    if err in _NEGATIVE_WHY:
        value = int(np.frombuffer(bytes(buf[err_at : err_at + 4]), dtype="<i4")[0])
        raise FormatError(f"{name}: byte {err_at}: {_NEGATIVE_WHY[err].format(value)}")
    if err != _OK:
        raise FormatError(f"{name}: byte {err_at}: {_MESSAGES[err]}")
    move_data, move_offsets = _copy_labels(buf, move_at, move_len, n)
    state_data, state_offsets = _copy_labels(buf, state_at, state_len, n)
    return Tree(
        parent=_trim(parent, n),
        child_count=_trim(child_count, n),
        move=Labels(move_data, move_offsets),
        visits=_trim(visits, n),
        visits2=_trim(visits2, n),
        mean_payout=_trim(mean, n),
        player=np.full(n, UNKNOWN_PLAYER, dtype=np.int8),  # the formats do not store it (see gamelabels)
        state=Labels(state_data, state_offsets),
        meta={"root_stats": "derived"},
    )


def read_file_bytes(path: str | os.PathLike, if_empty: str) -> np.ndarray:
    """A tree file's bytes as one array: one copy of the file in memory (the parse adds
    about 2x for the columns), no per-node objects. ``if_empty`` is the error text for
    an empty file, after the file name."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size == 0:
                raise FormatError(f"{path}: {if_empty}")
            return np.fromfile(handle, dtype=np.uint8)
    except OSError as exc:
        raise FormatError(f"{path}: cannot read: {exc.strerror or exc}") from None


def read_binary(path: str | os.PathLike) -> Tree:
    """Read a ``.tree`` file. The file is read into one byte array and parsed in place."""
    return parse_binary(read_file_bytes(path, "byte 0: empty file, expected a root node"), str(path))


def check_counts(tree: Tree, name: str, skip_root: bool) -> None:
    """Refuse counters the formats cannot hold: they are 32-bit two's complement; visits
    count playouts, so are >= 0, while the second counter may be any 32-bit value."""
    for column in ("visits", "visits2"):
        values = np.asarray(getattr(tree, column))[1 if skip_root else 0 :]
        if len(values) == 0:
            continue
        low, high = int(values.min()), int(values.max())
        if high > INT32_MAX:
            node = int(np.argmax(values)) + (1 if skip_root else 0)
            raise FormatError(f"{name}: node {node}: {column} = {high} does not fit the format's 32-bit integers")
        if column == "visits" and low < 0:
            node = int(np.argmin(values)) + (1 if skip_root else 0)
            raise FormatError(f"{name}: node {node}: visits = {low} is negative (a visit count counts playouts)")
        if low < INT32_MIN:
            node = int(np.argmin(values)) + (1 if skip_root else 0)
            raise FormatError(f"{name}: node {node}: {column} = {low} does not fit the format's 32-bit integers")
    if len(tree.child_count) and int(np.max(tree.child_count)) > INT32_MAX:
        raise FormatError(f"{name}: a child count does not fit 32 bits")


def check_values(tree: Tree, name: str, skip_root: bool) -> None:
    """Refuse what the readers refuse: a mean payout that is not a finite number, and a node
    with more visits than its parent (a node is visited on the way to each visit of a child).

    ``skip_root``: the binary format stores neither the root's payout nor its visits.
    """
    mean = np.asarray(tree.mean_payout, dtype=np.float64)
    first = 1 if skip_root else 0
    bad = np.flatnonzero(~np.isfinite(mean[first:]))
    if len(bad):
        node = int(bad[0]) + first
        raise FormatError(f"{name}: node {node}: mean payout {float(mean[node])!r} is not a finite number")
    parent = np.asarray(tree.parent, dtype=np.int64)[1:]
    visits = np.asarray(tree.visits, dtype=np.int64)
    above = (visits[1:] > visits[np.maximum(parent, 0)]) & (parent >= first)
    bad = np.flatnonzero(above)
    if len(bad):
        node = int(bad[0]) + 1
        raise FormatError(
            f"{name}: node {node}: {int(visits[node])} visits, more than its parent's {int(visits[parent[node - 1]])}"
        )


@numba.njit(cache=True, inline="always")
def _put_i32(out, pos, v):
    u = v & 0xFFFFFFFF
    out[pos] = u & 0xFF
    out[pos + 1] = (u >> 8) & 0xFF
    out[pos + 2] = (u >> 16) & 0xFF
    out[pos + 3] = (u >> 24) & 0xFF


@numba.njit(cache=True)
def _encode(lo, hi, child_count, move_data, move_off, visits, visits2, mean, state_data, state_off):
    size = 0
    for i in range(lo, hi):
        size += 8 + state_off[i + 1] - state_off[i]
        if i > 0:
            size += 20 + move_off[i + 1] - move_off[i]
    out = np.empty(size, dtype=np.uint8)
    mean_bytes = mean.view(np.uint8)
    pos = 0
    for i in range(lo, hi):
        if i > 0:
            a, b = move_off[i], move_off[i + 1]
            _put_i32(out, pos, b - a)
            pos += 4
            for k in range(a, b):
                out[pos] = move_data[k]
                pos += 1
            _put_i32(out, pos, visits[i])
            _put_i32(out, pos + 4, visits2[i])
            for k in range(8):
                out[pos + 8 + k] = mean_bytes[8 * i + k]
            pos += 16
        a, b = state_off[i], state_off[i + 1]
        _put_i32(out, pos, b - a)
        pos += 4
        for k in range(a, b):
            out[pos] = state_data[k]
            pos += 1
        _put_i32(out, pos, child_count[i])
        pos += 4
    return out


def encode_binary(tree: Tree, name: str = "tree") -> Iterator[bytes]:
    """The file's bytes, in chunks of :data:`CHUNK_NODES` nodes (check first, then encode)."""
    tree.check(name)
    check_counts(tree, name, skip_root=True)
    check_values(tree, name, skip_root=True)
    columns = (
        np.ascontiguousarray(tree.child_count, dtype=np.int64),
        np.ascontiguousarray(tree.move.data, dtype=np.uint8),
        np.ascontiguousarray(tree.move.offsets, dtype=np.int64),
        np.ascontiguousarray(tree.visits, dtype=np.int64),
        np.ascontiguousarray(tree.visits2, dtype=np.int64),
        np.ascontiguousarray(tree.mean_payout, dtype=np.float64),
        np.ascontiguousarray(tree.state.data, dtype=np.uint8),
        np.ascontiguousarray(tree.state.offsets, dtype=np.int64),
    )
    for lo in range(0, len(tree), CHUNK_NODES):
        yield _encode(lo, min(lo + CHUNK_NODES, len(tree)), *columns)


def to_bytes(tree: Tree) -> bytes:
    return b"".join(encode_binary(tree))


def write_binary(tree: Tree, path: str | os.PathLike) -> None:
    write_chunks_atomic(path, encode_binary(tree, str(path)))
