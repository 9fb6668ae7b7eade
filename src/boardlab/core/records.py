"""Game records: one JSON document that replays a game exactly.

A record holds the game's name and parameters, the seed (or the set-up
position the game started from, in the game's notation), the agents' specs,
every action (chance outcomes included), the returns and the boardlab version.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from boardlab.core.errors import BoardlabError, FormatError, IllegalActionError
from boardlab.core.files import check_output_file, read_json
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
    end: str | None = None  # how the game ended (state.end_reason()); None in records written before it was kept
    #: ``[ply, seed]`` of each time what no seat had seen was drawn afresh (the web app's undo; see
    #: ``Game.state_from_history``); empty for games played straight through
    redraws: list[list[int]] = field(default_factory=list)
    #: the file the record was loaded from (:meth:`load`), which :meth:`replay`'s errors name; not part of the record
    source: str | None = field(default=None, init=False, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        data = {"format": RECORD_FORMAT, **asdict(self)}
        del data["source"]  # where it was read from is no part of the document
        for key in ("start", "end", "redraws"):
            if not data[key]:
                del data[key]  # records without them stay as they always were
        return data

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_state(cls, state: State, agents: list[str], moves: list[str] | None = None,
                   redraws: list[tuple[int, int]] | None = None) -> "GameRecord":
        """The record of ``state``'s game; ``moves`` are its labels when the caller noted them as the
        game was played (else the history is replayed to write them); ``redraws`` as the field says."""
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
            end=state.end_reason(),
            redraws=[[int(ply), int(seed)] for ply, seed in redraws or ()],
        )

    @classmethod
    def from_dict(cls, data: Any, where: str = "record") -> "GameRecord":
        """Check a record's fields and types; every error is a :class:`FormatError` starting with ``where``."""
        if not isinstance(data, dict):
            raise FormatError(f"{where}: a game record is a JSON object")
        if data.get("format") != RECORD_FORMAT:
            found = data.get("format")
            found = found if isinstance(found, (str, int, float, type(None))) else type(found).__name__
            raise FormatError(f"{where}: not a boardlab game record (format {str(found)[:80]!r}, expected {RECORD_FORMAT!r})")
        required = ("game", "params", "seed", "agents", "actions", "returns")
        missing = [key for key in required if key not in data]
        if missing:
            raise FormatError(f"{where}: missing key {missing[0]!r}")

        def is_int(value: Any) -> bool:
            return isinstance(value, int) and not isinstance(value, bool)

        def bad(key: str, what: str) -> FormatError:
            return FormatError(f"{where}: {key!r} must be {what}")

        if not isinstance(data["game"], str) or not data["game"]:
            raise bad("game", "a game name")
        if not isinstance(data["params"], dict):
            raise bad("params", "an object of game parameters")
        seed = data["seed"]
        if seed is not None and not (is_int(seed) and 0 <= seed < 2**64):
            raise bad("seed", "null or an integer from 0 to 2**64 - 1")
        if not isinstance(data["agents"], list) or not all(isinstance(a, str) for a in data["agents"]):
            raise bad("agents", "a list of agent specs (strings)")
        actions = data["actions"]
        if not isinstance(actions, list) or not all(is_int(a) and 0 <= a < 2**31 for a in actions):
            raise bad("actions", "a list of integers from 0 to 2**31 - 1")
        returns = data["returns"]
        if not isinstance(returns, list) or not all(
            isinstance(r, (int, float)) and not isinstance(r, bool) and math.isfinite(r) for r in returns
        ):
            raise bad("returns", "a list of finite numbers")
        moves = data.get("moves", [])
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise bad("moves", "a list of strings")
        version = data.get("boardlab_version", "")
        if not isinstance(version, str):
            raise bad("boardlab_version", "a string")
        start = data.get("start")
        if start is not None and not isinstance(start, str):
            raise bad("start", "null or a position in the game's notation")
        end = data.get("end")
        if end is not None and not isinstance(end, str):
            raise bad("end", "null or how the game ended (one word)")
        redraws = data.get("redraws", [])
        if not isinstance(redraws, list) or not all(
            isinstance(r, list) and len(r) == 2 and all(is_int(v) for v in r) and 0 <= r[0] <= len(actions)
            and 0 <= r[1] < 2**64 for r in redraws
        ):
            raise bad("redraws", f"a list of [ply, seed] pairs (ply 0 to {len(actions)}, seed 0 to 2**64 - 1)")
        return cls(
            game=data["game"],
            params=dict(data["params"]),
            seed=seed,
            agents=list(data["agents"]),
            actions=list(actions),
            returns=[float(r) for r in returns],
            boardlab_version=version,
            moves=list(moves),
            start=start,
            end=end,
            redraws=[list(r) for r in redraws],
        )

    @classmethod
    def load(cls, path: str | Path) -> "GameRecord":
        """Read a record file; every problem with it is a :class:`BoardlabError` naming the file.

        The file's name is kept, so that :meth:`replay` names it too.
        """
        record = cls.from_dict(read_json(path, "game record"), str(path))
        record.source = str(path)
        return record

    def save(self, path: str | Path) -> None:
        write_atomic(Path(path), self.to_json(indent=1) + "\n")

    def replay(self) -> State:
        """Apply the recorded actions and check the record against them; return the final state.

        Checked: the game and its parameters exist, one agent per player, every
        action is legal, the recorded ``moves`` (when the record has them) are
        what the actions are called, the game is over and its returns are the
        recorded ones. The first disagreement is a :class:`BoardlabError`.
        """
        where = self.source
        try:
            return self._replay()
        except BoardlabError as exc:
            if where is None:
                raise
            raise type(exc)(f"{where}: {exc}") from None

    def _replay(self) -> State:
        game = make(self.game, **self.params)
        if len(self.agents) != game.num_players():
            raise FormatError(f"the record names {len(self.agents)} agents for a game of {game.num_players()} players")
        state = game.state_from_history([], self.seed, self.start)
        redraws = sorted((ply, seed) for ply, seed in self.redraws)
        for index, action in enumerate(self.actions + [None]):
            while redraws and redraws[0][0] == index:
                state = state.redraw_unseen(np.random.default_rng(redraws.pop(0)[1]))
            if action is None:
                break
            before = state.clone() if index < len(self.moves) else None
            try:
                state.apply_action(action)
            except IllegalActionError as exc:
                raise IllegalActionError(f"move {index + 1} of the record: {exc}") from None
            if before is not None:
                text = before.action_to_string(action)  # named once known legal
                if text != self.moves[index]:
                    raise FormatError(
                        f"move {index + 1}: the record's moves say {self.moves[index]!r} but its action {action} is {text!r}"
                    )
        if not state.is_terminal():
            raise BoardlabError(f"record ends after {len(self.actions)} moves but the game is not over")
        if [float(r) for r in state.returns()] != self.returns:
            raise BoardlabError(f"replayed returns {state.returns()} differ from recorded {self.returns}")
        if self.moves and len(self.moves) != len(self.actions):
            raise FormatError(f"the record has {len(self.actions)} actions but {len(self.moves)} moves")
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
            with os.fdopen(fd, "wb") as handle:
                if mode is not None:
                    os.fchmod(handle.fileno(), mode)
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
