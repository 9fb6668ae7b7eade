"""The web app in headless Chromium (Debian's ``/usr/bin/chromium``, software WebGL), driven by Playwright.

`make test` installs Chromium first when it is missing, so these tests run in CI.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from boardlab.trees.generate import random_mcts_tree
from boardlab.trees.io import save_tree
from boardlab.web.app import create_app
from boardlab.web.headless import chromium, serve_in_thread

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serve_in_thread(create_app(tmp_path_factory.mktemp("web-data"))) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as instance:
        yield instance


@pytest.fixture()
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.set_default_timeout(30_000)
    yield page
    context.close()
    assert not errors, f"errors in the page: {errors}"


def start_game(page, game: str, mode: str, agent: str = "mcts", iterations: int = 100) -> None:
    page.select_option("#game-select", game)
    page.check(f"input[name=mode][value={mode}]")
    if mode != "human-human":
        page.select_option("#agent-select", agent)
        if agent == "mcts":
            page.fill("#ai-iterations", str(iterations))
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")


def settled(page) -> None:
    page.wait_for_function("document.body.dataset.busy === '0'")


def test_connect_four_against_the_ai_to_the_end_then_analyse(page):
    start_game(page, "connect4", "human-ai", iterations=100)
    for _ in range(30):
        settled(page)
        if page.get_attribute("body", "data-turn") == "over":
            break
        before = int(page.get_attribute("body", "data-moves"))
        page.locator(".c4-col.playable").first.click()
        page.wait_for_function(f"Number(document.body.dataset.moves) >= {before + 1} && document.body.dataset.busy === '0'")
        discs = page.locator(".disc").count()
        assert discs == int(page.get_attribute("body", "data-moves"))  # one disc per move, AI replies included
    assert page.get_attribute("body", "data-turn") == "over"
    result = page.text_content("#result")
    assert result in ("Red wins", "Yellow wins", "Draw")
    moves = page.locator("#move-list li").count()
    assert moves == page.locator(".disc").count()
    assert page.locator(".c4-col.playable").count() == 0  # nothing to click after the end
    # the record downloads as JSON and matches what was played
    with page.expect_download() as info:
        page.click("#export-record")
    record = json.loads(open(info.value.path()).read())
    assert record["format"] == "boardlab-record/1" and len(record["actions"]) == moves
    assert record["agents"][0] == "human" and record["agents"][1].startswith("mcts")
    # the viewer opens on the AI's last three trees; ← goes back one
    page.fill("#trees-back", "3")
    page.click("#analyse")
    page.wait_for_function("document.body.dataset.treeReady === '2'")
    assert page.text_content("#tree-title").startswith("3/3")
    page.click("#tree-prev")
    page.wait_for_function("document.body.dataset.treeReady === '1'")
    assert page.text_content("#tree-title").startswith("2/3")
    assert "new since the previous tree" in page.text_content("#legend")
    # a node's details show a small Connect Four board
    x, y = page.evaluate("() => window.__viewer.toScreen(0)")
    box = page.locator("#tree-canvas").bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)
    page.wait_for_selector("#node-details[data-loaded='0']")
    assert page.locator("#node-board .c4-board").count() == 1
    assert int(page.text_content("[data-field=visits]")) >= 100
    # the server's rendering of the whole tree
    with page.expect_download() as info:
        page.click("#export-full-png")
    assert open(info.value.path(), "rb").read()[:8] == b"\x89PNG\r\n\x1a\n"
    # growth animation of the search: nodes appear in the order the search added them
    page.click("#animate")
    page.wait_for_function("window.__viewer.limit > 0 && window.__viewer.limit < 1e9")
    page.wait_for_function("document.body.dataset.animating === '0'", timeout=20_000)
    assert page.evaluate("window.__viewer.limit") > 1e30  # the whole tree again


def test_mancala_ai_against_ai_step_by_step(page):
    start_game(page, "mancala", "ai-ai", agent="random")
    assert page.locator(".mancala-pit").count() == 12
    assert page.locator(".mancala-pit.playable").count() == 0  # no person plays
    for expected in range(1, 6):
        page.click("#next-move")
        page.wait_for_function(f"document.body.dataset.moves === '{expected}' && document.body.dataset.busy === '0'")
        assert page.locator("#move-list li").count() == expected
    counts = [int(t) for t in page.locator(".mancala-pit .count, .mancala-store .count").all_text_contents()]
    assert sum(counts) == 48  # seeds are neither made nor lost
    page.click("#play-on")
    page.wait_for_function("document.body.dataset.turn === 'over'", timeout=60_000)
    assert page.text_content("#result") in ("South wins", "North wins", "Draw")
    page.click("#undo")
    settled(page)
    assert page.get_attribute("body", "data-turn") != "over"


@pytest.fixture(scope="module")
def tree_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trees")
    first, second = random_mcts_tree(100_000, seed=11), random_mcts_tree(100_000, seed=12)
    save_tree(first, folder / "first.tree")
    save_tree(second, folder / "second.csv")
    return [folder / "first.tree", folder / "second.csv"], [first, second]


def test_viewer_on_a_100k_node_tree_zoom_pan_pick_switch_and_export(page, tree_files):
    paths, trees = tree_files
    page.set_input_files("#tree-files", [str(p) for p in paths])
    page.wait_for_function("document.body.dataset.treeReady === '0'", timeout=60_000)
    assert page.get_attribute("body", "data-tree-nodes") == "100000"
    viewer = "window.__viewer"
    assert page.evaluate(f"() => {viewer}.gl.getError()") == 0
    box = page.locator("#tree-canvas").bounding_box()
    # the wheel zooms about the cursor
    sx0 = page.evaluate(f"() => {viewer}.view.sx")
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 60)
    for _ in range(6):
        page.mouse.wheel(0, -400)
    page.wait_for_function(f"{viewer}.view.sx > {sx0} * 8")
    page.click("#zoom-in")
    page.wait_for_function(f"{viewer}.view.sx > {sx0} * 12")
    # dragging pans by the distance dragged
    x0 = page.evaluate(f"() => {viewer}.view.x0")
    page.mouse.move(box["x"] + 400, box["y"] + 300)
    page.mouse.down()
    page.mouse.move(box["x"] + 500, box["y"] + 320, steps=5)
    page.mouse.up()
    assert page.evaluate(f"() => {viewer}.view.x0") == pytest.approx(x0 + 100, abs=1)
    # click a visible node below the root and read its statistics
    tree = trees[0]
    depth = tree.depth()
    node = page.evaluate(
        f"""() => {{ const v = {viewer}; const t = v.tree; const W = v.canvas.clientWidth, H = v.canvas.clientHeight;
        for (let i = 0; i < t.n; i++) {{ if (t.y[i] < 1) continue; const [x, y] = v.toScreen(i);
          if (x > 20 && x < W - 20 && y > 20 && y < H - 20) return i; }} return -1; }}"""
    )
    assert node > 0
    x, y = page.evaluate(f"() => {viewer}.toScreen({node})")
    page.mouse.click(box["x"] + x, box["y"] + y)
    page.wait_for_selector(f"#node-details[data-loaded='{node}']")
    assert int(page.text_content("[data-field=visits]")) == tree.visits[node]
    assert int(page.text_content("[data-field=wins]")) == tree.visits2[node]
    path, up = [], node
    while up > 0:
        path.append(tree.move[up])
        up = int(tree.parent[up])
    assert page.text_content("[data-field=path]") == " ".join(reversed(path))
    assert int(page.text_content("[data-field=depth]")) == depth[node]
    assert not page.locator("#selection-ring").is_hidden()
    # centre fits the whole tree again
    page.click("#centre")
    page.wait_for_function(f"Math.abs({viewer}.view.sx - {sx0}) < 1e-9")
    # → shows the second file, compared with the first
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.body.dataset.treeReady === '1'")
    assert page.text_content("#tree-title").startswith("2/2: second.csv")
    assert "new since the previous tree" in page.text_content("#legend")
    # PNG export: the picture of the tree as drawn
    with page.expect_download() as info:
        page.click("#export-png")
    data = open(info.value.path(), "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image

    image = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
    assert image.shape[0] > 300 and image.shape[1] > 600
    assert (image.min(axis=2) < 200).mean() > 0.01  # edges and nodes were drawn, not a blank canvas
    # CSV export of the current tree comes from the server
    with page.expect_download() as info:
        page.click("#export-csv")
    from boardlab.trees.csvformat import to_bytes

    assert open(info.value.path(), "rb").read() == to_bytes(trees[1])
    # files do not record when nodes were added: no growth animation for them
    assert page.locator("#animate").is_disabled()


def test_chess_moves_are_made_by_clicking_squares(page):
    start_game(page, "chess", "human-ai", agent="random")
    assert page.locator(".chess-sq").count() == 64
    assert page.get_attribute(".chess-sq[data-square=e1] .piece", "data-piece") == "K"
    assert page.get_attribute(".chess-sq[data-square=d8] .piece", "data-piece") == "q"
    page.click(".chess-sq[data-square=e2]")
    assert page.locator(".chess-sq.target").count() == 2  # e3 and e4
    page.click(".chess-sq[data-square=e4]")
    page.wait_for_function("document.body.dataset.moves === '2' && document.body.dataset.busy === '0'")
    assert page.get_attribute(".chess-sq[data-square=e4] .piece", "data-piece") == "P"
    assert page.text_content(".chess-sq[data-square=e2]") == ""
    assert page.locator("#move-list li").first.text_content() == "White: e4"  # the move list says who played


def test_an_openspiel_game_is_chosen_by_name_in_the_page_and_played(page):
    pytest.importorskip("pyspiel")
    page.select_option("#game-select", "openspiel")
    page.fill("#game-params input[data-param=name]", "hex(board_size=5)")
    page.check("input[name=mode][value=human-ai]")
    page.select_option("#agent-select", "openspiel-mcts")
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")
    settled(page)
    assert page.locator(".move-button").count() == 25  # a button per cell: no renderer, the generic board
    assert "." in page.text_content(".board-text")
    page.click(".move-button >> nth=12")
    page.wait_for_function("Number(document.body.dataset.moves) >= 2 && document.body.dataset.busy === '0'")
    assert page.locator(".move-button").count() == 23  # the person's stone and the bot's answer
