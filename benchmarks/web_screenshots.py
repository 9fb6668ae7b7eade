"""Screenshots of the web app for the README: the menu, games, the tree viewer and each game's end.

    PYTHONPATH=src python benchmarks/web_screenshots.py [--out docs] [--only dicewars|ends]

Writes web-menu.png, web-connect4.png, web-mancala.png, web-chess.png,
web-dicewars.png, web-viewer.png and web-end-<game>.png for every built-in game
(a person against the opponent the menu offers, played to the end by clicks;
headless Chromium, 1280x800, software WebGL); ``--only dicewars`` takes just
that one, ``--only ends`` the menu and the ends. Each PNG is stored with a
palette of at most 256 colours, which keeps it small.
"""

from __future__ import annotations

import argparse
import random
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


def shot(page, path: Path) -> None:
    """The page as shown, as a PNG with a palette: a screenshot of flat colours loses nothing to see."""
    from PIL import Image

    page.evaluate("window.scrollTo(0, 0)")  # the top of the page, whatever the last click scrolled to
    page.screenshot(path=str(path))
    Image.open(path).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"))
    parser.add_argument("--only", default=None, choices=["dicewars", "ends"], help="take only these screenshots")
    args = parser.parse_args()
    if args.only == "ends":
        args.out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as data, serve_in_thread(create_app(data)) as url, chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(300_000)
            page.goto(url + "/")
            page.wait_for_selector("body[data-ready='1']")
            shot(page, args.out / "web-menu.png")
            ends(page, args.out)
        return
    if args.only == "dicewars":
        with tempfile.TemporaryDirectory() as data, serve_in_thread(create_app(data)) as url, chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.set_default_timeout(120_000)
            page.goto(url + "/")
            page.wait_for_selector("body[data-ready='1']")
            dicewars(page)
            shot(page, args.out / "web-dicewars.png")
        print(args.out / "web-dicewars.png")
        return
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as data, serve_in_thread(create_app(data)) as url, chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(120_000)
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready='1']")
        shot(page, args.out / "web-menu.png")

        # Connect Four against MCTS: a few moves in the middle
        start(page, "connect4", "human-ai", iterations=20000)
        for column in (3, 3, 2, 4):
            moves = int(page.get_attribute("body", "data-moves"))
            page.click(f".c4-col.playable[data-col='{column}']")
            page.wait_for_function(f"Number(document.body.dataset.moves) >= {moves + 2} && document.body.dataset.busy === '0'")
        page.wait_for_timeout(500)  # let the last disc land
        shot(page, args.out / "web-connect4.png")

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
        page.evaluate(
            f"() => {{ const v = window.__viewer; const [x, y] = v.toScreen({node}); "
            "v.view.x0 += v.canvas.clientWidth / 2 - x; v.view.y0 += 150 - y; v.drawNow(); }"
        )
        x, y = page.evaluate(f"() => window.__viewer.toScreen({node})")
        box = page.locator("#tree-canvas").bounding_box()
        page.mouse.click(box["x"] + x, box["y"] + y)
        page.wait_for_selector(f"#node-details[data-loaded='{node}']")
        shot(page, args.out / "web-viewer.png")

        # Mancala, AI against AI, a few steps in
        start(page, "mancala", "ai-ai", iterations=2000)
        for step in range(1, 7):
            page.click("#next-move")
            page.wait_for_function(f"Number(document.body.dataset.moves) >= {step} && document.body.dataset.busy === '0'")
        shot(page, args.out / "web-mancala.png")

        # Chess: a piece selected, its moves marked
        start(page, "chess", "human-ai", agent="random")
        page.click(".chess-sq[data-square=e2]")
        page.click(".chess-sq[data-square=e4]")
        page.wait_for_function("document.body.dataset.moves === '2' && document.body.dataset.busy === '0'")
        page.click(".chess-sq[data-square=g1]")
        shot(page, args.out / "web-chess.png")
        dicewars(page)
        shot(page, args.out / "web-dicewars.png")
        ends(page, args.out)
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


# --- each game's end: a person (clicking as below) against the opponent the menu offers -------------
def new_game(page, game: str, params: dict | None = None, options: dict | None = None) -> None:
    """A person against the menu's default opponent (its budget lowered by ``options`` where it thinks long)."""
    page.click("#home")
    page.select_option("#game-select", game)
    for name, value in (params or {}).items():
        page.fill(f"#param-{name}", str(value))
    page.check("input[name=mode][value=human-ai]")
    for name, value in (options or {}).items():
        page.fill(f"#ai-{name}", str(value))
    before = page.get_attribute("body", "data-game") or ""
    page.click("#start")
    page.wait_for_function(f"document.body.dataset.view === 'game' && (document.body.dataset.game || '') !== '{before}'")


def to_the_end(page, move) -> None:
    """The person's moves by ``move(page)`` until the game is over."""
    while True:
        page.wait_for_function("""() => { const b = document.body.dataset;
            return b.busy === '0' && (b.turn === 'over' || b.turn === b.viewer); }""")
        if page.get_attribute("body", "data-turn") == "over":
            return
        before = int(page.get_attribute("body", "data-moves"))
        move(page)
        page.wait_for_function(f"Number(document.body.dataset.moves) > {before}")


def random_click(selector: str, rng: random.Random):
    def move(page) -> None:
        found = page.locator(selector)
        found.nth(rng.randrange(found.count())).click()
    return move


def dicewars_move(page) -> None:
    """The likeliest win of any attack the person may make, at even odds or better; else End turn."""
    best = None
    for source in [s.get_attribute("data-area") for s in page.locator(".dw-area.source").all()]:
        page.click(f".dw-area.source[data-area='{source}'] .dw-core")
        for target in page.locator(".dw-area.target").all():
            odds = (float(target.get_attribute("data-win-probability")), source, target.get_attribute("data-area"))
            best = odds if best is None or odds > best else best
        page.click(f".dw-area.source[data-area='{source}'] .dw-core")  # unselect
    if best and best[0] >= 0.5:
        page.click(f".dw-area.source[data-area='{best[1]}'] .dw-core")
        page.click(f".dw-area.target[data-area='{best[2]}'] .dw-core")
    else:
        page.click("#dw-end-turn")


def ttr_move(page) -> None:
    """Keep the first tickets offered, claim a route, else draw blind, a face-up card, tickets, or pass."""
    if page.locator("#ttr-keep").count():
        least = int(page.text_content(".ttr-offer h4").split("least ")[1].split(" ")[0])
        for slot in range(least):
            page.check(f".ttr-offer input[data-slot='{slot}']")
        page.click("#ttr-keep")
    elif page.locator(".ttr-route.claimable").count():
        page.locator(".ttr-route.claimable").last.click()
        if page.locator(".ttr-pay button[data-action]").count():
            page.locator(".ttr-pay button[data-action]").first.click()
    else:
        for pile in (".ttr-deck.playable", ".ttr-faceup.playable", ".ttr-ticket-deck.playable", ".ttr-pass"):
            if page.locator(pile).count():
                page.locator(pile).first.click()
                return


def ends(page, out: Path) -> None:
    """web-end-<game>.png: each built-in game at its end, the result panel beside the board."""
    rng = random.Random(3)
    # chess from the position before the scholar's mate, the person to mate in one
    new_game(page, "chess", params={"fen": "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"},
             options={"time": 0.2})
    page.wait_for_function("document.body.dataset.busy === '0'")
    page.click(".chess-sq[data-square=h5]")
    page.click(".chess-sq[data-square=f7]")
    page.wait_for_function("document.body.dataset.turn === 'over' && document.body.dataset.busy === '0'")
    shot(page, out / "web-end-chess.png")
    games = [("connect4", None, None, random_click(".c4-col.playable", rng)),
             ("mancala", None, None, random_click(".mancala-pit.playable", rng)),
             ("nothanks", None, None, random_click(".move-button[data-action]", rng)),
             ("dicewars", {"players": 2}, None, dicewars_move),
             ("tickettoride", {"players": 2}, {"iterations": 8}, ttr_move)]
    for game, params, options, move in games:
        new_game(page, game, params, options)
        to_the_end(page, move)
        page.wait_for_timeout(1500)  # let the last animation (a falling disc, a roll) settle for the picture
        shot(page, out / f"web-end-{game}.png")
        print(out / f"web-end-{game}.png")


if __name__ == "__main__":
    main()
