"""Typed options parsed from spec strings such as ``mcts:iterations=2000,c=1.41``.

Games and agents declare their options as :class:`Option` tuples; this module
turns user text into checked Python values so that every wrong key or value is
reported with the name of the thing it was meant for.

The grammar: ``name``, then optionally ``:`` and ``key=value`` pairs separated
by commas. A thing that declares one *positional* option (a family of games
such as ``openspiel``, whose first option says which member) takes its value
right after the name, then the pairs after another ``:``:
``openspiel:hex:board_size=7``. Commas and colons inside parentheses belong to
the value (``game=goofspiel(num_cards=4,players=2)``), so a value may itself
be a parenthesised spec.
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
    #: written right after the name (``openspiel:hex``) rather than as ``key=value``; at most one per owner
    positional: bool = False

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


def positional_option(options: Mapping[str, Option]) -> str | None:
    """The name of the positional option among ``options``, or None."""
    return next((name for name, opt in options.items() if opt.positional), None)


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


def _split_top(text: str, separators: str) -> list[str]:
    """Split ``text`` at the ``separators`` that are not inside parentheses."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char in separators and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def spec_name(spec: str) -> str:
    """The name a spec starts with (``openspiel`` of ``openspiel:hex:board_size=7``)."""
    name = spec.strip().partition(":")[0].strip()
    if not name:
        raise SpecError(f"specification {spec!r} has no name before ':'" if spec.strip() else "empty specification")
    return name


def parse_spec(spec: str, positional: str | None = None) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,key=value`` into the name and a dict of raw strings.

    With ``positional`` (the name of the owner's positional option), a first
    value without ``=`` is that option's: ``openspiel:hex:board_size=7`` gives
    ``("openspiel", {"name": "hex", "board_size": "7"})``.
    """
    spec = spec.strip()
    name = spec_name(spec)
    rest = spec.partition(":")[2]
    raw: dict[str, str] = {}
    if _depth_problem(rest):
        raise SpecError(f"specification {spec!r}: unbalanced parentheses")
    if positional is not None and rest.strip():
        head, *tail = _split_top(rest, ":,")
        if len(_split_top(head, "=")) == 1:  # no '=' outside parentheses: the positional value
            if not head.strip():
                raise SpecError(f"specification {spec!r}: no {positional} after {name + ':'!r}")
            raw[positional] = head.strip()
            rest = rest[len(head) + 1:] if tail else ""
    if rest.strip():
        for part in _split_top(rest, ","):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq or not key:
                raise SpecError(f"specification {spec!r}: expected key=value, got {part.strip()!r}")
            if key in raw:
                raise SpecError(f"specification {spec!r}: option {key!r} given twice")
            raw[key] = value.strip()
    return name, raw


def _depth_problem(text: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if depth < 0:
            return True
    return depth != 0


def format_spec(name: str, values: Mapping[str, Any], options: Mapping[str, Option]) -> str:
    """The spec string that makes the same thing again: ``name`` and the values that differ from
    their defaults (``connect4:rows=5``, ``mcts:iterations=2000``); :func:`parse_spec` reads it back."""
    head = name + "".join(f":{values[k]}" for k, opt in options.items() if opt.positional)
    changed = {k: v for k, v in values.items() if v != options[k].default and not options[k].positional}
    if not changed:
        return head
    return head + ":" + ",".join(f"{k}={v}" for k, v in changed.items())


def positive(value: Any) -> str | None:
    return None if value > 0 else "must be positive"


def non_negative(value: Any) -> str | None:
    return None if value >= 0 else "must not be negative"


def one_of(*names: Any) -> Callable[[Any], str | None]:
    """A check that the value is one of ``names`` (an empty name is shown as '')."""
    return lambda value: None if value in names else f"must be one of {', '.join(n or repr(n) for n in names)}"


def between(low: float, high: float) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        return None if low <= value <= high else f"must be between {low} and {high}"

    return check
