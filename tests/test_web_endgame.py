"""The end of a game through the web API: the result with its reason, rematch, no undo; the
default opponents in the catalogue; records that carry an undo's redraws."""

from __future__ import annotations

import numpy as np
import pytest
from web_helpers import new_game

from boardlab.core.errors import FormatError
from boardlab.core.records import GameRecord
from boardlab.core.registry import make


def play(client, view: dict, columns: list[int]) -> dict:
    for column in columns:
        answer = client.post(f"/api/games/{view['id']}/move", json={"action": column})
        assert answer.status_code == 200, answer.text
        view = answer.json()
    return view


def test_a_finished_game_says_who_won_why_and_where(client):
    view = play(client, new_game(client), [3, 4, 3, 4, 3, 4, 3])  # Red stacks four in column 4
    assert view["terminal"] and view["undo"] is False
    result = view["result"]
    assert result["winners"] == [0] and result["draw"] is False and result["returns"] == [1.0, -1.0]
    assert result["reason"] == "4 in a row"
    assert view["observation"]["winning_cells"] == [[2, 3], [3, 3], [4, 3], [5, 3]]  # top row first
    refused = client.post(f"/api/games/{view['id']}/undo")
    assert refused.status_code == 409 and "rematch" in refused.json()["detail"]


def test_mancala_names_the_stores_in_its_reason(client):
    view = new_game(client, game="mancala", mode="ai-ai", ai={"agent": "random"})
    while not view["terminal"]:
        view = client.post(f"/api/games/{view['id']}/ai-move").json()
    south, north = view["observation"]["board"]["stores"]
    assert view["result"]["reason"].endswith(f"South {south}, North {north}")
    assert sum(view["result"]["returns"]) == 0


def test_rematch_keeps_the_settings_and_moves_every_player_on_one_seat(client):
    view = new_game(client, game="nothanks:players=3", mode="human-ai", human_seat=0, ai={"agent": "nothanks-expert"})
    assert view["seats"] == ["human", "nothanks-expert", "nothanks-expert"]
    again = client.post(f"/api/games/{view['id']}/rematch")
    assert again.status_code == 200, again.text
    again = again.json()
    assert again["id"] != view["id"] and again["spec"] == view["spec"] and again["mode"] == "human-ai"
    assert again["seats"] == ["nothanks-expert", "human", "nothanks-expert"] and again["viewer"] == 1
    first = client.app.state.sessions.get(view["id"])
    second = client.app.state.sessions.get(again["id"])
    assert first.seed != second.seed  # a new deal


def test_rematch_of_a_set_up_position_starts_there_again(client):
    fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
    view = new_game(client, game="chess", mode="human-ai", position=fen, ai={"agent": "random"})
    view = client.post(f"/api/games/{view['id']}/move", json={"move": "Ra8#"}).json()
    assert view["terminal"] and view["result"]["reason"] == "checkmate" and view["result"]["winners"] == [0]
    again = client.post(f"/api/games/{view['id']}/rematch").json()
    assert again["observation"]["board"]["fen"] == fen and again["seats"] == ["random", "human"]


def test_the_catalogue_offers_each_game_its_declared_default_opponent(client):
    games = {g["name"]: g for g in client.get("/api/meta").json()["games"]}
    expected = {"connect4": "az", "mancala": "az", "chess": "mcts", "nothanks": "mcts",
                "dicewars": "dw-emm", "tickettoride": "ttr-ismcts"}
    for name, agent in expected.items():
        default = games[name]["default_agent"]
        assert default["agent"] == agent and agent in games[name]["agents"], name
    assert "az" in games["dicewars"]["agents"]  # the committed 4-player network, offered beside the default
    assert games["chess"]["default_agent"]["options"] == {"eval": "chess_material", "time": "1"}
    assert games["tickettoride"]["default_agent"]["options"] == {"iterations": "1000"}
    # the committed networks fit the standard boards only
    assert make("connect4:rows=5").default_agent() is None and make("connect4").default_agent() == "az"


def test_dice_wars_log_shows_each_roll_with_its_attack(client):
    view = new_game(client, game="dicewars:players=2", mode="ai-ai", ai={"agent": "dw-ste"})
    while view["plies"] < 60 and not view["terminal"]:
        view = client.post(f"/api/games/{view['id']}/ai-move").json()
    lines = view["moves"]
    assert not any(line.startswith("chance") for line in lines)  # rolls and new dice join their moves
    attack = next(line for line in lines if ">" in line)
    import re

    assert re.fullmatch(r"\d+>\d+: \d+ v \d+, (won|lost)", attack), attack
    assert any(re.fullmatch(r"end turn( \+\d+)+", line) for line in lines)
    assert len(view["movers"]) == len(lines) and all(mover >= 0 for mover in view["movers"])


# --- records with redraws -------------------------------------------------------------------------
def redrawn_game() -> tuple[GameRecord, object]:
    game = make("nothanks:players=3")
    state = game.state_from_history([1, 1, 0, 1], seed=5, redraws=[(2, 11)])
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    record = GameRecord.from_state(state, ["human", "random", "random"], redraws=[(2, 11)])
    return record, state


def test_a_record_with_redraws_round_trips_and_replays():
    record, state = redrawn_game()
    data = record.to_dict()
    assert data["redraws"] == [[2, 11]]
    again = GameRecord.from_dict(data)
    assert again.replay().returns() == state.returns()
    plain = make("nothanks:players=3").state_from_history(state.history, seed=5)
    assert plain.deck != state.deck  # without the redraw the deck is the seed's


def test_a_record_without_its_redraws_is_another_game():
    record, state = redrawn_game()
    data = record.to_dict()
    del data["redraws"]
    data["returns"] = [0.0, 0.0, 0.0]  # whatever they were: the replay below stops before comparing them
    with pytest.raises(Exception, match="returns"):
        GameRecord.from_dict(data).replay()
    replayed = make("nothanks:players=3").state_from_history(state.history, seed=5)
    assert replayed.deck != state.deck  # the cards taken were other cards


@pytest.mark.parametrize("redraws", [[[1]], [[-1, 3]], [[999, 3]], "x", [[1, True]]])
def test_malformed_redraws_are_one_clear_error(redraws):
    record, _ = redrawn_game()
    data = record.to_dict()
    data["redraws"] = redraws
    with pytest.raises(FormatError, match="'redraws' must be a list of \\[ply, seed\\] pairs"):
        GameRecord.from_dict(data)
