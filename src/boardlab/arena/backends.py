"""Where a tournament's games are played: in this process, a local process pool, or Ray.

Each backend takes a :class:`~boardlab.arena.worker.Job` and the games still to
play and yields finished :class:`~boardlab.arena.store.GameResult` objects as
soon as they come back, in whatever order they finish. The caller (the only
writer of the store) commits each one. Games are sent in small chunks so that
short games are not dominated by the cost of a round trip.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager
from typing import Iterator, Sequence, TypeVar

from boardlab.arena.schedule import ScheduledGame
from boardlab.arena.store import GameResult
from boardlab.arena.worker import Job, play_chunk
from boardlab.core.errors import BoardlabError

BACKENDS = ("process", "ray")

T = TypeVar("T")


def check_backend(backend: str, address: str | None = None) -> None:
    """Refuse an unknown backend, and a Ray cluster's address given to another backend (it would be ignored)."""
    if backend not in BACKENDS:
        raise BoardlabError(f"unknown backend {backend!r} (one of {', '.join(BACKENDS)})")
    if backend != "ray" and address:
        raise BoardlabError("--address needs --backend ray")


def default_workers() -> int:
    """The CPU cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def chunked(games: Sequence[T], workers: int) -> list[list[T]]:
    """Split ``games`` into chunks: about 8 per worker, at most 32 games each."""
    size = max(1, min(32, len(games) // (8 * workers)))
    return [list(games[i : i + size]) for i in range(0, len(games), size)]


def run_serial(job: Job, games: Sequence[ScheduledGame]) -> Iterator[GameResult]:
    for scheduled in games:
        yield from play_chunk(job, [scheduled])


def _exit_with(parent: int) -> None:
    """Pool worker initializer: exit when the tournament process is gone.

    A tournament killed with SIGKILL cannot shut its pool down; without this
    its workers would wait for work forever.
    """

    def watch() -> None:
        while True:
            time.sleep(0.5)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:  # a process of another user took the id: ours is gone
                os._exit(1)

    threading.Thread(target=watch, name="boardlab-parent-watch", daemon=True).start()
    # Ctrl-C reaches the whole process group; the tournament process handles it, workers just stop when told
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_process_pool(job: Job, games: Sequence[ScheduledGame], workers: int) -> Iterator[GameResult]:
    """A pool of ``workers`` fresh (forkserver) processes; fork is unsafe with numba and torch threads."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    chunks = chunked(games, workers)
    executor = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_exit_with, initargs=(os.getpid(),))
    try:
        # keep a bounded number of chunks in flight so a huge tournament does not queue everything
        pending = set()
        queue = iter(chunks)
        for chunk in queue:
            pending.add(executor.submit(play_chunk, job, chunk))
            if len(pending) >= 2 * workers:
                break
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                finished = future.result()
                nxt = next(queue, None)  # refill first, so workers play while this process commits
                if nxt is not None:
                    pending.add(executor.submit(play_chunk, job, nxt))
                yield from finished
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def start_local_ray(cpus: int) -> None:
    """Start a local Ray instance with ``cpus`` CPUs whose workers import what this process imports.

    The workers get this process's ``sys.path`` as ``PYTHONPATH``, so boardlab
    and plug-in modules are found even when they are not installed.
    """
    import ray

    paths = [p for p in sys.path if p and os.path.isdir(p)]
    ray.init(
        num_cpus=cpus,
        include_dashboard=False,
        logging_level=logging.ERROR,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(paths)}},
    )


@contextmanager
def ray_session(workers: int, address: str | None) -> Iterator:
    """The ``ray`` module, connected: to the cluster at ``address``, or to a local instance with
    ``workers`` CPUs. A Ray instance already running in this process is used as it is and left
    running; one started here is shut down at the end."""
    try:
        import ray
    except ImportError:
        raise BoardlabError("--backend ray needs Ray: pip install 'boardlab[ray]'") from None
    started = False
    if not ray.is_initialized():
        try:
            if address:
                ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
            else:
                start_local_ray(workers)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise BoardlabError(f"cannot start or reach Ray{f' at {address}' if address else ''}: {exc}") from None
        started = True
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()


def run_ray(job: Job, games: Sequence[ScheduledGame], workers: int, address: str | None = None) -> Iterator[GameResult]:
    """Play on a Ray cluster (``address``) or on a local Ray instance with ``workers`` CPUs.

    boardlab (and any plug-in module the job's registry entries name) must be
    importable on the cluster's nodes. A Ray instance that is already running
    in this process is used as it is and left running.
    """
    with ray_session(workers, address) as ray:
        remote_chunk = ray.remote(play_chunk)
        cpus = int(ray.cluster_resources().get("CPU", workers))
        job_ref = ray.put(job)
        queue = iter(chunked(games, max(1, cpus)))
        # range first: zip stops on it without drawing (and losing) one more chunk
        pending = [remote_chunk.remote(job_ref, chunk) for _, chunk in zip(range(2 * max(1, cpus)), queue)]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                try:
                    finished = ray.get(ref)
                except ray.exceptions.RayTaskError as exc:
                    # a user error in a game (an illegal move, a bad spec) is reported as itself
                    if isinstance(getattr(exc, "cause", None), BoardlabError):
                        raise exc.cause from None
                    raise
                nxt = next(queue, None)  # refill first, so workers play while this process commits
                if nxt is not None:
                    pending.append(remote_chunk.remote(job_ref, nxt))
                yield from finished


def _call(fn, item):
    return fn(item)


def map_tasks(fn, items: Sequence, workers: int, backend: str = "process", address: str | None = None) -> Iterator:
    """``fn(item)`` for each item, yielded as each finishes (any order): in this process
    (``workers <= 1`` and no Ray), a pool of fresh processes, or Ray.

    For long independent jobs such as training runs, one item per task: ``fn`` must be
    a module-level function (it is pickled) and each item small. The pool's workers
    exit when this process is killed (see :func:`_exit_with`), so a job killed with
    SIGKILL leaves nothing behind that could race its resumed self.
    """
    check_backend(backend, address)
    items = list(items)
    if backend == "process" and (workers <= 1 or len(items) <= 1):
        for item in items:
            yield fn(item)
        return
    if backend == "process":
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        executor = ProcessPoolExecutor(max_workers=min(workers, len(items)), mp_context=multiprocessing.get_context(method),
                                       initializer=_exit_with, initargs=(os.getpid(),))
        try:
            pending = {executor.submit(fn, item) for item in items}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        finally:
            executor.shutdown(wait=True, cancel_futures=True)
        return
    with ray_session(max(1, workers), address) as ray:
        remote = ray.remote(_call)  # ray.remote takes functions only, not a functools.partial
        fn_ref = ray.put(fn)
        refs = [remote.remote(fn_ref, item) for item in items]
        while refs:
            done, refs = ray.wait(refs, num_returns=1)
            for ref in done:
                try:
                    yield ray.get(ref)
                except ray.exceptions.RayTaskError as exc:
                    if isinstance(getattr(exc, "cause", None), BoardlabError):
                        raise exc.cause from None
                    raise
