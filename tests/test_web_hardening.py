"""The web app under hostile or careless requests: budgets, strict bodies, cancellation,
games that survive a restart, bounded uploads. No test here depends on timing
(the one acceptance test that does lives in test_web_serve.py)."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest
from fastapi.testclient import TestClient
from web_helpers import new_game

from boardlab.agents.base import Agent
from boardlab.trees.generate import random_mcts_tree
from boardlab.trees.io import save_tree
from boardlab.web.app import create_app
from boardlab.web.limits import ServerLimits

#: a safety net for tests that wait on a worker: a failing test, never a hung one
PATIENCE = 120


class WaitForStopAgent(Agent):
    """Searches until told to stop (``agent.stop``), then plays the lowest legal action;
    it gives up after PATIENCE seconds so that a broken test fails instead of hanging."""

    name = "test-wait-for-stop"
    summary = "test agent that thinks until it is stopped"
    searches = False

    def step(self, state):
        self.stop.wait(PATIENCE)
        return state.legal_actions()[0]


class MemoryHogAgent(Agent):
    """Takes 4 MiB more every few milliseconds until told to stop (or PATIENCE runs out)."""

    name = "test-memory-hog"
    summary = "test agent that eats memory until it is stopped"

    def step(self, state):
        hoard = []
        for _ in range(PATIENCE * 100):
            if self.stop.wait(0.01):
                break
            hoard.append(bytearray(4 * 2**20))  # zero-filled: really resident
        return state.legal_actions()[0]


@pytest.fixture(autouse=True)
def test_agents():
    from boardlab.core import plugins

    with plugins.agents.registered("test-wait-for-stop", f"{__name__}:WaitForStopAgent"), \
            plugins.agents.registered("test-memory-hog", f"{__name__}:MemoryHogAgent"):
        yield


def detail(response) -> str:
    data = response.json()
    assert isinstance(data["detail"], str) and "\n" not in data["detail"], data
    assert "Traceback" not in response.text
    return data["detail"]


# --- strict request bodies -----------------------------------------------------------
def test_an_empty_ai_list_is_a_clear_400_not_a_crash(client):
    response = client.post("/api/games", json={"game": "connect4", "mode": "ai-ai", "ai": []})
    assert response.status_code == 400
    assert detail(response) == "ai: List should have at least 1 item after validation, not 0"
    wrong = client.post("/api/games", json={"game": "connect4", "mode": "ai-ai", "ai": {"agent": "mcts", "time": [1]}})
    assert detail(wrong) == "ai.time: must be true or false, an integer, a number or a string"


def test_a_boolean_is_not_an_action(client):
    game = new_game(client)
    response = client.post(f"/api/games/{game['id']}/move", json={"action": True})
    assert response.status_code in (400, 422), response.text
    detail(response)
    assert client.get(f"/api/games/{game['id']}").json()["moves"] == []


def test_move_and_action_together_are_refused(client):
    game = new_game(client)
    response = client.post(f"/api/games/{game['id']}/move", json={"move": "4", "action": 0})
    assert response.status_code in (400, 422)
    assert "exactly one" in detail(response)
    assert client.get(f"/api/games/{game['id']}").json()["moves"] == []


@pytest.mark.parametrize("value", ["5,time=999", "5=6", "mcts:3", "1\n2"])
def test_option_values_cannot_inject_options(client, value):
    response = client.post("/api/games", json={"game": "connect4", "mode": "ai-ai", "ai": {"agent": "mcts", "iterations": value}})
    assert response.status_code in (400, 422), response.text
    detail(response)


def test_a_huge_json_body_is_refused_before_it_is_read(client):
    big = client.post("/api/games", content=b'{"game": "' + b"x" * (2 * 2**20) + b'"}', headers={"content-type": "application/json"})
    assert big.status_code == 413 and "body" in detail(big)

    def chunks():
        yield b'{"game": "'
        for _ in range(40):
            yield b"x" * 65536
        yield b'"}'

    streamed = client.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
    assert streamed.status_code == 413


@pytest.mark.parametrize("ai", [{"agent": "qnet", "path": "/etc/passwd"}, {"spec": "qnet:path=../../x.pt"},
                                {"agent": "qnet", "run": "abc", "runs_dir": "tmp"}, {"agent": "nothanks-net", "path": "model.pt"}])
def test_no_option_from_a_request_becomes_a_path_on_the_server(client, ai):
    game = "nothanks" if "nothanks" in str(ai) else "connect4"
    response = client.post("/api/games", json={"game": game, "mode": "ai-ai", "ai": ai})
    assert response.status_code == 400 and "may not choose" in detail(response)


def test_an_evaluator_is_named_not_a_path(client):
    ok = new_game(client, game="chess", mode="ai-ai", ai={"agent": "mcts", "eval": "chess_material", "iterations": 10})
    assert ok["seats"][0] == "mcts:eval=chess_material,iterations=10"
    bad = client.post("/api/games", json={"game": "chess", "mode": "ai-ai", "ai": {"agent": "mcts", "eval": "os.path"}})
    assert bad.status_code == 400 and "no evaluator" in detail(bad)


def test_unknown_ai_settings_are_refused_but_other_agents_options_are_ignored(client):
    bad = client.post("/api/games", json={"game": "connect4", "mode": "ai-ai", "ai": {"agent": "mcts", "depht": 3}})
    assert bad.status_code in (400, 422) and "depht" in detail(bad)
    # the menu sends iterations whatever the agent; an agent without that option ignores it
    ok = new_game(client, mode="ai-ai", ai={"agent": "random", "iterations": 50})
    assert ok["seats"] == ["random", "random"]


def test_a_person_is_not_an_ai_seat(client):
    for ai in ({"agent": "human"}, {"spec": "human"}, [{"agent": "random"}, {"agent": "human"}]):
        response = client.post("/api/games", json={"game": "connect4", "mode": "ai-ai", "ai": ai})
        assert response.status_code == 400, (ai, response.text)
        assert "human" in detail(response)


def test_another_games_evaluator_is_a_400_with_the_librarys_message(client):
    response = client.post("/api/games", json={"game": "mancala", "mode": "ai-ai", "ai": {"agent": "mcts", "eval": "chess_material"}})
    assert response.status_code == 400, response.text
    assert "chess_material" in detail(response)


def test_budgets_above_the_servers_limits_are_refused_naming_the_limit(tmp_path):
    limits = ServerLimits(max_ai_seconds=5, max_ai_iterations=1000)
    with TestClient(create_app(tmp_path / "data", limits=limits)) as client:
        slow = client.post("/api/games", json={"game": "connect4", "mode": "ai-ai", "ai": {"agent": "mcts", "time": 1000000}})
        assert slow.status_code == 400 and "--max-ai-seconds" in detail(slow) and "5" in detail(slow)
        many = client.post("/api/games", json={"game": "connect4", "mode": "ai-ai", "ai": {"spec": "mcts:iterations=5000"}})
        assert many.status_code == 400 and "--max-ai-iterations" in detail(many)
        sims = client.post("/api/games", json={"game": "mancala", "mode": "ai-ai", "ai": {"spec": "az:simulations=5000"}})
        assert sims.status_code == 400 and "--max-ai-iterations" in detail(sims) and "simulations" in detail(sims)
        nodes = client.post("/api/games", json={"game": "connect4", "mode": "ai-ai", "ai": {"agent": "mcts", "max_nodes": 10**9}})
        assert nodes.status_code == 400 and "--max-tree-nodes" in detail(nodes)
        fine = new_game(client, mode="ai-ai", ai={"agent": "mcts", "time": 5})
        assert fine["seats"] == ["mcts:time=5", "mcts:time=5"]
        meta = client.get("/api/meta").json()
        assert meta["limits"]["max_ai_seconds"] == 5 and meta["limits"]["max_ai_iterations"] == 1000


def test_simulations_a_committed_model_names_are_checked_against_the_servers_limit_too(tmp_path):
    # az takes its simulations from the committed 2-player Dice Wars model (4000) when the request names none:
    # the server learns that number only once a worker has loaded the model, and refuses it then
    limits = ServerLimits(max_ai_iterations=1000, ai_workers=1)
    with TestClient(create_app(tmp_path / "data", limits=limits)) as client:
        refused = client.post("/api/games", json={"game": "dicewars:players=2", "mode": "ai-ai", "ai": {"agent": "az"}})
        assert refused.status_code == 400, refused.text
        assert "simulations=4000" in detail(refused) and "--max-ai-iterations" in detail(refused)
        fine = new_game(client, game="dicewars:players=2", mode="ai-ai", ai={"agent": "az", "simulations": 300}, seed=1)
        played = client.post(f"/api/games/{fine['id']}/ai-move")
        assert played.status_code == 200, played.text
        assert played.json()["ai"]["simulations"] == 300


def test_mcts_default_iterations_are_checked_against_the_servers_limit(tmp_path):
    # mcts with neither iterations nor time searches 1000 iterations: a server allowing fewer says so
    # instead of running them; with a time alone its iterations are unlimited and the time bounds it
    limits = ServerLimits(max_ai_iterations=500, ai_workers=1)
    with TestClient(create_app(tmp_path / "data", limits=limits)) as client:
        refused = client.post("/api/games", json={"game": "connect4", "mode": "ai-ai", "ai": {"agent": "mcts"}})
        assert refused.status_code == 400, refused.text
        assert "iterations=1000" in detail(refused) and "--max-ai-iterations" in detail(refused)
        new_game(client, mode="ai-ai", ai={"agent": "mcts", "iterations": 500}, seed=1)
        new_game(client, mode="ai-ai", ai={"agent": "mcts", "time": 0.1}, seed=1)


def test_an_ai_move_reports_its_queue_wait_and_search_time_and_runs_within_the_node_cap(tmp_path):
    limits = ServerLimits(max_tree_nodes=2000, ai_workers=1)
    with TestClient(create_app(tmp_path / "data", limits=limits)) as client:
        game = new_game(client, mode="ai-ai", ai={"agent": "mcts", "iterations": 1000000 // 1000}, seed=3)
        played = client.post(f"/api/games/{game['id']}/ai-move")
        assert played.status_code == 200, played.text
        ai = played.json()["ai"]
        assert ai["queued_seconds"] >= 0 and ai["search_seconds"] >= 0 and ai["agent"].startswith("mcts")
        trees = client.get(f"/api/games/{game['id']}/trees").json()
        assert len(trees) == 1 and trees[0]["nodes"] <= 2000 + 7  # one expansion past the cap at most


# --- cancellation ----------------------------------------------------------------------
def running(app) -> bool:
    """Whether a worker has taken an AI move."""
    return any(job["kind"] == "move" for job in app.state.ai.status()["running"])


def _start_waiting_move(client, game_id):
    """Ask for an AI move in a thread; return once a worker runs it."""
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("response", client.post(f"/api/games/{game_id}/ai-move")))
    thread.start()
    for _ in range(PATIENCE * 20):
        if running(client.app):
            break
        time.sleep(0.05)  # polling for a fact, not timing anything
    assert running(client.app), "the AI move never started"
    return thread, box


def test_undo_cancels_the_ai_move_in_flight_and_it_is_not_applied(tmp_path):
    with TestClient(create_app(tmp_path / "data", limits=ServerLimits(ai_workers=1))) as client:
        game = new_game(client, mode="human-ai", human_seat=0, ai={"agent": "test-wait-for-stop"}, seed=1)
        game = client.post(f"/api/games/{game['id']}/move", json={"action": 3}).json()
        thread, box = _start_waiting_move(client, game["id"])
        undone = client.post(f"/api/games/{game['id']}/undo")
        assert undone.status_code == 200 and undone.json()["moves"] == []
        thread.join(PATIENCE)
        cancelled = box["response"]
        assert cancelled.status_code == 409 and "cancelled" in detail(cancelled)
        assert client.get(f"/api/games/{game['id']}").json()["moves"] == []  # the stopped search played nothing


def test_a_new_game_replacing_this_one_cancels_its_ai_move(tmp_path):
    with TestClient(create_app(tmp_path / "data", limits=ServerLimits(ai_workers=2))) as client:
        game = new_game(client, mode="ai-ai", ai=[{"agent": "test-wait-for-stop"}, {"agent": "random"}], seed=1)
        thread, box = _start_waiting_move(client, game["id"])
        # a new game that replaces this one (the page's tab moved on) stops its search
        other = new_game(client, mode="human-human", replaces=game["id"])
        thread.join(PATIENCE)
        assert box["response"].status_code == 409 and "cancelled" in detail(box["response"])
        assert client.get(f"/api/games/{game['id']}").json()["moves"] == []
        assert other["moves"] == []


def test_a_newer_ai_request_replaces_the_one_in_flight(tmp_path):
    with TestClient(create_app(tmp_path / "data", limits=ServerLimits(ai_workers=2))) as client:
        game = new_game(client, mode="ai-ai", ai={"agent": "test-wait-for-stop"}, seed=1)
        first, first_box = _start_waiting_move(client, game["id"])
        second = threading.Thread(target=lambda: first_box.setdefault("second", client.post(f"/api/games/{game['id']}/ai-move")))
        second.start()
        first.join(PATIENCE)
        assert first_box["response"].status_code == 409 and "replaced" in detail(first_box["response"])
        client.post(f"/api/games/{game['id']}/undo")  # nothing to undo (409), so stop the second one by a new game
        new_game(client, replaces=game["id"])
        second.join(PATIENCE)
        assert first_box["second"].status_code == 409
        assert client.get(f"/api/games/{game['id']}").json()["moves"] == []


def test_a_client_that_goes_away_cancels_its_ai_move(tmp_path):
    """Drive the ASGI app directly: the request's receive channel reports a disconnect
    once the agent runs; the worker's stop is set and the game does not change."""
    app = create_app(tmp_path / "data", limits=ServerLimits(ai_workers=1))

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with app.router.lifespan_context(app):
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
                created = await http.post("/api/games", json={"game": "connect4", "mode": "ai-ai", "ai": {"agent": "test-wait-for-stop"}, "seed": 2})
                game_id = created.json()["id"]
                sent = []

                async def receive():
                    if not sent:
                        sent.append(1)
                        return {"type": "http.request", "body": b"", "more_body": False}
                    while not running(app):
                        await asyncio.sleep(0.05)
                    return {"type": "http.disconnect"}

                replies = []

                async def send(message):
                    replies.append(message)

                scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
                         "scheme": "http", "path": f"/api/games/{game_id}/ai-move", "raw_path": b"", "root_path": "",
                         "query_string": b"", "headers": [(b"host", b"test")], "client": ("127.0.0.1", 1), "server": ("test", 80),
                         "state": {}}
                await asyncio.wait_for(app(scope, receive, send), PATIENCE)
                after = (await http.get(f"/api/games/{game_id}")).json()
                stats = (await http.get("/api/status")).json()
                return replies, after, stats

    replies, after, stats = asyncio.run(scenario())
    assert after["moves"] == []
    assert stats["ai"]["cancelled"] >= 1


def test_a_full_queue_is_refused_with_503_and_nothing_waits_for_ever(tmp_path):
    with TestClient(create_app(tmp_path / "data", limits=ServerLimits(ai_workers=1, ai_queue=1))) as client:
        games = [new_game(client, mode="ai-ai", ai={"agent": "test-wait-for-stop"}) for _ in range(3)]
        first, first_box = _start_waiting_move(client, games[0]["id"])  # the one worker is busy
        second_box = {}
        second = threading.Thread(target=lambda: second_box.setdefault("r", client.post(f"/api/games/{games[1]['id']}/ai-move")))
        second.start()
        for _ in range(PATIENCE * 20):
            if client.get("/api/status").json()["ai"]["queued"] == 1:
                break
            time.sleep(0.05)
        refused = client.post(f"/api/games/{games[2]['id']}/ai-move")
        assert refused.status_code == 503 and "busy" in detail(refused) and refused.headers["retry-after"]
        for game, thread in ((games[0], first), (games[1], second)):
            new_game(client, replaces=game["id"])
            thread.join(PATIENCE)
        assert first_box["response"].status_code == 409 and second_box["r"].status_code == 409
        assert all(client.get(f"/api/games/{g['id']}").json()["moves"] == [] for g in games)


def test_an_agent_without_a_time_option_is_stopped_by_the_wall_clock(tmp_path, monkeypatch):
    from boardlab.web import aipool, sessions

    monkeypatch.setattr(sessions, "WALL_SLACK", 0.0)
    monkeypatch.setattr(aipool, "STOP_GRACE", PATIENCE)  # a stopped agent answers; it is not killed first
    with TestClient(create_app(tmp_path / "data", limits=ServerLimits(max_ai_seconds=0.01, ai_workers=1))) as client:
        game = new_game(client, mode="ai-ai", ai={"agent": "test-wait-for-stop"}, seed=1)
        played = client.post(f"/api/games/{game['id']}/ai-move")
        assert played.status_code == 200, played.text  # stopped, it played its move so far
        assert played.json()["ai"]["stopped_for"] == "time" and played.json()["moves"] == ["1"]


def test_a_search_past_its_memory_share_is_stopped(tmp_path):
    from boardlab.web.aipool import rss

    # two workers in all (one AI, one for trees), each allowed 400 MiB beyond what this process holds
    cap = rss() + 2 * 400 * 2**20
    with TestClient(create_app(tmp_path / "data", limits=ServerLimits(max_memory=cap, ai_workers=1))) as client:
        game = new_game(client, mode="ai-ai", ai={"agent": "test-memory-hog"}, seed=1)
        played = client.post(f"/api/games/{game['id']}/ai-move")
        if played.status_code == 200:  # stopped in time: its move so far is played
            assert played.json()["ai"]["stopped_for"] == "memory"
        else:  # still growing after the stop: ended
            assert played.status_code == 503 and "memory" in detail(played)
        status = client.get("/api/status").json()["ai"]
        assert status["stopped_for_memory"] == 1


# --- games kept in the data folder ------------------------------------------------------
def test_games_survive_a_restart_and_unknown_ones_get_an_honest_404(tmp_path):
    data = tmp_path / "data"
    with TestClient(create_app(data)) as client:
        game = new_game(client, mode="human-ai", human_seat=0, ai={"agent": "random"}, seed=7)
        game = client.post(f"/api/games/{game['id']}/move", json={"action": 3}).json()
        game = client.post(f"/api/games/{game['id']}/ai-move").json()
        moves = game["moves"]
        assert len(moves) == 2
    with TestClient(create_app(data)) as client:
        again = client.get(f"/api/games/{game['id']}")
        assert again.status_code == 200 and again.json()["moves"] == moves and again.json()["human_to_move"]
        assert client.post(f"/api/games/{game['id']}/move", json={"action": 3}).status_code == 200
        trees = client.get(f"/api/games/{game['id']}/trees/0/data")
        assert trees.status_code == 404
        missing = client.get("/api/games/nosuchgame")
        assert missing.status_code == 404 and "restart" not in detail(missing)


def test_a_game_from_a_set_up_position_is_replayed_after_a_restart(tmp_path):
    data = tmp_path / "data"
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    with TestClient(create_app(data)) as client:
        game = new_game(client, game="chess", position=fen)
        game = client.post(f"/api/games/{game['id']}/move", json={"move": "e2e4"}).json()
        before = client.get(f"/api/games/{game['id']}").json()
    with TestClient(create_app(data)) as client:
        after = client.get(f"/api/games/{game['id']}").json()
    assert after["moves"] == before["moves"] and after["board"] == before["board"] and after["text"] == before["text"]


def test_games_in_progress_are_not_dropped_by_newer_games(client):
    first = new_game(client, seed=1)
    client.post(f"/api/games/{first['id']}/move", json={"action": 0})
    for _ in range(210):
        new_game(client)
    kept = client.get(f"/api/games/{first['id']}")
    assert kept.status_code == 200 and kept.json()["moves"] == ["1"]


def test_games_unused_for_long_are_evicted_with_an_honest_message(tmp_path):
    clock = [1000.0]
    limits = ServerLimits(game_days=1)
    with TestClient(create_app(tmp_path / "data", limits=limits, clock=lambda: clock[0])) as client:
        old = new_game(client)
        clock[0] += 2 * 86400
        new_game(client)  # any request sweeps
        gone = client.get(f"/api/games/{old['id']}")
        assert gone.status_code == 404 and "unused" in detail(gone) and "restart" not in detail(gone)


# --- uploads ---------------------------------------------------------------------------------
def stored(data):
    """The uploaded files on disk (each server keeps its own folder under uploads/)."""
    return sorted(p.name for p in (data / "uploads").rglob("*") if p.is_file() and p.name != ".owner")


def _tree_bytes(tmp_path, nodes, seed=1, suffix=".tree"):
    path = tmp_path / f"t{nodes}-{seed}{suffix}"
    save_tree(random_mcts_tree(nodes, seed=seed), path)
    return path.read_bytes()


def test_uploads_have_a_quota_expire_and_are_deleted_at_shutdown(tmp_path):
    clock = [1000.0]
    data = tmp_path / "data"
    one = _tree_bytes(tmp_path, 500)
    limits = ServerLimits(upload_quota=int(2.5 * len(one)), upload_hours=1)
    with TestClient(create_app(data, limits=limits, clock=lambda: clock[0])) as client:
        a = client.post("/api/uploads", params={"name": "a.tree"}, content=one)
        b = client.post("/api/uploads", params={"name": "b.tree"}, content=one)
        assert a.status_code == 200 and b.status_code == 200
        full = client.post("/api/uploads", params={"name": "c.tree"}, content=one)
        assert full.status_code == 507 and "quota" in detail(full)
        assert len(stored(data)) == 2  # the refused one left nothing behind
        clock[0] += 2 * 3600
        c = client.post("/api/uploads", params={"name": "c.tree"}, content=one)  # the old ones expired
        assert c.status_code == 200, c.text
        # parsing, layout and export ran in the tree worker, not in the server's own process
        assert client.get(f"/api/uploads/{c.json()['id']}/data").status_code == 200
        assert client.get(f"/api/uploads/{c.json()['id']}/export", params={"format": "csv"}).status_code == 200
        assert client.get("/api/status").json()["trees"]["done"] >= 5  # 3 parses, a layout, an export
        expired = client.get(f"/api/uploads/{a.json()['id']}/data")
        assert expired.status_code == 404 and "expired" in detail(expired)
        assert stored(data) == [f"{c.json()['id']}.tree"]
    assert stored(data) == [] and list((data / "uploads").iterdir()) == []


def test_a_stop_that_closes_a_workers_pipe_mid_search_cancels_the_job_quietly(caplog):
    """Ctrl+C while a search runs: the pool's close() (the server's thread) kills the worker and drops
    its pipe while the dispatcher (another thread) is between polling and reading that pipe. The job
    must end as cancelled, and no traceback may reach the terminal (a CI run showed one)."""
    from types import SimpleNamespace

    from boardlab.web.aipool import AIPool, Cancelled, Job

    pool = AIPool(workers=1)

    class PipeClosedByTheStop:
        def send(self, message):
            pass

        def poll(self, timeout):
            pool.close()  # the stop lands here, between poll and recv
            return True

        def recv(self):
            raise OSError("handle is closed")

        def close(self):
            pass

    worker = SimpleNamespace(conn=PipeClosedByTheStop(), stop=threading.Event(), pid=None, ready=True,
                             process=SimpleNamespace(is_alive=lambda: False), kill=lambda: None, close=lambda: None)
    pool._workers[0] = worker
    pool._worker = lambda ctx, index: worker
    job = Job("move", {})
    pool.queue.put_nowait(job)
    pool.queue.put_nowait(None)  # what close() gives each dispatcher thread; this test runs the dispatcher itself
    with caplog.at_level("ERROR", logger="boardlab.web"):
        pool._dispatch(None, 0)
    with pytest.raises(Cancelled, match="shutting down"):
        job.future.result(timeout=0)
    assert worker.conn is None  # close() did drop the pipe under the running job
    assert not [record for record in caplog.records if record.levelname == "ERROR"], caplog.text


def test_a_worker_recycled_while_the_pool_shuts_down_closes_without_its_dropped_pipe():
    """A dispatcher ending a big idle worker (Worker.close) can run just after the pool's close() has dropped
    that worker's pipe (conn = None, another thread): the recycling must not raise in the dispatcher thread
    (a CI run showed an AttributeError there)."""
    from types import SimpleNamespace

    from boardlab.web.aipool import Worker

    joined = []
    dropped = SimpleNamespace(conn=None, kill=lambda: None, process=SimpleNamespace(join=joined.append))
    Worker.close(dropped)  # type: ignore[arg-type]
    assert joined == [2]
