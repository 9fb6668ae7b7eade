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

import functools
import json
import math
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Concatenate, Iterator, ParamSpec, TypeVar

from boardlab.core.errors import BoardlabError, FormatError
from boardlab.core.files import check_output_file, parse_json

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    config TEXT NOT NULL,          -- JSON: game, agents, players, games, format, seed[, resolved_agents]
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
    stats TEXT,                    -- JSON: {"game": state.statistics(), "agents": [agent.statistics()]}, or NULL
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
    #: ``{"game": state.statistics(), "agents": [agent.statistics() of each seat], "decisions": [[decisions,
    #: wall seconds of their steps] of each seat]}`` (no ``decisions`` for a compiled match), or None
    stats: dict[str, Any] | None = None

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
            **({"stats": self.stats} if self.stats is not None else {}),
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


_COLUMNS = {
    "meta": ["key", "value"],
    "tournaments": ["id", "config", "command", "total_games", "created"],
    "games": ["tournament", "game_index", "seed", "seats", "agents", "returns", "scores", "record", "seconds", "finished"],
}
#: columns a store may have beyond _COLUMNS (added to stores written before them)
OPTIONAL_GAME_COLUMNS = ["stats"]
#: config keys that are no part of a tournament's identity: kept as first stored (stores written before a
#: key lack it) and left out when a tournament is opened again (the tournament layer compares them)
RECORDED_CONFIG_KEYS = ("resolved_agents",)
#: the largest return or score a stored game may hold (every game's are far smaller; this keeps sums finite)
MAX_POINTS = 1e12


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _database_errors(method: Callable[Concatenate[ResultStore, _P], _R]) -> Callable[Concatenate[ResultStore, _P], _R]:
    """Turn SQLite's errors inside ``method`` into one clear line naming the store."""

    @functools.wraps(method)
    def wrapper(self: ResultStore, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.OperationalError as exc:  # locked, a missing table or column in a damaged file
            raise BoardlabError(f"{self.path}: results store error: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise FormatError(f"{self.path}: damaged results store ({exc})") from None

    return wrapper


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _points(value: Any, count: int) -> bool:
    return isinstance(value, list) and len(value) == count and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and abs(x) <= MAX_POINTS for x in value
    )


def _resolved_agents_ok(config: dict[str, Any]) -> bool:
    """Absent (a store written before agents' options were recorded) or one options dict per agent."""
    if "resolved_agents" not in config:
        return True
    resolved = config["resolved_agents"]
    return isinstance(resolved, list) and len(resolved) == len(config["agents"]) and all(
        isinstance(options, dict) for options in resolved)


def _identity(config: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in config.items() if k not in RECORDED_CONFIG_KEYS}


class ResultStore:
    """An open results store; use as a context manager or call :meth:`close`.

    Opening a file that is not a results store (not SQLite, or another
    program's SQLite database) is a :class:`FormatError`, and such a file is
    left untouched: nothing is written before the file is known to be a store.
    Everything read back is checked, so a damaged store is a clear error, never
    a traceback from deep inside a report.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self.db: sqlite3.Connection  # set once connected: before that, __init__ can only raise
        db: sqlite3.Connection | None = None
        try:
            if path is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)  # the user's data folder
            elif self.path.is_dir():
                raise BoardlabError(f"{self.path} is a folder, not a results store")
            elif not self.path.exists():
                check_output_file(self.path)  # a new store given by name: its folder must exist
            # isolation_level=None: we open transactions ourselves, one per finished game
            self.db = db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self._check_schema()  # reads only: a foreign database is refused before anything is written
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
            columns = {row[1] for row in self.db.execute("PRAGMA table_info(games)")}
            if "stats" not in columns:  # a store written before games kept their statistics
                self.db.execute("ALTER TABLE games ADD COLUMN stats TEXT")
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        except BaseException as exc:
            if db is not None:
                db.close()
            if isinstance(exc, sqlite3.DatabaseError):
                raise FormatError(f"{self.path}: not a boardlab results store ({exc})") from None
            if isinstance(exc, OSError):
                raise BoardlabError(f"cannot open results store {self.path}: {exc.strerror}") from None
            raise

    def _check_schema(self) -> None:
        tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        tables = {t for t in tables if not t.startswith("sqlite_")}
        if not tables:
            return  # a new (or empty) database: it becomes a store
        columns = {t: [row[1] for row in self.db.execute(f"PRAGMA table_info({t})")] for t in _COLUMNS if t in tables}
        if columns.get("games", [])[len(_COLUMNS["games"]):] == OPTIONAL_GAME_COLUMNS:
            columns["games"] = columns["games"][:len(_COLUMNS["games"])]  # games with their statistics
        if columns != _COLUMNS:
            names = ", ".join(sorted(tables)[:8])
            raise FormatError(f"{self.path}: an SQLite database, but not a boardlab results store (its tables: {names})")
        rows = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchall()
        if not rows:
            if self.db.execute("SELECT COUNT(*) FROM tournaments").fetchone()[0] == 0:
                return  # a store whose first opening stopped before it wrote its schema row
            raise FormatError(f"{self.path}: results store without a schema version")
        if rows[0][0] != str(SCHEMA_VERSION):
            raise FormatError(f"{self.path}: results store schema {str(rows[0][0])[:20]}, this boardlab reads {SCHEMA_VERSION}")

    def close(self) -> None:
        if self.db is not None:
            self.db.close()

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- checking what is read ------------------------------------------------------
    def _json(self, text: Any, where: str) -> Any:
        if not isinstance(text, (str, bytes)):
            raise FormatError(f"{self.path}: {where}: not a JSON text")
        return parse_json(text, f"{self.path}: {where}")

    def _info(self, row: tuple) -> TournamentInfo:
        tid, config_text, command, total, created, finished = row
        where = f"tournament {str(tid)[:20]}"
        if not isinstance(tid, str):
            raise FormatError(f"{self.path}: a tournament id is not text")
        config = self._json(config_text, where + " config")
        ok = (
            isinstance(config, dict)
            and isinstance(config.get("game"), str)
            and isinstance(config.get("agents"), list) and config["agents"]
            and all(isinstance(a, str) for a in config["agents"])
            and _is_int(config.get("players")) and 1 <= config["players"] <= len(config["agents"])
            and _is_int(config.get("games")) and config["games"] >= 1
            and isinstance(config.get("format"), str)
            and _is_int(config.get("seed"))
            and _resolved_agents_ok(config)
        )
        if not ok:
            raise FormatError(f"{self.path}: {where}: config is not a tournament configuration "
                              "(game, agents, players, games, format, seed, resolved_agents)")
        if not _is_int(total) or total < 0 or not isinstance(command, str) or not isinstance(created, str):
            raise FormatError(f"{self.path}: {where}: total_games, command or created is damaged")
        return TournamentInfo(tid, config, command, total, created, finished)

    # --- tournaments -------------------------------------------------------------
    @_database_errors
    def open_tournament(self, tid: str, config: dict[str, Any], command: str, total_games: int) -> bool:
        """Record tournament ``tid`` unless it is there already; return whether it was new."""
        # insert first and compare after: two processes starting the same tournament at once both
        # find it recorded once (a look before the insert would let both try, and one fail)
        inserted = self.db.execute(
            "INSERT OR IGNORE INTO tournaments VALUES (?, ?, ?, ?, ?)",
            (tid, json.dumps(config, sort_keys=True), command, total_games, _now()),
        ).rowcount
        if inserted:
            return True
        row = self.db.execute("SELECT config FROM tournaments WHERE id=?", (tid,)).fetchone()
        stored = self._json(row[0], f"tournament {tid} config")
        if not isinstance(stored, dict) or _identity(stored) != _identity(config):
            raise BoardlabError(f"{self.path}: tournament {tid} exists with another configuration")
        return False

    _SELECT_INFO = ("SELECT t.id, t.config, t.command, t.total_games, t.created, "
                    "(SELECT COUNT(*) FROM games g WHERE g.tournament = t.id) FROM tournaments t ")

    @_database_errors
    def tournaments(self) -> list[TournamentInfo]:
        """All tournaments, oldest first."""
        rows = self.db.execute(self._SELECT_INFO + "ORDER BY t.created, t.rowid").fetchall()
        return [self._info(r) for r in rows]

    @_database_errors
    def find_tournament(self, tid: str) -> TournamentInfo | None:
        """The tournament whose id is exactly ``tid``, or None when the store has none."""
        row = self.db.execute(self._SELECT_INFO + "WHERE t.id=?", (tid,)).fetchone()
        return None if row is None else self._info(row)

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
    @_database_errors
    def finished_indices(self, tid: str) -> set[int]:
        return {r[0] for r in self.db.execute("SELECT game_index FROM games WHERE tournament=?", (tid,))}

    @_database_errors
    def add_game(self, tid: str, result: GameResult) -> bool:
        """Commit one finished game; return False if that game was stored already."""
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO games (tournament, game_index, seed, seats, agents, returns, scores, record, "
            "seconds, finished, stats) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                None if result.stats is None else json.dumps(result.stats),
            ),
        )
        return cursor.rowcount == 1

    def games(self, tid: str) -> list[GameResult]:
        """The tournament's finished games, by index."""
        return list(self.iter_games(tid))

    def iter_games(self, tid: str) -> Iterator[GameResult]:
        """The tournament's finished games, by index, each checked against the tournament's configuration."""
        info = self.tournament(tid)
        if info.id != tid:
            raise BoardlabError(f"{self.path}: no tournament with id {tid!r}")
        agents, players = len(info.config["agents"]), info.config["players"]
        try:
            rows = self.db.execute(
                "SELECT game_index, seed, seats, agents, returns, scores, record, seconds, stats "
                "FROM games WHERE tournament=? ORDER BY game_index",
                (tid,),
            )
            for index, seed, seats, specs, returns, scores, record, seconds, stats in rows:
                where = f"tournament {tid}, game {str(index)[:20]}"
                seats = self._json(seats, where + " seats")
                specs = self._json(specs, where + " agents")
                returns = self._json(returns, where + " returns")
                scores = None if scores is None else self._json(scores, where + " scores")
                record = self._json(record, where + " record")
                stats = None if stats is None else self._json(stats, where + " stats")
                ok = (
                    _is_int(index) and index >= 0 and _is_int(seed)
                    and isinstance(seats, list) and len(seats) == players
                    and all(_is_int(s) and 0 <= s < agents for s in seats)
                    and isinstance(specs, list) and len(specs) == players and all(isinstance(a, str) for a in specs)
                    and _points(returns, players) and (scores is None or _points(scores, players))
                    and isinstance(record, dict)
                    and isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds >= 0
                    and (stats is None or isinstance(stats, dict))
                )
                if not ok:
                    raise FormatError(f"{self.path}: {where} is damaged (index, seed, seats, agents, returns, "
                                      f"scores, record, seconds or stats)")
                yield GameResult(index=index, seed=seed, seats=seats, agents=specs, returns=returns,
                                 scores=scores, record=record, seconds=float(seconds), stats=stats)
        except sqlite3.OperationalError as exc:
            raise BoardlabError(f"{self.path}: results store error: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise FormatError(f"{self.path}: damaged results store ({exc})") from None
