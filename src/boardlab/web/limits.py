"""What one web server allows: search budgets, workers, memory, uploads, how long games are kept.

Every limit has a ``boardlab serve`` option of the same name (``max_ai_seconds``
is ``--max-ai-seconds``), and error messages name that option, so a person who
hits a limit knows which knob the server's operator turns.

AI settings from a request become an agent spec here, from validated
key/value pairs only (never by pasting request text into a spec string), and
the budgets in them are checked against the limits:

* an agent option named ``time`` (seconds per move) above ``max_ai_seconds``,
  ``iterations`` (or the agent's ``iterations_option``) above ``max_ai_iterations`` or ``max_nodes`` above
  ``max_tree_nodes`` is refused with a 400 that names the limit;
* when the request gives none, the search still runs within them: the worker
  adds ``time=max_ai_seconds`` to an agent that has a ``time`` option and
  ``max_nodes=max_tree_nodes`` to one that has ``max_nodes``
  (:func:`server_caps`; ``time`` only next to iterations that still bound the search, so that
  an agent's own default budget stays as it is); agents without such options run as they are, watched
  by the worker pool's wall clock and memory cap;
* budgets an agent takes from elsewhere (``az``'s simulations from its model file) are checked the same
  way once the agent is loaded, in the worker job that checks a new game's agents.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from typing import Any, Mapping

from boardlab.agents.registry import agent_class
from boardlab.core.errors import SpecError
from boardlab.core.params import parse_spec

MIB = 2**20


@dataclass(frozen=True)
class ServerLimits:
    """The limits of one server (see the module docstring and ``boardlab serve --help``)."""

    #: seconds one AI move may search (an agent's ``time`` option)
    max_ai_seconds: float = 60.0
    #: iterations one AI move may run (an agent's ``iterations`` option)
    max_ai_iterations: int = 10_000_000
    #: nodes of one search tree (an agent's ``max_nodes`` option; added when not given)
    max_tree_nodes: int = 1_000_000
    #: worker processes that run AI moves and parse uploads, one job each at a time
    ai_workers: int = 2
    #: AI moves that may wait for a worker; more are refused with 503
    ai_queue: int = 16
    #: resident memory of the server and its workers together (bytes); searches past it are stopped
    max_memory: int = 4096 * MIB
    #: nodes of search trees kept for the viewer, all games together (the oldest go first)
    kept_tree_nodes: int = 4_000_000
    #: largest tree file accepted for upload (bytes)
    max_upload: int = 200 * MIB
    #: all uploaded files together (bytes)
    upload_quota: int = 1024 * MIB
    #: an upload is deleted this many hours after its last use
    upload_hours: float = 24.0
    #: a game is deleted this many days after its last use
    game_days: float = 30.0
    #: games kept in all; past it the least recently used goes
    max_games: int = 100_000

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise SpecError(f"server limit {option(name)} must be a positive number, not {value!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def option(name: str) -> str:
    """The ``boardlab serve`` option of a limit: ``max_ai_seconds`` -> ``--max-ai-seconds``."""
    return "--" + name.replace("_", "-")


#: what an option value from a request may look like: a number, a boolean, or a word
#: without the spec separators (``,`` ``=`` ``:``), spaces or control characters
_WORD = re.compile(r"[A-Za-z0-9_.+\-/]{1,64}")
#: settings keys that are not agent options
SETTING_KEYS = ("agent", "spec")


def check_value(key: str, value: Any) -> str:
    """A request's option value as spec text; anything that could smuggle in another option is refused."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise SpecError(f"AI setting {key!r} must be a finite number, not {value!r}")
        return repr(value)
    if isinstance(value, str):
        if not _WORD.fullmatch(value):
            raise SpecError(
                f"AI setting {key!r}: {value[:40]!r} is not a plain value "
                "(a number or a word of letters, digits and . _ + - /; no ',', '=', ':' or spaces)"
            )
        return value
    raise SpecError(f"AI setting {key!r} must be a number, true/false or a word, not {type(value).__name__}")


def check_key(key: str) -> None:
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,31}", key):
        raise SpecError(f"AI setting {key[:40]!r} is not an option name")


def settings_spec(settings: Mapping[str, Any], known_options: set[str]) -> str:
    """The agent spec for one seat's settings from the menu.

    ``{"agent": "mcts", "iterations": 500, "c": 1.4}`` gives ``mcts:iterations=500,c=1.4``;
    ``{"spec": "mcts:iterations=500"}`` is parsed and rebuilt from its pairs. Keys
    that are no agent's option are refused; options the chosen agent lacks are
    dropped (the menu sends its iterations field whatever the agent); ``None`` or
    ``""`` mean "the agent's default".
    """
    spec = settings.get("spec")
    name = settings.get("agent")
    if spec not in (None, ""):
        if name not in (None, "") or any(k not in SETTING_KEYS and settings[k] not in (None, "") for k in settings):
            raise SpecError("give either 'spec' or 'agent' with its options, not both")
        if not isinstance(spec, str):
            raise SpecError("AI setting 'spec' must be a string such as mcts:iterations=500")
        name, raw = parse_spec(spec)
        pairs = dict(raw)
        for key, value in pairs.items():
            check_key(key)
            check_value(key, value)
        declared = agent_options(name)
    else:
        name = name if name not in (None, "") else "random"
        if not isinstance(name, str):
            raise SpecError("AI setting 'agent' must be an agent's name")
        declared = agent_options(name)
        pairs = {}
        for key, value in settings.items():
            if key in SETTING_KEYS:
                continue
            check_key(key)
            if key not in known_options and key not in declared:
                known = ", ".join(sorted(known_options | set(SETTING_KEYS)))
                raise SpecError(f"unknown AI setting {key!r} (settings: {known})")
            if value is None or value == "" or key not in declared:
                continue
            pairs[key] = check_value(key, value)
    check_key(name.replace("-", "_"))
    for key, value in pairs.items():
        check_free_text(name, key, value, declared)
    return name + (":" + ",".join(f"{k}={v}" for k, v in pairs.items()) if pairs else "")


def check_free_text(agent: str, key: str, value: str, declared: Mapping[str, Any]) -> None:
    """Refuse a value for a free-text option: such options name files, folders or training runs
    on the server (``qnet:path=...``), and nothing from a request may become a path. Options
    with a fixed vocabulary (their own check) are fine, and so is ``eval`` with an evaluator's name."""
    option = declared.get(key)
    if option is None or option.type is not str or option.check is not None:
        return
    if key == "eval":
        from boardlab.agents.evaluators import NO_EVALUATOR, evaluator_names

        if value == NO_EVALUATOR or value in evaluator_names():
            return
        raise SpecError(f"agent {agent!r}: eval={value!r} is no evaluator (evaluators: {', '.join(evaluator_names())}, none)")
    raise SpecError(
        f"agent {agent!r}: option {key!r} names a file, folder or run on the server, which a browser may not choose "
        "(the agent's default is used; other models are for the command line)"
    )


def agent_options(name: str) -> dict[str, Any]:
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]{1,64}", name):
        raise SpecError(f"{str(name)[:40]!r} is not an agent name")
    cls = agent_class(name)
    if cls.interactive:
        raise SpecError(f"agent {name!r} needs a person at a terminal; in the browser a person plays a human seat")
    return dict(cls.options)


def check_budget(spec: str, config: Mapping[str, Any], limits: ServerLimits, iterations_option: str = "iterations") -> None:
    """Refuse an agent whose budget options ask for more than this server allows (``iterations_option``:
    the option the agent counts its iterations in, :attr:`Agent.iterations_option`)."""
    checks = (
        ("time", "max_ai_seconds", "seconds per move"),
        (iterations_option, "max_ai_iterations", f"{iterations_option} per move"),
        ("max_nodes", "max_tree_nodes", "nodes per search tree"),
    )
    for key, limit_name, what in checks:
        value = config.get(key)
        limit = getattr(limits, limit_name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > limit:
            raise SpecError(
                f"agent {spec}: {key}={number(value)} is over this server's limit of {number(limit)} {what} "
                f"(boardlab serve {option(limit_name)})"
            )


def number(value: float) -> str:
    """``1000000.0`` as ``1000000``, ``0.5`` as ``0.5``."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e18 else f"{value:g}"


def server_caps(name: str, config: Mapping[str, Any], limits: ServerLimits) -> dict[str, Any]:
    """Options the worker adds so that a search stays within the limits when the request set none."""
    cls = agent_class(name)
    declared = cls.options
    caps: dict[str, Any] = {}
    # a search bounded by iterations only is bounded by time too ("whichever ends first");
    # with neither, the agent's own default budget applies (mcts: 1000 iterations), which the
    # worker's agent check holds against max_ai_iterations (Agent.play_budget). Where a
    # time replaces the iterations, the pool's wall clock and memory cap bound the search instead.
    if (cls.time_with_iterations and "time" in declared and config.get("time") is None
            and (config.get(cls.iterations_option) is not None or cls.unset_iterations_bound_with_time)):
        caps["time"] = float(limits.max_ai_seconds)
    if "max_nodes" in declared and config.get("max_nodes") is None:
        caps["max_nodes"] = int(limits.max_tree_nodes)
    return caps


def with_options(spec: str, extra: Mapping[str, Any]) -> str:
    """``spec`` with more ``key=value`` pairs (values this module produced, never request text)."""
    if not extra:
        return spec
    name, raw = parse_spec(spec)
    raw = dict(raw, **{k: (repr(v) if isinstance(v, float) else str(v)) for k, v in extra.items()})
    return name + ":" + ",".join(f"{k}={v}" for k, v in raw.items())
