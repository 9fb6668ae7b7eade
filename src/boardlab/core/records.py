"""Game records: one JSON document that replays a game exactly.

A record holds the game's name and parameters, the seed (or the set-up
position the game started from, in the game's notation), the agents' specs,
every action (chance outcomes included), the returns and the boardlab version.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

from boardlab.core.errors import BoardlabError, FormatError
from boardlab.core.game import State
from boardlab.core.registry import make

RECORD_FORMAT = "boardlab-record/1"


@dataclass
class GameRecord:
    game: str
    params: dict[str, Any]
    seed: int | None
    agents: list[str]
    actions: list[int]
    returns: list[float]
    boardlab_version: str = ""
    moves: list[str] = field(default_factory=list)  # human-readable, for people; not used to replay
    start: str | None = None  # the set-up position the game started from (None: the game's initial state)

    def to_dict(self) -> dict[str, Any]:
        data = {"format": RECORD_FORMAT, **asdict(self)}
        if data["start"] is None:
            del data["start"]  # records of games from the initial state stay as they always were
        return data

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_state(cls, state: State, agents: list[str], moves: list[str] | None = None) -> "GameRecord":
        """The record of ``state``'s game; ``moves`` are its labels when the caller noted them as the
        game was played (else the history is replayed to write them)."""
        from boardlab import __version__

        return cls(
            game=state.game.name,
            params=dict(state.game.params),
            seed=state.seed,
            agents=list(agents),
            actions=list(state.history),
            returns=list(state.returns()),
            boardlab_version=__version__,
            moves=list(moves) if moves is not None else state.history_labels(),
            start=state.start_position(),
        )

    @classmethod
    def from_dict(cls, data: Any, where: str = "record") -> "GameRecord":
        if not isinstance(data, dict):
            raise FormatError(f"{where}: a game record is a JSON object")
        if data.get("format") != RECORD_FORMAT:
            raise FormatError(f"{where}: not a boardlab game record (format {data.get('format')!r})")
        required = ("game", "params", "seed", "agents", "actions", "returns")
        missing = [key for key in required if key not in data]
        if missing:
            raise FormatError(f"{where}: missing key {missing[0]!r}")
        if not all(isinstance(a, int) for a in data["actions"]):
            raise FormatError(f"{where}: 'actions' must be a list of integers")
        return cls(
            game=data["game"],
            params=dict(data["params"]),
            seed=data["seed"],
            agents=list(data["agents"]),
            actions=list(data["actions"]),
            returns=[float(r) for r in data["returns"]],
            boardlab_version=data.get("boardlab_version", ""),
            moves=list(data.get("moves", [])),
            start=data.get("start"),
        )

    @classmethod
    def load(cls, path: str | Path) -> "GameRecord":
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise BoardlabError(f"cannot read {path}: {exc.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FormatError(f"{path}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
        return cls.from_dict(data, str(path))

    def save(self, path: str | Path) -> None:
        write_atomic(Path(path), self.to_json(indent=1) + "\n")

    def replay(self) -> State:
        """Apply the recorded actions and check the recorded returns; return the final state."""
        game = make(self.game, **self.params)
        state = game.state_from_history(self.actions, self.seed, self.start)
        if not state.is_terminal():
            raise BoardlabError(f"record ends after {len(self.actions)} moves but the game is not over")
        if [float(r) for r in state.returns()] != self.returns:
            raise BoardlabError(f"replayed returns {state.returns()} differ from recorded {self.returns}")
        return state


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write a file so that readers see the old or the new content, never half of it."""
    write_chunks_atomic(path, [data.encode("utf-8") if isinstance(data, str) else data])


def write_chunks_atomic(path: str | os.PathLike, chunks: Iterable[Any]) -> None:
    """Stream ``chunks`` (bytes or numpy buffers) into a temporary file beside ``path``,
    then rename it over ``path``: an error midway (a full disk, a failure while
    encoding the next chunk) leaves the old file untouched."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
