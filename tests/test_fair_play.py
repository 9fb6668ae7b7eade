"""Fair play in the web app, tested the way a cheating client would try: through the API.

The four ways hidden information used to escape, one test each per game where they applied:
an AI's search trees read during play, the record's seed during play, an undo that
replays the same card or roll, and a client-chosen seed. The statistics are the
conformance suite's (:mod:`boardlab.conformance.fair_play`): over at least 100 tries
with an uncertain outcome, "move, note, undo, same move" may repeat the outcome no more
often than fresh draws would; each test also shows that the check catches the old server.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.conformance import ConformanceError
from boardlab.conformance.fair_play import DRAWS, check_undo_statistics, play_against_ai
from boardlab.core.records import GameRecord
from boardlab.core.registry import make
from boardlab.games.tickettoride.state import DRAW_DECK, DRAW_TICKETS
from boardlab.web.sessions import GameSession

SECRET_GAMES = ["nothanks", "tickettoride:players=2", "dicewars"]


def step(client, view: dict) -> dict:
    """One move of a game against an AI: the person's first legal move, or the AI's."""
    if view["human_to_move"]:
        answer = client.post(f"/api/games/{view['id']}/move", json={"action": view["legal"][0]["action"]})
    else:
        answer = client.post(f"/api/games/{view['id']}/ai-move")
    assert answer.status_code == 200, answer.text
    return answer.json()


def play_until_trees(client, game: str, agent: dict) -> dict:
    """A person (the first legal move each turn) against ``agent`` until the AI has built a tree."""
    view = client.post("/api/games", json={"game": game, "mode": "human-ai", "human_seat": 0, "ai": agent}).json()
    session = client.app.state.sessions.get(view["id"])
    while not session.trees:
        view = step(client, view)
    return view


# --- (1) the AI's search trees are its private thoughts ------------------------------------------
def test_ticket_to_ride_trees_stay_private_until_the_end(client):
    view = play_until_trees(client, "tickettoride:players=2", {"agent": "mcts", "iterations": 20})
    game_id = view["id"]
    assert "private thoughts" in view["trees_private"]
    for url in ("trees", "trees/0/data", "trees/0/nodes/0", "trees/0/export?format=csv", "trees/0/export?format=tree"):
        refused = client.get(f"/api/games/{game_id}/{url}")
        assert refused.status_code == 409 and "private thoughts" in refused.json()["detail"], url
    # the same game between AIs: nobody to hide anything from
    ai = client.post("/api/games", json={"game": "tickettoride:players=2", "mode": "ai-ai",
                                         "ai": {"agent": "mcts", "iterations": 20}}).json()
    ai = client.post(f"/api/games/{ai['id']}/ai-move").json()
    assert ai["trees_private"] is None and client.get(f"/api/games/{ai['id']}/trees").status_code == 200
    # at the end every tree opens
    session = client.app.state.sessions.get(game_id)
    while not view["terminal"]:
        view = step(client, view)
    assert view["trees_private"] is None
    listed = client.get(f"/api/games/{game_id}/trees")
    assert listed.status_code == 200 and len(listed.json()) == len(session.trees) > 0
    assert client.get(f"/api/games/{game_id}/trees/0/data").status_code == 200


def test_az_playing_a_person_at_no_thanks_tells_nothing_hidden(client):
    """The committed No Thanks! network as the AI: every view the person gets is the same when what the person cannot
    see is redrawn, the trees and the record stay closed until the end, and then they open (its information-state tree)."""
    play_against_ai(client, make("nothanks"), np.random.default_rng(5), ai={"agent": "az", "simulations": 16})


def test_perfect_information_trees_open_during_play(client):
    view = play_until_trees(client, "connect4", {"agent": "mcts", "iterations": 30})
    assert view["trees_private"] is None
    assert client.get(f"/api/games/{view['id']}/trees").status_code == 200


# --- (2) the record, and with it the seed, only at the end ---------------------------------------
@pytest.mark.parametrize("game", SECRET_GAMES)
def test_the_record_is_refused_while_the_game_runs_and_replays_at_the_end(client, game):
    view = client.post("/api/games", json={"game": game, "mode": "human-human"}).json()
    session = client.app.state.sessions.get(view["id"])
    rng = np.random.default_rng(0)
    undos = 0
    while not view["terminal"]:
        refused = client.get(f"/api/games/{view['id']}/record")
        assert refused.status_code == 409 and "seed" in refused.json()["detail"]
        assert str(session.seed) not in str(view)
        if view["plies"] and rng.random() < 0.05:
            view = client.post(f"/api/games/{view['id']}/undo").json()
            undos += 1
            continue
        legal = view["legal"]
        answer = client.post(f"/api/games/{view['id']}/move", json={"action": legal[int(rng.integers(len(legal)))]["action"]})
        assert answer.status_code == 200, answer.text
        view = answer.json()
    record = client.get(f"/api/games/{view['id']}/record")
    assert record.status_code == 200
    data = record.json()
    assert data["seed"] == session.seed
    if make(game).game_type.chance == "sampled":
        # every undo drew the unseen cards afresh (a later undo to an earlier ply drops the redraws after it)
        assert undos > 0 and 0 < len(data["redraws"]) <= undos
    final = GameRecord.from_dict(data).replay()  # the drawn outcomes and redraws are all in it
    assert final.returns() == session.state.returns()


# --- (3) an undo never replays the future ---------------------------------------------------------
def takes(view: dict) -> list[int]:
    return [m["action"] for m in view["legal"] if m["label"] == "take"]


def blind_draws(view: dict) -> list[int]:
    return [m["action"] for m in view["legal"] if m["action"] == DRAW_DECK]


def ticket_draws(view: dict) -> list[int]:
    return [m["action"] for m in view["legal"] if m["action"] == DRAW_TICKETS]


def attacks(view: dict) -> list[int]:
    return [m["action"] for m in view["legal"] if m["label"] != "end"]


CASES = {
    # game, the moves tried, whether the deal is fixed at the start (a deck) rather than drawn as it comes
    "no-thanks-take": ("nothanks", takes, True),
    "ticket-to-ride-blind-draw": ("tickettoride:players=2", blind_draws, True),
    "ticket-to-ride-tickets": ("tickettoride:players=2", ticket_draws, True),
    "dice-wars-attack": ("dicewars", attacks, False),
}


@pytest.mark.parametrize("case", list(CASES))
def test_undo_meets_a_fresh_card_or_roll(client, case):
    game, prefer, _ = CASES[case]
    tries = check_undo_statistics(client, make(game), np.random.default_rng(1), DRAWS, prefer)
    assert tries >= DRAWS


@pytest.mark.parametrize("case", list(CASES))
def test_the_check_catches_an_undo_that_replays_the_future(client, case, monkeypatch):
    game, prefer, sampled = CASES[case]
    if sampled:  # the old server: the deck of the seed comes back after an undo
        monkeypatch.setattr(GameSession, "_redraw_after_undo", lambda self, ply: [])
    else:  # the old server: a roll is fixed by the seed and the ply alone
        monkeypatch.setattr(GameSession, "undos", property(lambda self: 0, lambda self, value: None))
    with pytest.raises(ConformanceError, match="an undo replays the future"):
        check_undo_statistics(client, make(game), np.random.default_rng(1), DRAWS, prefer)


# --- (4) a seed chosen by the client ---------------------------------------------------------------
@pytest.mark.parametrize("game", SECRET_GAMES)
def test_a_client_seed_is_refused_where_a_person_plays(client, game):
    for mode in ("human-ai", "human-human"):
        refused = client.post("/api/games", json={"game": game, "mode": mode, "seed": 7, "ai": {"agent": "random"}})
        assert refused.status_code == 400
        assert "seed" in refused.json()["detail"] and "no person" in refused.json()["detail"]
    allowed = client.post("/api/games", json={"game": game, "mode": "ai-ai", "seed": 7, "ai": {"agent": "random"}})
    assert allowed.status_code == 200


def test_a_seed_is_still_welcome_in_a_game_without_secrets(client):
    made = client.post("/api/games", json={"game": "connect4", "mode": "human-ai", "seed": 7, "ai": {"agent": "random"}})
    assert made.status_code == 200


def test_a_server_restart_keeps_the_redrawn_deck(tmp_path):
    from fastapi.testclient import TestClient

    from boardlab.web.app import create_app

    with TestClient(create_app(tmp_path)) as client:
        view = client.post("/api/games", json={"game": "nothanks", "mode": "human-human"}).json()
        for _ in range(3):
            view = client.post(f"/api/games/{view['id']}/move", json={"action": takes(view)[0]}).json()
        view = client.post(f"/api/games/{view['id']}/undo").json()
        before = client.app.state.sessions.get(view["id"]).state
        assert client.app.state.sessions.get(view["id"]).redraws
    with TestClient(create_app(tmp_path)) as client:
        again = client.app.state.sessions.get(view["id"]).state
        assert again.deck == before.deck and again.removed == before.removed and again.history == before.history
