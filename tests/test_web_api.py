"""The web app's JSON and binary API, through FastAPI's TestClient."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient
from web_helpers import new_game

from boardlab.agents.base import Agent
from boardlab.agents.search_tree import SearchTreeHandle
from boardlab.core.records import GameRecord
from boardlab.trees.gamelabels import root_label
from boardlab.trees.generate import random_mcts_tree
from boardlab.trees.io import load_tree, save_tree
from boardlab.trees.layout import tidy_layout
from boardlab.trees.model import Tree
from boardlab.web.app import create_app
from boardlab.web.treepack import pack_tree, unpack_tree


class TreeMakingAgent(Agent):
    """Plays the lowest legal action and hands back a two-level tree of its choices."""

    name = "test-tree-maker"
    summary = "test agent that builds a tiny tree"
    searches = True

    def __init__(self, **options):
        super().__init__(**options)
        self.trees: list[SearchTreeHandle] = []

    def step(self, state):
        legal = state.legal_actions()
        labels = [state.action_to_string(a) for a in legal]
        children = []
        for a in legal:
            child = state.clone()
            child.apply_action(a)
            children.append(child)
        n = len(legal)
        tree = Tree.from_parents(
            parent=[-1] + [0] * n,
            move=[""] + labels,
            visits=[10 * n] + [10] * n,
            visits2=[5 * n] + [5] * n,
            mean_payout=[0.5] * (n + 1),
            state=[root_label(state.game.spec(), state.notation())] + [c.notation() for c in children],
            player=[state.current_player()] + [c.current_player() for c in children],
        )
        self.trees.append(SearchTreeHandle.of_tree(tree))
        return legal[0]

    def last_tree(self):
        return self.trees[-1] if self.trees else None


@pytest.fixture(autouse=True)
def tree_maker():
    """The test agent, registered only while a test of this module runs."""
    from boardlab.core import plugins

    with plugins.agents.registered("test-tree-maker", f"{__name__}:TreeMakingAgent"):
        yield


def test_menu_lists_games_with_boards_and_browser_agents(client):
    meta = client.get("/api/meta").json()
    names = [g["name"] for g in meta["games"]]
    assert "connect4" in names and "mancala" in names
    connect4 = next(g for g in meta["games"] if g["name"] == "connect4")
    assert {p["name"] for p in connect4["parameters"]} >= {"rows", "cols", "k"}
    agents = [a["name"] for a in meta["agents"]]
    assert "random" in agents and "human" not in agents  # a terminal agent cannot play in a browser
    assert meta["modes"] == ["human-ai", "ai-ai", "human-human"]
    by_game = {g["name"]: g["agents"] for g in meta["games"]}
    # a browser cannot name a model file, so az is offered only where a model is committed
    assert "az" in by_game["mancala"] and "az" in by_game["connect4"] and "az" not in by_game["chess"] and "mcts" in by_game["chess"]


def test_page_and_static_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "boardlab" in page.text
    for name in ("app.js", "viewer.js", "boards.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert client.get("/static/../app.py").status_code == 404


def test_human_vs_human_connect_four_to_a_win_and_record_replays(client):
    game = new_game(client, game="connect4:rows=5,cols=5", seed=3)
    assert game["board"] == [[-1] * 5 for _ in range(5)] and game["to_move"] == 0
    for action in (0, 1, 0, 1, 0, 1, 0):  # four in column 1 for the first player
        game = client.post(f"/api/games/{game['id']}/move", json={"action": action}).json()
    assert game["terminal"] and game["returns"] == [1.0, -1.0]
    assert game["moves"] == ["1", "2", "1", "2", "1", "2", "1"]
    assert [row[0] for row in game["board"]][1:] == [0, 0, 0, 0]
    over = client.post(f"/api/games/{game['id']}/move", json={"action": 2})
    assert over.status_code == 409 and "over" in over.json()["detail"]
    record = GameRecord.from_dict(client.get(f"/api/games/{game['id']}/record").json())
    assert record.actions == [0, 1, 0, 1, 0, 1, 0]
    assert record.replay().returns() == [1.0, -1.0]


def test_moves_by_text_and_clear_errors_for_bad_ones(client):
    game = new_game(client)
    game = client.post(f"/api/games/{game['id']}/move", json={"move": "4"}).json()
    assert game["moves"] == ["4"]
    illegal = client.post(f"/api/games/{game['id']}/move", json={"action": 9})
    assert illegal.status_code == 400 and "action 9 is not legal" in illegal.json()["detail"]
    bad_text = client.post(f"/api/games/{game['id']}/move", json={"move": "x"})
    assert bad_text.status_code == 400
    assert client.post(f"/api/games/{game['id']}/move", json={}).status_code == 400
    assert client.post("/api/games/nope/move", json={"action": 1}).status_code == 404
    assert client.post("/api/games", json={"game": "chequers", "mode": "human-human"}).status_code == 400
    bad_mode = client.post("/api/games", json={"game": "connect4", "mode": "robots"})
    assert bad_mode.status_code == 400 and "unknown mode" in bad_mode.json()["detail"]
    bad_option = client.post("/api/games", json={"game": "connect4", "mode": "ai-ai", "ai": {"spec": "random:depth=3"}})
    assert bad_option.status_code == 400 and "depth" in bad_option.json()["detail"]
    assert client.post("/api/games", json={"game": "connect4:rows=0", "mode": "human-human"}).status_code == 400


def test_human_vs_ai_turns_undo_and_legal_moves(client):
    game = new_game(client, mode="human-ai", ai={"agent": "random", "iterations": 50}, seed=1)  # random has no iterations: dropped
    assert game["seats"] == ["human", "random"]
    assert [m["action"] for m in client.get(f"/api/games/{game['id']}/legal").json()] == list(range(7))
    game = client.post(f"/api/games/{game['id']}/move", json={"action": 3}).json()
    assert not game["human_to_move"]
    early = client.post(f"/api/games/{game['id']}/move", json={"action": 3})
    assert early.status_code == 409 and "AI's turn" in early.json()["detail"]
    game = client.post(f"/api/games/{game['id']}/ai-move").json()
    assert len(game["moves"]) == 2 and game["human_to_move"]
    again = client.post(f"/api/games/{game['id']}/ai-move")
    assert again.status_code == 409
    game = client.post(f"/api/games/{game['id']}/undo").json()
    assert game["moves"] == [] and game["human_to_move"]  # back over the AI's reply and the person's move
    assert client.post(f"/api/games/{game['id']}/undo").status_code == 409


def test_ai_vs_ai_mancala_plays_to_the_end(client):
    game = new_game(client, game="mancala", mode="ai-ai", ai={"agent": "random"}, seed=5)
    assert set(game["board"]) >= {"pits", "stores"}
    for _ in range(400):
        if game["terminal"]:
            break
        game = client.post(f"/api/games/{game['id']}/ai-move").json()
    assert game["terminal"]
    assert sum(game["board"]["stores"]) + sum(map(sum, game["board"]["pits"])) == 48
    GameRecord.from_dict(client.get(f"/api/games/{game['id']}/record").json()).replay()


def test_trees_of_ai_moves_are_listed_packed_and_described(client):
    game = new_game(client, mode="ai-ai", ai={"agent": "test-tree-maker"}, seed=2)
    for _ in range(3):
        game = client.post(f"/api/games/{game['id']}/ai-move").json()
    trees = client.get(f"/api/games/{game['id']}/trees").json()
    assert [t["ply"] for t in trees] == [0, 1, 2] and all(t["nodes"] == 8 for t in trees)
    body = client.get(f"/api/games/{game['id']}/trees/2/data")
    assert body.headers["content-type"] == "application/octet-stream"
    header, arrays = unpack_tree(body.content)
    assert header["nodes"] == 8 and header["meta"]["ply"] == 2
    assert list(arrays["parent"]) == [-1] + [0] * 7
    assert list(arrays["player"]) == [0] + [1] * 7
    node = client.get(f"/api/games/{game['id']}/trees/2/nodes/3").json()
    assert node["path"] == ["3"] and node["visits"] == 10 and node["wins"] == 5 and node["mean_payout"] == 0.5
    # the node's state is the tree's root (after moves 1, 1) plus its path: a disc in column 3
    assert node["board"]["game"] == "connect4"
    assert node["board"]["board"][-1][:3] == [0, -1, 0] and node["board"]["board"][-2][0] == 1
    assert client.get(f"/api/games/{game['id']}/trees/2/nodes/99").status_code == 404
    assert client.get(f"/api/games/{game['id']}/trees/7/data").status_code == 404
    csv = client.get(f"/api/games/{game['id']}/trees/0/export", params={"format": "csv"})
    assert csv.status_code == 200 and csv.text.splitlines()[0].startswith(",")  # the root has no move
    png = client.get(f"/api/games/{game['id']}/trees/0/export", params={"format": "png"})
    assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.headers["content-disposition"].endswith('.png"')
    assert client.get(f"/api/games/{game['id']}/trees/0/export", params={"format": "gif"}).status_code == 400
    # undo drops the trees of the moves taken back
    client.post(f"/api/games/{game['id']}/undo")
    assert len(client.get(f"/api/games/{game['id']}/trees").json()) == 2


def test_pack_tree_layout_and_heat_follow_the_tree():
    tree = random_mcts_tree(2000, seed=4)
    header, arrays = unpack_tree(pack_tree(tree, {"game": "x"}))
    x, y = tidy_layout(tree)
    assert np.allclose(arrays["x"], x) and np.allclose(arrays["y"], y)
    assert np.array_equal(arrays["parent"], tree.parent)
    assert header["max_visits"] == tree.visits.max() and header["nodes"] == 2000
    order = np.argsort(tree.visits, kind="stable")
    assert np.all(np.diff(arrays["heat"][order].astype(int)) >= 0)  # more visits, never a lighter colour
    assert arrays["heat"][0] == 255
    assert np.array_equal(arrays["created"], tree.created)


def test_upload_view_export_round_trip(client, tmp_path):
    tree = random_mcts_tree(3000, seed=9)
    path = tmp_path / "search.tree"
    save_tree(tree, path)
    up = client.post("/api/uploads", params={"name": "search.tree"}, content=path.read_bytes())
    assert up.status_code == 200, up.text
    info = up.json()
    assert info["nodes"] == 3000
    header, arrays = unpack_tree(client.get(f"/api/uploads/{info['id']}/data").content)
    assert header["nodes"] == 3000 and np.array_equal(arrays["parent"], tree.parent)
    leaf = int(np.flatnonzero(tree.child_count == 0)[5])
    node = client.get(f"/api/uploads/{info['id']}/nodes/{leaf}").json()
    assert node["visits"] == tree.visits[leaf] and node["state"] == tree.state[leaf]
    assert len(node["path"]) == node["depth"] and node["path"][-1] == tree.move[leaf]
    for fmt, suffix in (("csv", ".csv"), ("tree", ".tree")):
        exported = client.get(f"/api/uploads/{info['id']}/export", params={"format": fmt})
        assert exported.status_code == 200
        again = tmp_path / f"again{suffix}"
        again.write_bytes(exported.content)
        back = load_tree(again)
        assert np.array_equal(back.parent, tree.parent) and np.array_equal(back.visits, tree.visits)
        assert back.move == tree.move
    # a sequence: the second upload is compared with the first
    other = random_mcts_tree(3500, seed=9)
    save_tree(other, tmp_path / "later.tree")
    second = client.post("/api/uploads", params={"name": "later.tree"}, content=(tmp_path / "later.tree").read_bytes()).json()
    header, arrays = unpack_tree(client.get(f"/api/uploads/{second['id']}/data", params={"prev": info["id"]}).content)
    assert header["meta"]["has_previous"] and "diff" in arrays and len(arrays["diff"]) == 3500


def test_uploaded_consecutive_searches_differ_from_the_later_root(client, tmp_path):
    """Two trees of two turns uploaded in sequence: the viewer's differences of the later one are
    those of the earlier tree's node the later search started from (found by its position, as
    tree diff finds it), not of a root-to-root match of two different positions."""
    from test_tree_cli import consecutive_searches

    from boardlab.trees.diff import diff

    a, b, moves = consecutive_searches(tmp_path, "connect4", "4,4")
    ids = [client.post("/api/uploads", params={"name": path.name}, content=path.read_bytes()).json()["id"] for path in (a, b)]
    header, arrays = unpack_tree(client.get(f"/api/uploads/{ids[1]}/data", params={"prev": ids[0]}).content)
    expected = diff(load_tree(a), load_tree(b), via=moves)
    flags = np.zeros(header["nodes"], dtype=np.uint8)
    flags[expected.changed] = 2
    flags[expected.added] = 1
    assert np.array_equal(arrays["diff"], flags)
    assert flags[0] == 2 and np.count_nonzero(flags == 0) + np.count_nonzero(flags == 2) > 1  # a real overlap


def test_uploads_are_checked_limited_and_kept_inside_the_data_folder(tmp_path):
    data = tmp_path / "data"
    with TestClient(create_app(data, max_upload=4096)) as client:
        bad = client.post("/api/uploads", params={"name": "broken.tree"}, content=b"\x05\x00\x00\x00ab")
        assert bad.status_code == 400 and "broken.tree" in bad.json()["detail"]
        assert client.post("/api/uploads", params={"name": "notes.txt"}, content=b"x").status_code == 400
        big = client.post("/api/uploads", params={"name": "big.csv"}, content=b"x" * 5000)
        assert big.status_code == 413
        sneaky = tmp_path / "small.csv"
        save_tree(random_mcts_tree(20, seed=1), sneaky)
        up = client.post("/api/uploads", params={"name": "../../escape.csv"}, content=sneaky.read_bytes())
        assert up.status_code == 200
        assert client.get("/api/uploads/..%2F..%2Fescape/data").status_code == 404
        assert client.get("/api/uploads/nonexistent/nodes/0").status_code == 404
        # only the good upload, under a generated name, in this server's folder under uploads/
        stored = sorted(p.relative_to(data / "uploads").parts[-1] for p in (data / "uploads").rglob("*.csv"))
        assert stored == [f"{up.json()['id']}.csv"]
    assert not (tmp_path / "escape.csv").exists()
    assert not any((data / "uploads").iterdir())  # and every upload is deleted when the server stops


def test_boardlab_serve_prints_its_address_and_serves(tmp_path):
    import json
    import os
    import subprocess
    import sys

    import httpx

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(p) for p in sys.path if p]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardlab", "serve", "--port", "0", "--data", str(tmp_path / "d"), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        info = json.loads(proc.stdout.readline())
        assert info["url"].startswith("http://127.0.0.1:") and info["data"] == str(tmp_path / "d")
        for _ in range(100):
            try:
                meta = httpx.get(info["url"] + "api/meta", timeout=5).json()
                break
            except httpx.TransportError:
                import time

                time.sleep(0.1)
        assert "connect4" in [g["name"] for g in meta["games"]]
    finally:
        proc.terminate()
        proc.wait(10)


def test_ai_opening_undo_and_tree_memory_bound(client, monkeypatch):
    from boardlab.web import sessions

    game = new_game(client, mode="human-ai", human_seat=1, ai={"agent": "test-tree-maker"}, seed=4)
    assert game["seats"] == ["test-tree-maker", "human"] and not game["human_to_move"]
    game = client.post(f"/api/games/{game['id']}/ai-move").json()
    game = client.post(f"/api/games/{game['id']}/move", json={"action": 6}).json()
    game = client.post(f"/api/games/{game['id']}/ai-move").json()
    assert game["moves"] == ["1", "7", "1"] and game["human_to_move"]
    game = client.post(f"/api/games/{game['id']}/undo").json()
    assert game["moves"] == ["1"] and game["human_to_move"]  # back to the person's last turn
    # a session keeps the newest trees within its node budget
    monkeypatch.setattr(sessions, "MAX_TREE_NODES", 20)
    game = new_game(client, mode="ai-ai", ai={"agent": "test-tree-maker"}, seed=4)
    for _ in range(5):
        client.post(f"/api/games/{game['id']}/ai-move")
    assert [t["ply"] for t in client.get(f"/api/games/{game['id']}/trees").json()] == [3, 4]


def test_the_catalogue_loads_no_torch():
    """The menu lists every agent without importing torch into the server (a network loads it when it plays)."""
    import subprocess
    import sys

    code = ("import sys; from boardlab.web.routes.catalogue import game_catalogue, agent_catalogue; "
            "game_catalogue(); agent_catalogue(); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_committed_connect_four_network_answers_a_move_with_its_compiled_search(client):
    game = new_game(client, mode="human-ai", ai={"agent": "az", "simulations": 50}, seed=2)
    assert game["seats"] == ["human", "az:simulations=50"]
    for column in (0, 0, 0):  # X stacks column 1; az, second, must block it before the fourth stone
        game = client.post(f"/api/games/{game['id']}/move", json={"action": column}).json()
        played = client.post(f"/api/games/{game['id']}/ai-move")
        assert played.status_code == 200, played.text
        game = played.json()
        if len(game["moves"]) == 6:
            break
    assert game["moves"][-1] == "1" and not game["terminal"]
    assert game["ai"]["simulations"] == 50 and game["ai"]["engine"] == "compiled-puct"
