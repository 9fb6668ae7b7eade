"""Checked settings: one way to declare a config and turn a bad one into a clear error.

A config is a pydantic dataclass declared with :data:`STRICT`: unknown keys are refused, JSON
``true`` is never a number, and every range or choice is written on its field::

    @dataclass(config=STRICT)
    class TrainConfig:
        lr: Annotated[float, Field(gt=0)] = 1e-3
        schedule: Literal["none", "plateau"] = "none"

It stays a dataclass (``dataclasses.fields``, ``asdict`` and ``replace`` work, and ``replace``
checks again), so code that reads it does not change. :func:`load` checks a JSON object read from a
file; :func:`build` checks settings given as keyword arguments (a command's options); both raise
the project's own error, naming ``where`` (the file, or the recipe) and the key at fault.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import ConfigDict, ValidationError

from boardlab.core.errors import BoardlabError, FormatError

T = TypeVar("T")

#: the pydantic settings of every config: no unknown keys, no silent type conversion (a float field
#: still takes a whole number), and checks run again when a field is assigned or replaced
STRICT = ConfigDict(extra="forbid", strict=True, validate_assignment=True)


def describe(error: ValidationError) -> str:
    """Every problem of ``error`` on one line, each naming its key: ``'lr': Input should be greater
    than 0; 'size': unknown key``."""
    problems = []
    for item in error.errors():
        key = ".".join(str(part) for part in item["loc"]) or "the config"
        if item["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
            problems.append(f"unknown key {key!r}")
        elif item["type"] in ("missing", "missing_argument"):
            problems.append(f"missing key {key!r}")
        elif not item["loc"]:
            # a rule joining several keys (raised in __post_init__): its message names them
            problems.append(str(item["msg"]).removeprefix("Value error, "))
        else:
            problems.append(f"{key!r}: {item['msg']} (got {item.get('input')!r})")
    return "; ".join(problems)


def load(kind: type[T], data: Any, where: str, error: type[BoardlabError] = FormatError) -> T:
    """``data`` (a JSON object) checked as a ``kind``; a bad one raises ``error`` starting with ``where``."""
    if not isinstance(data, dict):
        raise error(f"{where}: the config must be a JSON object, not {type(data).__name__}")
    try:
        # the fields are checked strictly; the object itself is the keyword arguments
        return kind(**{str(key): value for key, value in data.items()})
    except ValidationError as exc:
        raise error(f"{where}: {describe(exc)}") from None


def build(kind: type[T], where: str, error: type[BoardlabError] = BoardlabError, **settings: Any) -> T:
    """A ``kind`` made from keyword ``settings`` (a command's options), checked like :func:`load`."""
    return load(kind, settings, where, error)
