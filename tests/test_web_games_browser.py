"""Every built-in game played to the end in headless Chromium against the opponent the menu offers
by default, by clicks on its board; the end of each game from the person's side (who won, the scores,
why it ended), Rematch with the seats moved on, and what makes boards and logs readable: chess
coordinates, Mancala's pit letters, the winning line, move numbers past 100, a node's board in the
tree viewer for games with hidden information.

Budgets are lowered through the menu's own options where the default opponent would think for
seconds (chess's MCTS, Ticket to Ride's search); the agent stays the one the menu chose."""

from __future__ import annotations

import random
import re

import pytest
from browser_helpers import box, click_a_ttr_move, open_page, play_to_the_end, settled, start

from boardlab.web.app import create_app
from boardlab.web.headless import chromium, serve_in_thread

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serve_in_thread(create_app(tmp_path_factory.mktemp("web-games"))) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as instance:
        yield instance


@pytest.fixture()
def page(browser, server):
    with open_page(browser, server) as page:
        yield page


def default_agent(page, game: str) -> str:
    """The agent the menu offers for ``game`` (the game's declared default opponent)."""
    page.select_option("#game-select", game)
    return page.input_value("#agent-select")


def the_end(page) -> dict:
    """The result panel as the person reads it."""
    assert page.is_visible("#result-panel")
    scores = page.eval_on_selector_all("#result-scores tr[data-seat]", """rows => rows.map(r => ({
        seat: Number(r.dataset.seat), name: r.cells[0].textContent, score: Number(r.cells[1].textContent),
        winner: r.classList.contains('winner') }))""")
    return {"headline": page.text_content("#result"), "reason": page.text_content("#result-reason"),
            "label": page.text_content("#result-scores caption") if scores else None, "scores": scores}


def rematch_moves_the_person_on(page, players: int, names: list[str]) -> None:
    """Rematch: a new game, the person one seat on (the title says which), the old one left alone."""
    old, seat = page.get_attribute("body", "data-game"), int(page.get_attribute("body", "data-viewer"))
    assert page.is_disabled("#undo")  # a finished game is not taken back
    page.click("#rematch")
    page.wait_for_function(f"document.body.dataset.game !== '{old}' && document.body.dataset.view === 'game'")
    new_seat = (seat + 1) % players
    assert page.get_attribute("body", "data-viewer") == str(new_seat)
    assert page.text_content("#game-title").endswith(f"you play {names[new_seat]}")
    assert page.is_hidden("#result-panel")
    settled(page)  # the AI's first moves, when it now moves first
    assert page.evaluate("location.hash") == f"#game/{page.get_attribute('body', 'data-game')}"


def test_connect_four_against_az_to_the_end(page):
    assert default_agent(page, "connect4") == "az"
    start(page, "connect4")
    play_to_the_end(page, lambda p: p.locator(".c4-col.playable").first.click())
    end = the_end(page)
    assert end["headline"] in ("You won", "You lost", "Draw") and end["scores"] == []
    assert end["reason"] in ("4 in a row.", "The board is full.")
    if end["headline"] != "Draw":  # the line of four stands out
        won = page.eval_on_selector_all(".c4-cell.win .disc", "discs => discs.map(d => d.className.match(/p[01]/)[0])")
        assert len(won) >= 4 and len(set(won)) == 1  # four or more of one colour
    assert "Game over" in page.text_content("#turn")
    rematch_moves_the_person_on(page, 2, ["Red", "Yellow"])


def test_mancala_against_az_to_the_end_with_the_pits_named(page):
    assert default_agent(page, "mancala") == "az"
    start(page, "mancala")
    # the pits say their letters as the move list writes them; the stores say whose they are
    south = page.eval_on_selector_all(".mancala-pit[data-player='0'] .pit-name", "n => n.map(x => x.textContent)")
    north = page.eval_on_selector_all(".mancala-pit[data-player='1'] .pit-name", "n => n.map(x => x.textContent)")
    assert south == list("abcdef") and sorted(north) == list("ABCDEF")
    assert page.is_visible(".mancala-pit[data-player='0'][data-pit='0'] .pit-name")
    assert page.text_content(".mancala-store.p0 .store-name") == "South's store"
    page.click(".mancala-pit.playable[data-pit='2']")  # pit c
    page.wait_for_function("Number(document.body.dataset.moves) >= 1")
    assert page.locator("#move-list .move-text").first.text_content() == "South: c"
    play_to_the_end(page, lambda p: p.locator(".mancala-pit.playable").first.click())
    end = the_end(page)
    assert end["headline"] in ("You won", "You lost", "Draw")
    assert end["label"] == "seeds in store" and sum(s["score"] for s in end["scores"]) == 48
    assert [s["name"] for s in end["scores"]] == ["South (you)", "North"]
    assert end["reason"].startswith("A side ran out of seeds")
    rematch_moves_the_person_on(page, 2, ["South", "North"])


def coordinates(page) -> tuple[list[str], list[str]]:
    files = page.eval_on_selector_all("#board .chess-coord.file", "n => n.map(x => x.textContent)")
    ranks = page.eval_on_selector_all("#board .chess-coord.rank", "n => n.map(x => x.textContent)")
    return files, ranks


def test_chess_against_mcts_mated_in_one_with_coordinates_that_turn(page):
    assert default_agent(page, "chess") == "mcts" and page.input_value("#ai-eval") == "chess_material"
    # a back-rank mate in one for White (the person), and a short think for the AI
    start(page, "chess", params={"fen": "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"}, options={"time": 0.05})
    assert coordinates(page) == (list("abcdefgh"), list("87654321"))
    file_a = box(page, "#board .chess-coord.file >> nth=0")
    square = box(page, ".chess-sq[data-square=a1]")
    assert abs((file_a["x"] + file_a["width"] / 2) - (square["x"] + square["width"] / 2)) < 2  # a under the a-file
    assert file_a["y"] >= square["y"] + square["height"] - 1
    page.click(".chess-sq[data-square=a1]")
    page.click(".chess-sq[data-square=a8]")
    page.wait_for_function("document.body.dataset.turn === 'over'")
    end = the_end(page)
    assert end == {"headline": "You won", "reason": "Checkmate.", "label": None, "scores": []}
    assert page.locator("#move-list .move-text").first.text_content() == "White: Ra8#"
    # the rematch puts the person on Black: the board and its coordinates turn round
    rematch_moves_the_person_on(page, 2, ["White", "Black"])
    assert coordinates(page) == (list("hgfedcba"), list("12345678"))


def test_no_thanks_against_mcts_to_the_end_with_the_trees_closed_while_playing(page, server):
    assert default_agent(page, "nothanks") == "mcts" and page.input_value("#ai-iterations") == "1000"
    game = start(page, "nothanks", options={"iterations": 50})
    settled(page)
    # hidden cards: the AI's trees stay closed while a person plays, and the page says why beside the button
    view = page.evaluate(f"async () => (await fetch('/api/games/{game}')).json()")
    assert view["trees_private"] and page.is_disabled("#analyse")
    assert page.text_content("#analyse-note") == view["trees_private"] and page.is_visible("#analyse-note")
    rng = random.Random(7)
    play_to_the_end(page, lambda p: p.locator(".move-button[data-action]").nth(
        rng.randrange(p.locator(".move-button[data-action]").count())).click())
    end = the_end(page)
    assert end["headline"] in ("You won", "You lost", "You share the win")
    assert end["label"] == "points (lowest wins)" and len(end["scores"]) == 4
    low = min(s["score"] for s in end["scores"])
    assert [s["winner"] for s in end["scores"]] == [s["score"] == low for s in end["scores"]]
    assert (end["headline"] != "You lost") == end["scores"][0]["winner"]  # the person is Player 1
    assert end["reason"] == "The last card was taken: the lowest score wins."
    # the game is over: the AI's trees open
    assert not page.is_disabled("#analyse")
    rematch_moves_the_person_on(page, 4, ["Player 1", "Player 2", "Player 3", "Player 4"])


def dicewars_move(page) -> None:
    """The person's move: the first area that can attack, against its likeliest win when the odds are
    even or better; else the end of the turn."""
    if page.locator(".dw-area.source").count() == 0:  # no area of the person's can attack
        page.click("#dw-end-turn")
        return
    source = page.locator(".dw-area.source").first.get_attribute("data-area")
    page.click(f".dw-area.source[data-area='{source}'] .dw-core")
    targets = [(float(t.get_attribute("data-win-probability")), t.get_attribute("data-area"))
               for t in page.locator(".dw-area.target").all()]
    best = max(targets) if targets else None
    if best and best[0] >= 0.5:
        page.click(f".dw-area.target[data-area='{best[1]}'] .dw-core")
    else:
        page.click("#dw-end-turn")


def test_dice_wars_against_emm_to_the_end_then_its_trees(page):
    assert default_agent(page, "dicewars") == "dw-emm"
    start(page, "dicewars", params={"players": 2})
    settled(page)
    assert page.is_disabled("#analyse") and page.text_content("#analyse-note")  # dice to come: trees closed for now
    # the side panel (the players, the roll, End turn) beside the map, all on the screen at 1280x800
    dice_map, panel = box(page, ".dw-map"), box(page, ".dw-side")
    assert panel["x"] >= dice_map["x"] + dice_map["width"] - 1 and panel["y"] < dice_map["y"] + dice_map["height"]
    assert page.evaluate("document.documentElement.scrollHeight") <= 800
    play_to_the_end(page, dicewars_move)
    end = the_end(page)
    # a game that stalls is cancelled, and lost by everybody alike
    assert end["headline"] in ("You won", "You lost", "Nobody wins") and end["label"] == "largest region"
    assert len(end["scores"]) == 2 and max(s["score"] for s in end["scores"]) > 0
    assert end["reason"].endswith(".") and len(end["reason"]) > 10
    # the move list: each roll on its attack's line, no line of its own for chance
    lines = page.locator("#move-list .move-text").all_text_contents()
    assert page.locator("#move-list li[data-mover='-1']").count() == 0
    assert any(re.fullmatch(r"(Purple|Lime): \d+>\d+: \d+ v \d+, (won|lost)", line) for line in lines)
    assert all(re.fullmatch(r"(Purple|Lime): (\d+>\d+: \d+ v \d+, (won|lost)|end turn.*)", line) for line in lines), lines
    # the game is over: dw-emm's search trees open, and a node shows its map
    assert not page.is_disabled("#analyse") and page.text_content("#analyse-note") == ""
    page.click("#analyse")
    page.wait_for_function("document.body.dataset.view === 'viewer' && document.body.dataset.treeReady !== ''")
    click_root(page)
    assert page.locator("#node-board .dw-map").count() == 1
    page.click("#viewer-back")
    page.wait_for_function("document.body.dataset.view === 'game'")
    rematch_moves_the_person_on(page, 2, ["Purple", "Lime"])


def test_ticket_to_ride_against_ismcts_to_the_end(page):
    assert default_agent(page, "tickettoride") == "ttr-ismcts"  # with 1000 iterations, lowered here to be quick
    start(page, "tickettoride", params={"players": 2}, options={"iterations": 8})
    settled(page)
    play_to_the_end(page, click_a_ttr_move)
    end = the_end(page)
    assert end["headline"] in ("You won", "You lost", "You share the win") and end["label"] == "points"
    assert [s["name"] for s in end["scores"]] == ["Blue (you)", "Red"]
    finals = page.eval_on_selector_all(".ttr-players tr[data-seat] td:last-child", "c => c.map(x => Number(x.textContent))")
    assert [s["score"] for s in end["scores"]] == finals  # the panel's points are the board's final scores
    assert end["reason"].endswith("final scoring.")
    rematch_moves_the_person_on(page, 2, ["Blue", "Red"])


def click_root(page) -> None:
    page.wait_for_function("document.body.dataset.treeReady !== ''")
    x, y = page.evaluate("() => window.__viewer.toScreen(0)")
    canvas = box(page, "#tree-canvas")
    page.mouse.click(canvas["x"] + x, canvas["y"] + y)
    page.wait_for_selector("#node-details[data-loaded='0']")


@pytest.mark.parametrize("game, board", [("nothanks", ".nothanks-table"), ("tickettoride", ".ttr-map")])
def test_a_tree_node_of_a_hidden_information_game_shows_its_board(page, game, board):
    """AI against AI nothing is private: MCTS's tree of the first move opens, and its root shows the
    game's own board (the public table, from the node's notation), not only the notation."""
    start(page, game, mode="ai-ai", params={"players": 2} if game == "tickettoride" else None, agent="mcts",
          options={"iterations": 30, "time": ""})
    page.click("#next-move")
    page.wait_for_function("document.body.dataset.moves === '1' && document.body.dataset.busy === '0'")
    assert not page.is_disabled("#analyse")
    page.click("#analyse")
    click_root(page)
    assert page.locator(f"#node-board {board}").count() == 1
    assert page.locator("#play-from-here").count() == 0  # a public table is no whole state to play on from
    panel, drawn = box(page, "#node-details"), box(page, "#node-board")
    assert drawn["x"] >= panel["x"] and drawn["x"] + drawn["width"] <= panel["x"] + panel["width"] + 0.5  # it fits the panel


def test_move_numbers_past_100_show_whole(page):
    """No Thanks!, the network against itself (played through the API, the quickest way to a long
    game) until a game runs past 100 lines (most do), then shown by the page."""
    page.goto(page.url.split("#")[0])
    game = page.evaluate("""async () => {
        const post = async (url, body) => (await fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'},
                                                            body: JSON.stringify(body || {}), signal: AbortSignal.timeout(60000)})).json();
        for (let tries = 0; tries < 30; tries++) {
            let view = await post('/api/games', {game: 'nothanks', mode: 'ai-ai', ai: {agent: 'nothanks-net'}});
            while (!view.terminal) view = await post(`/api/games/${view.id}/ai-move`);
            if (view.moves.length > 100) return view.id;
        }
        return null;
    }""")
    assert game is not None
    page.goto(f"{page.url.split('#')[0]}#game/{game}")
    page.wait_for_function("document.body.dataset.turn === 'over' && document.body.dataset.busy === '0'")
    lines = int(page.get_attribute("body", "data-moves"))
    assert lines > 100
    numbers = page.eval_on_selector_all("#move-list .move-no", "n => n.map(x => x.textContent)")
    assert numbers == [str(k) for k in range(1, lines + 1)]
    page.locator("#move-list li >> nth=99").scroll_into_view_if_needed()
    number, listed = box(page, "#move-list li:nth-child(100) .move-no"), box(page, "#move-list")
    assert number["x"] >= listed["x"] and number["x"] + number["width"] <= listed["x"] + listed["width"]
    assert page.eval_on_selector("#move-list li:nth-child(100) .move-no", "n => n.scrollWidth <= n.clientWidth + 0.5")
    # the number and the line's text never overlap
    text = box(page, "#move-list li:nth-child(100) .move-text")
    assert number["x"] + number["width"] <= text["x"] + 0.5
