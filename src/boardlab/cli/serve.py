"""``boardlab serve``: the web app (play in the browser, inspect search trees)."""

from __future__ import annotations

from pathlib import Path

import typer

from boardlab.cli.app import console, command


@command("serve")
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (127.0.0.1: this machine only)."),
    port: int = typer.Option(8000, "--port", help="Port to listen on (0: any free port)."),
    data: Path = typer.Option(None, "--data", help="Folder for uploaded tree files (default: a fresh temporary folder)."),
) -> None:
    """Start the web app: pick a game, play against the AIs, open the tree viewer."""
    import socket

    import uvicorn

    from boardlab.web.app import create_app

    app = create_app(data)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        from boardlab.core.errors import BoardlabError

        raise BoardlabError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    bound_port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    console.print(f"boardlab web app on http://{shown}:{bound_port}/  (Ctrl+C stops it)", highlight=False)
    config = uvicorn.Config(app, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])
