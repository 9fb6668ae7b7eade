"""``boardlab serve``: the web app (play in the browser, inspect search trees)."""

from __future__ import annotations

import contextlib
import socket
import tempfile
from pathlib import Path

import typer

from boardlab.cli.app import JSON_HELP, command, console, print_json
from boardlab.core.errors import BoardlabError


@command("serve")
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (127.0.0.1: this machine only)."),
    port: int = typer.Option(8000, "--port", help="Port to listen on (0: any free port)."),
    data: Path = typer.Option(None, "--data", help="Folder for uploaded tree files (default: a temporary folder, removed at exit)."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP + " Keys: url, data."),
) -> None:
    """Start the web app: pick a game, play against the AIs, open the tree viewer. Prints its address."""
    import uvicorn

    from boardlab.web.app import create_app

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        raise BoardlabError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{sock.getsockname()[1]}/"
    with contextlib.ExitStack() as stack:
        folder = data if data is not None else Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="boardlab-web-")))
        app = create_app(folder)
        if as_json:
            print_json({"url": url, "data": str(folder)})
        else:
            console.print(f"boardlab web app on {url}  (Ctrl+C stops it)", highlight=False)
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
