"""Agents by name, made from spec strings such as ``mcts:iterations=2000,c=1.41``."""

from __future__ import annotations

from typing import Any

from boardlab.agents.base import Agent
from boardlab.core.errors import SpecError
from boardlab.core.game import Game
from boardlab.core.params import parse_spec
from boardlab.core.plugins import agents as _agents


def register_agent(name: str, target: str) -> None:
    """Register ``name`` for ``"package.module:ClassName"`` in this process
    (a package registers its agents for good with a ``boardlab.agents`` entry point)."""
    _agents.register(name, target)


def agent_names() -> list[str]:
    return _agents.names()


def agent_target(name: str) -> str:
    return _agents.target(name)


def agent_class(name: str) -> type[Agent]:
    cls = _agents.load(name)
    if not (isinstance(cls, type) and issubclass(cls, Agent)):
        raise SpecError(f"agent {name!r}: {_agents.target(name)} is not a boardlab Agent class")
    return cls


def make_agent(spec: str, game: Game | None = None, **extra: Any) -> Agent:
    """Build an agent from its spec string; ``game`` lets it refuse games it cannot play."""
    name, raw = parse_spec(spec)
    cls = agent_class(name)
    if game is not None:
        problem = cls.plays(game)
        if problem:
            raise SpecError(problem)
    return cls(**raw, **extra)

