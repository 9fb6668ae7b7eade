"""The acceptance test of a hardened server: the real ``boardlab serve`` in a subprocess.

Two AI moves ask for a million seconds each (``mcts:time=1000000``) on a server
whose operator lifted the time limit (``--max-ai-seconds 1000000``), so that
only the other defences hold it: searches run in worker processes (the page
keeps answering), the tree of one search is capped (``--max-tree-nodes``), the
memory of the server and its workers is watched (``--max-memory``), and SIGTERM
ends the searches instead of waiting for them.

This is the one test that times anything. Its margins, and why:

* ``GET /`` under 0.2 s: the page is one small file; an idle server on a quiet
  machine answers in about 3 ms, and the searches run at a lower priority in
  other processes. A shared machine can be so busy that even an idle server
  takes longer (seen: 0.36 s at a load average of 12 on two cores), so the
  test first measures the same server idle and allows 0.2 s on top of the
  slowest idle answer: the searches may cost at most 0.2 s per answer, and on
  a quiet machine that is the plain 0.2 s. (A server that searched in its own process took 2-10 s.)
* SIGTERM within 2 s: the server kills its workers at once and tells uvicorn
  to wait at most 1 s for requests; what is left is interpreter shutdown.
* memory: sampled every 0.2 s from /proc (the server and all its children);
  the cap is the server's own --max-memory, with no slack.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

import httpx
import pytest

CAP_MIB = 2048
PAGE = os.sysconf("SC_PAGE_SIZE")


def tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and every process below it, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/statm", "rb") as handle:
                total += int(handle.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            pass
        todo.extend(children.get(current, []))
    return total


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads memory from /proc")
def test_a_real_server_stays_responsive_bounded_and_stoppable_with_million_second_searches(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(p) for p in sys.path if p]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardlab", "serve", "--port", "0", "--data", str(tmp_path / "data"), "--json",
         "--max-ai-seconds", "1000000", "--max-memory", str(CAP_MIB), "--ai-workers", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    replies: dict[str, list] = {"connect4": [], "chess": []}
    stop_asking = threading.Event()
    try:
        info = json.loads(proc.stdout.readline())
        url = info["url"]
        assert info["limits"]["max_ai_seconds"] == 1000000
        http = httpx.Client(base_url=url, timeout=30)
        for _ in range(200):
            try:
                http.get("/")
                break
            except httpx.TransportError:
                time.sleep(0.1)
        idle = []
        for _ in range(10):
            start = time.perf_counter()
            http.get("/")
            idle.append(time.perf_counter() - start)
            time.sleep(0.05)
        allowed = 0.2 + max(idle)
        games = {}
        for name in replies:
            made = http.post("/api/games", json={"game": name, "mode": "ai-ai", "ai": {"agent": "mcts", "time": 1000000}, "seed": 1})
            assert made.status_code == 200, made.text
            games[name] = made.json()["id"]

        def ask(name: str) -> None:
            # connect4's compiled search fills its node cap in seconds and answers; ask again, so
            # that two searches are always in flight
            with httpx.Client(base_url=url, timeout=600) as own:
                while not stop_asking.is_set():
                    try:
                        reply = own.post(f"/api/games/{games[name]}/ai-move")
                    except httpx.TransportError as exc:
                        replies[name].append(exc)
                        return
                    replies[name].append(reply)
                    if reply.status_code != 200:
                        return

        askers = [threading.Thread(target=ask, args=(name,), daemon=True) for name in replies]
        for thread in askers:
            thread.start()
        latencies, memory, running = [], [], []
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            start = time.perf_counter()
            page = http.get("/")
            latencies.append(time.perf_counter() - start)
            assert page.status_code == 200
            memory.append(tree_rss(proc.pid))
            running.append(len(http.get("/api/status").json()["ai"]["running"]))
            time.sleep(0.2)
        # two searches in flight (connect4's may be between two moves for an instant); chess's never ends
        assert max(running) == 2 and running[-1] >= 1, running
        print(f"GET / latencies (s), idle: {[round(x, 4) for x in idle]}")
        print(f"GET / latencies (s), two searches: {[round(x, 4) for x in latencies]}")
        print(f"server + workers RSS (MiB): max {max(memory) / 2**20:.0f}, cap {CAP_MIB}")
        print(f"connect4 moves answered while measuring: {len(replies['connect4'])}")
        # a server that searched on its event loop would stall every request for the whole search;
        # on 2 busy cores one request in twenty can wait a scheduler slice, which says nothing
        assert statistics.median(latencies) < allowed and max(latencies) < 2.0, (latencies, idle)
        assert max(memory) < CAP_MIB * 2**20, memory
        assert all(r.status_code == 200 for r in replies["connect4"] if isinstance(r, httpx.Response))
        for reply in replies["connect4"]:
            if isinstance(reply, httpx.Response):
                assert reply.json()["ai"]["nodes"] <= 1_100_000 * 2  # the node cap, plus one compiled chunk
        http.close()
        stopped_at = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        took = time.monotonic() - stopped_at
        print(f"SIGTERM to exit: {took:.2f} s")
        assert took < 2.0, took
    finally:
        stop_asking.set()
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    # the chess search in flight was answered, not left hanging: cancelled by the shutdown
    last = replies["chess"][-1] if replies["chess"] else None
    assert last is not None
    if isinstance(last, httpx.Response):
        assert last.status_code in (409, 503), last.text


def test_ctrl_c_stops_the_server_and_its_workers_without_a_traceback(tmp_path):
    """Ctrl+C in a terminal sends SIGINT to the whole foreground process group: the server, its fork
    server and every AI worker. The server handles the stop; the workers must not each print a
    KeyboardInterrupt traceback (as `make run` showed), and nothing of the group may stay behind."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(p) for p in sys.path if p]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardlab", "serve", "--port", "0", "--temporary", "--json", "--ai-workers", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True,  # its own process group, as a terminal gives a foreground job
    )
    try:
        url = json.loads(proc.stdout.readline())["url"]
        http = httpx.Client(base_url=url, timeout=30)
        deadline = time.monotonic() + 120
        while True:  # listening (the port is bound before it listens), every worker started and waiting for jobs
            try:
                status = http.get("/api/status").json()
            except httpx.TransportError as exc:
                status = exc
            if isinstance(status, dict) and all(status[pool]["ready"] == status[pool]["workers"] for pool in ("ai", "trees")):
                break
            assert time.monotonic() < deadline, status
            time.sleep(0.1)
        game = http.post("/api/games", json={"game": "chess", "mode": "ai-ai", "ai": {"agent": "mcts", "time": 30}, "seed": 1})
        assert game.status_code == 200, game.text
        asked = threading.Thread(target=lambda: httpx.post(f"{url}api/games/{game.json()['id']}/ai-move", timeout=60),
                                 daemon=True)
        asked.start()  # a search in flight when Ctrl+C comes
        while not http.get("/api/status").json()["ai"]["running"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        http.close()
        os.killpg(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    gone_by = time.monotonic() + 10
    while True:  # the workers, the fork server and the resource tracker end with the server
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < gone_by, "processes of the server's group are still running"
        time.sleep(0.1)
