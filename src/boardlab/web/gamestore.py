"""The web server's games, kept in SQLite so that a restart forgets nothing.

The file is ``games.sqlite`` in the server's data folder, beside its uploads;
it is the web app's own (the tournament store, ``results.sqlite``, is written
by other processes and has its own schema), and like that store it uses
SQLite's write-ahead log with ``synchronous=NORMAL``: a write survives the
death of the server.

A row holds a game's record (:meth:`GameSession.to_record`: game spec, mode,
seats, seed or start position, actions), written after every move, and when
it was created and last used. Games go only by age of last use
(``game_days``) or, past ``max_games``, least recently used first; each one
removed leaves a small note (``gone``) so that a client asking for it later
is told what happened instead of "no such game".

:class:`SessionStore` is the server's view: sessions in memory (with their
search trees) in front of the file, each loaded from its row on first use.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import OrderedDict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from boardlab.core.errors import BoardlabError, FormatError
from boardlab.web.sessions import GameSession

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    record TEXT NOT NULL,      -- JSON: game, mode, seats, seed, start, actions
    created REAL NOT NULL,     -- the server's clock (Unix seconds)
    used REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS games_used ON games(used);
CREATE TABLE IF NOT EXISTS gone (
    id TEXT PRIMARY KEY,
    removed REAL NOT NULL,
    reason TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS gone_removed ON gone(removed);
"""
#: sessions held in memory (with their trees); more are reloaded from the file when asked for
LOADED = 256
#: how often (seconds) a game's last use is written when nothing else about it changes
TOUCH_EVERY = 60.0


class GameNotFound(BoardlabError):
    """An unknown or removed game (HTTP 404); the message says which."""


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


class SessionStore:
    """Games by id: in memory in front of ``games.sqlite`` (see the module docstring)."""

    def __init__(self, path: Path, clock: Callable[[], float], game_days: float, max_games: int) -> None:
        self.path = path
        self.clock = clock
        self.max_age = game_days * 86400.0
        self.game_days = game_days
        self.max_games = max_games
        self._lock = threading.RLock()
        self._loaded: OrderedDict[str, GameSession] = OrderedDict()
        self._written: dict[str, float] = {}
        self.db: sqlite3.Connection | None = None
        self.open()

    def open(self) -> None:
        """Open the file (again, after :meth:`close`)."""
        if self.db is not None:
            return
        path = self.path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, isolation_level=None, timeout=30, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA)
            version = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if version is None:
                db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(version[0]) != SCHEMA_VERSION:
                db.close()
                raise FormatError(f"{path}: web games store schema {version[0]}, this boardlab reads {SCHEMA_VERSION}")
            self.db = db
        except sqlite3.DatabaseError as exc:
            raise FormatError(f"{path}: not a boardlab web games store ({exc})") from None
        except OSError as exc:
            raise BoardlabError(f"cannot open the web games store {path}: {exc.strerror}") from None

    def _conn(self) -> sqlite3.Connection:
        if self.db is None:
            self.open()
        assert self.db is not None  # open() connected, or raised
        return self.db

    def close(self) -> None:
        with self._lock:
            if self.db is not None:
                self.db.close()
                self.db = None

    # --- games -----------------------------------------------------------------------
    def add(self, session: GameSession) -> None:
        self.sweep()
        with self._lock:
            self._remember(session)
        self.save(session)

    def save(self, session: GameSession) -> None:
        """Write the game's record and last use (after every move)."""
        record = json.dumps(session.to_record(), separators=(",", ":"))
        with self._lock:
            self._conn().execute(
                "INSERT INTO games (id, record, created, used) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET record=excluded.record, used=excluded.used",
                (session.id, record, session.created, session.touched),
            )
            self._written[session.id] = session.touched

    def touch(self, session: GameSession) -> None:
        """Note a use that changed nothing (a look at the game); written at most every minute."""
        now = self.clock()
        session.touched = max(session.touched, now)
        if now - self._written.get(session.id, 0.0) >= TOUCH_EVERY:
            with self._lock:
                self._conn().execute("UPDATE games SET used=? WHERE id=?", (session.touched, session.id))
                self._written[session.id] = session.touched

    def get(self, session_id: str) -> GameSession:
        """The game ``session_id``; :class:`GameNotFound` says whether it never was or was removed."""
        with self._lock:
            found = self._loaded.get(session_id)
            if found is not None:
                self._loaded.move_to_end(session_id)
            else:
                row = self._conn().execute("SELECT record, created, used FROM games WHERE id=?", (session_id,)).fetchone()
                if row is not None:
                    found = self._load(session_id, row)
        if found is not None and self.clock() - found.touched > self.max_age:
            self.sweep()
            with self._lock:
                found = self._loaded.get(session_id)
        if found is not None:
            self.touch(found)
            return found
        with self._lock:
            gone = self._conn().execute("SELECT removed, reason FROM gone WHERE id=?", (session_id,)).fetchone()
        shown = session_id[:40]
        if gone is not None:
            raise GameNotFound(f"game {shown!r} was removed on {_when(gone[0])}: {gone[1]}")
        raise GameNotFound(f"no game {shown!r} on this server (its id is not in this server's data folder)")

    def _load(self, session_id: str, row) -> GameSession:
        try:
            session = GameSession.restore(session_id, json.loads(row[0]), row[1], row[2])
        except (BoardlabError, ValueError, KeyError, TypeError) as exc:
            raise GameNotFound(f"game {session_id[:40]!r} is stored but cannot be replayed with this boardlab: {exc}") from None
        self._remember(session)
        self._written[session_id] = row[2]
        return session

    def _remember(self, session: GameSession) -> None:
        self._loaded[session.id] = session
        self._loaded.move_to_end(session.id)
        while len(self._loaded) > LOADED:
            old_id, old = self._loaded.popitem(last=False)  # still on disk; only its trees go
            old.cancel_ai("the game was put aside")
            self._written.pop(old_id, None)

    # --- removal ----------------------------------------------------------------------
    def sweep(self) -> int:
        """Remove games unused for ``game_days`` days, then the least recently used past ``max_games``."""
        now = self.clock()
        removed = 0
        with self._lock:
            cutoff = now - self.max_age
            old = [r[0] for r in self._conn().execute("SELECT id FROM games WHERE used < ?", (cutoff,))]
            reason = f"unused for more than {self.game_days:g} days (boardlab serve --game-days)"
            removed += self._remove(old, now, reason)
            (count,) = self._conn().execute("SELECT COUNT(*) FROM games").fetchone()
            if count > self.max_games:
                extra = [r[0] for r in self._conn().execute("SELECT id FROM games ORDER BY used LIMIT ?", (count - self.max_games,))]
                reason = f"this server keeps the {self.max_games} most recently used games (boardlab serve --max-games)"
                removed += self._remove(extra, now, reason)
            # the notes themselves go after a while
            self._conn().execute("DELETE FROM gone WHERE removed < ?", (now - 4 * self.max_age - 86400 * 30,))
        return removed

    def _remove(self, ids: list[str], now: float, reason: str) -> int:
        if not ids:
            return 0
        self._conn().execute("BEGIN")
        try:
            for game_id in ids:
                self._conn().execute("DELETE FROM games WHERE id=?", (game_id,))
                self._conn().execute("INSERT OR REPLACE INTO gone (id, removed, reason) VALUES (?, ?, ?)", (game_id, now, reason))
            self._conn().execute("COMMIT")
        except BaseException:
            self._conn().execute("ROLLBACK")
            raise
        for game_id in ids:
            session = self._loaded.pop(game_id, None)
            if session is not None:
                session.cancel_ai("the game was removed")
            self._written.pop(game_id, None)
        return len(ids)

    def stats(self) -> dict[str, Any]:
        with self._lock:
            (count,) = self._conn().execute("SELECT COUNT(*) FROM games").fetchone()
        return {"stored": count, "loaded": len(self._loaded)}
