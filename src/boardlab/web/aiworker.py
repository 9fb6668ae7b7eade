"""A worker process of the web server: it plays AI moves (``move``), checks a new game's
agents (``check``), parses uploaded trees (``parse``), and lays out (``pack``) and
exports (``export``) trees for the viewer.

That work runs here, not in the server's process: compiled kernels hold the
interpreter lock for seconds at a time and a big search tree takes hundreds of
megabytes, so only a separate process keeps the server answering and lets it
take that memory back (by ending the process). The server's side is
:mod:`boardlab.web.aipool`.

The protocol over the worker's pipe is one message per job, ``(kind, payload)``,
answered by ``("ok", result)``, ``("user-error", message)`` or
``("error", traceback text)``. A big result (a search tree, a parsed upload)
does not cross the pipe: its arrays are written to a file in the server's
scratch folder and only the rest is pickled (pickle protocol 5, arrays out of
band), answered as ``("ok-file", pickled, path, [(offset, size), ...])``; the
server maps that file and deletes it (:func:`load_result`), so a tree of
millions of nodes arrives without a copy and without holding the server's
interpreter lock for the time a copy takes. ``stop`` is an event shared with the server: the
agent's ``stop`` is that event, so the server ends a search early by setting it
(the agent then returns its best move so far).

This module is imported once by the fork server that starts workers, so it
imports what every job needs up front.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from typing import Any

import numpy as np

from boardlab.agents.registry import make_agent
from boardlab.core import plugins
from boardlab.core.errors import BoardlabError
from boardlab.core.registry import make
from boardlab.trees.model import Labels
from boardlab.web.limits import ServerLimits, check_budget

#: results whose arrays take more bytes than this go through a file
FILE_RESULT = 2**20


def main(conn, stop, server_pid: int, sys_path: list[str], scratch: str | None = None) -> None:
    """The worker's loop: one job at a time until the pipe closes or the server is gone."""
    # Ctrl+C reaches every process of the terminal's process group, workers too; the server alone
    # handles it (it ends its workers), so a worker must not die of it with a KeyboardInterrupt traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for entry in reversed(sys_path):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    try:
        os.nice(10)  # the server's own process, which answers requests, comes first
    except OSError:
        pass
    threading.Thread(target=_watch_server, args=(server_pid,), daemon=True, name="server-watch").start()
    conn.send(("ready", os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        if message[0] == "file-job":  # a big payload (trees to draw) waits in a file
            kind = message[1]
            try:
                payload = load_result(*message[2:])
            except (OSError, ValueError, pickle.UnpicklingError) as exc:
                conn.send(("error", f"the job's input could not be read: {exc}"))
                continue
        else:
            kind, payload = message
        try:
            result = JOBS[kind](payload, stop)
            reply = pack_result(result, scratch)
        except BoardlabError as exc:
            reply = ("user-error", str(exc))
        except Exception:  # noqa: BLE001  a bug: the server logs it and answers 500-free
            reply = ("error", traceback.format_exc())
        try:
            conn.send(reply)
        except Exception:  # noqa: BLE001  e.g. a result that does not pickle
            conn.send(("error", traceback.format_exc()))


_results = itertools.count(1)


def pack_file(obj: Any, path: str) -> tuple[bytes, list[tuple[int, int]]] | None:
    """Pickle ``obj`` with its big arrays out of band into the file ``path`` (None: they are
    small, and ``obj`` is better sent as it is): ``(pickled rest, spans of the arrays)``."""
    buffers: list[pickle.PickleBuffer] = []
    pickled = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    raws = [b.raw() for b in buffers]
    if sum(r.nbytes for r in raws) < FILE_RESULT:
        return None
    spans = []
    with open(path, "wb") as handle:
        for raw in raws:
            pad = (-handle.tell()) % 64  # aligned, as numpy likes its buffers
            handle.write(b"\0" * pad)
            spans.append((handle.tell(), raw.nbytes))
            handle.write(raw)
    return pickled, spans


def pack_result(result: Any, scratch: str | None) -> tuple:
    """``("ok", result)``, or for a big one ``("ok-file", pickled, path, spans)`` (see the module docstring)."""
    if scratch is None:
        return ("ok", result)
    path = os.path.join(scratch, f"{os.getpid()}-{next(_results)}.bin")
    packed = pack_file(result, path)
    if packed is None:
        return ("ok", result)
    return ("ok-file", packed[0], path, packed[1])


def load_result(pickled: bytes, path: str, spans: list[tuple[int, int]]) -> Any:
    """The server's side of :func:`pack_result`: map the file (copy on write) and delete it
    at once (the mapping keeps its pages until the arrays go)."""
    try:
        mapped = np.memmap(path, dtype=np.uint8, mode="c") if os.path.getsize(path) else np.zeros(0, np.uint8)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
    return pickle.loads(pickled, buffers=[mapped[start:start + size] for start, size in spans])


def _watch_server(server_pid: int) -> None:
    """End this worker when the server is gone (killed without a chance to end its workers)."""
    while True:
        time.sleep(0.5)
        if os.getppid() == 1 or not _alive(server_pid):
            os._exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _register(found: dict[str, str]) -> None:
    """Plug-ins the server registered at run time (tests, notebooks) are registered here too."""
    for name, target in found.items():
        try:
            if plugins.agents.target(name) == target:
                continue
        except BoardlabError:
            pass
        plugins.agents.register(name, target)


def play_move(payload: dict[str, Any], stop) -> dict[str, Any]:
    """Build the seat's agent, let it choose a move in the given position, hand back the move and its tree."""
    _register(payload.get("plugins", {}))
    started = time.perf_counter()
    game = make(payload["game"])
    redraws = [(int(ply), int(seed)) for ply, seed in payload.get("redraws", [])]
    state = game.state_from_history(payload["history"], payload["seed"], payload["start"], redraws)
    agent = make_agent(payload["spec"], game)
    agent.stop = stop  # the server sets it to end the search early
    agent.reset(game, payload["seat"], payload["agent_seed"])
    ready = time.perf_counter()
    action = int(agent.step(state.clone()))
    searched = time.perf_counter() - ready
    if action not in state.legal_actions():
        raise BoardlabError(f"agent {agent.spec} chose illegal action {action}")
    handle = agent.last_tree() if agent.searches else None
    tree = snapshot = None
    meta: dict[str, Any] = {}
    nodes = 0
    if handle is not None:
        meta, nodes = dict(handle.meta), int(handle.nodes)
        if handle.snapshot is not None:
            snapshot = compact(handle.snapshot)
        else:
            tree = handle.tree()
    search = {k: v for k, v in (agent.last_search or {}).items() if isinstance(v, (int, float, str, bool, type(None), list, dict))}
    return {
        "action": action,
        "agent": agent.spec,
        "setup_seconds": ready - started,
        "search_seconds": searched,
        "stopped": bool(stop.is_set()),
        "last_search": search,
        "snapshot": snapshot,
        "tree": tree,
        "tree_meta": meta,
        "nodes": nodes,
    }


def check_agents(payload: dict[str, Any], stop) -> None:
    """Reset each seat's agent for the game (a wrong option, such as another game's evaluator,
    is refused then) and check its budget as it will search against the server's limits (a model
    file may name more simulations than the spec); the server runs this when a game is created."""
    _register(payload.get("plugins", {}))
    game = make(payload["game"])
    limits = ServerLimits(**payload["limits"])
    for seat, spec, seed in payload["seats"]:
        agent = make_agent(spec, game)
        agent.reset(game, seat, seed)
        check_budget(agent.spec, agent.play_budget(), limits, type(agent).iterations_option)


def compact(snapshot):
    """The snapshot with its per-node label lists as two arrays each: they cross the pipe
    as one copy instead of a million small strings (the export reads them the same way)."""
    if snapshot.moves is not None and not isinstance(snapshot.moves, Labels):
        snapshot.moves = Labels.from_strings(m or "" for m in snapshot.moves)
    if snapshot.states is not None and not isinstance(snapshot.states, Labels):
        snapshot.states = Labels.from_strings(s or "" for s in snapshot.states)
    return snapshot


def parse_tree(payload: dict[str, Any], stop) -> Any:
    """Parse an uploaded tree file (a path the server chose, inside its data folder) without
    reading it into memory: the parser walks a read-only mapping of the file."""
    from boardlab.trees import binary, csvformat, gamelabels

    path, name = payload["path"], payload["name"]
    size = os.path.getsize(path)
    if size == 0:
        data = np.zeros(0, dtype=np.uint8)
    else:
        data = np.memmap(path, dtype=np.uint8, mode="r")
    try:
        if path.endswith(".csv"):
            tree = csvformat.parse_csv(data, name)
        else:
            tree = binary.parse_binary(data, name)
    finally:
        del data
    gamelabels.restore_players(tree)
    return tree


def pack_tree(payload: dict[str, Any], stop) -> np.ndarray:
    """The viewer's binary body of a tree (layout, colours, the diff with the previous tree)."""
    from boardlab.web import treepack

    game = make(payload["game"]) if payload.get("game") else None
    previous = payload.get("previous")
    diff = treepack.diff_flags(previous, payload["tree"], payload.get("prefix") or []) if previous is not None else None
    body = treepack.pack_tree(payload["tree"], payload.get("meta") or {}, diff, game)
    return np.frombuffer(body, dtype=np.uint8)


def export_tree(payload: dict[str, Any], stop) -> dict[str, Any]:
    """A tree as a file (csv, tree or png)."""
    from boardlab.web import treepack

    data, media, suffix = treepack.export_bytes(payload["tree"], payload["format"])
    return {"data": np.frombuffer(data, dtype=np.uint8), "media": media, "suffix": suffix}


JOBS = {"move": play_move, "parse": parse_tree, "pack": pack_tree, "export": export_tree, "check": check_agents}
