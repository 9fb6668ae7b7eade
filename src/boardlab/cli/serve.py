"""``boardlab serve``: the web app (play in the browser, inspect search trees)."""

from __future__ import annotations

import contextlib
import socket
import tempfile
import threading
from pathlib import Path

import typer

from boardlab.cli.app import command
from boardlab.commands.console import JSON_HELP, console, print_json
from boardlab.core.errors import BoardlabError


def default_data_folder() -> Path:
    """``$XDG_DATA_HOME/boardlab/web`` (else ``~/.local/share/boardlab/web``), beside the results store."""
    from boardlab.arena.store import default_store_path

    return default_store_path().parent / "web"


@command("serve")
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (127.0.0.1: this machine only)."),
    port: int = typer.Option(8000, "--port", help="Port to listen on (0: any free port)."),
    data: Path = typer.Option(
        None, "--data",
        help="Folder for the games (games.sqlite: a restart forgets none) and uploaded trees "
             "(default: ~/.local/share/boardlab/web, or under $XDG_DATA_HOME).",
    ),
    temporary: bool = typer.Option(False, "--temporary", help="Keep games and uploads in a temporary folder, removed at exit."),
    max_ai_seconds: float = typer.Option(60.0, "--max-ai-seconds", min=0.001, help="Most seconds an AI move may search; "
                                         "a longer time option is refused (400)."),
    max_ai_iterations: int = typer.Option(10_000_000, "--max-ai-iterations", min=1, help="Most iterations an AI move may run; more is refused (400)."),
    max_tree_nodes: int = typer.Option(1_000_000, "--max-tree-nodes", min=1, help="Most nodes in one search tree: added as max_nodes to agents that have it; "
                                       "more is refused (400)."),
    ai_workers: int = typer.Option(2, "--ai-workers", min=1, help="Worker processes that run AI moves and parse uploads (at most this many searches at once)."),
    ai_queue: int = typer.Option(16, "--ai-queue", min=1, help="AI moves that may wait for a worker; more are refused (503)."),
    max_memory: int = typer.Option(4096, "--max-memory", min=64, help="MiB of resident memory for the server and its workers together; "
                                   "a search past its share is stopped (its best move so far is played), then ended."),
    kept_tree_nodes: int = typer.Option(4_000_000, "--kept-tree-nodes", min=1, help="Nodes of search trees kept for the viewer, "
                                        "all games together (the least recently viewed go first)."),
    max_upload: int = typer.Option(200, "--max-upload", min=1, help="MiB: the largest tree file accepted for upload (413 above)."),
    upload_quota: int = typer.Option(1024, "--upload-quota", min=1, help="MiB: all uploaded files together (507 when full)."),
    upload_hours: float = typer.Option(24.0, "--upload-hours", min=0.001, help="An upload is deleted this many hours after its last use "
                                       "(all are deleted at exit)."),
    game_days: float = typer.Option(30.0, "--game-days", min=0.001, help="A game is deleted this many days after its last use."),
    max_games: int = typer.Option(100_000, "--max-games", min=1, help="Games kept in all; past it the least recently used goes."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP + " Keys: url, data, limits."),
) -> None:
    """Start the web app: pick a game, play against the AIs, open the tree viewer. Prints its address.

    Every AI move searches in one of --ai-workers worker processes within the limits below;
    Ctrl+C or SIGTERM stops the server at once, searches in flight included.
    """
    import uvicorn

    from boardlab.web.app import create_app
    from boardlab.web.limits import MIB, ServerLimits

    if temporary and data is not None:
        raise BoardlabError("give --data or --temporary, not both")
    limits = ServerLimits(
        max_ai_seconds=max_ai_seconds, max_ai_iterations=max_ai_iterations, max_tree_nodes=max_tree_nodes,
        ai_workers=ai_workers, ai_queue=ai_queue, max_memory=max_memory * MIB, kept_tree_nodes=kept_tree_nodes,
        max_upload=max_upload * MIB, upload_quota=upload_quota * MIB, upload_hours=upload_hours,
        game_days=game_days, max_games=max_games,
    )
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        raise BoardlabError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{sock.getsockname()[1]}/"
    with contextlib.ExitStack() as stack:
        if temporary:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="boardlab-web-")))
        else:
            folder = data if data is not None else default_data_folder()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BoardlabError(f"cannot use {folder} as the data folder: {exc.strerror}") from None
        app = create_app(folder, limits=limits, prestart_workers=True)
        if as_json:
            print_json({"url": url, "data": str(folder), "limits": limits.to_dict()})
        else:
            console.print(f"boardlab web app on {url}  (games and uploads in {folder}; Ctrl+C stops it)", highlight=False)
        # a stopped server does not wait for searches: its requests are answered at once
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1)
        prompt_server(config, app).run(sockets=[sock])


def prompt_server(config, app):
    """uvicorn's server, except that a stop signal (Ctrl+C, SIGTERM) first ends every AI search
    in flight, so that the graceful shutdown has nothing to wait for: the moves' requests are
    answered at once (409, cancelled) and the other requests still finish."""
    import uvicorn

    class PromptServer(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            super().handle_exit(sig, frame)
            # killing the workers is quick, but no work for a signal handler
            threading.Thread(target=app.state.ai.close, name="boardlab-stop-ai", daemon=True).start()

    return PromptServer(config)
