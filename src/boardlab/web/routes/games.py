"""Games: start one (or a rematch), look at it, move, let the AI move, undo, and its record."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Annotated, Any, Union

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr, model_validator

from boardlab.web.context import Context
from boardlab.web.gamestore import GameNotFound
from boardlab.web.sessions import GameSession

#: how often an AI move's request checks whether its client is still there (seconds)
DISCONNECT_POLL = 0.25

router = APIRouter()


# --- request bodies ------------------------------------------------------------
#: an option value in the AI settings: a number, true/false, a short word, or null for "the default"
OptionValue = Union[StrictBool, StrictInt, StrictFloat, Annotated[StrictStr, Field(max_length=64)], None]


class AISettings(BaseModel):
    """One seat's AI: ``agent`` and its options (``{"agent": "mcts", "iterations": 500}``) or a ``spec``."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"additionalProperties": {
        "anyOf": [{"type": "number"}, {"type": "boolean"}, {"type": "string", "maxLength": 64}, {"type": "null"}]}})
    __pydantic_extra__: dict[str, OptionValue]

    agent: Annotated[StrictStr, Field(max_length=64)] | None = Field(None, description="agent name, e.g. mcts")
    spec: Annotated[StrictStr, Field(max_length=400)] | None = Field(None, description="a whole agent spec instead, e.g. mcts:iterations=500")

    @model_validator(mode="after")
    def _few_options(self) -> AISettings:
        if len(self.model_extra or {}) > 32:
            raise ValueError("at most 32 AI options")
        return self

    def settings(self) -> dict[str, Any]:
        return {"agent": self.agent, "spec": self.spec, **(self.model_extra or {})}


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: Annotated[StrictStr, Field(min_length=1, max_length=200, description="game spec, e.g. connect4:rows=6,cols=7,k=4")]
    mode: Annotated[StrictStr, Field(max_length=32, description="human-ai, ai-ai or human-human")] = "human-ai"
    ai: AISettings | Annotated[list[AISettings], Field(min_length=1, max_length=16)] = Field(
        default_factory=lambda: AISettings.model_validate({"agent": "random"}), description="one seat's AI settings for every AI seat, or a list used in turn")
    human_seat: Annotated[StrictInt, Field(ge=0, le=64)] | None = Field(
        None, description="the person's seat in human-ai mode (default: the seat to move first)")
    seed: Annotated[StrictInt, Field(ge=0, lt=2**63)] | None = None
    position: Annotated[StrictStr, Field(max_length=10_000)] | None = Field(None, description="start from this position, in the game's notation (e.g. a FEN)")
    replaces: Annotated[StrictStr, Field(max_length=64)] | None = Field(
        None, description="the id of a game this one replaces (its AI move in flight is cancelled)")


class Move(BaseModel):
    """Exactly one of ``action`` (an integer) or ``move`` (its text, as the move list shows it)."""

    model_config = ConfigDict(extra="forbid")

    action: Annotated[StrictInt, Field(ge=0, lt=2**31)] | None = None
    move: Annotated[StrictStr, Field(min_length=1, max_length=100)] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Move:
        if (self.action is None) == (self.move is None):
            raise ValueError("give exactly one of 'action' (an integer) or 'move' (its text)")
        return self


# --- games -----------------------------------------------------------------------
@router.post("/api/games")
async def new_game(body: NewGame, ctx: Context) -> dict[str, Any]:
    if body.replaces:
        with contextlib.suppress(GameNotFound):
            (await ctx.in_pool(ctx.sessions.get, body.replaces)).cancel_ai("a new game replaced this one")
    ai_settings = [s.settings() for s in body.ai] if isinstance(body.ai, list) else body.ai.settings()
    created = await ctx.in_pool(lambda: GameSession.create(
        body.game, body.mode, ai_settings, body.human_seat, body.seed, body.position, limits=ctx.limits, now=ctx.clock()))
    check = created.agent_check(ctx.limits)
    if check["seats"]:  # the agents' resets load compiled code: a worker's business, not the server's
        await ctx.tree_job("check", check)
    await ctx.in_pool(ctx.sessions.add, created)
    return await ctx.in_pool(created.view)


@router.post("/api/games/{game_id}/rematch")
async def rematch(game_id: str, ctx: Context) -> dict[str, Any]:
    """A new game with this one's settings, every player moved on by one seat (so the person
    who moved first moves second), a fresh seed and the same start position."""
    found = ctx.session(game_id)
    found.cancel_ai("a rematch replaced this game")
    created = await ctx.in_pool(lambda: found.rematch(limits=ctx.limits, now=ctx.clock()))
    check = created.agent_check(ctx.limits)
    if check["seats"]:
        await ctx.tree_job("check", check)
    await ctx.in_pool(ctx.sessions.add, created)
    return await ctx.in_pool(created.view)


@router.get("/api/games/{game_id}")
def get_game(game_id: str, ctx: Context, seat: int | None = None) -> dict[str, Any]:
    return ctx.session(game_id).view(seat)


@router.get("/api/games/{game_id}/legal")
def legal(game_id: str, ctx: Context, seat: int | None = None) -> list[dict[str, Any]]:
    return ctx.session(game_id).view(seat)["legal"]


@router.post("/api/games/{game_id}/move")
def move(game_id: str, body: Move, ctx: Context) -> dict[str, Any]:
    found = ctx.session(game_id)
    found.play_human(body.action, body.move, now=ctx.clock())
    ctx.sessions.save(found)
    return found.view()


@router.post("/api/games/{game_id}/ai-move")
async def ai_move(game_id: str, request: Request, ctx: Context) -> dict[str, Any]:
    """Let the agent to move choose and play. The move waits for a worker (bounded queue),
    then searches within the server's limits; it is cancelled, and not played, when the client
    goes away or a move, undo or newer AI request for this game comes first. The answer's
    ``ai`` says how long the move waited and searched."""
    found = ctx.session(game_id)
    job = found.start_ai(ctx.limits, now=ctx.clock())
    future = ctx.ai.submit(job)  # a full queue is refused here (503), and replaces nothing
    found.adopt_ai(job)
    waiting = asyncio.wrap_future(future)
    while True:
        done, _ = await asyncio.wait({waiting}, timeout=DISCONNECT_POLL)
        if done:
            break
        if await request.is_disconnected():
            job.cancel("the client went away")
            found.cancel_ai("the client went away")
            break
    result = await waiting
    await ctx.in_pool(found.finish_ai, job, result, ctx.clock())
    ctx.sessions.save(found)
    ctx.kept.note(found)
    view = await ctx.in_pool(found.view)
    started = job.started_at or job.queued_at
    search = result.get("last_search") or {}
    view["ai"] = {
        "agent": result.get("agent"),
        "queued_seconds": round(started - job.queued_at, 4),
        "search_seconds": round(float(result.get("search_seconds", 0.0)), 4),
        "setup_seconds": round(float(result.get("setup_seconds", 0.0)), 4),
        "stopped": bool(result.get("stopped")),
        "stopped_for": result.get("stopped_for"),
        "simulations": search.get("simulations"),
        "engine": search.get("engine"),
        "nodes": result.get("nodes") or None,
    }
    return view


@router.post("/api/games/{game_id}/undo")
def undo(game_id: str, ctx: Context) -> dict[str, Any]:
    found = ctx.session(game_id)
    found.undo(now=ctx.clock())
    ctx.sessions.save(found)
    return found.view()


@router.get("/api/games/{game_id}/record")
def record(game_id: str, ctx: Context) -> dict[str, Any]:
    return ctx.session(game_id).record().to_dict()
