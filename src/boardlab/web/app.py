"""The web app: a JSON API for playing games and a binary one for drawing search trees.

``create_app(data_dir, limits)`` builds the FastAPI application: the server's
context (:mod:`boardlab.web.context`: limits, stores, worker pools) and the
routers of :mod:`boardlab.web.routes` that share it; ``boardlab serve`` runs it
with uvicorn. What keeps one request from taking the server down:

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

import contextlib
import json
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from boardlab.web.aipool import AIPool
from boardlab.web.context import ServerContext, TreeBudget
from boardlab.web.errors import ERRORS, add_error_handlers
from boardlab.web.gamestore import SessionStore
from boardlab.web.limits import ServerLimits
from boardlab.web.routes import catalogue, games, pages, trees, uploads
from boardlab.web.routes.pages import STATIC
from boardlab.web.uploads import Scratch, UploadStore

#: worker processes for trees (parsing uploads, layouts, exports)
TREE_WORKERS = 1

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

    scratch = Scratch(data / "scratch")
    in_all = limits.ai_workers + TREE_WORKERS
    ctx = ServerContext(
        limits=limits, data_dir=data, clock=clock, workers=workers, scratch=scratch,
        ai=AIPool(limits.ai_workers, limits.ai_queue, limits.max_memory, prestart=prestart_workers, scratch=scratch.path,
                  workers_in_all=in_all),
        # uploads are parsed and trees laid out and exported in a worker of their own: the viewer
        # never waits behind a search, and compiled layouts never stall the server's own process
        trees=AIPool(TREE_WORKERS, 16, limits.max_memory, prestart=prestart_workers, scratch=scratch.path,
                     workers_in_all=in_all, name="tree"),
        sessions=SessionStore(data / "games.sqlite", clock, limits.game_days, limits.max_games),
        uploads=UploadStore(data / "uploads", limits.upload_quota, limits.max_upload, limits.upload_hours, clock,
                            limits.kept_tree_nodes),
        kept=TreeBudget(limits.kept_tree_nodes),
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        ctx.ai.reopen()  # an app may be started again after a shut-down (test clients do)
        ctx.trees.reopen()
        ctx.sessions.open()
        ctx.uploads.open()
        if prestart_workers:
            ctx.ai.start()
            ctx.trees.start()
        try:
            yield
        finally:
            ctx.ai.close()
            ctx.trees.close()
            ctx.scratch.close()
            ctx.stop_threads()
            ctx.uploads.close()
            ctx.sessions.close()

    # the API's documentation page is served by pages.router, with Swagger UI's files from this server
    app = FastAPI(title="boardlab", docs_url=None, redoc_url=None, openapi_url="/api/openapi.json", lifespan=lifespan,
                  responses=ERRORS)
    app.state.context = ctx
    # the parts callers reach for directly (``boardlab serve`` stops the AI workers; tests look at games)
    app.state.sessions = ctx.sessions
    app.state.data_dir = ctx.data_dir
    app.state.ai = ctx.ai
    app.state.trees = ctx.trees
    app.state.limits = ctx.limits
    app.state.uploads = ctx.uploads
    add_error_handlers(app)
    for part in (catalogue, games, trees, uploads, pages):
        app.include_router(part.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(BodyLimit)
    return app
