"""Screenshots of the web app for the README: the menu, games and the tree viewer.

    PYTHONPATH=src python benchmarks/web_screenshots.py [--out docs]

Writes web-menu.png, web-connect4.png, web-mancala.png, web-chess.png,
web-dicewars.png and web-viewer.png (headless Chromium, 1280x800, software
WebGL); ``--only dicewars`` (or another name) takes just that one.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from boardlab.web.app import create_app
from boardlab.web.headless import chromium, serve_in_thread


def start(page, game: str, mode: str, agent: str = "mcts", iterations: int = 3000) -> None:
    page.click("#home")
    page.select_option("#game-select", game)
    page.check(f"input[name=mode][value={mode}]")
    page.select_option("#agent-select", agent)
    if agent == "mcts":
        page.fill("#ai-iterations", str(iterations))
        page.fill("#ai-time", "")
    before = page.get_attribute("body", "data-game") or ""
    page.click("#start")
    page.wait_for_function(f"document.body.dataset.view === 'game' && (document.body.dataset.game || '') !== '{before}'")
    page.wait_for_function("document.body.dataset.busy === '0'")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"))
    parser.add_argument("--only", default=None, help="take only this screenshot (dicewars)")
    args = parser.parse_args()
    if args.only == "dicewars":
        with tempfile.TemporaryDirectory() as data, serve_in_thread(create_app(data)) as url, chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.set_default_timeout(120_000)
            page.goto(url + "/")
            page.wait_for_selector("body[data-ready='1']")
            dicewars(page)
            page.screenshot(path=str(args.out / "web-dicewars.png"))
        print(args.out / "web-dicewars.png")
        return
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as data, serve_in_thread(create_app(data)) as url, chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(120_000)
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready='1']")
        page.screenshot(path=str(args.out / "web-menu.png"))

        # Connect Four against MCTS: a few moves in the middle
        start(page, "connect4", "human-ai", iterations=20000)
        for column in (3, 3, 2, 4):
            moves = int(page.get_attribute("body", "data-moves"))
            page.click(f".c4-col.playable[data-col='{column}']")
            page.wait_for_function(f"Number(document.body.dataset.moves) >= {moves + 2} && document.body.dataset.busy === '0'")
        page.wait_for_timeout(500)  # let the last disc land
        page.screenshot(path=str(args.out / "web-connect4.png"))

        # the viewer on the AI's last two searches, a node below the root picked
        page.fill("#trees-back", "2")
        page.click("#analyse")
        page.wait_for_function("document.body.dataset.view === 'viewer' && document.body.dataset.treeReady === '1'")
        node = page.evaluate(
            """() => { const v = window.__viewer, t = v.tree; let best = -1;
            for (let i = 1; i < t.n; i++) if (t.y[i] === 2) { best = i; break; } return best; }"""
        )
        for _ in range(3):
            page.click("#zoom-in")
        page.evaluate(f"() => {{ const v = window.__viewer; const [x, y] = v.toScreen({node}); v.view.x0 += v.canvas.clientWidth / 2 - x; v.view.y0 += 150 - y; v.drawNow(); }}")
        x, y = page.evaluate(f"() => window.__viewer.toScreen({node})")
        box = page.locator("#tree-canvas").bounding_box()
        page.mouse.click(box["x"] + x, box["y"] + y)
        page.wait_for_selector(f"#node-details[data-loaded='{node}']")
        page.screenshot(path=str(args.out / "web-viewer.png"))

        # Mancala, AI against AI, a few steps in
        start(page, "mancala", "ai-ai", iterations=2000)
        for step in range(1, 7):
            page.click("#next-move")
            page.wait_for_function(f"Number(document.body.dataset.moves) >= {step} && document.body.dataset.busy === '0'")
        page.screenshot(path=str(args.out / "web-mancala.png"))

        # Chess: a piece selected, its moves marked
        start(page, "chess", "human-ai", agent="random")
        page.click(".chess-sq[data-square=e2]")
        page.click(".chess-sq[data-square=e4]")
        page.wait_for_function("document.body.dataset.moves === '2' && document.body.dataset.busy === '0'")
        page.click(".chess-sq[data-square=g1]")
        page.screenshot(path=str(args.out / "web-chess.png"))
        dicewars(page)
        page.screenshot(path=str(args.out / "web-dicewars.png"))
    for name in ("menu", "connect4", "viewer", "mancala", "chess", "dicewars"):
        print(args.out / f"web-{name}.png")


def dicewars(page) -> None:
    """Dice Wars, a person against three dw-ste bots: a few attacks in, a source picked, the odds on its targets."""
    page.click("#home")
    page.select_option("#game-select", "dicewars")
    page.check("input[name=mode][value=human-ai]")
    page.select_option("#agent-select", "dw-ste")
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")
    page.wait_for_function("document.body.dataset.busy === '0'")
    for _ in range(3):  # three good attacks, then a source selected
        area = page.locator(".dw-area.source").first.get_attribute("data-area")
        page.click(f".dw-area.source[data-area='{area}'] .dw-core")
        targets = page.locator(".dw-area.target")
        pick = max(targets.all(), key=lambda t: float(t.get_attribute("data-win-probability")))
        moves = int(page.get_attribute("body", "data-moves"))
        page.click(f".dw-area.target[data-area='{pick.get_attribute('data-area')}'] .dw-core")
        page.wait_for_function(f"Number(document.body.dataset.moves) > {moves} && document.body.dataset.busy === '0'")
    area = page.locator(".dw-area.source").first.get_attribute("data-area")
    page.click(f".dw-area.source[data-area='{area}'] .dw-core")


if __name__ == "__main__":
    main()
