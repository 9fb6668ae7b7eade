"""The game end to end: searched by MCTS, played in duels and tournaments, served by the web
app, and its search trees saved, reopened and shown."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from boardlab.agents.registry import make_agent
from boardlab.arena.duel import duel
from boardlab.arena.play import play_game
from boardlab.arena.store import ResultStore
from boardlab.arena.tournament import play_missing, prepare
from boardlab.conformance.failures import expect
from boardlab.conformance.playing import random_move
from boardlab.core.game import Game
from boardlab.trees import gamelabels
from boardlab.trees.io import load_tree, save_tree
from boardlab.trees.model import Tree

#: moves MCTS plays in the end-to-end game before random play finishes it (chess games are long)
SEARCHED_MOVES = 12
SEARCH = "mcts:iterations=40,seed=3"


def check_search_and_trees(game: Game, folder: Path) -> None:
    """MCTS plays legal moves in every seat it meets; its trees name their game, and a tree saved
    in either file format reopens with the same labels and the same player at every node."""
    agent = make_agent(SEARCH, game)
    rng = np.random.default_rng(0)
    state = game.new_initial_state(7)
    agent.reset(game, 0, 7)
    searched = 0
    while not state.is_terminal():
        if not state.is_chance_node() and searched < SEARCHED_MOVES:
            action = agent.step(state)
            expect(action in state.legal_actions(), state, "mcts", f"chose illegal action {action}")
            searched += 1
            check_tree(agent.last_tree().tree(), game, folder / f"search{searched}")
        else:
            action = random_move(state, rng)
        state.apply_action(action)
    expect(searched > 0, game, "mcts", "the game ended before any search")


def check_tree(tree: Tree, game: Game, stem: Path) -> None:
    tree.check(f"{game.spec()} search tree")
    found, why = gamelabels.identify(tree)
    expect(found == game, game, "tree", f"the root label {tree.state[0][:60]!r} does not name the game: {why}")
    for suffix in (".tree", ".csv"):
        path = stem.with_suffix(suffix)
        save_tree(tree, path)
        again = load_tree(path)
        expect(again.state == tree.state and again.move == tree.move, game, "tree files", f"{suffix} changed the labels")
        expect(np.array_equal(again.player, tree.player), game, "tree files",
               f"reopened {suffix} file colours {int(np.sum(again.player != tree.player))} of {len(tree)} nodes with another player")
    if not game.has_hidden_information:
        for node in range(0, len(tree), max(1, len(tree) // 10)):
            state = gamelabels.state_at(tree, node, game)
            expect(state.current_player() == tree.player[node], game, "tree", f"node {node}'s label is another position")


def check_arena(game: Game, folder: Path) -> None:
    """A duel (two-player games) or a tournament with a searching agent; every record replays."""
    if game.num_players() == 2:
        result = duel(game, "random", SEARCH, 2, seed=1, keep_records=True)
        expect(result.games == 2, game, "duel", f"played {result.games} of 2 games")
        for record in result.records:
            record.replay()
    agents = ["random", "random:seed=1", SEARCH][: max(2, game.num_players())]
    while len(agents) < game.num_players():
        agents.append(f"random:seed={len(agents)}")
    config = prepare(game.spec(), agents, players=game.num_players(), games=1, fmt="round-robin", seed=2)
    with ResultStore(folder / "arena.sqlite") as store:
        _, played, _ = play_missing(config, store)
        results = store.games(config.id)
    expect(played == len(config.schedule()) == len(results), game, "tournament", f"played {played} of {len(config.schedule())}")
    for result in results:
        from boardlab.core.records import GameRecord

        GameRecord.from_dict(result.record).replay()
    record = play_game(game, [make_agent("random") for _ in range(game.num_players())], seed=5)
    record.replay()


def check_web(game: Game, folder: Path) -> None:
    """The web app lists the game, serves its renderer, plays it between people and agents,
    never sends a seed or another seat's secrets, and shows its search trees and uploaded files."""
    from fastapi.testclient import TestClient

    from boardlab.web.app import create_app

    with TestClient(create_app(folder / "web")) as client:
        meta = client.get("/api/meta").json()
        entry = next((g for g in meta["games"] if g["name"] == game.name), None)
        expect(entry is not None, game, "web", "the game is not in /api/meta")
        if entry["renderer"]:
            script = client.get(entry["renderer"])
            expect(script.status_code == 200 and "export default" in script.text, game, "web", "its renderer is not served")
        # people in every seat: each move is played by clicking a legal action
        view = client.post("/api/games", json={"game": game.spec(), "mode": "human-human"}).json()
        sessions = client.app.state.sessions
        for _ in range(game.max_game_length()):
            check_view(game, view, sessions.get(view["id"]))
            if view["terminal"]:
                break
            if not view["legal"]:  # a chance node waits for nobody; the session plays it
                break
            view = client.post(f"/api/games/{view['id']}/move", json={"action": view["legal"][0]["action"]}).json()
        # agents in every seat, searching: their trees are listed, drawn and described
        ai = client.post("/api/games", json={"game": game.spec(), "mode": "ai-ai", "seed": 4,
                                              "ai": {"agent": "mcts", "iterations": 30}}).json()
        ai = client.post(f"/api/games/{ai['id']}/ai-move").json()
        check_view(game, ai, sessions.get(ai["id"]))
        trees = client.get(f"/api/games/{ai['id']}/trees").json()
        expect(len(trees) == 1, game, "web", "the AI's search tree is not listed")
        body = client.get(f"/api/games/{ai['id']}/trees/0/data")
        expect(body.status_code == 200, game, "web", f"tree data: {body.status_code}")
        node = client.get(f"/api/games/{ai['id']}/trees/0/nodes/0").json()
        searched = [mover for mover in ai["movers"] if mover >= 0]  # chance may move before the AI
        expect(searched and node["player"] == searched[0], game, "web", "the tree's root is not the searching player's move")
        # a tree file uploaded, reopened with its game
        path = folder / "upload.tree"
        save_tree(sessions.get(ai["id"]).trees[0].tree, path)
        uploaded = client.post("/api/uploads", params={"name": "upload.tree"}, content=path.read_bytes()).json()
        expect(uploaded.get("game") == game.spec(), game, "web", f"an uploaded tree forgot its game: {uploaded}")
        details = client.get(f"/api/uploads/{uploaded['id']}/nodes/0").json()
        if not game.has_hidden_information:
            expect(details["board"] is not None, game, "web", "an uploaded tree's root shows no board")


def check_view(game: Game, view: dict, session) -> None:
    """One view the web app sent: no seed, and the observation the state gives that seat."""
    text = str(view)
    expect("seed" not in view and "'seed'" not in text, game, "web", "a view holds a seed")
    expect(view["observation"] == _jsonable(session.state.observation(view["viewer"])), game, "web",
           f"the view of seat {view['viewer']} is not that seat's observation")


def _jsonable(value):
    import json

    return json.loads(json.dumps(value))
