"""Reading the networks' checkpoint files safely: ``torch.load(..., weights_only=True)`` only,
and one clear FormatError naming the file for anything that is not a checkpoint of the expected format."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import torch

from boardlab.core.errors import BoardlabError, FormatError


def _payload(path: Path) -> Any:
    with warnings.catch_warnings():  # torch warns about foreign pickle protocols; the caller's error says it
        warnings.simplefilter("ignore")
        return torch.load(path, map_location="cpu", weights_only=True)


def read_checkpoint(path: str | Path, fmt: str, what: str, missing: str) -> dict[str, Any]:
    """The payload (a dict whose ``format`` is ``fmt``) of the checkpoint at ``path``. A missing file is
    ``BoardlabError(missing)``; a file that is not such a checkpoint is a FormatError calling it not ``what``."""
    path = Path(path)
    if not path.is_file():
        raise BoardlabError(missing)
    try:
        payload = _payload(path)
    except Exception as exc:  # noqa: BLE001  torch raises many kinds for a file that is not a checkpoint
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise FormatError(f"{path}: not a readable PyTorch checkpoint ({first[:200]})") from None
    found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
    if not isinstance(found, str) or found != fmt:
        shown = found if isinstance(found, (str, int, float, type(None))) else type(found).__name__
        raise FormatError(f"{path}: not a {what} (format {str(shown)[:60]!r}, expected {fmt!r})")
    return payload


def is_checkpoint(path: str | Path, fmt: str) -> bool:
    """Whether ``path`` is a checkpoint file of format ``fmt``."""
    path = Path(path)
    if not path.is_file():
        return False
    try:
        payload = _payload(path)
    except Exception:  # noqa: BLE001  not a torch file: not ours
        return False
    return isinstance(payload, dict) and payload.get("format") == fmt
