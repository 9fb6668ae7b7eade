"""Typed options parsed from spec strings such as ``mcts:iterations=2000,c=1.41``.

Games and agents declare their options as :class:`Option` tuples; this module
turns user text into checked Python values so that every wrong key or value is
reported with the name of the thing it was meant for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from boardlab.core.errors import SpecError


@dataclass(frozen=True)
class Option:
    """One named option of a game or agent."""

    name: str
    type: type
    default: Any
    help: str
    check: Callable[[Any], str | None] | None = None  # returns an error text or None
    #: a float option must be a finite number (``inf``, ``nan``, ``1e999`` are refused) unless this is False
    finite: bool = True

    def describe(self) -> str:
        return f"{self.name}={self.default!r} ({self.type.__name__}): {self.help}"


def _convert(text: Any, option: Option, owner: str) -> Any:
    if not isinstance(text, str):
        value = text
    elif option.type is bool:
        lowered = text.lower()
        if lowered in ("1", "true", "yes", "on"):
            value = True
        elif lowered in ("0", "false", "no", "off"):
            value = False
        else:
            raise SpecError(f"{owner}: option {option.name!r} must be true or false, not {text!r}")
    else:
        value = text
    try:
        if option.type is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            value = float(value)
        elif option.type is int and isinstance(value, str):
            value = int(value)
        elif option.type is float and isinstance(value, str):
            value = float(value)
        elif option.type is str:
            value = str(value)
    except ValueError:
        raise SpecError(
            f"{owner}: option {option.name!r} must be {option.type.__name__}, not {text!r}"
        ) from None
    if option.type is not str and option.default is not None and not isinstance(value, option.type):
        raise SpecError(f"{owner}: option {option.name!r} must be {option.type.__name__}, not {text!r}")
    if option.type is float and option.finite and isinstance(value, float) and not math.isfinite(value):
        raise SpecError(f"{owner}: option {option.name}={text} must be a finite number")
    if option.check is not None and value is not None:
        problem = option.check(value)
        if problem:
            raise SpecError(f"{owner}: option {option.name}={value!r} {problem}")
    return value


def resolve_options(
    owner: str, options: Mapping[str, Option], given: Mapping[str, Any]
) -> dict[str, Any]:
    """Merge ``given`` over the declared defaults, converting and checking each value."""
    unknown = sorted(set(given) - set(options))
    if unknown:
        known = ", ".join(options) or "none"
        raise SpecError(f"{owner}: unknown option {unknown[0]!r} (known options: {known})")
    values = {name: opt.default for name, opt in options.items()}
    for name, raw in given.items():
        values[name] = _convert(raw, options[name], owner)
    return values


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,key=value`` into the name and a dict of raw strings."""
    spec = spec.strip()
    if not spec:
        raise SpecError("empty specification")
    name, _, rest = spec.partition(":")
    name = name.strip()
    if not name:
        raise SpecError(f"specification {spec!r} has no name before ':'")
    raw: dict[str, str] = {}
    if rest.strip():
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq or not key:
                raise SpecError(f"specification {spec!r}: expected key=value, got {part.strip()!r}")
            if key in raw:
                raise SpecError(f"specification {spec!r}: option {key!r} given twice")
            raw[key] = value.strip()
    return name, raw


def format_spec(name: str, values: Mapping[str, Any], options: Mapping[str, Option]) -> str:
    """The spec string that makes the same thing again: ``name`` and the values that differ from
    their defaults (``connect4:rows=5``, ``mcts:iterations=2000``); :func:`parse_spec` reads it back."""
    changed = {k: v for k, v in values.items() if v != options[k].default}
    if not changed:
        return name
    return name + ":" + ",".join(f"{k}={v}" for k, v in changed.items())


def positive(value: Any) -> str | None:
    return None if value > 0 else "must be positive"


def non_negative(value: Any) -> str | None:
    return None if value >= 0 else "must not be negative"


def between(low: float, high: float) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        return None if low <= value <= high else f"must be between {low} and {high}"

    return check
