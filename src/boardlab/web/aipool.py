"""The server's side of its AI workers: a bounded queue, N worker processes, cancellation, watchdogs.

Every AI move and every parse of an uploaded tree is a :class:`Job` put on one
bounded queue; ``workers`` dispatcher threads each own one worker process
(:mod:`boardlab.web.aiworker`) and feed it one job at a time, so at most N
searches share the machine's cores whatever the number of requests, and a move
asked for ``time=5`` searches five seconds once it has a worker. A full queue
is refused at once (:class:`Busy`, HTTP 503).

While a job runs its dispatcher watches it:

* cancellation (:meth:`Job.cancel`: the client went away, a newer request
  replaced it, the server is stopping) sets the worker's stop event; a worker
  that has not answered ``grace`` seconds later is killed and replaced;
* a wall clock: a move still running well past the server's time limit
  (``max_ai_seconds`` plus slack, for agents that have no time option) is
  stopped the same way;
* memory: the resident memory of the server and all its workers together is
  kept under ``max_memory``: a worker whose share is exceeded is told to stop
  (its search returns the best move so far), and killed if it still grows;
  a worker left big by a finished job is replaced before the next one.

:meth:`AIPool.close` kills every worker at once: a server that is told to stop
never waits for a search.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from boardlab.core.errors import BoardlabError

log = logging.getLogger("boardlab.web")

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
#: seconds a worker has to answer once told to stop, before it is killed
STOP_GRACE = 1.0
#: a worker left bigger than this (or a quarter of its share) by a job is replaced before the next
#: (a fresh one takes about 200 MiB; the allocator keeps what a big search or parse took)
RECYCLE = 400 * 2**20
#: why every job still queued or running when the pool closes ends
SHUTDOWN = "the server is shutting down"


class Busy(BoardlabError):
    """Every worker is busy and the queue is full (HTTP 503)."""


class Cancelled(BoardlabError):
    """The job was cancelled before it finished; nothing it did is applied (HTTP 409)."""


class WorkerFailed(BoardlabError):
    """The worker could not finish the job: it was stopped for memory or time, or died (HTTP 503)."""


def rss(pid: int | None = None) -> int:
    """Resident memory of a process in bytes, from /proc (0 when it is gone or unreadable)."""
    try:
        with open(f"/proc/{pid or 'self'}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return 0


@dataclass
class Job:
    kind: str
    payload: dict[str, Any]
    #: the wall-clock seconds after which the job is stopped (None: no limit)
    wall: float | None = None
    future: concurrent.futures.Future = field(default_factory=concurrent.futures.Future)
    queued_at: float = field(default_factory=time.monotonic)
    started_at: float | None = None
    cancel_reason: str | None = None
    id: int = field(default_factory=itertools.count(1).__next__)

    def cancel(self, reason: str) -> None:
        """Stop this job (its worker is told at once); its result will never be used."""
        if self.cancel_reason is None:
            self.cancel_reason = reason

    @property
    def cancelled(self) -> bool:
        return self.cancel_reason is not None


class Worker:
    """One worker process and the pipe and stop event that go with it."""

    def __init__(self, ctx, index: int, scratch: str | None = None) -> None:
        from boardlab.web import aiworker

        self.index = index
        self.conn, child = ctx.Pipe()
        self.stop = ctx.Event()
        self.process = ctx.Process(
            target=aiworker.main, args=(child, self.stop, os.getpid(), list(sys.path), scratch),
            name=f"boardlab-ai-{index}", daemon=True,
        )
        self.process.start()
        child.close()
        self.ready = False

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def wait_ready(self, timeout: float) -> bool:
        if not self.ready and self.conn.poll(timeout):
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                return False
            self.ready = message[0] == "ready"
        return self.ready

    def kill(self) -> None:
        try:
            self.process.kill()
        except (OSError, AttributeError, ValueError):
            pass

    def close(self) -> None:
        self.kill()
        try:
            self.process.join(2)
        except (OSError, AssertionError, ValueError):
            pass
        conn = self.conn  # the pool's shutdown drops it (None) while a dispatcher may be recycling this worker
        if conn is not None:
            try:
                conn.close()
            except OSError:
                pass


def _context():
    """Workers start from a fork server that has imported the worker module once (fast starts,
    no threads copied from the server); where there is none, each starts afresh."""
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["boardlab.web.aiworker"])
        return ctx
    return multiprocessing.get_context("spawn")


class AIPool:
    """N worker processes behind one bounded queue (see the module docstring)."""

    def __init__(self, workers: int = 2, queue_size: int = 16, max_memory: int = 4096 * 2**20,
                 grace: float | None = None, start_timeout: float = 120.0, prestart: bool = False,
                 scratch: Callable[[], str | None] | None = None, workers_in_all: int | None = None,
                 name: str = "AI") -> None:
        self.size = max(1, int(workers))
        self.queue: queue.Queue[Job | None] = queue.Queue(maxsize=max(1, int(queue_size)))
        self.max_memory = int(max_memory)
        self.grace = STOP_GRACE if grace is None else grace
        self.start_timeout = start_timeout
        #: start the workers with the pool (a server), not with the first job (tests)
        self.prestart = prestart
        #: the folder where workers leave big results (see :func:`boardlab.web.aiworker.pack_result`)
        self.scratch = scratch or (lambda: None)
        #: worker processes of every pool of the server (the memory cap is shared by all)
        self.workers_in_all = max(self.size, workers_in_all or self.size)
        self.name = name
        self.closed = False
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._workers: dict[int, Worker | None] = {}
        self._running: dict[int, Job] = {}
        self.stats = {"done": 0, "cancelled": 0, "failed": 0, "stopped_for_memory": 0, "killed": 0, "refused_busy": 0}

    # --- asking -------------------------------------------------------------------
    def submit(self, job: Job) -> concurrent.futures.Future:
        """Queue ``job``; :class:`Busy` when the queue is full."""
        if self.closed:
            raise WorkerFailed(SHUTDOWN)
        self._start()
        try:
            self.queue.put_nowait(job)
        except queue.Full:
            self.stats["refused_busy"] += 1
            raise Busy(
                f"the server is busy: {self.size} {self.name} worker(s) at work and {self.queue.qsize()} job(s) waiting"
                + (" (boardlab serve --ai-workers, --ai-queue)" if self.name == "AI" else "") + "; try again in a moment"
            ) from None
        return job.future

    def status(self) -> dict[str, Any]:
        with self._lock:
            workers = [w for w in self._workers.values() if w is not None]
            running = [
                {"kind": j.kind, "seconds": round(time.monotonic() - (j.started_at or j.queued_at), 3)}
                for j in self._running.values()
            ]
        return {
            "workers": self.size,
            "started": len(workers),
            "ready": sum(1 for w in workers if w.ready),
            "queued": self.queue.qsize(),
            "running": running,
            "memory": {"server": rss(), "workers": sum(rss(w.pid) for w in workers), "cap": self.max_memory},
            **self.stats,
        }

    def reopen(self) -> None:
        """Take jobs again after :meth:`close` (an app started again, as test clients do)."""
        with self._lock:
            if not self.closed:
                return
            self.closed = False
            self.queue = queue.Queue(maxsize=self.queue.maxsize)
            self._threads = []
            self._workers = {}
            self._running = {}

    def close(self) -> None:
        """Stop at once: cancel queued and running jobs, kill every worker."""
        if self.closed:
            return
        self.closed = True
        while True:
            try:
                job = self.queue.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                job.cancel(SHUTDOWN)
                _fail(job, Cancelled(f"cancelled: {SHUTDOWN}"))
        with self._lock:
            for job in self._running.values():
                job.cancel(SHUTDOWN)
            workers = [w for w in self._workers.values() if w is not None]
        for worker in workers:
            worker.kill()
        for _ in self._threads:
            try:
                self.queue.put_nowait(None)
            except queue.Full:
                pass
        for worker in workers:
            worker.close()
        with self._lock:
            # drop the pipes and stop events now: their semaphores are released with them
            for worker in workers:
                worker.stop = worker.conn = None
            self._workers = {index: None for index in self._workers}

    # --- the dispatchers ---------------------------------------------------------
    def start(self) -> None:
        """Start the dispatchers (and with ``prestart`` the workers) now rather than with the first job."""
        self._start()

    def _start(self) -> None:
        with self._lock:
            if self._threads:
                return
            ctx = _context()
            for index in range(self.size):
                self._workers[index] = None
                thread = threading.Thread(target=self._dispatch, args=(ctx, index), daemon=True, name=f"boardlab-ai-dispatch-{index}")
                self._threads.append(thread)
                thread.start()

    def _worker(self, ctx, index: int) -> Worker:
        worker = self._workers.get(index)
        if worker is not None and worker.process.is_alive():
            return worker
        if worker is not None:
            worker.close()
        worker = Worker(ctx, index, self.scratch())
        with self._lock:
            self._workers[index] = worker
        if not worker.wait_ready(self.start_timeout):
            worker.close()
            with self._lock:
                self._workers[index] = None
            raise WorkerFailed("an AI worker process did not start")
        return worker

    def _dispatch(self, ctx, index: int) -> None:
        jobs = self.queue  # this dispatcher's generation (reopen makes a new queue)
        if self.prestart:
            try:
                self._worker(ctx, index)
            except WorkerFailed:
                pass  # tried again with the first job
        while not self.closed:
            job = jobs.get()
            if job is None or self.closed:
                if job is not None:
                    _fail(job, Cancelled(f"cancelled: {SHUTDOWN}"))
                return
            if job.cancelled:
                self.stats["cancelled"] += 1
                _fail(job, Cancelled(f"cancelled: {job.cancel_reason}"))
                continue
            try:
                worker = self._worker(ctx, index)
            except WorkerFailed as exc:
                self.stats["failed"] += 1
                _fail(job, exc)
                continue
            job.started_at = time.monotonic()
            with self._lock:
                self._running[index] = job
            try:
                self._run(worker, job)
            except Exception as exc:  # noqa: BLE001  never lose a dispatcher
                if self.closed:  # close() pulled the worker from under the job: the shutdown, not a fault
                    _fail(job, Cancelled(f"cancelled: {SHUTDOWN}"))
                else:
                    log.exception("AI dispatcher %d", index)
                    _fail(job, WorkerFailed(f"the AI worker failed: {exc}"))
            finally:
                with self._lock:
                    self._running.pop(index, None)
            if not self.closed and worker.process.is_alive() and rss(worker.pid) > max(RECYCLE, self._share() / 4):
                worker.close()  # a big idle worker gives its memory back by ending; the next job starts a fresh one
                with self._lock:
                    self._workers[index] = None

    def _send(self, conn: multiprocessing.connection.Connection, job: Job) -> None:
        """Hand ``job`` to a worker through its pipe ``conn``; big payloads (trees) go through a scratch file."""
        from boardlab.web.aiworker import pack_file

        scratch = self.scratch() if job.kind in ("pack", "export") else None
        if scratch is not None:
            path = os.path.join(scratch, f"in-{os.getpid()}-{job.id}.bin")
            packed = pack_file(job.payload, path)
            if packed is not None:
                conn.send(("file-job", job.kind, packed[0], path, packed[1]))
                return
        conn.send((job.kind, job.payload))

    def _share(self) -> int:
        """The memory one worker may use: the cap less the server's own, split evenly."""
        return max(64 * 2**20, (self.max_memory - rss()) // self.workers_in_all)

    def _run(self, worker: Worker, job: Job) -> None:
        # close() may drop the worker's pipe and stop event at any moment from another thread:
        # hold them here, and read a closed pipe as a worker that is gone
        conn, stop = worker.conn, worker.stop
        if conn is None or stop is None:
            _fail(job, Cancelled(f"cancelled: {SHUTDOWN}"))
            return
        stop.clear()
        try:
            self._send(conn, job)
        except (OSError, ValueError, pickle.PicklingError) as exc:
            worker.kill()
            self.stats["failed"] += 1
            _fail(job, WorkerFailed(f"the AI worker could not take the job: {exc}"))
            return
        stop_sent_at: float | None = None
        stopped_for: str | None = None
        next_memory_check = 0.0
        while True:
            try:
                message = conn.recv() if conn.poll(0.05) else None
            except (EOFError, OSError, ValueError):
                message = ("died", None)
            if message is not None:
                kind, value = message[0], message[1]
                if kind == "ok-file":
                    from boardlab.web.aiworker import load_result

                    try:
                        kind, value = "ok", load_result(*message[1:])
                    except (OSError, ValueError, pickle.UnpicklingError) as exc:
                        kind, value = "error", f"the worker's result could not be read: {exc}"
                break
            if not worker.process.is_alive():
                kind, value = "died", None
                break
            now = time.monotonic()
            if stop_sent_at is None:
                if job.cancelled:
                    stopped_for = "cancel"
                elif job.wall is not None and now - (job.started_at or job.queued_at) > job.wall:
                    stopped_for = "time"
                if stopped_for is None and now >= next_memory_check:
                    next_memory_check = now + 0.1
                    if rss(worker.pid) > 0.85 * self._share():
                        stopped_for = "memory"
                        self.stats["stopped_for_memory"] += 1
                if stopped_for is not None:
                    stop.set()
                    stop_sent_at = now
            else:
                over_memory = now >= next_memory_check and rss(worker.pid) > self._share()
                if over_memory:
                    next_memory_check = now + 0.1
                if over_memory or now - stop_sent_at > self.grace or (self.closed and stopped_for == "cancel"):
                    worker.kill()
                    self.stats["killed"] += 1
                    worker.process.join(5)
                    kind, value = "killed", None
                    break
        if job.cancelled:
            self.stats["cancelled"] += 1
            _fail(job, Cancelled(f"cancelled: {job.cancel_reason}"))
            return
        if kind in ("ok", "user-error", "error"):
            trim_memory()  # a big answer (a tree) passed through buffers the allocator would keep
        if kind == "ok":
            if isinstance(value, dict):
                value["stopped_for"] = stopped_for
            self.stats["done"] += 1
            _finish(job, value)
            return
        self.stats["failed"] += 1
        if kind == "user-error":
            _fail(job, BoardlabError(value))
        elif kind == "error":
            log.error("AI worker error:\n%s", value)
            last = str(value).strip().splitlines()[-1] if value else "unknown error"
            _fail(job, WorkerFailed(f"the AI worker failed: {last}"))
        elif stopped_for == "memory" or kind == "killed" and stopped_for is None:
            _fail(job, WorkerFailed(
                f"the search was ended: it passed this server's memory cap of {self.max_memory // 2**20} MiB "
                "(boardlab serve --max-memory); ask for less time, fewer iterations or a smaller max_nodes"))
        elif stopped_for == "time":
            _fail(job, WorkerFailed(
                f"the AI took more than the {job.wall:g} s this server allows a move (boardlab serve --max-ai-seconds)"))
        else:
            _fail(job, WorkerFailed("the AI worker process ended unexpectedly; it has been replaced"))


def trim_memory() -> None:
    """Hand freed heap memory back to the system (glibc), so that the server's resident size
    follows what it holds rather than its peak."""
    global _libc
    if _libc is None:
        try:
            import ctypes

            _libc = ctypes.CDLL("libc.so.6")
            _libc.malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):
            _libc = False
    if _libc:
        _libc.malloc_trim(0)


_libc: Any = None


def _finish(job: Job, value: Any) -> None:
    if not job.future.done():
        try:
            job.future.set_result(value)
        except concurrent.futures.InvalidStateError:
            pass


def _fail(job: Job, exc: BaseException) -> None:
    if not job.future.done():
        try:
            job.future.set_exception(exc)
        except concurrent.futures.InvalidStateError:
            pass
