"""Agents by name, made from spec strings such as ``mcts:iterations=2000,c=1.41``."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from boardlab.agents.base import Agent
from boardlab.core.errors import SpecError
from boardlab.core.game import Game
from boardlab.core.params import parse_spec


@dataclass(frozen=True)
class AgentEntry:
    name: str
    target: str  # "package.module:ClassName", imported on first use

    def load(self) -> type[Agent]:
        module_name, _, class_name = self.target.partition(":")
        return getattr(importlib.import_module(module_name), class_name)


_AGENTS: dict[str, AgentEntry] = {}


def register_agent(name: str, target: str) -> None:
    _AGENTS[name] = AgentEntry(name, target)


def agent_names() -> list[str]:
    return sorted(_AGENTS)


def agent_class(name: str) -> type[Agent]:
    try:
        return _AGENTS[name].load()
    except KeyError:
        known = ", ".join(agent_names())
        raise SpecError(f"unknown agent {name!r} (known agents: {known})") from None


def make_agent(spec: str, game: Game | None = None, **extra: Any) -> Agent:
    """Build an agent from its spec string; ``game`` lets it refuse games it cannot play."""
    name, raw = parse_spec(spec)
    cls = agent_class(name)
    if game is not None and cls.games is not None and game.name not in cls.games:
        raise SpecError(f"agent {name!r} plays only {', '.join(cls.games)}, not {game.name!r}")
    return cls(**raw, **extra)


register_agent("random", "boardlab.agents.random_agent:RandomAgent")
register_agent("human", "boardlab.agents.human:HumanAgent")
register_agent("mcts", "boardlab.agents.mcts:MCTSAgent")
register_agent("nothanks-expert", "boardlab.agents.nothanks_agents:NoThanksExpertAgent")
register_agent("nothanks-net", "boardlab.agents.nothanks_agents:NoThanksNetAgent")
register_agent("perfect", "boardlab.agents.perfect:PerfectAgent")
register_agent("qnet", "boardlab.agents.qnet:QNetAgent")
