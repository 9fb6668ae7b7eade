"""The web app in headless Chromium (Debian's ``/usr/bin/chromium``, software WebGL), driven by Playwright.

`make test` installs Chromium first when it is missing, so these tests run in CI.
"""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest

from boardlab.core.game import CHANCE, TERMINAL
from boardlab.trees.generate import random_mcts_tree
from boardlab.trees.io import save_tree
from boardlab.trees.model import Tree
from boardlab.web import treepack
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
    # every wait is for an event, never a sleep: a long bound costs nothing when the page is quick,
    # and a fresh clone on a busy machine compiles numba kernels in new worker processes first
    page.set_default_timeout(180_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    yield page
    context.close()
    assert not errors, f"errors in the page: {errors}"


def start_game(page, game: str, mode: str, agent: str = "mcts", iterations: int = 100, seat: int | None = None,
               params: dict | None = None) -> str:
    """Start a game from the menu; returns its id once the page shows it."""
    if page.get_attribute("body", "data-view") != "menu":
        page.click("#home")
    before = page.get_attribute("body", "data-game") or ""
    page.select_option("#game-select", game)
    for name, value in (params or {}).items():
        page.fill(f"#param-{name}", str(value))
    page.check(f"input[name=mode][value={mode}]")
    if mode != "human-human":
        page.select_option("#agent-select", agent)
        if agent == "mcts":
            page.fill("#ai-iterations", str(iterations))
            page.fill("#ai-time", "")
    if seat is not None:
        page.select_option("#human-seat", str(seat))
    page.click("#start")
    page.wait_for_function(f"document.body.dataset.view === 'game' && (document.body.dataset.game || '') !== '{before}'")
    return page.get_attribute("body", "data-game")


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
    assert result in ("You won", "You lost", "Draw")  # the person's side of it
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
    page.wait_for_function("document.body.dataset.animating === '0'")
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
    page.wait_for_function("document.body.dataset.turn === 'over'")
    assert page.text_content("#result") in ("South wins", "North wins", "Draw")
    assert page.is_disabled("#undo")  # a finished game is not taken back


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
    page.wait_for_function("document.body.dataset.treeReady === '0'")
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
    assert page.locator("#move-list .move-text").first.text_content() == "White: e4"  # the move list says who played


# --- the menu ------------------------------------------------------------------------------------
def options(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(f"{selector} option", "nodes => nodes.map(o => o.value)")


def test_menu_offers_each_game_its_own_agents_evaluators_and_seats(page):
    assert page.input_value("#game-select") == "connect4"  # the default game
    assert "perfect" in options(page, "#agent-select") and "qnet" in options(page, "#agent-select")
    assert page.input_value("#agent-select") == "az"  # the game's declared default: its self-play network
    page.select_option("#agent-select", "mcts")
    assert page.input_value("#ai-iterations") == "1000"
    # every option the agent declares is there, its help as a tooltip
    help_text = page.evaluate("() => document.getElementById('ai-iterations').closest('label').title")
    assert "iterations per move" in help_text
    assert page.locator("#agent-more [data-option=reuse]").count() == 1
    page.select_option("#game-select", "chess")
    agents = options(page, "#agent-select")
    assert "mcts" in agents and "random" in agents
    assert not {"perfect", "qnet", "nothanks-expert", "nothanks-net"} & set(agents)
    # chess: the material evaluator and about a second per move; eval can be set, random playouts too
    assert page.input_value("#ai-eval") == "chess_material" and options(page, "#ai-eval") == ["chess_material", "none"]
    assert page.input_value("#ai-time") == "1" and page.input_value("#ai-iterations") == ""
    assert options(page, "#human-seat") == ["0", "1"]
    assert page.eval_on_selector_all("#human-seat option", "o => o.map(x => x.textContent)") == ["White", "Black"]
    with page.expect_request("**/api/games") as request:
        page.click("#start")
    assert request.value.post_data_json["ai"] == {"agent": "mcts", "time": 1}
    page.wait_for_function("document.body.dataset.view === 'game'")
    page.click("#home")
    page.select_option("#game-select", "chess")
    page.select_option("#ai-eval", "none")
    with page.expect_request("**/api/games") as request:
        page.click("#start")
    assert request.value.post_data_json["ai"] == {"agent": "mcts", "time": 1, "eval": "none"}
    page.wait_for_function("document.body.dataset.view === 'game'")
    page.click("#home")
    # No Thanks!: its own agents, and a seat for every player asked for, named as the game names them
    page.select_option("#game-select", "nothanks")
    assert {"nothanks-expert", "nothanks-net"} <= set(options(page, "#agent-select"))
    assert "perfect" not in options(page, "#agent-select")
    assert page.input_value("#agent-select") == "mcts"  # the game's declared default: determinised MCTS
    page.fill("#param-players", "6")
    names = page.eval_on_selector_all("#human-seat option", "o => o.map(x => x.textContent)")
    assert names == [f"Player {k}" for k in range(1, 7)]


# --- games ---------------------------------------------------------------------------------------
def test_the_board_turns_round_for_black_and_for_north(page):
    start_game(page, "chess", "human-ai", agent="mcts", iterations=200, seat=1)
    page.wait_for_function("document.body.dataset.moves === '1' && document.body.dataset.busy === '0'")
    assert page.get_attribute("body", "data-viewer") == "1"
    squares = page.eval_on_selector_all(".chess-sq", "cells => cells.map(c => c.dataset.square)")
    assert squares[0] == "h1" and squares[-1] == "a8"  # Black's side at the bottom, h-file on the left
    assert "you play Black" in page.text_content("#game-title")
    # the AI's tree: searched with the material evaluator (its nodes count wins), its boards seen from Black's side
    page.click("#analyse")
    page.wait_for_function("document.body.dataset.view === 'viewer' && document.body.dataset.treeReady === '0'")
    x, y = page.evaluate("() => window.__viewer.toScreen(0)")
    box = page.locator("#tree-canvas").bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)
    page.wait_for_selector("#node-details[data-loaded='0']")
    assert int(page.text_content("[data-field=wins]")) > 0 and page.text_content("[data-field=player]") == "White"
    assert page.eval_on_selector("#node-board .chess-sq", "c => c.dataset.square") == "h1"
    page.click("#viewer-back")
    page.wait_for_function("document.body.dataset.view === 'game' && document.body.dataset.busy === '0'")
    page.click(".chess-sq[data-square=e7]")
    page.click(".chess-sq[data-square=e5]")
    page.wait_for_function("document.body.dataset.moves === '3' && document.body.dataset.busy === '0'")
    assert page.locator("#move-list .move-text").nth(1).text_content() == "Black: e5"
    assert page.text_content(".chess-sq[data-square=e7]") == ""
    # as White the board is the usual way round
    start_game(page, "chess", "human-ai", agent="random", seat=0)
    assert page.eval_on_selector(".chess-sq", "c => c.dataset.square") == "a8"
    # Mancala: North's pits at the bottom, running left to right A..F
    start_game(page, "mancala", "human-ai", agent="random", seat=1)
    page.wait_for_function("document.body.dataset.turn === '1' && document.body.dataset.busy === '0'")
    rows = page.eval_on_selector_all(".mancala-row", "rows => rows.map(r => [...r.children].map(p => p.dataset.player + p.dataset.pit))")
    assert rows[1] == ["10", "11", "12", "13", "14", "15"] and rows[0] == ["05", "04", "03", "02", "01", "00"]
    assert page.locator(".mancala-pit.playable[data-player='1']").count() >= 1


def test_no_thanks_any_seat_of_a_five_player_game_plays(page):
    start_game(page, "nothanks", "human-ai", agent="random", seat=2, params={"players": 5})
    page.wait_for_function("document.body.dataset.turn === '2' && document.body.dataset.busy === '0'")
    assert page.locator(".nothanks-seat").count() == 5
    assert page.text_content(".nothanks-seat.mine .nothanks-name") == "Player 3"
    assert page.text_content("#turn").startswith("Player 3 to move")
    moves = int(page.get_attribute("body", "data-moves"))
    page.click(".move-button[data-action]")
    page.wait_for_function(f"Number(document.body.dataset.moves) > {moves} && document.body.dataset.busy === '0'")
    played = page.locator("#move-list .move-text").all_text_contents()
    assert played[moves] in ("Player 3: take", "Player 3: pass")  # the move list says who played
    assert all(item.split(":")[0] in {f"Player {k}" for k in range(1, 6)} for item in played)


def test_reload_back_and_forward_keep_the_game_and_its_trees(page):
    game = start_game(page, "connect4", "human-ai", iterations=50)
    page.click(".c4-col.playable[data-col='3']")
    page.wait_for_function("document.body.dataset.moves === '2' && document.body.dataset.busy === '0'")
    assert page.evaluate("location.hash") == f"#game/{game}"
    page.reload()
    page.wait_for_function(f"document.body.dataset.game === '{game}' && document.body.dataset.moves === '2'")
    assert page.locator(".disc").count() == 2 and page.locator(".c4-col.playable").count() == 7
    page.click("#analyse")
    page.wait_for_function("document.body.dataset.treeReady === '0'")
    route = page.evaluate("location.hash")
    assert route.startswith(f"#game/{game}/trees/")
    page.reload()  # the viewer comes back on the same tree
    page.wait_for_function("document.body.dataset.treeReady === '0'")
    assert page.evaluate("location.hash") == route and "move 2: Yellow plays" in page.text_content("#tree-title")
    page.go_back()
    page.wait_for_function(f"document.body.dataset.view === 'game' && document.body.dataset.game === '{game}'")
    page.go_back()
    page.wait_for_function("document.body.dataset.view === 'menu'")
    page.go_forward()
    page.wait_for_function("document.body.dataset.view === 'game' && document.body.dataset.moves === '2'")
    # "Play from here" on the root of the AI's tree: a new game from that position, against the same AI
    page.go_forward()
    page.wait_for_function("document.body.dataset.view === 'viewer' && document.body.dataset.treeReady === '0'")
    x, y = page.evaluate("() => window.__viewer.toScreen(0)")
    box = page.locator("#tree-canvas").bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)
    page.wait_for_selector("#node-details[data-loaded='0']")
    page.click("#play-from-here")
    page.wait_for_function(f"document.body.dataset.view === 'game' && document.body.dataset.game !== '{game}'")
    other = page.get_attribute("body", "data-game")
    assert page.evaluate("location.hash") == f"#game/{other}"
    assert page.get_attribute("body", "data-moves") == "1" and page.get_attribute("body", "data-turn") == "1"


def hold_ai_moves(page) -> list:
    """AI-move requests wait in the returned list until the test lets them go (route.continue_())."""
    held = []
    page.route("**/ai-move", lambda route: held.append(route))
    return held


def wait_until_held(page, held, count: int) -> None:
    for _ in range(1000):  # each round trip to the page lets Playwright hand over intercepted requests
        if len(held) >= count:
            return
        page.evaluate("0")
    raise AssertionError(f"{count} AI-move requests expected, {len(held)} seen")


def test_an_ai_reply_for_a_game_left_never_brings_it_back(page):
    held = hold_ai_moves(page)
    old = start_game(page, "connect4", "human-ai", agent="random", seat=1)  # the AI moves first
    page.wait_for_function("document.body.dataset.busy === '1'")
    wait_until_held(page, held, 1)
    page.click("#home")
    held[0].continue_()  # the reply comes while the menu is shown
    page.wait_for_function("document.body.dataset.dropped === '1'")
    assert page.get_attribute("body", "data-view") == "menu" and page.evaluate("location.hash") == ""
    # Back to the game: it shows the AI's move, and it is the person's turn
    page.go_back()
    page.wait_for_function(f"document.body.dataset.game === '{old}' && document.body.dataset.moves === '1'")
    assert page.get_attribute("body", "data-busy") == "0" and page.locator(".c4-col.playable").count() == 7


def test_a_game_started_while_the_ai_thinks_stays_on_screen(page):
    from playwright.sync_api import Error as PlaywrightError

    held = hold_ai_moves(page)
    old = start_game(page, "connect4", "human-ai", agent="random", seat=1)
    page.wait_for_function("document.body.dataset.busy === '1'")
    wait_until_held(page, held, 1)
    new = start_game(page, "mancala", "human-ai", agent="random", seat=0)
    assert new != old and page.get_attribute("body", "data-busy") == "0"
    # the old game's request is given up (a server that notices stops its search); its end is set aside
    page.wait_for_function("document.body.dataset.dropped === '1'")
    with contextlib.suppress(PlaywrightError):  # the request was aborted: nothing left to let go
        held[0].continue_()
    page.unroute("**/ai-move")
    assert page.get_attribute("body", "data-view") == "game" and page.get_attribute("body", "data-game") == new
    assert page.evaluate("location.hash") == f"#game/{new}"
    assert page.locator(".mancala-pit").count() == 12 and page.locator(".mancala-pit.playable").count() == 6
    assert "thinking" not in page.text_content("#turn")
    # the new game plays on
    page.click(".mancala-pit.playable[data-pit='0']")
    page.wait_for_function("Number(document.body.dataset.moves) >= 2 && document.body.dataset.busy === '0'")
    assert page.get_attribute("body", "data-game") == new


def test_a_game_the_server_does_not_have_says_so_and_leads_back(page, server):
    page.goto(server + "/#game/no-such-game")
    page.wait_for_function("document.body.dataset.gone === '1'")
    assert "no-such-game" in page.text_content("#gone-detail")  # the server's own words
    assert page.locator("#board").is_hidden()
    page.click("#gone-menu")
    page.wait_for_function("document.body.dataset.view === 'menu'")
    assert page.evaluate("location.hash") == ""


# --- the viewer ----------------------------------------------------------------------------------
def test_zoom_is_bounded_and_every_export_of_a_tree_is_named_alike(page, tree_files):
    paths, trees = tree_files
    page.set_input_files("#tree-files", [str(paths[0])])
    page.wait_for_function("document.body.dataset.treeReady === '0'")
    v = "window.__viewer"
    fit = page.evaluate(f"() => ({{ ...{v}.view }})")
    for _ in range(40):
        page.click("#zoom-out")
    page.mouse.move(300, 300)
    page.mouse.wheel(0, 1e6)  # one violent turn of the wheel
    page.wait_for_function(f"{v}.view.sx === {fit['sx']}")
    assert page.evaluate(f"() => {v}.view") == pytest.approx(fit)  # never smaller than the whole tree
    for _ in range(60):
        page.keyboard.press("+")
    page.mouse.wheel(0, -1e6)
    page.wait_for_function(f"{v}.view.sx === 240")  # the largest zoom: 240 px between neighbouring leaves
    view = page.evaluate(f"() => {v}.view")
    assert all(abs(value) < 1e9 for value in view.values())
    assert page.evaluate(f"() => {v}.pointSize()") >= 10  # a node is large at the largest zoom
    # something of the tree is always on the canvas
    assert page.evaluate(f"() => {v}.lastFrame.nodes") > 0
    # the title keeps the node count whole, however narrow the window
    page.set_viewport_size({"width": 760, "height": 700})
    page.wait_for_function("document.getElementById('tree-title-nodes').textContent === '100,000 nodes'")
    fits = page.evaluate("""() => { const n = document.getElementById('tree-title-nodes'), t = document.getElementById('tree-title');
        const a = n.getBoundingClientRect(), b = t.getBoundingClientRect();
        return n.scrollWidth <= n.clientWidth && a.left >= b.left - 0.5 && a.right <= b.right + 0.5; }""")
    assert fits
    # exports: <file stem>.<ext>, the same stem for each
    names = []
    for button in ("#export-png", "#export-full-png", "#export-csv", "#export-bin"):
        with page.expect_download() as info:
            page.click(button)
        names.append(info.value.suggested_filename)
    assert names == ["first.png", "first-full.png", "first.csv", "first.tree"]


def test_game_tree_exports_are_named_after_the_game_and_move(page):
    start_game(page, "connect4", "ai-ai", iterations=30)
    for expected in (1, 2):
        page.click("#next-move")
        page.wait_for_function(f"document.body.dataset.moves === '{expected}' && document.body.dataset.busy === '0'")
    page.fill("#trees-back", "2")
    page.click("#analyse")
    page.wait_for_function("document.body.dataset.treeReady === '1'")
    names = []
    for button in ("#export-png", "#export-full-png", "#export-csv", "#export-bin"):
        with page.expect_download() as info:
            page.click(button)
        names.append(info.value.suggested_filename)
    assert names == ["connect4-move2.png", "connect4-move2-full.png", "connect4-move2.csv", "connect4-move2.tree"]
    # the legend and the node details speak of the game's seats, in its colours
    legend = page.text_content("#legend")
    assert "Red to move" in legend and "Yellow to move" in legend
    colours = page.eval_on_selector_all("#legend .legend-entry .swatch", "s => s.map(x => getComputedStyle(x).backgroundColor)")
    declared = page.evaluate("""async () => (await (await fetch('/api/meta')).json()).games
        .find((g) => g.name === 'connect4').player_colors""")
    for css in declared:  # the seats' own piece colours, as the game declares them
        assert "rgb({}, {}, {})".format(*(int(css[k:k + 2], 16) for k in (1, 3, 5))) in colours
    x, y = page.evaluate("() => window.__viewer.toScreen(0)")
    box = page.locator("#tree-canvas").bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)
    page.wait_for_selector("#node-details[data-loaded='0']")
    assert page.text_content("[data-field=player]") == "Yellow"


def test_level_of_detail_draws_the_same_picture_with_far_fewer_vertices(page, tree_files):
    paths, _ = tree_files
    page.set_input_files("#tree-files", [str(paths[0])])
    page.wait_for_function("document.body.dataset.treeReady === '0' && document.body.dataset.levels === 'ready'")
    from PIL import Image

    def picture(lod: bool):
        frame = page.evaluate(f"() => {{ const v = window.__viewer; v.lod = {str(lod).lower()}; v.drawNow(); return v.lastFrame; }}")
        image = np.asarray(Image.open(io.BytesIO(page.locator("#tree-canvas").screenshot())).convert("RGB")).astype(int)
        return frame, image

    for zoom_steps, fewer in ((0, 8), (4, 2)):
        for _ in range(zoom_steps):
            page.evaluate("() => window.__viewer.zoom(1.5)")
        coarse, a = picture(True)
        full, b = picture(False)
        assert coarse["nodes"] + coarse["edges"] < (full["nodes"] + full["edges"]) / fewer
        drawn_a, drawn_b = a.min(axis=2) < 200, b.min(axis=2) < 200
        assert abs(drawn_a.mean() - drawn_b.mean()) < 0.05  # as much of the canvas is drawn
        assert (drawn_a != drawn_b).mean() < 0.06  # and in the same places


def test_chance_nodes_and_finished_games_have_shapes_of_their_own(page, tree_files):
    # a tree of a game with dice: the root's player 0 rolls (chance), or the game ends
    tree = Tree.from_parents(
        parent=[-1, 0, 1, 1, 0], move=["", "roll", "1", "2", "stop"], visits=[10, 6, 3, 3, 4], visits2=[0, 3, 2, 1, 4],
        mean_payout=[0.0, 0.5, 0.6, 0.4, 1.0], state=["r", "c", "a", "b", "t"], player=[0, CHANCE, 1, 1, TERMINAL],
    )
    body = treepack.pack_tree(tree, {"title": "dice"})
    page.route("**/test/dice-tree", lambda route: route.fulfill(body=body, content_type="application/octet-stream"))
    page.set_input_files("#tree-files", [str(tree_files[0][0])])  # opens the viewer
    page.wait_for_function("document.body.dataset.view === 'viewer' && document.body.dataset.treeReady === '0'")
    page.evaluate("""() => window.__viewer.open([{ title: "dice", data: "/test/dice-tree", node: () => "/none",
        export: () => "/none", stem: "dice" }], 0)""")
    page.wait_for_function("document.body.dataset.treeReady === '0' && document.body.dataset.treeNodes === '5'")
    assert page.locator(".legend-entry[data-code='252'] .swatch.chance").count() == 1
    assert page.locator(".legend-entry[data-code='253'] .swatch.terminal").count() == 1
    assert "chance" in page.text_content(".legend-entry[data-code='252']")
    from PIL import Image

    page.evaluate("() => window.__viewer.drawNow()")
    image = np.asarray(Image.open(io.BytesIO(page.locator("#tree-canvas").screenshot())).convert("RGB")).astype(int)
    assert page.evaluate("() => window.__viewer.pointSize()") == 14

    def at(node, dx, dy):
        x, y = page.evaluate(f"() => window.__viewer.toScreen({node})")
        return image[int(round(y + dy)), int(round(x + dx))]

    white = lambda pixel: pixel.min() > 240  # noqa: E731
    assert abs(at(1, 0, 0) - [230, 0, 230]).max() < 30  # the chance colour at the chance node's centre
    # 4 px down and to the side of the centre: inside a round seat node and a square finished game, outside a diamond
    for dx in (-4, 4):
        assert white(at(1, dx, 4)), "a chance node is a diamond"
        assert not white(at(2, dx, 4)), "a seat's node is round"
        assert not white(at(4, dx, 4)) and not white(at(4, dx, -4)), "a finished game is a square"


def test_dicewars_human_against_bots_clicked_to_the_end(page, tmp_path):
    """A whole Dice Wars game (14 areas) against two dw-sdc bots, played by clicking: an attack (source, then the
    target showing its win probability) when the odds are good, else the end-turn button."""
    page.select_option("#game-select", "dicewars")
    page.fill("input[data-param=players]", "3")
    page.fill("input[data-param=areas]", "14")  # a small map keeps the game (and its move list) short
    page.check("input[name=mode][value=human-ai]")
    page.select_option("#agent-select", "dw-sdc")
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")
    attacks = ends = rolls_seen = 0
    for _ in range(2000):
        settled(page)
        if page.get_attribute("body", "data-turn") == "over":
            break
        before = int(page.get_attribute("body", "data-moves"))
        # the first source (of at most three tried) with a target at good odds, read off the map
        best = None
        sources = page.locator(".dw-area.source")
        for k in range(min(3, sources.count())):
            area = sources.nth(k).get_attribute("data-area")
            page.click(f".dw-area.source[data-area='{area}'] .dw-core")
            for target in page.locator(".dw-area.target").all():
                p = float(target.get_attribute("data-win-probability"))
                assert 0.0 < p <= 1.0
                if best is None or p > best[0]:
                    best = (p, area, target.get_attribute("data-area"))
            page.click(f".dw-area.source[data-area='{area}'] .dw-core")  # unselect
            if best is not None and best[0] >= 0.55:
                break
        if best is not None and best[0] >= 0.55:
            page.click(f".dw-area.source[data-area='{best[1]}'] .dw-core")
            assert page.locator(".dw-prob").count() >= 1  # the odds are on the map before the roll
            page.click(f".dw-area.target[data-area='{best[2]}'] .dw-core")
            attacks += 1
        else:
            page.click("#dw-end-turn")
            ends += 1
        # the bots' whole turns are played (and drawn) before the person's next move: give a busy machine time
        page.wait_for_function(f"Number(document.body.dataset.moves) > {before} && document.body.dataset.busy === '0'",
                               timeout=180_000)
        if page.locator("#dw-roll .dw-die").count() > 0:
            rolls_seen += 1
    assert page.get_attribute("body", "data-turn") == "over"
    assert attacks > 0 and ends > 0 and rolls_seen > 0
    assert page.locator("#dw-end-turn").count() == 0  # nothing to click after the end
    assert page.text_content("#result") in ("You won", "You lost", "You share the win", "Nobody wins")


def test_dicewars_bots_step_by_step_and_a_search_tree_with_chance_nodes(page):
    """Bots only, one move per click; then MCTS's tree of a Dice Wars move in the viewer, its chance nodes
    (the attacks' outcomes) drawn, and a node's board shown small."""
    page.select_option("#game-select", "dicewars")
    page.check("input[name=mode][value=ai-ai]")
    page.select_option("#agent-select", "mcts")
    page.fill("#ai-iterations", "150")
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")
    assert page.locator(".dw-area").count() == 29
    assert page.locator(".dw-area.source").count() == 0 and page.locator("#dw-end-turn").count() == 0  # nobody clicks
    for _ in range(3):
        before = int(page.get_attribute("body", "data-moves"))
        page.click("#next-move")
        page.wait_for_function(f"Number(document.body.dataset.moves) > {before} && document.body.dataset.busy === '0'")
    dice = sum(int(a.get_attribute("data-dice")) for a in page.locator(".dw-area").all())
    assert 29 <= dice <= 29 * 8
    page.click("#analyse")
    page.wait_for_function("document.body.dataset.treeReady === '0'")
    assert "chance" in page.text_content("#legend")
    x, y = page.evaluate("() => window.__viewer.toScreen(0)")
    box = page.locator("#tree-canvas").bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)
    page.wait_for_selector("#node-details[data-loaded='0']")
    assert page.locator("#node-board .dw-map").count() == 1


def test_an_openspiel_game_is_chosen_by_name_in_the_page_and_played(page):
    pytest.importorskip("pyspiel")
    page.select_option("#game-select", "openspiel")
    page.fill("#game-params input[data-param=name]", "hex(board_size=5)")
    page.check("input[name=mode][value=human-ai]")
    page.select_option("#agent-select", "openspiel-mcts")
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")
    settled(page)
    # hex's observation tensor is a grid of cells and its actions are the cells: the grid board, clicked
    assert page.locator(".grid-cell").count() == 25 and page.locator(".grid-cell.playable").count() == 25
    page.click(".grid-cell.playable[data-row='2'][data-col='2']")
    page.wait_for_function("Number(document.body.dataset.moves) >= 2 && document.body.dataset.busy === '0'")
    assert page.locator(".grid-cell.playable").count() == 23  # the person's stone and the bot's answer
    assert page.get_attribute(".grid-cell[data-row='2'][data-col='2']", "data-value") not in ("-1", "4")  # a stone, not empty
