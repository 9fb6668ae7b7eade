"""Agents: the protocol, the registry and the built-in players."""

from boardlab.agents.base import Agent
from boardlab.agents.registry import agent_class, agent_names, make_agent, register_agent

__all__ = ["Agent", "agent_class", "agent_names", "make_agent", "register_agent"]
