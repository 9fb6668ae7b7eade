"""What the web app sends each seat: its own view, never a seed or a hidden card."""

from __future__ import annotations

import json

import numpy as np

from boardlab.games.nothanks import REMOVED, STACK


def everything_sent(client, game_id: str) -> list[str]:
    """The bodies of every GET endpoint of one game a person may call during play (views, legal moves,
    and the record and trees, which are refused until the end)."""
    bodies = []
    for url in (f"/api/games/{game_id}", f"/api/games/{game_id}/legal"):
        response = client.get(url)
        assert response.status_code == 200
        bodies.append(response.text)
    for url in (f"/api/games/{game_id}/record", f"/api/games/{game_id}/trees", f"/api/games/{game_id}/trees/0/data"):
        response = client.get(url)
        assert response.status_code == 409  # the seed, and the AI's private thoughts
        bodies.append(response.text)
    return bodies


def test_no_thanks_views_never_let_a_client_rebuild_the_stack(client):
    created = client.post("/api/games", json={"game": "nothanks:players=3", "mode": "human-ai", "human_seat": 1,
                                              "ai": {"agent": "mcts", "iterations": 40}})
    assert created.status_code == 200
    view = created.json()
    game_id = view["id"]
    session = client.app.state.sessions.get(game_id)
    secret = str(session.seed)
    assert "seed" not in view and secret not in created.text
    for _ in range(6):  # play a few moves so that there are trees and a public history
        if view["human_to_move"]:
            view = client.post(f"/api/games/{game_id}/move", json={"action": view["legal"][-1]["action"]}).json()
        else:
            view = client.post(f"/api/games/{game_id}/ai-move").json()
    assert session.trees  # the AI searched; its trees stay with the server until the end
    before = everything_sent(client, game_id)
    text = "\n".join(before)
    assert '"seed"' not in text and secret not in text
    # the hidden part redrawn (a deck the player cannot tell apart): not one byte sent changes
    truth = session.state
    session.state = truth.resample(1, np.random.default_rng(7))
    assert session.state.deck != truth.deck
    assert everything_sent(client, game_id) == before
    session.state = truth
    # nothing names the cards still face down or the removed ones, before the end
    hidden = set(truth.deck[truth.pos + 1:]) | set(truth.removed)
    assert len(hidden) == STACK - truth.pos - 1 + REMOVED
    shown = json.loads(before[0])["observation"]["board"]
    assert "removed" not in shown and shown["stack_left"] == STACK - truth.pos - 1


def test_a_seat_sees_its_own_view_and_may_not_ask_for_another(client):
    view = client.post("/api/games", json={"game": "nothanks:players=4", "mode": "human-ai", "human_seat": 2,
                                           "ai": {"agent": "random"}}).json()
    assert view["viewer"] == 2
    assert client.get(f"/api/games/{view['id']}", params={"seat": 2}).json()["viewer"] == 2
    refused = client.get(f"/api/games/{view['id']}", params={"seat": 0})
    assert refused.status_code == 400 and "private" in refused.json()["detail"]
    # agents' legal moves are not sent while an agent is to move
    while view["human_to_move"] is False and not view["terminal"]:
        assert view["legal"] == []
        view = client.post(f"/api/games/{view['id']}/ai-move").json()


def test_the_record_is_given_once_a_hidden_game_is_over(client):
    view = client.post("/api/games", json={"game": "nothanks:players=3", "mode": "ai-ai", "seed": 3,
                                           "ai": {"agent": "random"}}).json()
    while not view["terminal"]:
        view = client.post(f"/api/games/{view['id']}/ai-move").json()
    record = client.get(f"/api/games/{view['id']}/record")
    assert record.status_code == 200 and record.json()["seed"] == 3
    assert view["observation"]["board"]["removed"]  # shown at the end
