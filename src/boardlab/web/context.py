"""What every route of the web app shares: one :class:`ServerContext` per app.

``create_app`` builds it and keeps it in ``app.state.context``; a route asks for it with a
parameter ``ctx: Context`` (a FastAPI dependency), so the routes live in modules of their own
(:mod:`boardlab.web.routes`) and none of them reaches for globals.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request

from boardlab.web.aipool import AIPool, Job
from boardlab.web.gamestore import SessionStore
from boardlab.web.limits import MIB, ServerLimits
from boardlab.web.sessions import GameSession
from boardlab.web.uploads import Scratch, UploadStore

#: packed trees kept for the viewer, by count and bytes
PACKED_KEEP = 6
PACKED_BYTES = 512 * MIB
#: how long one job of the tree worker (parsing an upload, a layout, an export) may take (seconds)
TREE_JOB_SECONDS = 600

T = TypeVar("T")


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


class PackedTrees:
    """The viewer's packed trees, the newest few (by count and bytes), keyed by the trees' identities."""

    def __init__(self, keep: int = PACKED_KEEP, max_bytes: int = PACKED_BYTES) -> None:
        self.keep, self.max_bytes = keep, max_bytes
        self._bodies: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> bytes | None:
        with self._lock:
            if key in self._bodies:
                self._bodies.move_to_end(key)
                return self._bodies[key]
        return None

    def put(self, key: tuple[Any, ...], body: bytes) -> None:
        with self._lock:
            self._bodies[key] = body
            while len(self._bodies) > 1 and (len(self._bodies) > self.keep or sum(map(len, self._bodies.values())) > self.max_bytes):
                self._bodies.popitem(last=False)


@dataclass
class ServerContext:
    """The server's settings and the state its requests share."""

    limits: ServerLimits
    #: every file the app touches lies under this folder
    data_dir: Path
    sessions: SessionStore
    uploads: UploadStore
    #: worker processes for AI moves, and the one for trees (parsing uploads, layouts, exports)
    ai: AIPool
    trees: AIPool
    scratch: Scratch
    kept: TreeBudget
    clock: Callable[[], float]
    #: threads for the server's own lighter work (layouts, exports, the database)
    workers: int = 4
    packed: PackedTrees = field(default_factory=PackedTrees)
    # made on first use, and again after a shut-down (an app may be started again: test clients do)
    _threads: list[ThreadPoolExecutor] = field(default_factory=list)

    def pool(self) -> ThreadPoolExecutor:
        if not self._threads:
            self._threads.append(ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="boardlab-web"))
        return self._threads[0]

    def stop_threads(self) -> None:
        if self._threads:
            self._threads.pop().shutdown(wait=False, cancel_futures=True)

    async def in_pool(self, func: Callable[..., T], *args: Any) -> T:
        """``func(*args)`` in one of the server's threads: the event loop never waits on it."""
        return await asyncio.get_running_loop().run_in_executor(self.pool(), func, *args)

    async def tree_job(self, kind: str, payload: dict[str, Any]) -> Any:
        """Run ``kind`` (pack, export, parse, check) in the tree worker."""
        return await asyncio.wrap_future(self.trees.submit(Job(kind, payload, wall=TREE_JOB_SECONDS)))

    def session(self, game_id: str) -> GameSession:
        return self.sessions.get(game_id)


async def get_context(request: Request) -> ServerContext:
    return request.app.state.context


#: a route's parameter for the server's context
Context = Annotated[ServerContext, Depends(get_context)]
