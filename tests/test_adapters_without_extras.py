"""Without the optional extras, the adapters say in one line what to install, and nothing else breaks."""

from __future__ import annotations

import importlib
import sys

import pytest

from boardlab.agents.registry import make_agent
from boardlab.core.errors import MissingDependencyError, SpecError
from boardlab.core.registry import game_names, make


@pytest.fixture()
def without(monkeypatch):
    def block(*modules: str) -> None:
        for name in modules:
            monkeypatch.setitem(sys.modules, name, None)  # import fails as if not installed
    return block


def test_openspiel_games_and_agents_name_the_extra(without):
    without("pyspiel")
    with pytest.raises(MissingDependencyError, match=r"open_spiel is not installed \(pip install 'boardlab\[openspiel\]'\)"):
        make("openspiel:hex")
    with pytest.raises(SpecError, match="agent 'openspiel-mcts'.*boardlab\\[openspiel\\]"):
        make_agent("openspiel-mcts", make("connect4"))
    assert "openspiel" in game_names()  # still listed: the entry point is there, the game says what it needs

    from boardlab.web.routes.catalogue import game_catalogue

    catalogue = game_catalogue()
    assert "openspiel" not in [g["name"] for g in catalogue]  # the page offers only what can be played
    assert not [a for g in catalogue for a in g["agents"] if a.startswith("openspiel")]


def test_the_pettingzoo_adapter_names_the_extra(without, monkeypatch):
    without("pettingzoo", "gymnasium")
    monkeypatch.delitem(sys.modules, "boardlab.adapters.pettingzoo", raising=False)
    with pytest.raises(MissingDependencyError, match=r"pettingzoo is not installed \(pip install 'boardlab\[pettingzoo\]'\)"):
        importlib.import_module("boardlab.adapters.pettingzoo")
