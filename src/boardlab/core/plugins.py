"""Plug-ins: games, agents, evaluators, recipes, experiments, engines, OpenSpiel twins and commands found through entry points.

Every kind of plug-in has an entry-point group (``boardlab.games``,
``boardlab.agents``, ...). An entry maps a name to ``"package.module:object"``;
the module is imported only when the object is first asked for, so listing
names stays fast and a plug-in's heavy dependency (python-chess, torch) is
loaded only by those who use it. boardlab's own games and agents are declared
in its ``pyproject.toml`` exactly like a third-party package's::

    [project.entry-points."boardlab.games"]
    tictactoe = "my_package.tictactoe:TicTacToe"

:func:`PluginGroup.register` adds an entry at run time (tests, notebooks).
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from importlib.metadata import entry_points
from typing import Any, Iterator

from boardlab.core.errors import SpecError

GROUPS = {
    "games": "boardlab.games",
    "agents": "boardlab.agents",
    "evaluators": "boardlab.evaluators",
    "recipes": "boardlab.recipes",
    "experiments": "boardlab.experiments",
    # a game's compiled engines and solvers, named GAME.KIND (connect4.uct): see boardlab.core.engines
    "engines": "boardlab.engines",
    # top-level commands a study adds (boardlab solve): a function typer turns into the command
    "commands": "boardlab.commands",
    # the same game in OpenSpiel, by game name: see boardlab.adapters.openspiel.twin
    "openspiel_twins": "boardlab.openspiel_twins",
}


def load_target(target: str, what: str) -> Any:
    """Import ``"package.module:attribute"``; a broken target is a :class:`SpecError` naming ``what``."""
    module_name, colon, attribute = target.partition(":")
    if not colon or not module_name or not attribute:
        raise SpecError(f"{what}: target {target!r} must be 'package.module:object'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SpecError(f"{what}: cannot import {module_name} ({exc})") from None
    try:
        found: Any = module
        for part in attribute.split("."):
            found = getattr(found, part)
    except AttributeError:
        raise SpecError(f"{what}: {module_name} has no {attribute!r}") from None
    return found


class PluginGroup:
    """The entries of one kind (``kind`` is ``"game"``, ``"agent"``...), read once from the entry points."""

    def __init__(self, kind: str, group: str) -> None:
        self.kind = kind
        self.group = group
        self._targets: dict[str, str] | None = None  # entry points, then run-time additions
        self._added: dict[str, str] = {}
        self._loaded: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _entries(self) -> dict[str, str]:
        if self._targets is None:
            with self._lock:
                if self._targets is None:
                    found = {ep.name: ep.value for ep in entry_points(group=self.group)}
                    self._targets = dict(sorted({**found, **self._added}.items()))
        return self._targets

    def reload(self) -> None:
        """Read the entry points again (a package installed, or put on ``sys.path``, since)."""
        with self._lock:
            self._targets = None
            self._loaded.clear()

    def register(self, name: str, target: str) -> None:
        """Add (or replace) ``name`` -> ``"package.module:object"`` for this process."""
        if ":" not in target:
            raise SpecError(f"{self.kind} {name!r}: target {target!r} must be 'package.module:object'")
        entries = self._entries()
        with self._lock:
            entries[name] = target
            self._added[name] = target
            self._loaded.pop(name, None)

    @contextlib.contextmanager
    def registered(self, name: str, target: str) -> Iterator[None]:
        """Register ``name`` for the duration of a ``with`` block (tests), then restore what was there."""
        before = self._entries().get(name)
        before_added = self._added.get(name)
        self.register(name, target)
        try:
            yield
        finally:
            with self._lock:
                for table, old in ((self._targets, before), (self._added, before_added)):
                    if table is None:
                        continue
                    if old is None:
                        table.pop(name, None)
                    else:
                        table[name] = old
                self._loaded.pop(name, None)

    def names(self) -> list[str]:
        return sorted(self._entries())

    def target(self, name: str) -> str:
        try:
            return self._entries()[name]
        except KeyError:
            known = ", ".join(self.names()) or "none"
            raise SpecError(f"unknown {self.kind} {name!r} (known {self.kind}s: {known})") from None

    def __contains__(self, name: object) -> bool:
        return name in self._entries()

    def load(self, name: str) -> Any:
        """The object registered as ``name``, imported on first use."""
        if name not in self._loaded:
            self._loaded[name] = load_target(self.target(name), f"{self.kind} {name!r}")
        return self._loaded[name]


games = PluginGroup("game", GROUPS["games"])
agents = PluginGroup("agent", GROUPS["agents"])
evaluators = PluginGroup("evaluator", GROUPS["evaluators"])
recipes = PluginGroup("recipe", GROUPS["recipes"])
experiments = PluginGroup("experiment", GROUPS["experiments"])
engines = PluginGroup("engine", GROUPS["engines"])
openspiel_twins = PluginGroup("OpenSpiel twin", GROUPS["openspiel_twins"])
commands = PluginGroup("command", GROUPS["commands"])
