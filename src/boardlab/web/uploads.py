"""Uploaded tree files: a quota, an expiry, files under generated names in the data folder.

Each server keeps its uploads in a folder of its own under ``<data>/uploads/``
(so two servers on one data folder never delete each other's files), named
by a random token and marked with the server's process id; a folder left by a
server that died without cleaning up is removed by the next server to start.

* quota: all files together stay within ``upload_quota`` bytes, counted while
  a file streams in (a request that would pass it is refused with 507 and
  leaves nothing behind);
* expiry: a file unused for ``upload_hours`` is deleted (and a client asking
  for it is told it expired); every file is deleted when the server stops;
* parsing runs in an AI worker process from a read-only mapping of the file
  (:func:`boardlab.web.aiworker.parse_tree`), one file at a time; parsed trees
  are cached by total node count.

Nothing from a request is ever used as a path: ids are checked to be the
tokens this store made, and a file's path comes from the store's own table.
"""

from __future__ import annotations

import os
import secrets
import shutil
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from boardlab.core.errors import BoardlabError

TREE_SUFFIXES = (".tree", ".csv")


class UploadNotFound(BoardlabError):
    """An unknown or expired upload (HTTP 404)."""


class TooLarge(BoardlabError):
    """A file over the upload limit (HTTP 413)."""


class QuotaFull(BoardlabError):
    """The uploads would pass the server's quota (HTTP 507)."""


@dataclass
class Upload:
    id: str
    name: str
    path: Path
    size: int
    used: float


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def own_folder(root: Path) -> Path:
    """A new folder of this process under ``root``, marked with its process id; folders
    of processes that are gone (a server killed without cleaning up) are removed first."""
    root.mkdir(parents=True, exist_ok=True)
    for folder in root.iterdir():
        try:
            pid = int((folder / ".owner").read_text())
        except (OSError, ValueError):
            continue
        if not _alive(pid):
            shutil.rmtree(folder, ignore_errors=True)
    folder = root / secrets.token_hex(8)
    folder.mkdir()
    (folder / ".owner").write_text(str(os.getpid()))
    return folder


class Scratch:
    """This server's scratch folder (``<data>/scratch/<token>``): where AI workers leave big
    results for the server to map (:func:`boardlab.web.aiworker.pack_result`); gone at shutdown."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder: Path | None = None

    def path(self) -> str:
        if self.folder is None:
            self.folder = own_folder(self.root)
        return str(self.folder)

    def close(self) -> None:
        folder, self.folder = self.folder, None
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


class UploadStore:
    """The server's uploads (see the module docstring)."""

    def __init__(self, root: Path, quota: int, max_upload: int, hours: float, clock: Callable[[], float],
                 keep_nodes: int) -> None:
        self.root = root
        self.quota = quota
        self.max_upload = max_upload
        self.max_age = hours * 3600.0
        self.hours = hours
        self.clock = clock
        self.keep_nodes = keep_nodes
        self._lock = threading.Lock()
        self.folder: Path | None = None
        self.open()

    def open(self) -> None:
        """Make this server's folder (again, after :meth:`close`)."""
        if self.folder is not None:
            return
        self.folder = own_folder(self.root)
        self._files: dict[str, Upload] = {}
        self._expired: set[str] = set()
        self._reserved = 0  # bytes of uploads still streaming in
        self._trees: OrderedDict[str, Any] = OrderedDict()

    # --- space -------------------------------------------------------------------------
    def used_bytes(self) -> int:
        with self._lock:
            return sum(u.size for u in self._files.values()) + self._reserved

    def sweep(self) -> None:
        """Delete the uploads unused for longer than the expiry."""
        now = self.clock()
        with self._lock:
            old = [u for u in self._files.values() if now - u.used > self.max_age]
            for upload in old:
                del self._files[upload.id]
                self._trees.pop(upload.id, None)
                self._expired.add(upload.id)
        for upload in old:
            upload.path.unlink(missing_ok=True)

    def begin(self, name: str, declared: int | None) -> "Incoming":
        """Start receiving a file named ``name`` (the user's name, shown only in messages)."""
        suffix = Path(name).suffix.lower()
        if suffix not in TREE_SUFFIXES:
            raise BoardlabError(f"upload a .tree (binary) or .csv tree file, not {name!r}")
        if declared is not None and declared > self.max_upload:
            raise TooLarge(f"{name}: {declared} bytes is over the upload limit of {self.max_upload} bytes (boardlab serve --max-upload)")
        self.sweep()
        self.open()
        assert self.folder is not None  # open() made it
        upload_id = secrets.token_hex(12)
        return Incoming(self, upload_id, name, self.folder / f"{upload_id}{suffix}")

    def _reserve(self, name: str, more: int) -> None:
        with self._lock:
            used = sum(u.size for u in self._files.values()) + self._reserved
            if used + more > self.quota:
                raise QuotaFull(
                    f"{name}: the server's space for uploads is full (quota {self.quota // 2**20 or self.quota} "
                    f"{'MiB' if self.quota >= 2**20 else 'bytes'}, boardlab serve --upload-quota); "
                    f"uploads are deleted {self.hours:g} hours after their last use"
                )
            self._reserved += more

    def _release(self, amount: int) -> None:
        with self._lock:
            self._reserved -= amount

    def _add(self, upload: Upload) -> None:
        with self._lock:
            self._files[upload.id] = upload

    def forget(self, upload_id: str) -> None:
        with self._lock:
            upload = self._files.pop(upload_id, None)
            self._trees.pop(upload_id, None)
        if upload is not None:
            upload.path.unlink(missing_ok=True)

    # --- reading ------------------------------------------------------------------------
    def find(self, upload_id: str) -> Upload:
        self.sweep()
        with self._lock:
            upload = self._files.get(upload_id)
            if upload is not None:
                upload.used = self.clock()
                return upload
            expired = upload_id in self._expired
        shown = upload_id[:40]
        if expired:
            raise UploadNotFound(f"uploaded tree {shown!r} expired: uploads are deleted {self.hours:g} hours after their last use "
                                 "(boardlab serve --upload-hours); open the file again")
        raise UploadNotFound(f"no uploaded tree {shown!r} (uploads are deleted when the server stops)")

    def cached(self, upload_id: str) -> Any | None:
        with self._lock:
            source = self._trees.get(upload_id)
            if source is not None:
                self._trees.move_to_end(upload_id)
            return source

    def cache(self, upload_id: str, source: Any, nodes: int) -> None:
        with self._lock:
            if upload_id not in self._files:
                return
            self._trees[upload_id] = (source, nodes)
            self._trees.move_to_end(upload_id)
            total = sum(n for _, n in self._trees.values())
            while len(self._trees) > 1 and total > self.keep_nodes:
                _, (_, n) = self._trees.popitem(last=False)
                total -= n

    def close(self) -> None:
        """Delete every upload of this server (it is stopping)."""
        with self._lock:
            self._files.clear()
            self._trees.clear()
            folder, self.folder = self.folder, None
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


class Incoming:
    """One file streaming in: counted against the limit and the quota chunk by chunk, written in
    blocks of about a MiB (by :meth:`flush`, which callers run off the event loop: a disk that
    throttles writers must not stall every other request)."""

    BLOCK = 2**20

    def __init__(self, store: UploadStore, upload_id: str, name: str, path: Path) -> None:
        self.store, self.id, self.name, self.path = store, upload_id, name, path
        self.size = 0
        self._pending: list[bytes] = []
        self._pending_bytes = 0
        self._handle = open(path, "wb")

    def add(self, chunk: bytes) -> bool:
        """Count ``chunk`` in; True when a block is ready for :meth:`flush`."""
        if self.size + len(chunk) > self.store.max_upload:
            raise TooLarge(f"{self.name}: over the upload limit of {self.store.max_upload} bytes (boardlab serve --max-upload)")
        self.store._reserve(self.name, len(chunk))
        self.size += len(chunk)
        self._pending.append(chunk)
        self._pending_bytes += len(chunk)
        return self._pending_bytes >= self.BLOCK

    def flush(self) -> None:
        block, self._pending, self._pending_bytes = b"".join(self._pending), [], 0
        self._handle.write(block)

    def write(self, chunk: bytes) -> None:
        if self.add(chunk):
            self.flush()

    def finish(self) -> Upload:
        self.flush()
        self._handle.close()
        upload = Upload(self.id, self.name, self.path, self.size, self.store.clock())
        self.store._release(self.size)
        self.store._add(upload)
        return upload

    def abort(self) -> None:
        self._pending = []
        self._handle.close()
        self.store._release(self.size)
        self.path.unlink(missing_ok=True)
