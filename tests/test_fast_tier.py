"""The fast tier's lists in conftest.py name files and tests that exist: a renamed one would
silently move a slow test into `make check`."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import SLOW_FILES, SLOW_TESTS

TESTS = Path(__file__).resolve().parent


def test_every_slow_file_and_test_exists():
    missing = sorted(name for name in SLOW_FILES if not (TESTS / name).is_file())
    for entry in sorted(SLOW_TESTS):
        file, name = entry.split("::")
        path = TESTS / file
        defined = {node.name for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))} if path.is_file() else set()
        if name not in defined:
            missing.append(entry)
        if file in SLOW_FILES:
            missing.append(f"{entry} (its whole file is slow already)")
    assert not missing, "\n".join(missing)
