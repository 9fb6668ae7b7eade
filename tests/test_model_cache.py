"""Trained models are read once per file version: agents made game after game share one read,
and a model file rewritten by a new training run is read again."""

import os

import pytest

from boardlab.core.errors import BoardlabError
from boardlab.core.files import load_once_per_version


def test_a_model_is_read_once_until_its_file_changes(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(b"first")
    reads = []

    def read(file):
        reads.append(file)
        return file.read_bytes()

    cache = {}
    assert load_once_per_version(cache, path, read, "missing") == b"first"
    assert load_once_per_version(cache, path, read, "missing") == b"first"
    assert len(reads) == 1
    path.write_bytes(b"second run")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert load_once_per_version(cache, path, read, "missing") == b"second run"
    assert len(reads) == 2


def test_a_missing_model_file_is_the_callers_message(tmp_path):
    with pytest.raises(BoardlabError, match="^ttr-net: no model file at"):
        load_once_per_version({}, tmp_path / "gone.pt", lambda p: None, "ttr-net: no model file at gone.pt")
