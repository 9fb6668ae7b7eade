"""Ticket to Ride in headless Chromium: a whole game against the algorithmic player, every decision a
click on the board, and no hidden card or ticket of the opponent in anything the page receives."""

from __future__ import annotations

import re

import pytest
from browser_helpers import click_a_ttr_move

from boardlab.web.app import create_app
from boardlab.web.headless import chromium, serve_in_thread

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return create_app(tmp_path_factory.mktemp("ttr-web"))


@pytest.fixture(scope="module")
def server(app):
    with serve_in_thread(app) as url:
        yield url


@pytest.fixture()
def page(server):
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server + "/")
        page.wait_for_selector("body[data-ready='1']")
        page.set_default_timeout(180_000)  # waits for events; long only on a busy machine
        yield page
        context.close()
        assert not errors, f"errors in the page: {errors}"


def settled(page) -> None:
    page.wait_for_function("document.body.dataset.busy === '0'")


def ticket_ids(value, out: set[int]) -> set[int]:
    """Ids of every ticket view (a dict with from, to and points) inside a JSON value."""
    if isinstance(value, dict):
        if {"from", "to", "points", "id"} <= set(value):
            out.add(value["id"])
        for v in value.values():
            ticket_ids(v, out)
    elif isinstance(value, list):
        for v in value:
            ticket_ids(v, out)
    return out


def test_a_whole_game_against_the_algorithmic_player_by_clicking_and_nothing_hidden_reaches_the_page(page, app):
    responses = []
    page.on("response", lambda r: responses.append(r) if "/api/games" in r.url and r.request.method in ("GET", "POST") else None)
    page.select_option("#game-select", "tickettoride")
    page.fill("input[data-param=players]", "2")
    page.check("input[name=mode][value=human-ai]")
    page.select_option("#agent-select", "ttr-algorithmic")
    page.click("#start")
    page.wait_for_selector(".ttr-map")
    settled(page)
    assert page.locator(".ttr-city").count() == 36 and page.locator(".ttr-route").count() == 100
    views = []
    kinds = set()
    for _ in range(600):
        settled(page)
        for response in responses:
            views.append(response.json())
        responses.clear()
        if page.get_attribute("body", "data-turn") == "over":
            break
        assert page.get_attribute("body", "data-turn") == "0"  # the person's turn: the AI has answered
        before = int(page.get_attribute("body", "data-moves"))
        kinds.add(click_a_ttr_move(page))
        page.wait_for_function(f"Number(document.body.dataset.moves) > {before}")
    settled(page)
    for response in responses:
        views.append(response.json())
    assert page.get_attribute("body", "data-turn") == "over"
    assert {"keep", "claim", "deck"} <= kinds
    assert page.text_content("#result") in ("You won", "You lost", "You share the win")  # the person is Blue
    scores = page.locator("#result-scores td.score").all_text_contents()
    assert len(scores) == 2 and all(re.fullmatch(r"-?\d+", x) for x in scores)
    assert "final scoring" in page.text_content("#result-reason")
    assert page.locator(".ttr-players th").first.is_visible()
    assert "Final scores" in page.text_content(".ttr-players h4")
    # the truth, from the server: what the person was ever offered
    game_id = views[-1]["id"]
    state = app.state.sessions.get(game_id).state
    mine = set(state.offered[0])
    assert state.is_terminal() and state.tickets[1]
    for view in views:
        if not isinstance(view, dict) or "observation" not in view:
            continue
        board = view["observation"]["board"]
        if view["terminal"]:
            continue  # every ticket is scored in public at the end
        assert ticket_ids(view, set()) <= mine, "an opponent's ticket reached the page"
        assert view["viewer"] == 0
        for _p, entry in enumerate(board["players"]):
            assert set(entry) <= {"trains", "cards", "tickets", "offer", "routes", "claimed"}
        assert all(label == "draw from deck" or not label.startswith("draw from") for label in view["moves"])
        assert not any(label.startswith("keep") and ("–" in label) for label in view["moves"])
    # the hover shows a ticket on the map
    page.hover(".ttr-tickets .ttr-ticket")
    assert page.locator(".ttr-city.hot").count() == 2
