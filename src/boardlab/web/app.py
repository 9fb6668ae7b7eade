"""The web app: a JSON API for playing games and a binary one for drawing search trees.

``create_app(data_dir, limits)`` builds the FastAPI application; ``boardlab
serve`` runs it with uvicorn. What keeps one request from taking the server
down:

* AI moves and the parsing of uploaded trees run in worker processes behind a
  bounded queue (:mod:`boardlab.web.aipool`): the server's own process only
  answers requests, a search is cancelled when its client goes away or a newer
  request replaces it, and the server stops at once with searches in flight;
* every budget a request asks for is checked against the server's limits
  (:mod:`boardlab.web.limits`, the ``boardlab serve`` options), and memory is
  capped: per search, in kept trees, in uploads;
* request bodies are strict pydantic models; every user error is a 4xx whose
  ``detail`` is one line;
* games are kept in SQLite in the data folder (:mod:`boardlab.web.gamestore`):
  a restart forgets none, and a removed game is named as such.

Nothing a client sends is used as a path: uploads are stored under generated
names in the data folder, and every file the app touches lies under that folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Callable, Union

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr, model_validator
from starlette.exceptions import HTTPException as StarletteHTTPException

from boardlab.agents.evaluators import evaluator_names, get_evaluator
from boardlab.agents.registry import agent_class, agent_names
from boardlab.core.errors import BoardlabError
from boardlab.core.game import TERMINAL, Game
from boardlab.core.params import parse_spec
from boardlab.core.registry import game_class, game_names
from boardlab.trees import gamelabels
from boardlab.trees.model import Tree
from boardlab.web import treepack
from boardlab.web.aipool import AIPool, Busy, Cancelled, Job, WorkerFailed
from boardlab.web.gamestore import GameNotFound, SessionStore
from boardlab.web.limits import MIB, ServerLimits
from boardlab.web.sessions import MODES, ConflictError, GameSession
from boardlab.web.uploads import QuotaFull, Scratch, TooLarge, UploadNotFound, UploadStore

log = logging.getLogger("boardlab.web")

STATIC = Path(__file__).with_name("static")
#: the largest tree file accepted for upload (bytes) by default; larger ones get 413
MAX_UPLOAD = ServerLimits().max_upload
#: packed trees kept for the viewer, by count and bytes
PACKED_KEEP = 6
PACKED_BYTES = 512 * MIB
#: worker processes for trees (parsing uploads, layouts, exports), and how long one such job may take
TREE_WORKERS = 1
TREE_JOB_SECONDS = 600
#: how often an AI move's request checks whether its client is still there (seconds)
DISCONNECT_POLL = 0.25


class NotFound(BoardlabError):
    pass


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
    def _few_options(self) -> "AISettings":
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
        default_factory=lambda: AISettings(agent="random"), description="one seat's AI settings for every AI seat, or a list used in turn")
    human_seat: Annotated[StrictInt, Field(ge=0, le=64)] | None = Field(None, description="the person's seat in human-ai mode (default: the seat to move first)")
    seed: Annotated[StrictInt, Field(ge=0, lt=2**63)] | None = None
    position: Annotated[StrictStr, Field(max_length=10_000)] | None = Field(None, description="start from this position, in the game's notation (e.g. a FEN)")
    replaces: Annotated[StrictStr, Field(max_length=64)] | None = Field(None, description="the id of a game this one replaces (its AI move in flight is cancelled)")


class Move(BaseModel):
    """Exactly one of ``action`` (an integer) or ``move`` (its text, as the move list shows it)."""

    model_config = ConfigDict(extra="forbid")

    action: Annotated[StrictInt, Field(ge=0, lt=2**31)] | None = None
    move: Annotated[StrictStr, Field(min_length=1, max_length=100)] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> "Move":
        if (self.action is None) == (self.move is None):
            raise ValueError("give exactly one of 'action' (an integer) or 'move' (its text)")
        return self


#: an export format in a query
FORMAT = Annotated[str, Query(max_length=8, description="csv, tree or png")]


#: the largest JSON body a request may send (uploads stream, and have their own limit)
MAX_BODY = 2**20


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes (other than an upload's) is refused
    with 413 before it is read into memory, whether it declares its length or not."""

    def __init__(self, app, limit: int = MAX_BODY, streamed: tuple[str, ...] = ("/api/uploads",)) -> None:
        self.app, self.limit, self.streamed = app, limit, streamed

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("path", "").startswith(self.streamed):
            return await self.app(scope, receive, send)
        for key, value in scope.get("headers", []):
            if key == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                return await self._refuse(send)
        seen = 0
        too_big = False
        replaced = False

        async def counted():
            nonlocal seen, too_big
            if too_big:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    too_big = True  # the app sees a client that went away; the client gets a 413
                    return {"type": "http.disconnect"}
            return message

        async def sending(message):
            nonlocal replaced
            if too_big:
                if not replaced:
                    replaced = True
                    await self._refuse(send)
                return
            await send(message)

        try:
            await self.app(scope, counted, sending)
        except Exception:
            if not too_big:
                raise
        if too_big and not replaced:
            await self._refuse(send)

    async def _refuse(self, send) -> None:
        body = json.dumps({"detail": f"request body over {self.limit} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class ErrorDetail(BaseModel):
    detail: str = Field(..., description="what went wrong, in one line")


ERRORS = {code: {"model": ErrorDetail, "description": text} for code, text in (
    (400, "a request the server cannot do (the detail says why)"), (404, "no such game, tree or upload"),
    (409, "not now: the game is over, another player's turn, or the AI move was cancelled"),
    (413, "a file over the upload limit"), (503, "every AI worker is busy, or the search was ended"),
    (507, "the upload quota is full"))}


#: pydantic's names of the branches of a union, as people say them
_BRANCHES = {"bool": "true or false", "int": "an integer", "float": "a number", "str": "a string",
             "constrained-str": "a string", "none": "null"}


def _is_branch(part: Any) -> bool:
    return isinstance(part, str) and ("[" in part or part in _BRANCHES)


def validation_message(exc: RequestValidationError) -> str:
    """The first problem of a request that does not fit its model, in one line.

    Where a field may take several shapes (``ai``: an object or a list; an option value:
    a number, true/false, a word), pydantic reports each shape's complaint: the one for the
    shape that was sent is kept, or the shapes are named."""
    errors = exc.errors()
    if not errors:
        return "malformed request"
    if errors[0].get("type") == "json_invalid":
        return "the body is not valid JSON"

    def place(error) -> str:
        parts = [str(p) for p in error.get("loc", ()) if p != "body" and not _is_branch(p)]
        return ".".join(parts) or "body"

    def fits(error) -> int:
        loc = list(error.get("loc", ()))
        branches = [i for i, p in enumerate(loc) if _is_branch(p)]
        if not branches:
            return 2
        tag, deeper = str(loc[branches[0]]), len(loc) > branches[0] + 1
        if tag.startswith("list["):
            return 2 if deeper or isinstance(error.get("input"), list) else 0
        return 1 if deeper or not isinstance(error.get("input"), list) else 0

    first = max(errors, key=fits)
    where = place(first)
    same = [e for e in errors if place(e) == where]
    kinds = [_BRANCHES[str(e["loc"][-1])] for e in same if e.get("loc") and str(e["loc"][-1]) in _BRANCHES]
    if len(kinds) > 1 and len(kinds) == len(same):
        kinds = list(dict.fromkeys(kinds))
        message = "must be " + ", ".join(kinds[:-1]) + " or " + kinds[-1]
    else:
        message = str(first.get("msg", "invalid")).replace("Value error, ", "")
    # problems elsewhere in the request (other shapes of the same field are no problem of it)
    others = len({place(e) for e in errors if fits(e) == fits(first)} - {where})
    more = f" (and {others} more problem{'s' if others > 1 else ''})" if others else ""
    return " ".join(f"{where}: {message}{more}".split())[:500]


def one_line(text: str) -> str:
    return " ".join(str(text).split())[:2000]


# --- trees the viewer can show -------------------------------------------------
@dataclass
class TreeSource:
    """One tree with what is needed to draw its nodes' states."""

    tree: Tree
    title: str
    meta: dict[str, Any]
    #: the game the tree was searched in (from its root label), for boards; None: labels only
    game: Game | None = None
    #: the moves from the previous tree's root to this one's (for the diff)
    prefix: tuple[str, ...] = ()


def tree_source(tree: Tree, title: str, meta: dict[str, Any]) -> TreeSource:
    """A tree for the viewer, with its game when its root label names one."""
    game, why = gamelabels.identify(tree)
    meta = dict(meta, game=game.spec() if game is not None else None)
    if game is None:
        meta["no_game"] = why
    return TreeSource(tree=tree, title=title, meta=meta, game=game)


def tree_bytes(tree: Tree, fmt: str) -> tuple[bytes, str, str]:
    """The tree as a file of format ``csv``, ``tree`` (the binary format) or ``png``."""
    return treepack.export_bytes(tree, fmt)


def tree_diff(previous: Tree, tree: Tree, prefix: list[str]):
    """Per node of ``tree``: 0 as in ``previous``, 1 new, 2 visited more (nodes matched by move paths)."""
    return treepack.diff_flags(previous, tree, prefix)


def describe_options(options: dict) -> list[dict[str, Any]]:
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
    import importlib.resources

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


#: where the documentation page's Swagger UI files are served, and their types
DOCS_FILES = "/api/docs/files"
DOCS_MEDIA = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}


def swagger_file(name: str) -> Path:
    """One of Swagger UI's files, as the fastapi-swagger package ships them (a current Swagger UI 5,
    which reads the OpenAPI 3.1 that FastAPI writes)."""
    import importlib.resources

    if name not in ("swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"):
        raise NotFound(f"no documentation file {name[:40]!r}")
    try:
        path = Path(str(importlib.resources.files("fastapi_swagger.resources") / name))
    except ModuleNotFoundError:
        raise NotFound("the API's documentation page needs the fastapi-swagger package (pip install fastapi-swagger)") from None
    if not path.is_file():
        raise NotFound(f"fastapi-swagger lacks {name}")
    return path


def create_app(data_dir: str | Path | None = None, max_upload: int | None = None, workers: int = 4,
               limits: ServerLimits | None = None, clock: Callable[[], float] = time.time,
               prestart_workers: bool = False) -> FastAPI:
    """The application. ``data_dir`` holds the games (``games.sqlite``) and uploads (a fresh
    temporary folder when None); ``limits`` are the server's limits (``boardlab serve`` options);
    ``workers`` threads do the server's own lighter work (layouts, exports); ``prestart_workers``
    starts the AI worker processes with the app instead of with the first AI move; ``clock`` is for tests."""
    limits = limits or ServerLimits()
    if max_upload is not None:
        limits = ServerLimits(**dict(limits.to_dict(), max_upload=max_upload))
    data = Path(data_dir) if data_dir is not None else Path(tempfile.mkdtemp(prefix="boardlab-web-"))
    data.mkdir(parents=True, exist_ok=True)

    from concurrent.futures import ThreadPoolExecutor

    threads: list[ThreadPoolExecutor] = []  # the server's own threads, made again after a shut-down

    def pool() -> ThreadPoolExecutor:
        if not threads:
            threads.append(ThreadPoolExecutor(max_workers=workers, thread_name_prefix="boardlab-web"))
        return threads[0]
    scratch = Scratch(data / "scratch")
    in_all = limits.ai_workers + TREE_WORKERS
    ai = AIPool(limits.ai_workers, limits.ai_queue, limits.max_memory, prestart=prestart_workers, scratch=scratch.path,
                workers_in_all=in_all)
    # uploads are parsed and trees laid out and exported in a worker of their own: the viewer
    # never waits behind a search, and compiled layouts never stall the server's own process
    trees = AIPool(TREE_WORKERS, 16, limits.max_memory, prestart=prestart_workers, scratch=scratch.path,
                   workers_in_all=in_all, name="tree")
    sessions = SessionStore(data / "games.sqlite", clock, limits.game_days, limits.max_games)
    uploads = UploadStore(data / "uploads", limits.upload_quota, limits.max_upload, limits.upload_hours, clock, limits.kept_tree_nodes)
    kept = TreeBudget(limits.kept_tree_nodes)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI):
        ai.reopen()  # an app may be started again after a shut-down (test clients do)
        trees.reopen()
        sessions.open()
        uploads.open()
        if prestart_workers:
            ai.start()
            trees.start()
        try:
            yield
        finally:
            ai.close()
            trees.close()
            scratch.close()
            if threads:
                threads.pop().shutdown(wait=False, cancel_futures=True)
            uploads.close()
            sessions.close()

    # the API's documentation page is served below, with Swagger UI's files from this server
    app = FastAPI(title="boardlab", docs_url=None, redoc_url=None, openapi_url="/api/openapi.json", lifespan=lifespan,
                  responses=ERRORS)
    packed: OrderedDict[tuple, bytes] = OrderedDict()
    packed_lock = threading.Lock()
    app.state.sessions = sessions
    app.state.data_dir = data
    app.state.ai = ai
    app.state.trees = trees
    app.state.limits = limits
    app.state.uploads = uploads

    async def in_pool(func, *args):
        return await asyncio.get_running_loop().run_in_executor(pool(), func, *args)

    # --- errors: user mistakes become 4xx with one clear line ----------------------------
    def status_of(exc: BoardlabError) -> int:
        for kind, status in ((NotFound, 404), (GameNotFound, 404), (UploadNotFound, 404), (ConflictError, 409),
                             (Cancelled, 409), (TooLarge, 413), (QuotaFull, 507), (Busy, 503), (WorkerFailed, 503)):
            if isinstance(exc, kind):
                return status
        return 400

    @app.exception_handler(BoardlabError)
    async def _user_error(request: Request, exc: BoardlabError) -> JSONResponse:
        status = status_of(exc)
        headers = {"Retry-After": "2"} if isinstance(exc, Busy) else None
        return JSONResponse({"detail": one_line(str(exc))}, status_code=status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": validation_message(exc)}, status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"detail": one_line(exc.detail)}, status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> JSONResponse:
        log.error("unexpected error in %s %s", request.method, request.url.path, exc_info=exc)
        return JSONResponse({"detail": f"internal error ({type(exc).__name__}); the server's log has the details"}, status_code=500)

    def session(game_id: str) -> GameSession:
        return sessions.get(game_id)

    # --- catalogue -------------------------------------------------------------------
    @app.get("/api/meta")
    def meta() -> dict[str, Any]:
        return {"games": game_catalogue(), "agents": agent_catalogue(), "modes": list(MODES),
                "max_upload": limits.max_upload, "limits": limits.to_dict()}

    @app.get("/api/status")
    def status() -> dict[str, Any]:
        """What the server is doing: AI workers, queue, memory, games and uploads stored."""
        return {"ai": ai.status(), "trees": trees.status(), "games": sessions.stats(),
                "uploads": {"bytes": uploads.used_bytes(), "quota": limits.upload_quota},
                "kept_tree_nodes": kept.total, "limits": limits.to_dict()}

    # --- games -----------------------------------------------------------------------
    @app.get("/api/renderers/{name}.js")
    def renderer(name: str) -> FileResponse:
        if name not in game_names():
            raise NotFound(f"no game {name[:40]!r}")
        return FileResponse(renderer_file(name), media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    @app.post("/api/games")
    async def new_game(body: NewGame) -> dict[str, Any]:
        if body.replaces:
            with contextlib.suppress(GameNotFound):
                (await in_pool(sessions.get, body.replaces)).cancel_ai("a new game replaced this one")
        ai_settings = [s.settings() for s in body.ai] if isinstance(body.ai, list) else body.ai.settings()
        created = await in_pool(lambda: GameSession.create(
            body.game, body.mode, ai_settings, body.human_seat, body.seed, body.position, limits=limits, now=clock()))
        check = created.agent_check()
        if check["seats"]:  # the agents' resets load compiled code: a worker's business, not the server's
            await tree_job("check", check)
        await in_pool(sessions.add, created)
        return await in_pool(created.view)

    @app.post("/api/games/{game_id}/rematch")
    async def rematch(game_id: str) -> dict[str, Any]:
        """A new game with this one's settings, every player moved on by one seat (so the person
        who moved first moves second), a fresh seed and the same start position."""
        found = session(game_id)
        found.cancel_ai("a rematch replaced this game")
        created = await in_pool(lambda: found.rematch(limits=limits, now=clock()))
        check = created.agent_check()
        if check["seats"]:
            await tree_job("check", check)
        await in_pool(sessions.add, created)
        return await in_pool(created.view)

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str, seat: int | None = None) -> dict[str, Any]:
        return session(game_id).view(seat)

    @app.get("/api/games/{game_id}/legal")
    def legal(game_id: str, seat: int | None = None) -> list[dict[str, Any]]:
        return session(game_id).view(seat)["legal"]

    @app.post("/api/games/{game_id}/move")
    def move(game_id: str, body: Move) -> dict[str, Any]:
        found = session(game_id)
        found.play_human(body.action, body.move, now=clock())
        sessions.save(found)
        return found.view()

    @app.post("/api/games/{game_id}/ai-move")
    async def ai_move(game_id: str, request: Request) -> dict[str, Any]:
        """Let the agent to move choose and play. The move waits for a worker (bounded queue),
        then searches within the server's limits; it is cancelled, and not played, when the client
        goes away or a move, undo or newer AI request for this game comes first. The answer's
        ``ai`` says how long the move waited and searched."""
        found = session(game_id)
        job = found.start_ai(limits, now=clock())
        future = ai.submit(job)  # a full queue is refused here (503), and replaces nothing
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
        await in_pool(found.finish_ai, job, result, clock())
        sessions.save(found)
        kept.note(found)
        view = await in_pool(found.view)
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

    @app.post("/api/games/{game_id}/undo")
    def undo(game_id: str) -> dict[str, Any]:
        found = session(game_id)
        found.undo(now=clock())
        sessions.save(found)
        return found.view()

    @app.get("/api/games/{game_id}/record")
    def record(game_id: str) -> dict[str, Any]:
        return session(game_id).record().to_dict()

    # --- trees of a game's AI moves ---------------------------------------------------
    @app.get("/api/games/{game_id}/trees")
    def list_trees(game_id: str) -> list[dict[str, Any]]:
        found = session(game_id)
        found.open_trees()
        kept.note(found)
        with found.lock:
            return [
                {"index": k, "ply": t.ply, "player": t.player, "player_name": found.game.player_name(t.player),
                 "agent": t.agent, "move": t.move, "nodes": t.nodes}
                for k, t in enumerate(found.trees)
            ]

    def game_tree(game_id: str, index: int) -> tuple[TreeSource, TreeSource | None]:
        found = session(game_id)
        found.open_trees()
        kept.note(found)
        with found.lock:
            if not 0 <= index < len(found.trees):
                why = f" ({found.trees_note})" if found.trees_note else ""
                raise NotFound(f"game {game_id[:40]} has {len(found.trees)} search trees; no tree {index}{why}")
            entries = [found.trees[index]] + ([found.trees[index - 1]] if index > 0 else [])
            # the moves between the previous search's root and this one's, as labels
            prefix = found.tree_prefix(entries[1], entries[0]) if len(entries) > 1 else []
        sources = []
        for entry in entries:
            source = tree_source(
                entry.tree, f"move {entry.ply + 1}: {entry.agent} plays {entry.move}",
                {"ply": entry.ply, "player": entry.player, "agent": entry.agent, "move": entry.move},
            )
            if entry is entries[0]:
                source.prefix = tuple(prefix)
            sources.append(source)
        return sources[0], (sources[1] if len(sources) > 1 else None)

    async def tree_job(kind: str, payload: dict[str, Any]) -> Any:
        """Run ``kind`` (pack, export, parse) in the tree worker."""
        return await asyncio.wrap_future(trees.submit(Job(kind, payload, wall=TREE_JOB_SECONDS)))

    async def packed_body(source: TreeSource, previous: TreeSource | None) -> bytes:
        key = (id(source.tree), id(previous.tree) if previous else None)
        with packed_lock:
            if key in packed:
                packed.move_to_end(key)
                return packed[key]
        tree = await in_pool(lambda: source.tree)  # a search's tree is exported on first use
        meta = dict(source.meta, title=source.title, has_previous=previous is not None)
        payload = {"tree": tree, "meta": meta, "game": source.game.spec() if source.game is not None else None,
                   "previous": previous.tree if previous is not None else None, "prefix": list(source.prefix)}
        body = bytes(await tree_job("pack", payload))
        with packed_lock:
            packed[key] = body
            while len(packed) > 1 and (len(packed) > PACKED_KEEP or sum(map(len, packed.values())) > PACKED_BYTES):
                packed.popitem(last=False)
        return body

    def details(source: TreeSource, node: int) -> dict[str, Any]:
        if not 0 <= node < len(source.tree):
            raise NotFound(f"the tree has {len(source.tree)} nodes; no node {node}")
        info = treepack.node_details(source.tree, node)
        info["player_name"] = source.game.player_name(info["player"]) if source.game and info["player"] >= 0 else None
        info["notation"] = gamelabels.node_notation(source.tree, node)
        info["board"] = None
        game = source.game
        if game is not None:
            # the spectator's view: a tree may be looked at by anyone its game is shown to, so its
            # boards show only what every seat sees (in games of hidden information, the notation's public view)
            try:
                observation = game.observation_from_notation(info["notation"], None)
            except (BoardlabError, ValueError):
                observation = None  # a label the game cannot read back (a foreign tree): no board
            if observation is not None:
                to_move = observation.get("to_move")
                info["board"] = {"game": game.name, "spec": game.spec(), "params": dict(game.params),
                                 "board": observation.get("board"), "text": observation.get("text", ""),
                                 "to_move": to_move,
                                 # a new game can start only where the notation fixes the whole state
                                 "playable": not game.has_hidden_information and to_move != TERMINAL}
        return info

    async def export(source: TreeSource, fmt: str, stem: str) -> Response:
        treepack.check_format(fmt)
        done = await tree_job("export", {"tree": source.tree, "format": fmt})
        return Response(bytes(done["data"]), media_type=done["media"],
                        headers={"Content-Disposition": f'attachment; filename="{stem}.{done["suffix"]}"'})

    @app.get("/api/games/{game_id}/trees/{index}/data")
    async def game_tree_data(game_id: str, index: int) -> Response:
        source, previous = await in_pool(game_tree, game_id, index)
        body = await packed_body(source, previous)
        return Response(body, media_type="application/octet-stream")

    @app.get("/api/games/{game_id}/trees/{index}/nodes/{node}")
    async def game_tree_node(game_id: str, index: int, node: int) -> dict[str, Any]:
        source = (await in_pool(game_tree, game_id, index))[0]
        return await in_pool(details, source, node)

    @app.get("/api/games/{game_id}/trees/{index}/export")
    async def game_tree_export(game_id: str, index: int, format: FORMAT = "csv") -> Response:
        source = (await in_pool(game_tree, game_id, index))[0]
        # the page's names: <game>-move<N> (the move the search chose)
        return await export(source, format, f"{(source.game.name if source.game else 'tree')}-move{source.meta['ply'] + 1}")

    # --- uploaded trees ---------------------------------------------------------------
    async def parse_upload(upload) -> TreeSource:
        """Parse a stored upload in the tree worker (so one at a time), from a mapping of the file."""
        tree = await tree_job("parse", {"path": str(upload.path), "name": upload.name})
        return tree_source(tree, upload.name, {"upload": upload.id, "name": upload.name})

    async def upload_source(upload_id: str) -> TreeSource:
        upload = uploads.find(upload_id)
        found = uploads.cached(upload.id)
        if found is not None:
            return found[0]
        source = await parse_upload(upload)
        uploads.cache(upload.id, source, len(source.tree))
        return source

    @app.post("/api/uploads")
    async def upload(request: Request, name: Annotated[str, Query(max_length=255)] = "tree.tree") -> dict[str, Any]:
        """Upload a ``.tree`` or ``.csv`` tree file (the request body is the file)."""
        declared = request.headers.get("content-length")
        size = int(declared) if declared is not None and declared.isdigit() and len(declared) < 19 else None
        incoming = uploads.begin(name, size)
        try:
            async for chunk in request.stream():
                if incoming.add(chunk):
                    await in_pool(incoming.flush)
            stored = await in_pool(incoming.finish)
        except BaseException:
            incoming.abort()
            raise
        try:
            source = await parse_upload(stored)
        except BaseException:
            uploads.forget(stored.id)
            raise
        uploads.cache(stored.id, source, len(source.tree))
        return {"id": stored.id, "name": name, "nodes": len(source.tree), "bytes": stored.size, "game": source.meta["game"]}

    @app.get("/api/uploads/{upload_id}/data")
    async def upload_data(upload_id: str, prev: Annotated[str | None, Query(max_length=64)] = None) -> Response:
        source = await upload_source(upload_id)
        previous = await upload_source(prev) if prev else None
        body = await packed_body(source, previous)
        return Response(body, media_type="application/octet-stream")

    @app.get("/api/uploads/{upload_id}/nodes/{node}")
    async def upload_node(upload_id: str, node: int) -> dict[str, Any]:
        source = await upload_source(upload_id)
        return await in_pool(details, source, node)

    @app.get("/api/uploads/{upload_id}/export")
    async def upload_export(upload_id: str, format: FORMAT = "csv") -> Response:
        source = await upload_source(upload_id)
        stem = "".join(c for c in Path(source.title).stem if c.isalnum() or c in "-_.")[:80] or "tree"
        return await export(source, format, stem)  # the uploaded file's own name, as the page names it

    # --- the API's documentation: Swagger UI from this server, so it works offline ------------
    @app.get("/api/docs", include_in_schema=False)
    def api_docs() -> Response:
        from fastapi.openapi.docs import get_swagger_ui_html

        return get_swagger_ui_html(
            openapi_url=app.openapi_url, title="boardlab API", swagger_js_url=f"{DOCS_FILES}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_FILES}/swagger-ui.css", swagger_favicon_url=f"{DOCS_FILES}/favicon-32x32.png",
            # no badge from the public validator: the page asks nothing of any other host
            swagger_ui_parameters={"validatorUrl": None})

    @app.get(DOCS_FILES + "/{name}", include_in_schema=False)
    def api_docs_file(name: str) -> FileResponse:
        return FileResponse(swagger_file(name), media_type=DOCS_MEDIA[Path(name).suffix])

    # --- the page ----------------------------------------------------------------------
    @app.get("/")
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(BodyLimit)
    return app


class TreeBudget:
    """Search trees kept for the viewer, all games together, within ``limit`` nodes:
    the trees of the games looked at longest ago go first (each game keeps its newest)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._games: OrderedDict[str, GameSession] = OrderedDict()
        self._lock = threading.Lock()
        self.total = 0

    def note(self, session: GameSession) -> None:
        """``session`` was used (a move or a look at its trees); drop others' trees past the limit."""
        with self._lock:
            self._games[session.id] = session
            self._games.move_to_end(session.id)
            sizes = {gid: sum(t.nodes for t in s.trees) for gid, s in self._games.items()}
            self.total = sum(sizes.values())
            for gid in list(self._games):
                if self.total <= self.limit:
                    break
                other = self._games[gid]
                with other.lock:
                    keep_newest = gid == session.id
                    while other.trees and self.total > self.limit and (len(other.trees) > 1 or not keep_newest):
                        self.total -= other.trees.pop(0).nodes
                        other.trees_note = "older search trees were dropped to keep the server's memory bounded (boardlab serve --kept-tree-nodes)"
                if not other.trees:
                    del self._games[gid]
