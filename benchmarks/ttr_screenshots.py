"""Screenshots of the Ticket to Ride board for the README.

    PYTHONPATH=src python benchmarks/ttr_screenshots.py [--out docs]

Writes web-tickettoride.png (a person against two algorithmic players, mid-game, a ticket hovered so
its cities light up on the map) and web-tickettoride-end.png (four algorithmic players to the end, the
final scoring with every ticket). Headless Chromium, 1400x1000.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from boardlab.web.app import create_app
from boardlab.web.headless import chromium, serve_in_thread


def settled(page) -> None:
    page.wait_for_function("document.body.dataset.busy === '0'")


def start(page, players: int, mode: str) -> None:
    page.click("#home")
    page.select_option("#game-select", "tickettoride")
    page.fill("input[data-param=players]", str(players))
    page.check(f"input[name=mode][value={mode}]")
    page.select_option("#agent-select", "ttr-algorithmic")
    page.click("#start")
    page.wait_for_selector(".ttr-map")
    settled(page)


def click_a_move(page) -> None:
    """Keep the first tickets, claim a route, else draw blind, else a face-up card, tickets, pass."""
    if page.locator("#ttr-keep").count():
        least = int(page.text_content(".ttr-offer h4").split("least ")[1].split(" ")[0])
        for slot in range(least):
            page.check(f".ttr-offer input[data-slot='{slot}']")
        page.click("#ttr-keep")
    elif page.locator(".ttr-route.claimable").count():
        page.locator(".ttr-route.claimable").last.click()
        if page.locator(".ttr-pay button[data-action]").count():
            page.locator(".ttr-pay button[data-action]").first.click()
    elif page.locator(".ttr-deck.playable").count():
        page.click(".ttr-deck.playable")
    elif page.locator(".ttr-faceup.playable").count():
        page.locator(".ttr-faceup.playable").first.click()
    elif page.locator(".ttr-ticket-deck.playable").count():
        page.click(".ttr-ticket-deck.playable")
    else:
        page.click(".ttr-pass")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"))
    parser.add_argument("--decisions", type=int, default=40, help="the person's decisions before the first picture")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as data, serve_in_thread(create_app(data)) as url, chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(120_000)
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready='1']")

        start(page, 3, "human-ai")
        for _ in range(args.decisions):
            settled(page)
            if page.get_attribute("body", "data-turn") == "over":
                break
            moves = int(page.get_attribute("body", "data-moves"))
            click_a_move(page)
            page.wait_for_function(f"Number(document.body.dataset.moves) > {moves}")
        settled(page)
        page.hover(".ttr-tickets .ttr-ticket")
        page.screenshot(path=str(args.out / "web-tickettoride.png"), full_page=True)

        start(page, 4, "ai-ai")
        page.click("#play-on")
        page.wait_for_function("document.body.dataset.turn === 'over'", timeout=600_000)
        settled(page)
        page.screenshot(path=str(args.out / "web-tickettoride-end.png"), full_page=True)


if __name__ == "__main__":
    main()
