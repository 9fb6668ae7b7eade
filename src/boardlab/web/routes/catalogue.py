"""What the server offers: its games, agents and limits (``/api/meta``), what it is doing
(``/api/status``), and each game's board renderer."""

from __future__ import annotations

import importlib.resources
import logging
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse

from boardlab.agents.evaluators import evaluator_names, get_evaluator
from boardlab.agents.registry import agent_class, agent_names
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.params import parse_spec
from boardlab.core.registry import game_class, game_names
from boardlab.web.context import Context
from boardlab.web.errors import NotFound
from boardlab.web.sessions import MODES

log = logging.getLogger("boardlab.web")

router = APIRouter()


def describe_options(options: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for name, opt in options.items():
        out.append({"name": name, "type": opt.type.__name__, "default": opt.default, "help": opt.help})
    return out


def game_catalogue() -> list[dict[str, Any]]:
    """Every registered game with what it declares (a game whose module cannot load is left out)."""
    games = []
    for name in game_names():
        try:
            cls = game_class(name)
            default = cls()
        except BoardlabError:  # e.g. a plug-in whose optional dependency is missing
            continue
        declared = cls.game_type
        agents = [a for a in agent_names() if not agent_class(a).interactive and agent_class(a).plays_by_default(default) is None]
        games.append(
            {
                **declared.to_dict(),
                "renderer": f"/api/renderers/{name}.js" if declared.renderer else None,
                "players": default.num_players(),
                "players_range": [declared.min_players, declared.max_players],
                "player_names": [default.player_name(p) for p in range(declared.max_players)],
                "parameters": describe_options(dict(cls.parameters)),
                "agents": agents,
                "evaluators": evaluator_names(default),
                "evaluator_summaries": {e: get_evaluator(e).summary for e in evaluator_names(default)},
                "default_evaluator": default.default_evaluator(),
                "default_agent": default_opponent(default, agents),
            }
        )
    return games


def default_opponent(game: Game, agents: list[str]) -> dict[str, Any] | None:
    """The agent the menu offers first for ``game``, as ``{"agent": name, "options": {...}, "spec": ...}``:
    the game's declared default when the web may run it, else None (the page then offers MCTS)."""
    spec = game.default_agent()
    if spec is None:
        return None
    name, options = parse_spec(spec)
    if name not in agents:
        log.warning("game %s declares default agent %r, which the web cannot offer", game.name, spec)
        return None
    return {"agent": name, "options": options, "spec": spec}


def agent_catalogue() -> list[dict[str, Any]]:
    agents = []
    for name in agent_names():
        cls = agent_class(name)
        if cls.interactive:  # a person at a terminal makes no sense in the browser
            continue
        agents.append({"name": name, "summary": cls.summary, "games": list(cls.games) if cls.games else None,
                       "searches": cls.searches, "options": describe_options(dict(cls.options))})
    return agents


def renderer_file(name: str) -> Path:
    """The board renderer (an ES module) that game ``name`` declares; it must lie inside its package."""
    declared = game_class(name).game_type.renderer
    if declared is None:
        raise NotFound(f"game {name!r} has no board renderer")
    package, _, relative = declared.partition(":")
    if not relative.endswith(".js") or ".." in Path(relative).parts or Path(relative).is_absolute():
        raise NotFound(f"game {name!r} declares renderer {declared!r}, which is not a .js file inside its package")
    try:
        root = importlib.resources.files(package)
    except ModuleNotFoundError:
        raise NotFound(f"game {name!r}: renderer package {package!r} is not installed") from None
    path = Path(str(root / relative))
    if not path.is_file():
        raise NotFound(f"game {name!r}: renderer {declared!r} is missing")
    return path


@router.get("/api/meta")
def meta(ctx: Context) -> dict[str, Any]:
    return {"games": game_catalogue(), "agents": agent_catalogue(), "modes": list(MODES),
            "max_upload": ctx.limits.max_upload, "limits": ctx.limits.to_dict()}


@router.get("/api/status")
def status(ctx: Context) -> dict[str, Any]:
    """What the server is doing: AI workers, queue, memory, games and uploads stored."""
    return {"ai": ctx.ai.status(), "trees": ctx.trees.status(), "games": ctx.sessions.stats(),
            "uploads": {"bytes": ctx.uploads.used_bytes(), "quota": ctx.limits.upload_quota},
            "kept_tree_nodes": ctx.kept.total, "limits": ctx.limits.to_dict()}


@router.get("/api/renderers/{name}.js")
def renderer(name: str) -> FileResponse:
    if name not in game_names():
        raise NotFound(f"no game {name[:40]!r}")
    return FileResponse(renderer_file(name), media_type="text/javascript", headers={"Cache-Control": "no-cache"})
