"""Hypothesis strategies and checks for fuzzing file readers (tests/test_fuzz_files.py).

Three kinds of bad input, kept small so that nothing can take long:

* :func:`damaged`: random bytes, or a valid file with bytes flipped, cut off,
  inserted or removed;
* :data:`HOSTILE_JSON`: JSON texts to put where a valid file has a value
  (NaN, infinities, huge and negative numbers, wrong types, deep nesting);
* :data:`HOSTILE_VALUES`: the same as Python values, for files that are not
  JSON (checkpoints, opening books).

:func:`read_cleanly` runs a reader on a file and allows exactly two outcomes:
it returns, or it raises :class:`~boardlab.core.errors.BoardlabError` whose
message names the file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Callable

from hypothesis import strategies as st

from boardlab.core.errors import BoardlabError


def damaged(valid: bytes, max_insert: int = 48) -> st.SearchStrategy[bytes]:
    """Random bytes, or ``valid`` with a few bytes flipped, a tail cut off, bytes inserted or a slice removed."""
    n = len(valid)

    @st.composite
    def flipped(draw: st.DrawFn) -> bytes:
        data = bytearray(valid)
        for _ in range(draw(st.integers(1, 4))):
            data[draw(st.integers(0, n - 1))] ^= draw(st.integers(1, 255))
        return bytes(data)

    @st.composite
    def inserted(draw: st.DrawFn) -> bytes:
        at = draw(st.integers(0, n))
        return valid[:at] + draw(st.binary(min_size=1, max_size=max_insert)) + valid[at:]

    @st.composite
    def removed(draw: st.DrawFn) -> bytes:
        at = draw(st.integers(0, n - 1))
        return valid[:at] + valid[at + draw(st.integers(1, max(1, min(64, n - at)))) :]

    return st.one_of(
        st.binary(max_size=4 * max_insert),
        flipped(),
        st.integers(0, n - 1).map(lambda k: valid[:k]),
        inserted(),
        removed(),
    )


def _nested(depth: int, kind: str) -> str:
    return "[" * depth + "]" * depth if kind == "list" else '{"a":' * depth + "1" + "}" * depth


#: raw JSON texts of hostile values (json.dumps cannot write some of them: NaN is not JSON)
HOSTILE_JSON = st.one_of(
    st.sampled_from([
        "NaN", "Infinity", "-Infinity", "1e999", "-1e999", "-1", "0", "-0.0", "0.5", "1e30", "-1e30",
        "2147483648", "-2147483649", "18446744073709551616", "123456789012345678901234567890", "9" * 5000,
        "true", "false", "null", '""', '"x"', '"\\u0000"', '"\\ud800"', "[]", "{}", '[1, "a", null]', '{"": []}',
        _nested(50, "list"), _nested(3000, "list"), _nested(100_000, "list"), _nested(3000, "dict"),
    ]),
    st.integers(-(2**70), 2**70).map(str),
    st.floats().map(lambda x: "NaN" if math.isnan(x) else "Infinity" if x == math.inf else "-Infinity" if x == -math.inf else repr(x)),
    st.text(max_size=12).map(json.dumps),
)

#: Python values a non-JSON file could hold where a number, string or list belongs
HOSTILE_VALUES = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, 10**30, -(10**30), 2**63, -1, 0, -0.0, True, False, None,
                     "", "x", [], {}, [[[]]], {"a": {"b": None}}, (1, 2), b"bytes"]),
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.text(max_size=12),
)


def put_json(document: Any, path: tuple, raw: str) -> str:
    """The JSON text of ``document`` with the value at ``path`` (keys or indices) replaced by the text ``raw``."""
    marker = "__HOSTILE_VALUE__"
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = marker
    return json.dumps(document).replace(json.dumps(marker), raw, 1)


def value_paths(document: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (keys or indices) to a value inside a JSON document, containers included."""
    paths = []
    items = document.items() if isinstance(document, dict) else enumerate(document) if isinstance(document, list) else ()
    for key, value in items:
        paths.append(prefix + (key,))
        paths.extend(value_paths(value, prefix + (key,)))
    return paths


def read_cleanly(read: Callable[[Path], Any], path: Path) -> Any:
    """``read(path)``; a failure must be a BoardlabError naming the file (anything else fails the test)."""
    try:
        return read(path)
    except BoardlabError as exc:
        assert str(path) in str(exc), f"the error does not name the file: {exc}"
        assert "\n" not in str(exc).strip(), f"the error is not one line: {exc!r}"
        return None
