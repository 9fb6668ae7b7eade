"""The page around the boards in headless Chromium: each game's side panel beside its board at
1280x800, a menu that fits its card, errors shown next to the control that caused them, the API's
documentation page with no network, and the grid board that any grid game may declare (the
tic-tac-toe plug-in example, OpenSpiel's grid games)."""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest
from browser_helpers import box, open_page, play_to_the_end, settled, start

from boardlab.core import plugins
from boardlab.web.app import create_app
from boardlab.web.headless import chromium, serve_in_thread

pytestmark = pytest.mark.browser

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
BUILT_IN = ["connect4", "mancala", "chess", "nothanks", "dicewars", "tickettoride"]


@pytest.fixture(scope="module")
def tictactoe(tmp_path_factory):
    """examples/tictactoe.py installed as a package would be (a dist-info folder with one entry point),
    for this module's server and its AI workers (they inherit the import path)."""
    site = tmp_path_factory.mktemp("site")
    dist = site / "tictactoe_example-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tictactoe-example\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[boardlab.games]\ntictactoe = tictactoe:TicTacToe\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(EXAMPLES))
        patch.syspath_prepend(str(site))
        plugins.games.reload()
        yield
    sys.modules.pop("tictactoe", None)
    plugins.games.reload()


@pytest.fixture(scope="module")
def server(tictactoe, tmp_path_factory):
    with serve_in_thread(create_app(tmp_path_factory.mktemp("web-page"))) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as instance:
        yield instance


@pytest.fixture()
def page(browser, server):
    with open_page(browser, server) as page:
        yield page


def test_every_side_panel_stays_beside_its_board_at_1280x800(page):
    for game in BUILT_IN:
        start(page, game, mode="human-human", params={"players": 2} if game in ("dicewars", "tickettoride") else None)
        settled(page)
        board, side = box(page, "#board"), box(page, "#game-side")
        assert side["x"] >= board["x"] + board["width"], f"{game}: the side panel is not right of the board"
        assert side["y"] < board["y"] + board["height"], f"{game}: the side panel is below the board"
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280, f"{game}: the page scrolls sideways"
        right = page.evaluate("Math.max(...[...document.querySelectorAll('#board *')].map(e => e.getBoundingClientRect().right))")
        assert right <= side["x"], f"{game}: the board runs under the side panel"


def test_the_agent_list_fits_the_menu_card(page):
    card = box(page, ".card:has(#agent-select)")
    for game in page.eval_on_selector_all("#game-select option", "o => o.map(x => x.value)"):
        page.select_option("#game-select", game)
        for agent in page.eval_on_selector_all("#agent-select option", "o => o.map(x => x.value)"):
            page.select_option("#agent-select", agent)
            select = box(page, "#agent-select")
            assert card["x"] <= select["x"] and select["x"] + select["width"] <= card["x"] + card["width"], (game, agent)
    page.set_viewport_size({"width": 520, "height": 800})  # a narrow window: the card narrows, the list too
    card, select = box(page, ".card:has(#agent-select)"), box(page, "#agent-select")
    assert select["x"] + select["width"] <= card["x"] + card["width"]


def test_errors_show_next_to_the_control_that_caused_them(page, browser, server, tmp_path):
    # the menu: a parameter out of range, said under Start
    page.select_option("#game-select", "connect4")
    page.fill("#param-rows", "99")
    page.click("#start")
    page.wait_for_selector("#start-error:not([hidden])")
    assert "rows" in page.text_content("#start-error") and page.get_attribute("body", "data-view") == "menu"
    button, error = box(page, "#start"), box(page, "#start-error")
    assert 0 <= error["y"] - (button["y"] + button["height"]) < 40
    assert page.get_attribute("#status", "data-error") != "1"  # not in the header, far away
    page.fill("#param-rows", "6")
    # a move the server refuses: another tab filled the column this board still offers
    game = start(page, "connect4", mode="human-human")
    assert page.is_hidden("#start-error")  # a start that worked clears it
    other = page.context.new_page()
    other.goto(f"{server}/#game/{game}")
    other.wait_for_function("document.body.dataset.busy === '0' && document.body.dataset.moves === '0'")
    for played in range(1, 7):
        other.click(".c4-col.playable[data-col='0']")
        other.wait_for_function(f"document.body.dataset.moves === '{played}' && document.body.dataset.busy === '0'")
    other.close()
    page.click(".c4-col.playable[data-col='0']")  # this page has not seen the full column
    page.wait_for_selector("#game-error:not([hidden])")
    assert "legal" in page.text_content("#game-error"), page.text_content("#game-error")  # the server's words
    buttons, error = box(page, "#game-side > .buttons"), box(page, "#game-error")
    assert 0 <= error["y"] - (buttons["y"] + buttons["height"]) < 40
    # a tree file that is none: said by "Open tree files…"
    page.click("#home")
    bad = tmp_path / "broken.tree"
    bad.write_bytes(b"this is no tree")
    page.set_input_files("#tree-files", str(bad))
    page.wait_for_selector("#upload-error:not([hidden])")
    assert page.text_content("#upload-error").startswith("broken.tree: ")
    opener, error = box(page, ".file-button"), box(page, "#upload-error")
    assert 0 <= error["y"] - (opener["y"] + opener["height"]) < 40


def test_the_api_documentation_renders_with_no_network(browser, server):
    context = browser.new_context()
    page = context.new_page()
    host = urlparse(server).netloc
    asked_elsewhere = []

    def only_the_server(route):
        if urlparse(route.request.url).netloc == host:
            route.continue_()
        else:
            asked_elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_server)
    page.goto(server + "/api/docs")
    page.wait_for_selector(".opblock")
    assert page.locator(".opblock").count() >= 10 and "/api/games" in page.text_content("#swagger-ui")
    assert asked_elsewhere == []
    context.close()


def test_tic_tac_toe_from_a_plug_in_is_played_to_the_end_on_the_grid_board(page):
    start(page, "tictactoe", agent="random")
    assert page.locator(".grid-cell").count() == 9 and page.locator(".grid-cell.playable").count() == 9
    play_to_the_end(page, lambda p: p.locator(".grid-cell.playable").first.click())
    marks = page.eval_on_selector_all(".grid-cell", "c => c.map(x => x.textContent)")
    assert set(marks) <= {"X", "O", ""} and marks.count("X") >= 3
    assert page.locator(".grid-cell.playable").count() == 0
    headline = page.text_content("#result")
    assert headline in ("You won", "You lost", "Draw")
    if headline != "Draw":  # the winning line stands out, three of one mark
        line = page.eval_on_selector_all(".grid-cell.win", "c => c.map(x => x.textContent)")
        assert len(line) == 3 and len(set(line)) == 1


def test_an_openspiel_grid_game_is_drawn_and_played_by_columns(page):
    pytest.importorskip("pyspiel")
    page.select_option("#game-select", "openspiel")
    page.fill("#game-params input[data-param=name]", "connect_four")
    page.check("input[name=mode][value=human-human]")
    page.click("#start")
    page.wait_for_function("document.body.dataset.view === 'game' && document.body.dataset.busy === '0'")
    assert page.locator(".grid-cell").count() == 42 and page.locator(".grid-cell.playable").count() == 42
    page.click(".grid-cell.playable[data-row='0'][data-col='3']")  # a click anywhere in the column drops a piece
    page.wait_for_function("document.body.dataset.moves === '1' && document.body.dataset.busy === '0'")
    bottom = page.locator(".grid-cell[data-row='5'][data-col='3']")
    assert bottom.text_content() == "●"  # it fell to the bottom row
    colour = page.evaluate("getComputedStyle(document.querySelector(\".grid-cell[data-row='5'][data-col='3']\")).color")
    assert colour == "rgb(31, 119, 180)"  # the first player's colour
    page.click(".grid-cell.playable[data-row='0'][data-col='3']")
    page.wait_for_function("document.body.dataset.moves === '2' && document.body.dataset.busy === '0'")
    assert page.locator(".grid-cell[data-row='4'][data-col='3']").text_content() == "●"
    assert page.evaluate("getComputedStyle(document.querySelector(\".grid-cell[data-row='4'][data-col='3']\")).color") \
        == "rgb(214, 39, 40)"
    assert page.locator(".grid-cell").filter(has_text="●").count() == 2
