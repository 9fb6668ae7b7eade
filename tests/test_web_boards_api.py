"""What the page draws, as the API serves it: a tree node's board in every game (hidden information
included, from the node's public notation), and the API's documentation page with nothing from other hosts."""

from __future__ import annotations

import random
import re

import pytest

from boardlab.core.registry import make
from boardlab.trees.gamelabels import root_label
from boardlab.trees.io import save_tree
from boardlab.trees.model import Tree

HIDDEN = ("nothanks", "nothanks:players=3", "tickettoride:players=2", "tickettoride")


def played(game, seed: int, plies: int):
    """A state ``plies`` random moves into a game (or its end)."""
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def public_board(game, state) -> dict:
    """The spectator's board of ``state``, less what its notation cannot know (and does not claim to)."""
    board = dict(state.observation(None)["board"])
    if game.name == "nothanks":
        board.pop("removed", None)  # shown once the game is over, but never written in a notation
    else:
        board["first_card"] = None
        if board["phase"] == "over":  # the final scoring counts tickets, which the notation does not show
            keys = {"trains", "cards", "tickets", "offer", "routes", "claimed"}
            board["players"] = [{k: v for k, v in p.items() if k in keys} for p in board["players"]]
    return board


@pytest.mark.parametrize("spec", HIDDEN)
def test_a_public_notation_gives_the_public_board_all_game_long(spec):
    game = make(spec)
    for seed in range(3):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        while True:
            made = game.observation_from_notation(state.notation(), None)
            assert made is not None and made["to_move"] == state.current_player()
            assert made["board"] == public_board(game, state)
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
    assert game.observation_from_notation("to_move=0;not a position") is None


def test_ticket_to_ride_notation_tells_blue_from_black_and_still_reads_old_notations():
    game = make("tickettoride:players=2")
    state = game.new_initial_state(3)
    state.faceup = [4, 6, 4, 6, 8]  # blue, black, blue, black, locomotive
    text = state.notation()
    assert "up=bu,bk,bu,bk,lo;" in text
    assert game.observation_from_notation(text)["board"]["face_up"] == ["blue", "black", "blue", "black", "locomotive"]
    # a notation written before the codes were distinct: "bl" was blue or black, and reads as either
    old = text.replace("up=bu,bk,bu,bk,lo;", "up=bl,bl,bl,bl,lo;")
    assert game.observation_from_notation(old)["board"]["face_up"] == ["blue/black"] * 4 + ["locomotive"]


def test_a_perfect_information_game_reads_its_notation_back():
    game = make("connect4")
    state = played(game, 3, 9)
    assert game.observation_from_notation(state.notation()) == state.observation(None)


@pytest.mark.parametrize("spec", ["nothanks", "tickettoride:players=2", "connect4", "mancala"])
def test_every_node_of_an_uploaded_tree_has_its_board(client, tmp_path, spec):
    game = make(spec)
    state = played(game, 5, 12)
    children = []
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        children.append(child)
    n = len(children)
    tree = Tree.from_parents(
        parent=[-1] + [0] * n, move=[""] + [state.action_to_string(a) for a in state.legal_actions()],
        visits=[n] + [1] * n, visits2=[0] * (n + 1), mean_payout=[0.5] * (n + 1),
        state=[root_label(game.spec(), state.notation())] + [c.notation() for c in children],
        player=[state.current_player()] + [c.current_player() for c in children])
    path = tmp_path / "search.tree"
    save_tree(tree, path)
    upload = client.post("/api/uploads", params={"name": "search.tree"}, content=path.read_bytes())
    assert upload.status_code == 200, upload.text
    for node, truth in [(0, state)] + [(k + 1, c) for k, c in enumerate(children)]:
        info = client.get(f"/api/uploads/{upload.json()['id']}/nodes/{node}").json()
        shown = info["board"]
        assert shown is not None and shown["game"] == game.name
        assert shown["board"] == public_board(game, truth) if game.has_hidden_information \
            else shown["board"] == truth.observation(None)["board"]
        # a new game starts from a node only where its notation fixes the whole state, and the game goes on
        assert shown["playable"] == (not game.has_hidden_information and not truth.is_terminal())
    if game.name == "tickettoride":
        assert "hand" not in shown["board"] and "tickets" not in shown["board"]  # nobody's cards or tickets


def test_the_api_documentation_asks_no_other_host(client):
    page = client.get("/api/docs")
    assert page.status_code == 200 and "swagger-ui" in page.text
    assert not re.search(r"https?://", page.text), "the documentation page refers to another host"
    files = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert {f.rsplit("/", 1)[1] for f in files} == {"swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"}
    for url in files:
        answer = client.get(url)
        assert answer.status_code == 200 and len(answer.content) > 100, url
    assert client.get("/api/docs/files/other.js").status_code == 404
    assert client.get("/api/openapi.json").status_code == 200
