"""The results store: one SQLite file that keeps every finished tournament game.

Each game is committed as soon as it finishes, so a tournament killed at any
moment loses only the games that were still being played. A tournament's id is
a hash of its configuration, so running the same command again finds the same
tournament and plays only its missing games; the primary key
``(tournament, game_index)`` makes a doubled game impossible.

The file uses SQLite's write-ahead log (WAL) with ``synchronous=NORMAL``: a
commit survives the death of the process (SIGKILL included); after a power
cut the last few commits may be missing but the file is never corrupt.
Only one process writes (the tournament's parent process); reports may read
while a tournament runs.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from boardlab.core.errors import BoardlabError, FormatError
from boardlab.core.files import check_output_file

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    config TEXT NOT NULL,          -- JSON: game, agents, players, games, format, seed
    command TEXT NOT NULL,         -- the command line that first created it
    total_games INTEGER NOT NULL,
    created TEXT NOT NULL          -- UTC, ISO 8601
);
CREATE TABLE IF NOT EXISTS games (
    tournament TEXT NOT NULL REFERENCES tournaments(id),
    game_index INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,           -- JSON: agent number in each seat
    agents TEXT NOT NULL,          -- JSON: agent spec in each seat
    returns TEXT NOT NULL,         -- JSON: return of each seat
    scores TEXT,                   -- JSON: state.scores() of each seat, NULL if the game has none
    record TEXT NOT NULL,          -- JSON: the boardlab game record
    seconds REAL NOT NULL,
    finished TEXT NOT NULL,
    PRIMARY KEY (tournament, game_index)
);
"""


def default_store_path() -> Path:
    """``$XDG_DATA_HOME/boardlab/results.sqlite``, else ``~/.local/share/boardlab/results.sqlite``."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "boardlab" / "results.sqlite"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class GameResult:
    """One finished game of a tournament, as stored."""

    index: int
    seed: int
    seats: list[int]
    agents: list[str]
    returns: list[float]
    scores: list[float] | None
    record: dict[str, Any]
    seconds: float

    @property
    def players(self) -> int:
        return len(self.seats)

    def points(self) -> list[float]:
        """What score tables count: ``state.scores()`` when the game has them, else the returns."""
        return self.scores if self.scores is not None else self.returns

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "seed": self.seed,
            "seats": self.seats,
            "agents": self.agents,
            "returns": self.returns,
            "scores": self.scores,
            "seconds": self.seconds,
        }


@dataclass
class TournamentInfo:
    id: str
    config: dict[str, Any]
    command: str
    total_games: int
    created: str
    finished_games: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "config": self.config,
            "command": self.command,
            "total_games": self.total_games,
            "finished_games": self.finished_games,
            "created": self.created,
        }


class ResultStore:
    """An open results store; use as a context manager or call :meth:`close`."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        try:
            if path is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)  # the user's data folder
            elif not self.path.exists():
                check_output_file(self.path)  # a new store given by name: its folder must exist
            # isolation_level=None: we open transactions ourselves, one per finished game
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
            version = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if version is None:
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(version[0]) != SCHEMA_VERSION:
                raise FormatError(f"{self.path}: results store schema {version[0]}, this boardlab reads {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise FormatError(f"{self.path}: not a boardlab results store ({exc})") from None
        except OSError as exc:
            raise BoardlabError(f"cannot open results store {self.path}: {exc.strerror}") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- tournaments -------------------------------------------------------------
    def open_tournament(self, tid: str, config: dict[str, Any], command: str, total_games: int) -> bool:
        """Record tournament ``tid`` unless it is there already; return whether it was new."""
        row = self.db.execute("SELECT config FROM tournaments WHERE id=?", (tid,)).fetchone()
        if row is not None:
            if json.loads(row[0]) != config:
                raise BoardlabError(f"{self.path}: tournament {tid} exists with another configuration")
            return False
        self.db.execute(
            "INSERT INTO tournaments VALUES (?, ?, ?, ?, ?)",
            (tid, json.dumps(config, sort_keys=True), command, total_games, _now()),
        )
        return True

    def tournaments(self) -> list[TournamentInfo]:
        """All tournaments, oldest first."""
        rows = self.db.execute(
            "SELECT t.id, t.config, t.command, t.total_games, t.created, "
            "(SELECT COUNT(*) FROM games g WHERE g.tournament = t.id) "
            "FROM tournaments t ORDER BY t.created, t.rowid"
        ).fetchall()
        return [TournamentInfo(r[0], json.loads(r[1]), r[2], r[3], r[4], r[5]) for r in rows]

    def tournament(self, tid: str | None = None) -> TournamentInfo:
        """The tournament whose id is or starts with ``tid``; the latest one when ``tid`` is None."""
        known = self.tournaments()
        if not known:
            raise BoardlabError(f"{self.path}: no tournaments in this store")
        if tid is None:
            return known[-1]
        matches = [t for t in known if t.id.startswith(tid)]
        if len(matches) != 1:
            ids = ", ".join(t.id for t in known[-10:])
            what = "no" if not matches else "more than one"
            raise BoardlabError(f"{self.path}: {what} tournament with id {tid!r} (latest ids: {ids})")
        return matches[0]

    # --- games -------------------------------------------------------------------
    def finished_indices(self, tid: str) -> set[int]:
        return {r[0] for r in self.db.execute("SELECT game_index FROM games WHERE tournament=?", (tid,))}

    def add_game(self, tid: str, result: GameResult) -> bool:
        """Commit one finished game; return False if that game was stored already."""
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                tid,
                result.index,
                result.seed,
                json.dumps(result.seats),
                json.dumps(result.agents),
                json.dumps(result.returns),
                None if result.scores is None else json.dumps(result.scores),
                json.dumps(result.record),
                result.seconds,
                _now(),
            ),
        )
        return cursor.rowcount == 1

    def games(self, tid: str) -> list[GameResult]:
        """The tournament's finished games, by index."""
        return list(self.iter_games(tid))

    def iter_games(self, tid: str) -> Iterator[GameResult]:
        rows = self.db.execute(
            "SELECT game_index, seed, seats, agents, returns, scores, record, seconds "
            "FROM games WHERE tournament=? ORDER BY game_index",
            (tid,),
        )
        for index, seed, seats, agents, returns, scores, record, seconds in rows:
            yield GameResult(
                index=index,
                seed=seed,
                seats=json.loads(seats),
                agents=json.loads(agents),
                returns=json.loads(returns),
                scores=None if scores is None else json.loads(scores),
                record=json.loads(record),
                seconds=seconds,
            )
