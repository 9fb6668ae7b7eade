"""The user's files: reading them with one clear error, and where outputs may go.

Every reader of a user's file comes through here (or through the tree formats'
own byte reader), so that each way a file can be unusable (missing, a folder,
unreadable, not UTF-8, not JSON, nested too deeply, ``NaN``) is one
:class:`~boardlab.core.errors.BoardlabError` whose message starts with the
file's name, never a traceback from deep inside.

Outputs follow one rule: **a command creates exactly the file or folder it was
asked for, never the folders above it.** An output file's folder must exist
(:func:`check_output_file`, called before the work starts so that nothing is
computed for nothing); an output folder (``duel --records DIR``, ``report
--out DIR``) is created if missing, but its parent must exist
(:func:`output_folder`). Files are then written atomically by
:func:`boardlab.core.records.write_atomic`.

One exception: what a recipe trains (``boardlab train NAME --out``: a model
file, a book, a run folder) gets the folders above it made
(:func:`output_file`, :func:`make_parents`). Recipes' defaults and examples
put models under ``models/`` and runs under ``runs/``, and a first training in
a fresh folder must not fail for want of them.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Callable, TypeVar

from boardlab.core.errors import BoardlabError, FormatError

Loaded = TypeVar("Loaded")


def load_once_per_version(cache: dict[tuple[str, int, int], Loaded], path: Path, load: Callable[[Path], Loaded],
                          missing: str) -> Loaded:
    """``load(path)``, kept in ``cache`` per file version (resolved path, size, mtime), so that agents
    made game after game share one read model and a file rewritten by a new training run is read again.
    A missing file is ``BoardlabError(missing)``."""
    try:
        info = path.stat()
    except OSError:
        raise BoardlabError(missing) from None
    key = (str(path.resolve()), info.st_size, info.st_mtime_ns)
    if key not in cache:
        cache[key] = load(path)
    return cache[key]


def read_bytes(path: str | os.PathLike, what: str = "file") -> bytes:
    """The whole file; a missing or unreadable file (or a folder) is a :class:`BoardlabError` naming it."""
    path = Path(path)
    try:
        return path.read_bytes()
    except OSError as exc:
        if not path.exists():
            raise BoardlabError(f"{path}: no such {what}") from None
        raise BoardlabError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None


def read_text(path: str | os.PathLike, what: str = "file") -> str:
    """The file as UTF-8 text (a leading byte-order mark is allowed); other bytes are a :class:`FormatError`."""
    data = read_bytes(path, what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(f"{path}: byte {exc.start}: not UTF-8 text (is this a {what}?)") from None


_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_json(text: str | bytes, where: str, allow_nan: bool = False) -> Any:
    """``json.loads`` whose every failure is a :class:`FormatError` starting with ``where``.

    ``NaN`` and ``Infinity`` (which Python's json accepts) are refused unless
    ``allow_nan``; so are documents nested too deeply for Python to read.
    """
    try:
        data = json.loads(text) if allow_nan else json.loads(text, parse_constant=_no_constants)
        if _SURROGATE.search(text if isinstance(text, str) else text.decode("utf-8", "replace")):
            json.dumps(data, ensure_ascii=False).encode("utf-8")  # a lone surrogate \\ud800 is no character
        return data
    except json.JSONDecodeError as exc:
        raise FormatError(f"{where}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise FormatError(f"{where}: JSON nested too deeply") from None
    except UnicodeEncodeError:
        raise FormatError(f"{where}: a string holds a lone surrogate escape (\\ud800-\\udfff), which is no character") from None
    except (ValueError, TypeError) as exc:  # a NaN, an integer of thousands of digits, bytes not UTF-8
        raise FormatError(f"{where}: not valid JSON ({str(exc)[:200]})") from None


def read_json(path: str | os.PathLike, what: str = "file", allow_nan: bool = False) -> Any:
    """Read and parse a JSON file (see :func:`parse_json`); errors name the file."""
    return parse_json(read_text(path, what), str(path), allow_nan)


def check_output_file(path: str | os.PathLike, option: str | None = None) -> Path:
    """Refuse an output file that cannot be written: its folder must exist (it is never created)
    and the path must not be a folder. Call it before the work, so a typo costs nothing."""
    path = Path(path)
    named = f"{option} {path}" if option else str(path)
    if path.is_dir():
        raise BoardlabError(f"cannot write {named}: it is a folder")
    folder = path.parent
    if not folder.is_dir():
        if folder.exists():
            raise BoardlabError(f"cannot write {named}: {folder} is not a folder")
        raise BoardlabError(f"cannot write {named}: folder {folder} does not exist (create it first)")
    return path


def check_output_folder(path: str | os.PathLike, option: str | None = None) -> Path:
    """Refuse an output folder that cannot be made: a file of that name, or a missing parent folder."""
    path = Path(path)
    named = f"{option} {path}" if option else str(path)
    if path.is_dir():
        return path
    if path.exists():
        raise BoardlabError(f"{named} is a file, not a folder")
    if not path.parent.is_dir():
        raise BoardlabError(f"cannot create folder {named}: folder {path.parent} does not exist (create it first)")
    return path


def output_folder(path: str | os.PathLike, option: str | None = None) -> Path:
    """The folder the user named for outputs, created if missing (its parent must exist)."""
    path = check_output_folder(path, option)
    try:
        path.mkdir(exist_ok=True)
    except OSError as exc:
        named = f"{option} {path}" if option else str(path)
        raise BoardlabError(f"cannot create folder {named}: {exc.strerror or exc}") from None
    if not path.is_dir():  # mkdir(exist_ok=True) accepts nothing else, but a race could leave a file
        raise BoardlabError(f"{path} is a file, not a folder")
    return path


def make_parents(path: str | os.PathLike, option: str | None = None) -> Path:
    """Create the missing folders above a recipe's output (see the module docstring); a file in the way,
    or a folder that cannot be made, is one clear error naming the option."""
    path = Path(path)
    folder = path.parent
    if folder.is_dir():
        return path
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        pass  # a file where the folder should be: the caller's check names it
    except OSError as exc:
        named = f"{option} {path}" if option else str(path)
        raise BoardlabError(f"cannot create folder {folder} for {named}: {exc.strerror or exc}") from None
    return path


def output_file(path: str | os.PathLike, option: str | None = None) -> Path:
    """A recipe's output file: its folders are made if missing, then it is checked as :func:`check_output_file` does."""
    return check_output_file(make_parents(path, option), option)
