"""The web app: a JSON API for playing games and a binary one for drawing search trees.

``create_app(data_dir)`` builds the FastAPI application; ``boardlab serve``
runs it with uvicorn. Games live in memory (:mod:`boardlab.web.sessions`);
AI moves, tree layouts and file parsing run in a thread pool so that the
server keeps answering while an agent thinks. Nothing a client sends is used
as a path: uploaded trees are stored under generated names in the data
folder, and every file the app touches lies under that folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import tempfile
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from boardlab.agents.evaluators import evaluator_names, get_evaluator
from boardlab.agents.registry import agent_class, agent_names
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.registry import game_class, game_names
from boardlab.trees import gamelabels
from boardlab.trees.model import Tree
from boardlab.web import treepack
from boardlab.web.sessions import MODES, ConflictError, GameSession, SessionStore

STATIC = Path(__file__).with_name("static")
#: the largest tree file accepted for upload (bytes); larger ones get 413
MAX_UPLOAD = 200 * 2**20
TREE_SUFFIXES = (".tree", ".csv")


class NotFound(BoardlabError):
    pass


class TooLarge(BoardlabError):
    pass


# --- request bodies ------------------------------------------------------------
class NewGame(BaseModel):
    game: str = Field(..., description="game spec, e.g. connect4:rows=6,cols=7,k=4")
    mode: str = Field("human-ai", description="human-ai, ai-ai or human-human")
    ai: dict[str, Any] | list[dict[str, Any]] = Field(default_factory=lambda: {"agent": "random"})
    human_seat: int | None = Field(None, description="the person's seat in human-ai mode (default: the seat to move first)")
    seed: int | None = None
    position: str | None = Field(None, description="start from this position, in the game's notation (e.g. a FEN)")


class Move(BaseModel):
    action: int | None = None
    move: str | None = None


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


class UploadStore:
    """Uploaded tree files, stored under generated names; parsed trees kept in a small cache."""

    def __init__(self, folder: Path, keep: int = 8) -> None:
        self.folder = folder
        self.keep = keep
        self._trees: OrderedDict[str, TreeSource] = OrderedDict()
        self._lock = threading.Lock()

    def path(self, upload_id: str) -> Path | None:
        if not upload_id.isalnum():
            return None
        for suffix in TREE_SUFFIXES:
            candidate = self.folder / f"{upload_id}{suffix}"
            if candidate.is_file():
                return candidate
        return None

    def get(self, upload_id: str) -> TreeSource:
        with self._lock:
            if upload_id in self._trees:
                self._trees.move_to_end(upload_id)
                return self._trees[upload_id]
        path = self.path(upload_id)
        if path is None:
            raise NotFound(f"no uploaded tree {upload_id!r}")
        source = tree_source(load_tree_file(path), upload_id, {"upload": upload_id})
        self.put(upload_id, source)
        return source

    def put(self, upload_id: str, source: TreeSource) -> None:
        with self._lock:
            self._trees[upload_id] = source
            while len(self._trees) > self.keep:
                self._trees.popitem(last=False)


def load_tree_file(path: Path, shown_name: str | None = None) -> Tree:
    """Parse a stored upload; errors name ``shown_name`` (the user's file name), not our path."""
    from boardlab.trees import binary, csvformat

    name = shown_name or path.name
    data = path.read_bytes()  # parsed from memory: a failed parse leaves no mapping open
    if path.suffix == ".csv":
        tree = csvformat.parse_csv(data, name)
    else:
        tree = binary.parse_binary(data, name)
    gamelabels.restore_players(tree)
    return tree


def tree_source(tree: Tree, title: str, meta: dict[str, Any]) -> TreeSource:
    """A tree for the viewer, with its game when its root label names one."""
    game, why = gamelabels.identify(tree)
    meta = dict(meta, game=game.spec() if game is not None else None)
    if game is None:
        meta["no_game"] = why
    return TreeSource(tree=tree, title=title, meta=meta, game=game)


def tree_bytes(tree: Tree, fmt: str) -> tuple[bytes, str, str]:
    """The tree as a file of format ``csv``, ``tree`` (the binary format) or ``png``."""
    from boardlab.trees import binary, csvformat

    if fmt == "csv":
        return csvformat.to_bytes(tree), "text/csv", "csv"
    if fmt == "tree":
        return binary.to_bytes(tree), "application/octet-stream", "tree"
    if fmt == "png":
        from boardlab.trees.render import render_png

        with tempfile.TemporaryDirectory() as scratch:
            target = Path(scratch) / "tree.png"
            render_png(tree, target)
            return target.read_bytes(), "image/png", "png"
    raise BoardlabError(f"unknown export format {fmt!r} (formats: csv, tree, png)")


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
        games.append(
            {
                **declared.to_dict(),
                "renderer": f"/api/renderers/{name}.js" if declared.renderer else None,
                "players": default.num_players(),
                "players_range": [declared.min_players, declared.max_players],
                "player_names": [default.player_name(p) for p in range(declared.max_players)],
                "parameters": describe_options(dict(cls.parameters)),
                "agents": [a for a in agent_names() if not agent_class(a).interactive and agent_class(a).plays(default) is None],
                "evaluators": evaluator_names(default),
                "evaluator_summaries": {e: get_evaluator(e).summary for e in evaluator_names(default)},
                "default_evaluator": default.default_evaluator(),
            }
        )
    return games


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


def create_app(data_dir: str | Path | None = None, max_upload: int = MAX_UPLOAD, workers: int = 4) -> FastAPI:
    """The application; ``data_dir`` holds uploaded trees (a fresh temporary folder when None)."""
    data = Path(data_dir) if data_dir is not None else Path(tempfile.mkdtemp(prefix="boardlab-web-"))
    uploads_dir = data / "uploads"
    uploads_dir.mkdir(parents=True, exist_ok=True)

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="boardlab-web")

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI):
        yield
        pool.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(title="boardlab", docs_url="/api/docs", openapi_url="/api/openapi.json", lifespan=lifespan)
    sessions = SessionStore()
    uploads = UploadStore(uploads_dir)
    packed: OrderedDict[tuple, bytes] = OrderedDict()
    packed_lock = threading.Lock()
    app.state.sessions = sessions
    app.state.data_dir = data

    async def in_pool(func, *args):
        return await asyncio.get_running_loop().run_in_executor(pool, func, *args)

    # --- errors: user mistakes become 4xx with one clear message ------------------
    @app.exception_handler(BoardlabError)
    async def _user_error(request: Request, exc: BoardlabError) -> JSONResponse:
        status = 404 if isinstance(exc, NotFound) else 409 if isinstance(exc, ConflictError) else 413 if isinstance(exc, TooLarge) else 400
        return JSONResponse({"detail": str(exc)}, status_code=status)

    def session(game_id: str) -> GameSession:
        found = sessions.get(game_id)
        if found is None:
            raise NotFound(f"no game {game_id!r} (games live in memory: a restarted server forgets them)")
        return found

    # --- catalogue -------------------------------------------------------------------
    @app.get("/api/meta")
    def meta() -> dict[str, Any]:
        return {"games": game_catalogue(), "agents": agent_catalogue(), "modes": list(MODES), "max_upload": max_upload}

    # --- games -----------------------------------------------------------------------
    @app.get("/api/renderers/{name}.js")
    def renderer(name: str) -> FileResponse:
        if name not in game_names():
            raise NotFound(f"no game {name!r}")
        return FileResponse(renderer_file(name), media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    @app.post("/api/games")
    def new_game(body: NewGame) -> dict[str, Any]:
        created = GameSession.create(body.game, body.mode, body.ai, body.human_seat, body.seed, body.position)
        sessions.add(created)
        return created.view()

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str, seat: int | None = None) -> dict[str, Any]:
        return session(game_id).view(seat)

    @app.get("/api/games/{game_id}/legal")
    def legal(game_id: str, seat: int | None = None) -> list[dict[str, Any]]:
        return session(game_id).view(seat)["legal"]

    @app.post("/api/games/{game_id}/move")
    def move(game_id: str, body: Move) -> dict[str, Any]:
        found = session(game_id)
        found.play_human(body.action, body.move)
        return found.view()

    @app.post("/api/games/{game_id}/ai-move")
    async def ai_move(game_id: str) -> dict[str, Any]:
        found = session(game_id)
        await in_pool(found.play_ai)
        return found.view()

    @app.post("/api/games/{game_id}/undo")
    def undo(game_id: str) -> dict[str, Any]:
        found = session(game_id)
        found.undo()
        return found.view()

    @app.get("/api/games/{game_id}/record")
    def record(game_id: str) -> dict[str, Any]:
        return session(game_id).record().to_dict()

    # --- trees of a game's AI moves ---------------------------------------------------
    @app.get("/api/games/{game_id}/trees")
    def list_trees(game_id: str) -> list[dict[str, Any]]:
        found = session(game_id)
        with found.lock:
            return [
                {"index": k, "ply": t.ply, "player": t.player, "player_name": found.game.player_name(t.player),
                 "agent": t.agent, "move": t.move, "nodes": t.nodes}
                for k, t in enumerate(found.trees)
            ]

    def game_tree(game_id: str, index: int) -> tuple[TreeSource, TreeSource | None]:
        found = session(game_id)
        with found.lock:
            if not 0 <= index < len(found.trees):
                raise NotFound(f"game {game_id} has {len(found.trees)} trees; no tree {index}")
            entries = [found.trees[index]] + ([found.trees[index - 1]] if index > 0 else [])
        # the moves between the previous search's root and this one's, as labels
        prefix: list[str] = []
        if len(entries) > 1:
            with found.lock:
                prefix = [label for _, label in found.log[len(entries[1].root_history): len(entries[0].root_history)]]
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

    def packed_body(source: TreeSource, previous: TreeSource | None) -> bytes:
        key = (id(source.tree), id(previous.tree) if previous else None)
        with packed_lock:
            if key in packed:
                packed.move_to_end(key)
                return packed[key]
        diff = tree_diff(previous.tree, source.tree, list(source.prefix)) if previous is not None else None
        meta = dict(source.meta, title=source.title, has_previous=previous is not None)
        body = treepack.pack_tree(source.tree, meta, diff, source.game)
        with packed_lock:
            packed[key] = body
            while len(packed) > 6:
                packed.popitem(last=False)
        return body

    def details(source: TreeSource, node: int) -> dict[str, Any]:
        if not 0 <= node < len(source.tree):
            raise NotFound(f"the tree has {len(source.tree)} nodes; no node {node}")
        info = treepack.node_details(source.tree, node)
        info["player_name"] = source.game.player_name(info["player"]) if source.game and info["player"] >= 0 else None
        info["notation"] = gamelabels.node_notation(source.tree, node)
        info["board"] = None
        if source.game is not None:
            try:
                state = gamelabels.state_at(source.tree, node, source.game)
            except (BoardlabError, ValueError):
                pass  # a label the game cannot read back (hidden information, a foreign tree): no board
            else:
                observation = state.observation(None)
                info["board"] = {"game": source.game.name, "spec": source.game.spec(), "params": dict(source.game.params),
                                 "board": observation.get("board"), "text": observation.get("text", ""),
                                 "to_move": observation.get("to_move"), "playable": not state.is_terminal()}
        return info

    def export(source: TreeSource, fmt: str, stem: str) -> Response:
        data, media, suffix = tree_bytes(source.tree, fmt)
        return Response(data, media_type=media, headers={"Content-Disposition": f'attachment; filename="{stem}.{suffix}"'})

    @app.get("/api/games/{game_id}/trees/{index}/data")
    async def game_tree_data(game_id: str, index: int) -> Response:
        source, previous = game_tree(game_id, index)
        body = await in_pool(packed_body, source, previous)
        return Response(body, media_type="application/octet-stream")

    @app.get("/api/games/{game_id}/trees/{index}/nodes/{node}")
    def game_tree_node(game_id: str, index: int, node: int) -> dict[str, Any]:
        return details(game_tree(game_id, index)[0], node)

    @app.get("/api/games/{game_id}/trees/{index}/export")
    async def game_tree_export(game_id: str, index: int, format: str = "csv") -> Response:
        source = game_tree(game_id, index)[0]
        return await in_pool(export, source, format, f"tree-{game_id}-{index}")

    # --- uploaded trees ---------------------------------------------------------------
    @app.post("/api/uploads")
    async def upload(request: Request, name: str = "tree.tree") -> dict[str, Any]:
        suffix = Path(name).suffix.lower()
        if suffix not in TREE_SUFFIXES:
            raise BoardlabError(f"upload a .tree (binary) or .csv tree file, not {name!r}")
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_upload:
            raise TooLarge(f"{name}: {int(declared)} bytes is over the upload limit of {max_upload} bytes")
        upload_id = secrets.token_hex(12)
        target = uploads_dir / f"{upload_id}{suffix}"
        size = 0
        try:
            with open(target, "wb") as handle:
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > max_upload:
                        raise TooLarge(f"{name}: over the upload limit of {max_upload} bytes")
                    handle.write(chunk)
            tree = await in_pool(load_tree_file, target, name)
        except BaseException:
            target.unlink(missing_ok=True)
            raise
        source = tree_source(tree, name, {"upload": upload_id, "name": name})
        uploads.put(upload_id, source)
        return {"id": upload_id, "name": name, "nodes": len(tree), "bytes": size, "game": source.meta["game"]}

    def upload_source(upload_id: str) -> TreeSource:
        return uploads.get(upload_id)

    @app.get("/api/uploads/{upload_id}/data")
    async def upload_data(upload_id: str, prev: str | None = None) -> Response:
        source = await in_pool(upload_source, upload_id)
        previous = await in_pool(upload_source, prev) if prev else None
        body = await in_pool(packed_body, source, previous)
        return Response(body, media_type="application/octet-stream")

    @app.get("/api/uploads/{upload_id}/nodes/{node}")
    def upload_node(upload_id: str, node: int) -> dict[str, Any]:
        return details(upload_source(upload_id), node)

    @app.get("/api/uploads/{upload_id}/export")
    async def upload_export(upload_id: str, format: str = "csv") -> Response:
        source = await in_pool(upload_source, upload_id)
        return await in_pool(export, source, format, f"tree-{upload_id}")

    # --- the page ----------------------------------------------------------------------
    @app.get("/")
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
