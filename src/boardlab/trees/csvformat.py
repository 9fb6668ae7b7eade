"""The CSV tree format of the tree study, read and written to the byte.

One row per node, in depth-first preorder from the root::

    move,visits,visits2,mean_payout,state,children

(R, O, O2, W, S, D in the study). There is no header row: every row is a node
(the reader skips the header line above if a file has one, since it cannot be a
node). Rows end with ``\\n`` (``\\r\\n`` is accepted on reading). Labels follow
standard CSV quoting (RFC 4180): a label holding a comma, a double quote, ``\\r``
or ``\\n`` is written between double quotes with inner quotes doubled; an empty
label is an empty field. Counts are decimal integers, the mean payout is the
shortest text that reads back as the same 64-bit float (Python's ``repr``:
``0.5``, ``1e-05``, ``-0.0``), so binary -> CSV -> binary gives the same bytes.
The root row carries the root's counters, which the binary format lacks.

The study typesets the row as ``R, O, O2, W, S, D``: a comma and a space between
fields. The reader accepts that form too. The first row decides which form a
file uses (its second field starts with a space in the typeset form, which no
decimal integer can), and every separator of that file must then be the same;
in the typeset form a label that itself starts with a space keeps it (only the
one space after each comma is the separator's). The writer writes the plain form.

The second visit counter may be negative (the format's integers are signed; see
:mod:`boardlab.trees.binary`); visits and child counts may not, and the message
says why.

As in the binary format, a file must make sense as a search tree: mean payouts
are finite (``nan``, ``inf`` and numbers too large for a float such as
``1e999`` are refused) and no node has more visits than its parent; the reader
names the line, and the writer refuses to write such a tree.

Both directions run in compiled kernels over the whole byte buffer; no Python
object is made per node except the float texts on writing.
"""

from __future__ import annotations

import os
from typing import Iterator

import numba
import numpy as np

from boardlab.core.errors import FormatError
from boardlab.core.game import UNKNOWN_PLAYER
from boardlab.core.records import write_chunks_atomic
from boardlab.trees.binary import CHUNK_NODES, INT32_MAX, check_counts, check_values, read_file_bytes, utf8_error
from boardlab.trees.model import Labels, Tree

HEADER = b"move,visits,visits2,mean_payout,state,children"
TYPESET_HEADER = b"move, visits, visits2, mean_payout, state, children"
COMMA, QUOTE, LF, CR, SPACE = 44, 34, 10, 13, 32

(
    _OK,
    _UNTERMINATED,
    _BARE_QUOTE,
    _FEW_FIELDS,
    _MANY_FIELDS,
    _AFTER_QUOTE,
    _NOT_INT,
    _NEGATIVE,
    _TOO_BIG,
    _NOT_FLOAT,
    _BAD_UTF8,
    _TRAILING,
    _TRUNCATED,
    _EMPTY,
    _ABOVE_PARENT,
    _SEPARATOR,
) = range(16)
_FIELD_NAMES = ("move", "visits", "visits2", "mean_payout", "state", "children")
_MESSAGES = {
    _UNTERMINATED: "quoted field is never closed",
    _BARE_QUOTE: 'double quote inside an unquoted field (quote the whole field and double the ")',
    _FEW_FIELDS: "row has fewer than 6 fields (move,visits,visits2,mean_payout,state,children)",
    _MANY_FIELDS: "row has more than 6 fields (move,visits,visits2,mean_payout,state,children)",
    _AFTER_QUOTE: "text after the closing quote of a field",
    _NOT_INT: "is not a decimal integer",
    _NEGATIVE: "is negative (only the second visit counter, visits2, may be)",
    _TOO_BIG: "does not fit the format's 32-bit integers",
    _NOT_FLOAT: "is not a number",
    _BAD_UTF8: "is not valid UTF-8",
    _TRAILING: "rows after the last node of the tree",
    _TRUNCATED: "file ends before all announced children (the node on this line has children missing)",
    _EMPTY: "no rows",
    _SEPARATOR: "fields are separated by ', ' in this file (the study's typeset form, as on its first row), here by ',' alone",
}


@numba.njit(cache=True)
def _parse_int(buf, a, b, signed):
    """(value, error code) of the decimal integer in ``buf[a:b]``; negative only if ``signed``."""
    if a >= b:
        return 0, _NOT_INT
    negative = buf[a] == 45
    if negative:
        a += 1
        if a >= b:
            return 0, _NOT_INT
    value = 0
    for k in range(a, b):
        c = buf[k]
        if c < 48 or c > 57:
            return 0, _NOT_INT
        if value <= INT32_MAX:
            value = value * 10 + (c - 48)
    if negative and value != 0 and not signed:
        return 0, _NEGATIVE
    if value > INT32_MAX + (1 if negative else 0):
        return 0, _TOO_BIG
    return -value if negative else value, _OK


@numba.njit(cache=True)
def _lower(c):
    return c + 32 if 65 <= c <= 90 else c


@numba.njit(cache=True)
def _word_at(buf, a, b, word):
    if b - a != len(word):
        return False
    for k in range(len(word)):
        if _lower(buf[a + k]) != word[k]:
            return False
    return True


@numba.njit(cache=True)
def _is_float(buf, a, b, nan_word, inf_word, infinity_word):
    """Strict float syntax: [+-] (digits [. digits] | . digits) [e [+-] digits] | [+-] nan | inf | infinity."""
    if a < b and (buf[a] == 43 or buf[a] == 45):
        a += 1
    if a >= b:
        return False
    if _word_at(buf, a, b, nan_word) or _word_at(buf, a, b, inf_word) or _word_at(buf, a, b, infinity_word):
        return True
    digits = 0
    while a < b and 48 <= buf[a] <= 57:
        a += 1
        digits += 1
    if a < b and buf[a] == 46:
        a += 1
        while a < b and 48 <= buf[a] <= 57:
            a += 1
            digits += 1
    if digits == 0:
        return False
    if a < b and (buf[a] == 101 or buf[a] == 69):
        a += 1
        if a < b and (buf[a] == 43 or buf[a] == 45):
            a += 1
        exp_digits = 0
        while a < b and 48 <= buf[a] <= 57:
            a += 1
            exp_digits += 1
        if exp_digits == 0:
            return False
    return a == b


@numba.njit(cache=True)
def _parse(buf, pos, line, n_max, nan_word, inf_word, infinity_word):
    size = len(buf)
    parent = np.empty(n_max, dtype=np.int32)
    child_count = np.empty(n_max, dtype=np.int32)
    visits = np.empty(n_max, dtype=np.int64)
    visits2 = np.empty(n_max, dtype=np.int64)
    # per label column (0: move, 1: state): raw start, raw end, unescaped length, quoted
    lab_start = np.empty((2, n_max), dtype=np.int64)
    lab_end = np.empty((2, n_max), dtype=np.int64)
    lab_len = np.empty((2, n_max), dtype=np.int64)
    lab_quoted = np.empty((2, n_max), dtype=np.bool_)
    float_start = np.empty(n_max, dtype=np.int64)
    float_end = np.empty(n_max, dtype=np.int64)
    stack = np.empty(n_max, dtype=np.int64)
    remaining = np.empty(n_max, dtype=np.int64)
    stack_line = np.empty(n_max, dtype=np.int64)
    row_lines = np.empty(n_max, dtype=np.int64)  # the line each row starts on (labels may hold newlines)
    visits_start = 0
    visits_end = 0
    typeset = False  # fields separated by ", " (decided on the first row)
    top = -1
    n = 0
    err = _OK
    err_line = line
    err_field = -1
    err_a = 0
    err_b = 0
    while pos < size and err == _OK:
        row_line = line
        if n > 0:
            while top >= 0 and remaining[top] == 0:
                top -= 1
            if top < 0:
                err, err_line = _TRAILING, row_line
                break
            remaining[top] -= 1
            parent[n] = stack[top]
        else:
            parent[0] = -1
        for f in range(6):
            quoted = False
            if pos < size and buf[pos] == QUOTE:
                quoted = True
                pos += 1
                start = pos
                ulen = 0
                closed = False
                while pos < size:
                    c = buf[pos]
                    if c == QUOTE:
                        if pos + 1 < size and buf[pos + 1] == QUOTE:
                            ulen += 1
                            pos += 2
                            continue
                        closed = True
                        break
                    if c == LF:
                        line += 1
                    ulen += 1
                    pos += 1
                if not closed:
                    err, err_line, err_field = _UNTERMINATED, row_line, f
                    break
                end = pos
                pos += 1
            else:
                start = pos
                while pos < size:
                    c = buf[pos]
                    if c == COMMA or c == LF or c == CR:
                        break
                    if c == QUOTE:
                        err = _BARE_QUOTE
                        break
                    pos += 1
                if err != _OK:
                    err_line, err_field = line, f
                    break
                end = pos
                ulen = end - start
            # what ends the field
            if f < 5:
                if pos < size and buf[pos] == COMMA:
                    pos += 1
                    if n == 0 and f == 0:
                        typeset = pos < size and buf[pos] == SPACE
                    if typeset:
                        if pos < size and buf[pos] == SPACE:
                            pos += 1
                        else:
                            err, err_line, err_field = _SEPARATOR, line, f + 1
                            break
                elif quoted and pos < size and buf[pos] != LF and buf[pos] != CR:
                    err, err_line, err_field = _AFTER_QUOTE, line, f
                    break
                else:
                    err, err_line = _FEW_FIELDS, row_line
                    break
            else:
                if pos >= size:
                    pass
                elif buf[pos] == LF:
                    pos += 1
                    line += 1
                elif buf[pos] == CR and pos + 1 < size and buf[pos + 1] == LF:
                    pos += 2
                    line += 1
                elif buf[pos] == COMMA:
                    err, err_line = _MANY_FIELDS, row_line
                    break
                else:
                    err, err_line, err_field = _AFTER_QUOTE, line, f
                    break
            if f == 0 or f == 4:
                col = 0 if f == 0 else 1
                bad = utf8_error(buf, start, end)
                if bad >= 0:
                    err, err_line, err_field = _BAD_UTF8, row_line, f
                    break
                lab_start[col, n] = start
                lab_end[col, n] = end
                lab_len[col, n] = ulen
                lab_quoted[col, n] = quoted
            elif f == 3:
                if not _is_float(buf, start, end, nan_word, inf_word, infinity_word):
                    err, err_line, err_field, err_a, err_b = _NOT_FLOAT, row_line, f, start, end
                    break
                float_start[n] = start
                float_end[n] = end
            else:
                value, code = _parse_int(buf, start, end, f == 2)
                if code != _OK:
                    err, err_line, err_field, err_a, err_b = code, row_line, f, start, end
                    break
                if f == 1:
                    visits[n] = value
                    visits_start, visits_end = start, end
                elif f == 2:
                    visits2[n] = value
                else:
                    child_count[n] = value
        if err != _OK:
            break
        # a node is visited on the way to each of its children's visits
        if n > 0 and visits[n] > visits[parent[n]]:
            err, err_line, err_field, err_a, err_b = _ABOVE_PARENT, row_line, 1, visits_start, visits_end
            break
        row_lines[n] = row_line
        top += 1
        stack[top] = n
        remaining[top] = child_count[n]
        stack_line[top] = row_line
        n += 1
    if err == _OK:
        if n == 0:
            err, err_line = _EMPTY, line
        else:
            while top >= 0:
                if remaining[top] > 0:
                    err, err_line = _TRUNCATED, stack_line[top]
                    break
                top -= 1
    return (err, err_line, err_field, err_a, err_b, n, parent, child_count, visits, visits2,
            lab_start, lab_end, lab_len, lab_quoted, float_start, float_end, row_lines)


@numba.njit(cache=True)
def _copy_labels(buf, start, end, ulen, quoted, n):
    offsets = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        offsets[i + 1] = offsets[i] + ulen[i]
    data = np.empty(offsets[n], dtype=np.uint8)
    for i in range(n):
        o = offsets[i]
        k = start[i]
        e = end[i]
        while k < e:
            c = buf[k]
            data[o] = c
            o += 1
            k += 2 if (quoted[i] and c == QUOTE) else 1
    return data, offsets


@numba.njit(cache=True)
def _gather_fixed(buf, start, end, n, width):
    out = np.zeros((n, width), dtype=np.uint8)
    for i in range(n):
        for k in range(end[i] - start[i]):
            out[i, k] = buf[start[i] + k]
    return out


_WORDS = tuple(np.frombuffer(w, dtype=np.uint8).copy() for w in (b"nan", b"inf", b"infinity"))


def parse_csv(data: bytes | np.ndarray, name: str = "<bytes>") -> Tree:
    """Parse the bytes of a CSV tree file; ``name`` is used in error messages."""
    buf = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data
    pos, line = 0, 1
    for header in (HEADER, TYPESET_HEADER):  # an optional header line, never a node
        if bytes(buf[: len(header)]) == header:
            rest = bytes(buf[len(header) : len(header) + 2])
            if rest == b"" or rest[:1] == b"\n" or rest == b"\r\n":
                pos = len(header) + (2 if rest == b"\r\n" else len(rest[:1]))
                line = 2
    n_max = int(np.count_nonzero(buf == LF)) + 1
    (err, err_line, err_field, err_a, err_b, n, parent, child_count, visits, visits2,
     lab_start, lab_end, lab_len, lab_quoted, float_start, float_end, row_lines) = _parse(buf, pos, line, n_max, *_WORDS)
    if err != _OK:
        what = f"field {err_field + 1} ({_FIELD_NAMES[err_field]}) " if err_field >= 0 else ""
        if err == _SEPARATOR:
            what = f"before field {err_field + 1} ({_FIELD_NAMES[err_field]}): "
        if err in (_NOT_INT, _NEGATIVE, _TOO_BIG, _NOT_FLOAT, _ABOVE_PARENT):
            text = bytes(buf[err_a : min(err_b, err_a + 40)]).decode("utf-8", "replace")
            what = f"{what}{text!r} "
        message = f"is more than its parent's {int(visits[parent[n]])} visits" if err == _ABOVE_PARENT else _MESSAGES[err]
        raise FormatError(f"{name}: line {err_line}: {what}{message}")
    move_data, move_offsets = _copy_labels(buf, lab_start[0], lab_end[0], lab_len[0], lab_quoted[0], n)
    state_data, state_offsets = _copy_labels(buf, lab_start[1], lab_end[1], lab_len[1], lab_quoted[1], n)
    width = max(1, int(np.max(float_end[:n] - float_start[:n])))
    texts = _gather_fixed(buf, float_start, float_end, n, width)
    mean = texts.view(f"S{width}").reshape(n).astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(mean))
    if len(bad):  # nan, inf, or a number too large for a float (1e999)
        i = int(bad[0])
        text = bytes(buf[float_start[i] : min(float_end[i], float_start[i] + 40)]).decode("ascii", "replace")
        raise FormatError(f"{name}: line {int(row_lines[i])}: field 4 (mean_payout) {text!r} is not a finite number")
    return Tree(
        parent=parent[:n].copy(),
        child_count=child_count[:n].copy(),
        move=Labels(move_data, move_offsets),
        visits=visits[:n].copy(),
        visits2=visits2[:n].copy(),
        mean_payout=mean,
        player=np.full(n, UNKNOWN_PLAYER, dtype=np.int8),  # the formats do not store it (see gamelabels)
        state=Labels(state_data, state_offsets),
        meta={},
    )


def read_csv(path: str | os.PathLike) -> Tree:
    """Read a CSV tree file (read into one byte array and parsed in place)."""
    return parse_csv(read_file_bytes(path, "line 1: empty file, expected the root's row"), str(path))


# ---------------------------------------------------------------- writing


@numba.njit(cache=True)
def _label_size(data, a, b):
    quotes = 0
    special = False
    for k in range(a, b):
        c = data[k]
        if c == QUOTE:
            quotes += 1
            special = True
        elif c == COMMA or c == LF or c == CR:
            special = True
    return (b - a + quotes + 2) if special else (b - a)


@numba.njit(cache=True)
def _put_label(out, pos, data, a, b):
    if _label_size(data, a, b) == b - a:
        for k in range(a, b):
            out[pos] = data[k]
            pos += 1
        return pos
    out[pos] = QUOTE
    pos += 1
    for k in range(a, b):
        c = data[k]
        out[pos] = c
        pos += 1
        if c == QUOTE:
            out[pos] = QUOTE
            pos += 1
    out[pos] = QUOTE
    return pos + 1


@numba.njit(cache=True)
def _digits(v):
    d = 1
    if v < 0:  # the sign (only visits2 may be negative)
        d = 2
        v = -v
    while v >= 10:
        v //= 10
        d += 1
    return d


@numba.njit(cache=True)
def _put_int(out, pos, v):
    if v < 0:
        out[pos] = 45  # "-"
        pos += 1
        v = -v
    d = _digits(v)
    for k in range(d - 1, -1, -1):
        out[pos + k] = 48 + v % 10
        v //= 10
    return pos + d


@numba.njit(cache=True)
def _encode(lo, hi, move_data, move_off, visits, visits2, float_text, float_off, state_data, state_off, child_count):
    size = 0
    for i in range(lo, hi):
        size += _label_size(move_data, move_off[i], move_off[i + 1])
        size += _digits(visits[i]) + _digits(visits2[i]) + _digits(child_count[i])
        size += float_off[i - lo + 1] - float_off[i - lo] - 1  # each float text ends in a separator
        size += _label_size(state_data, state_off[i], state_off[i + 1])
        size += 6  # five commas and a newline
    out = np.empty(size, dtype=np.uint8)
    pos = 0
    for i in range(lo, hi):
        pos = _put_label(out, pos, move_data, move_off[i], move_off[i + 1])
        out[pos] = COMMA
        pos = _put_int(out, pos + 1, visits[i])
        out[pos] = COMMA
        pos = _put_int(out, pos + 1, visits2[i])
        out[pos] = COMMA
        pos += 1
        for k in range(float_off[i - lo], float_off[i - lo + 1] - 1):
            out[pos] = float_text[k]
            pos += 1
        out[pos] = COMMA
        pos = _put_label(out, pos + 1, state_data, state_off[i], state_off[i + 1])
        out[pos] = COMMA
        pos = _put_int(out, pos + 1, child_count[i])
        out[pos] = LF
        pos += 1
    return out


def float_texts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Shortest round-trip text of each float, as one buffer where text k is ``buf[off[k]:off[k+1]-1]``."""
    texts = list(map(repr, values.tolist()))  # finite: the writer checked (check_values)
    text = ("\n".join(texts) + "\n").encode("ascii")
    buf = np.frombuffer(text, dtype=np.uint8)
    off = np.zeros(len(values) + 1, dtype=np.int64)
    off[1:] = np.flatnonzero(buf == LF) + 1
    return buf, off


def encode_csv(tree: Tree, name: str = "tree") -> Iterator[np.ndarray]:
    """The file's bytes in chunks of :data:`CHUNK_NODES` rows (check first, then encode)."""
    tree.check(name)
    check_counts(tree, name, skip_root=False)
    check_values(tree, name, skip_root=False)
    move_data = np.ascontiguousarray(tree.move.data, dtype=np.uint8)
    move_off = np.ascontiguousarray(tree.move.offsets, dtype=np.int64)
    state_data = np.ascontiguousarray(tree.state.data, dtype=np.uint8)
    state_off = np.ascontiguousarray(tree.state.offsets, dtype=np.int64)
    visits = np.ascontiguousarray(tree.visits, dtype=np.int64)
    visits2 = np.ascontiguousarray(tree.visits2, dtype=np.int64)
    child_count = np.ascontiguousarray(tree.child_count, dtype=np.int64)
    mean = np.asarray(tree.mean_payout, dtype=np.float64)
    for lo in range(0, len(tree), CHUNK_NODES):
        hi = min(lo + CHUNK_NODES, len(tree))
        ftext, foff = float_texts(mean[lo:hi])
        yield _encode(lo, hi, move_data, move_off, visits, visits2, ftext, foff, state_data, state_off, child_count)


def to_bytes(tree: Tree) -> bytes:
    return b"".join(chunk.tobytes() for chunk in encode_csv(tree))


def write_csv(tree: Tree, path: str | os.PathLike) -> None:
    write_chunks_atomic(path, encode_csv(tree, str(path)))
