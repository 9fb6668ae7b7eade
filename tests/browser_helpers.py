"""What the browser tests share: a page fixture's pieces, starting games from the menu, and waiting
for the person's turn. Every wait is for an event on the page, never a sleep."""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def open_page(browser, url: str, width: int = 1280, height: int = 800):
    """A fresh page on the app's menu; fails the test if the page raised an error."""
    context = browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
    page = context.new_page()
    # long bounds cost nothing when the page is quick; a busy machine compiles kernels in new workers first
    page.set_default_timeout(180_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready='1']")
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"errors in the page: {errors}"


def start(page, game: str, mode: str = "human-ai", params: dict | None = None, options: dict | None = None,
          seat: int | None = None, agent: str | None = None) -> str:
    """Start ``game`` from the menu with the agent the menu offers by default, or ``agent`` (its options
    changed by ``options``, e.g. a smaller budget); returns the game's id once the page shows it."""
    if page.get_attribute("body", "data-view") != "menu":
        page.click("#home")
    before = page.get_attribute("body", "data-game") or ""
    page.select_option("#game-select", game)
    for name, value in (params or {}).items():
        page.fill(f"#param-{name}", str(value))
    page.check(f"input[name=mode][value={mode}]")
    if agent is not None:
        page.select_option("#agent-select", agent)
    for name, value in (options or {}).items():
        page.fill(f"#ai-{name}", str(value))
    if seat is not None:
        page.select_option("#human-seat", str(seat))
    page.click("#start")
    page.wait_for_function(f"document.body.dataset.view === 'game' && (document.body.dataset.game || '') !== '{before}'")
    return page.get_attribute("body", "data-game")


def settled(page) -> None:
    page.wait_for_function("document.body.dataset.busy === '0'")


def my_turn_or_over(page) -> bool:
    """Wait until the person may move or the game is over (the AI's replies all drawn); True when over."""
    page.wait_for_function("""() => { const b = document.body.dataset;
        return b.busy === '0' && (b.turn === 'over' || b.turn === b.viewer); }""")
    return page.get_attribute("body", "data-turn") == "over"


def play_to_the_end(page, one_move, limit: int = 2000) -> int:
    """Make the person's moves with ``one_move(page)`` until the game is over; the number made."""
    for made in range(limit):
        if my_turn_or_over(page):
            return made
        before = int(page.get_attribute("body", "data-moves"))
        one_move(page)
        page.wait_for_function(f"Number(document.body.dataset.moves) > {before}")
    raise AssertionError(f"the game did not end within {limit} moves of the person")


def box(page, selector: str) -> dict:
    return page.locator(selector).bounding_box()


def click_a_ttr_move(page) -> str:
    """One Ticket to Ride decision by clicking, a simple policy: keep the first tickets, claim a route,
    draw blind, take a face-up card, draw tickets, or pass."""
    if page.locator("#ttr-keep").count():
        least = int(page.text_content(".ttr-offer h4").split("least ")[1].split(" ")[0])
        for slot in range(least):
            page.check(f".ttr-offer input[data-slot='{slot}']")
        page.click("#ttr-keep")
        return "keep"
    if page.locator(".ttr-route.claimable").count():
        page.locator(".ttr-route.claimable").last.click()  # the claimable routes lie on top, the last above all
        if page.locator(".ttr-pay button[data-action]").count():
            page.locator(".ttr-pay button[data-action]").first.click()
        return "claim"
    if page.locator(".ttr-deck.playable").count():
        page.click(".ttr-deck.playable")
        return "deck"
    if page.locator(".ttr-faceup.playable").count():
        page.locator(".ttr-faceup.playable").first.click()
        return "faceup"
    if page.locator(".ttr-ticket-deck.playable").count():
        page.click(".ttr-ticket-deck.playable")
        return "tickets"
    page.click(".ttr-pass")
    return "pass"
