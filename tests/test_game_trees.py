"""Trees that remember their game: a saved search tree reopens with its game, the same player at
every node, boards, chance nodes of their own colour, and positions one can play on from."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from boardlab.agents.registry import make_agent
from boardlab.cli import app
from boardlab.core.game import CHANCE, TERMINAL, UNKNOWN_PLAYER
from boardlab.core.registry import make
from boardlab.trees import gamelabels
from boardlab.trees.colors import CHANCE_COLOR, Palette, node_colors
from boardlab.trees.io import load_tree, save_tree
from boardlab.web.app import create_app
from boardlab.web.treepack import CHANCE_CODE, hex_colour, pack_tree, unpack_tree


def mancala_tree(iterations: int = 400):
    game = make("mancala")
    state = game.state_from_moves("c")  # South sowed into its store: South moves again
    agent = make_agent(f"mcts:iterations={iterations},seed=2")
    agent.step(state)
    return agent.last_tree().tree()


@pytest.mark.parametrize("suffix", [".tree", ".csv"])
def test_a_mancala_tree_reopens_with_the_same_player_at_every_node(tmp_path, suffix):
    live = mancala_tree()
    # extra turns: a move does not always pass the turn, so depth parity would be wrong
    depth = live.depth()
    assert np.any(live.player[depth % 2 == 1] == live.player[0])
    path = tmp_path / f"kalah{suffix}"
    save_tree(live, path)
    again = load_tree(path)
    assert np.array_equal(again.player, live.player)
    assert gamelabels.identify(again)[0] == make("mancala")
    assert again.state[0] == "[mancala] 4,4,0,5,5,5/1/4,4,4,4,4,4/0 S"
    # every node's label is a position that can be played on
    node = int(np.flatnonzero(again.child_count > 0)[-1])
    state = gamelabels.state_at(again, node)
    assert state.current_player() == again.player[node] and state.legal_actions()


def test_tree_info_names_the_game_and_counts_nodes_by_player(tmp_path):
    path = tmp_path / "kalah.tree"
    live = mancala_tree()
    save_tree(live, path)
    result = CliRunner().invoke(app, ["tree", "info", str(path), "--json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert info["game"] == "mancala" and info["root_state"] == "4,4,0,5,5,5/1/4,4,4,4,4,4/0 S"
    expected = {Palette.for_game(make("mancala")).label(int(c)): int(n) for c, n in zip(*np.unique(live.player, return_counts=True))}
    assert info["players"] == expected and "South to move" in expected and "North to move" in expected
    text = CliRunner().invoke(app, ["tree", "info", str(path)])
    assert "game: mancala" in text.stdout and "South to move" in text.stdout


def test_the_viewer_shows_boards_and_plays_on_from_an_uploaded_tree(tmp_path):
    path = tmp_path / "kalah.tree"
    live = mancala_tree()
    save_tree(live, path)
    with TestClient(create_app(tmp_path / "data")) as client:
        upload = client.post("/api/uploads", params={"name": "kalah.tree"}, content=path.read_bytes()).json()
        assert upload["game"] == "mancala"
        header, arrays = unpack_tree(client.get(f"/api/uploads/{upload['id']}/data").content)
        assert not header["players_inferred"] and np.array_equal(arrays["player"], live.player.astype(np.uint8))
        assert [e["label"] for e in header["legend"] if e["code"] < CHANCE_CODE] == ["South to move", "North to move"]
        assert header["player_names"] == ["South", "North"]
        node = int(np.flatnonzero(live.child_count > 0)[-1])
        details = client.get(f"/api/uploads/{upload['id']}/nodes/{node}").json()
        assert details["board"]["board"]["pits"] and details["board"]["playable"]
        assert details["player_name"] in ("South", "North")
        # "Play from here": a new game from that position
        game = client.post("/api/games", json={"game": details["board"]["spec"], "mode": "human-ai",
                                               "ai": {"agent": "random"}, "position": details["notation"]}).json()
        assert game["observation"]["board"] == details["board"]["board"]
        assert game["to_move"] == details["player"] and game["human_to_move"]


def test_chance_and_game_over_nodes_have_their_own_codes_and_colours():
    player = np.array([0, CHANCE, 1, TERMINAL, UNKNOWN_PLAYER, 2, 3], dtype=np.int8)
    coloring = node_colors(player, np.zeros(len(player), dtype=int))
    assert tuple(coloring.colors[1]) == tuple(CHANCE_COLOR)
    assert {label for label, _ in coloring.legend} >= {"chance", "game over", "unknown", "player 3 to move"}
    assert len({tuple(c) for c in coloring.colors}) == len(player)  # seven codes, seven colours
    from boardlab.trees.model import Tree

    tree = Tree.from_parents(parent=[-1, 0, 1, 2, 3, 4, 5], move=[""] + ["m"] * 6, visits=[7] * 7, visits2=[0] * 7,
                             mean_payout=[0.0] * 7, state=["s"] * 7, player=player.tolist())
    header, arrays = unpack_tree(pack_tree(tree))
    assert arrays["player"].tolist() == [0, CHANCE_CODE, 1, 253, 255, 2, 3]
    chance = [e for e in header["legend"] if e["code"] == CHANCE_CODE][0]
    assert chance["label"] == "chance" and chance["colour"] == hex_colour(CHANCE_COLOR)


def test_seat_colours_are_the_games_pieces():
    palette = Palette.for_game(make("connect4"))
    assert palette.label(0) == "Red to move" and tuple(palette.players[0]) == (216, 52, 44)
    assert Palette.for_game(make("chess")).label(1) == "Black to move"


def test_a_foreign_tree_stays_readable_and_is_coloured_by_depth(tmp_path):
    from boardlab.trees.generate import random_mcts_tree

    path = tmp_path / "foreign.csv"
    save_tree(random_mcts_tree(50, seed=1), path)
    tree = load_tree(path)
    game, why = gamelabels.identify(tree)
    assert game is None and "names no game" in why and np.all(tree.player == UNKNOWN_PLAYER)
    header, _ = unpack_tree(pack_tree(tree))
    assert header["players_inferred"] and header["legend"][0]["label"].startswith("even depth")
