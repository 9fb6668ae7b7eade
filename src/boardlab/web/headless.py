"""Run the web app in a background thread and open it in headless Chromium.

Shared by the browser tests and the web benchmarks. Chromium is Debian's
(``apt-get install chromium``); WebGL runs in software (ANGLE over SwiftShader).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Iterator

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    # WebGL without a GPU: ANGLE over SwiftShader
    "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
]


@contextlib.contextmanager
def serve_in_thread(app, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free port; yields the base URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the web app did not start")
        time.sleep(0.05)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@contextlib.contextmanager
def chromium() -> Iterator[object]:
    """A headless Chromium browser (Playwright's ``Browser``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
