"""Game records: one JSON document that replays a game exactly.

A record holds the game's name and parameters, the seed, the agents' specs,
every action (chance outcomes included), the returns and the boardlab version.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

from boardlab.core.errors import BoardlabError, FormatError
from boardlab.core.files import check_output_file
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

    def to_dict(self) -> dict[str, Any]:
        return {"format": RECORD_FORMAT, **asdict(self)}

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_state(cls, state: State, agents: list[str]) -> "GameRecord":
        from boardlab import __version__

        probe = state.game.new_initial_state(state.seed)
        moves = []
        for action in state.history:
            moves.append(probe.action_to_string(action))
            probe.apply_action(action)
        return cls(
            game=state.game.name,
            params=dict(state.game.params),
            seed=state.seed,
            agents=list(agents),
            actions=list(state.history),
            returns=list(state.returns()),
            boardlab_version=__version__,
            moves=moves,
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
        state = game.state_from_history(self.actions, self.seed)
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
    encoding the next chunk) leaves the old file untouched and no temporary file.

    The folder must exist: it is never created here (see
    :mod:`boardlab.core.files`). A new file gets the permissions the user's umask
    gives (0644 under umask 022), as ``open()`` would; a file written over keeps
    its own. Failures of the file system are a :class:`BoardlabError` naming the file.
    """
    path = Path(path)
    if not path.parent.is_dir():
        check_output_file(path)  # raises the clear error: the folder is missing or is a file
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode) & 0o777
    except OSError:
        mode = None
    fd, tmp = _create_temporary(path)
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            with os.fdopen(fd, "wb") as handle:
                for chunk in chunks:
                    handle.write(chunk)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except OSError as exc:
            raise BoardlabError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _create_temporary(path: Path) -> tuple[int, str]:
    """A new file ``.NAME.XXXXXXXX.tmp`` beside ``path``, opened for writing.

    Like :func:`tempfile.mkstemp` but created with mode 0666, so the kernel
    applies the user's umask (mkstemp's 0600 would make every output private).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = str(path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
        except OSError as exc:
            raise BoardlabError(f"cannot write {path}: {exc.strerror or exc}") from None
    raise BoardlabError(f"cannot write {path}: no free temporary name in {path.parent}")
