"""Where many independent tasks run: local processes or a Ray cluster, behind one small interface.

Tournaments (one match per task) and corpus-wide runs (one game per task) hand their work to a
:class:`Backend`, which runs a module-level function over many argument tuples and yields each
task's :class:`Outcome` as it completes:

>>> from gdl.backend import open_backend
>>> with open_backend(None, jobs=2) as backend:
...     sorted(outcome.value for outcome in backend.map(pow, [(2, 3), (3, 2)]))
[8, 9]

The same loop drives both backends. A task whose worker dies (killed, out of memory, its node
gone) is run again, up to ``retries`` times; after that its outcome is *lost*, with the reason, and
never silently dropped. An exception raised by the function itself is not a failure of the worker:
it propagates to the caller. Ctrl-C (:class:`KeyboardInterrupt`) or any other exception cancels the
work not yet done, on the cluster too, and propagates.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import sys
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from gdl.backend_base import Backend, Lost, Outcome
from gdl.deprecation import moved_names
from gdl.errors import ClusterError, WorkerStartError
from gdl.workers import context

_Pool = concurrent.futures.ProcessPoolExecutor


class Processes(Backend[concurrent.futures.Future[Any]]):
    """Tasks in local worker processes (started by a fork server, so they do not inherit threads).

    When a worker dies, Python's process pool breaks and fails every task it holds, without saying
    whose worker died. Those tasks are then run one at a time, so that a task is only blamed (and
    eventually lost) for a death that struck it alone.
    """

    name = "processes"

    def __init__(self, jobs: int | None = None, retries: int = 2) -> None:
        super().__init__(retries)
        self.jobs = jobs or os.cpu_count() or 1
        self._pool: _Pool | None = None
        #: The pool of each task under way (a task of a pool that broke must not discard its successor).
        self._pools: dict[concurrent.futures.Future[Any], _Pool] = {}
        #: How many tasks each broken pool failed, known at the first news of the break.
        self._victims: dict[_Pool, int] = {}
        #: Tasks of broken pools still to be run alone, and the tasks under way that run alone.
        self._suspects = 0
        self._alone: set[concurrent.futures.Future[Any]] = set()
        #: Whether a worker has ever finished a task (if not, a broken pool may be one that cannot start).
        self._worked = False

    def _window(self) -> int:
        return 1 if self._suspects else 2 * self.jobs

    def _submit(
        self, function: Callable[..., Any], arguments: tuple[Any, ...], cpus: int
    ) -> concurrent.futures.Future[Any]:
        if self._pool is None:  # the first task, or the pool broke when a worker died
            if getattr(multiprocessing.current_process(), "_inheriting", False):
                # A new worker importing the script that started the work, which starts work again: a
                # script without an `if __name__ == "__main__":` guard. The worker leaves quietly; the
                # script's own process says what is wrong (see _check_start).
                raise SystemExit(1)
            self._pool = _new_pool(self.jobs)
        future = self._pool.submit(function, *arguments)
        self._pools[future] = self._pool
        if self._suspects:
            self._alone.add(future)
        return future

    def _wait(
        self, handles: list[concurrent.futures.Future[Any]]
    ) -> list[tuple[concurrent.futures.Future[Any], Any]]:
        done, _ = concurrent.futures.wait(handles, return_when=concurrent.futures.FIRST_COMPLETED)
        results: list[tuple[concurrent.futures.Future[Any], Any]] = []
        for future in done:
            pool = self._pools.pop(future)
            if future in self._alone:
                self._alone.remove(future)
                self._suspects -= 1
            try:
                results.append((future, future.result()))
                self._worked = True
            except BrokenProcessPool:
                if pool is self._pool:
                    self._discard_pool()
                if not self._worked:
                    _check_start()
                if pool not in self._victims:  # every task still in the pool shares its fate
                    self._victims[pool] = 1 + sum(other is pool for other in self._pools.values())
                blamed = self._victims[pool] == 1
                self._suspects += not blamed
                results.append((future, Lost("a worker process died (the process pool broke)", blamed)))
        return results

    def _cancel(self, handles: list[concurrent.futures.Future[Any]]) -> None:
        self._pools.clear()
        self._victims.clear()
        self._alone.clear()
        self._suspects = 0
        self._discard_pool(stop=True)

    def _discard_pool(self, stop: bool = False) -> None:
        """Let go of the pool; ``stop``: end its workers now, not after the tasks under way."""
        if self._pool is not None:
            workers = list(getattr(self._pool, "_processes", {}).values()) if stop else []
            self._pool.shutdown(wait=False, cancel_futures=True)
            for worker in workers:  # no public way to stop a task under way (Python 3.14 adds one)
                worker.kill()
            for worker in workers:
                worker.join(1)
            self._pool = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def _new_pool(jobs: int) -> _Pool:
    # The fork server is one per process: started here without gdl's preload, every later worker
    # process (players, checkers) would import gdl and load the compiled kernels again, inside its limits.
    return concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context())


def _check_start() -> None:
    """Raise :class:`WorkerStartError` when a worker process cannot even run ``os.getpid``."""
    pool = _new_pool(1)
    try:
        pool.submit(os.getpid).result()
    except BrokenProcessPool:
        main = sys.modules.get("__main__")
        script = getattr(main, "__file__", None)
        hint = (
            f"; {script} must start gdl's parallel work under `if __name__ == \"__main__\":`, since every "
            "worker process imports it"
            if script else ""
        )
        raise WorkerStartError(f"worker processes cannot start (they die as they start){hint}") from None
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def open_backend(cluster: str | None, jobs: int | None = None, retries: int = 2) -> Backend[Any]:
    """The backend a ``--cluster`` value names: None for local processes (``jobs`` of them, default
    one per CPU), ``ray`` for a Ray cluster started here (of ``jobs`` CPUs, default all), or
    ``ray:ADDRESS`` to join a running one (``ray:auto`` finds the one on this machine)."""
    if cluster is None:
        return Processes(jobs, retries)
    kind, colon, address = cluster.partition(":")
    if kind.strip().lower() != "ray" or (colon and not address.strip()):
        raise ClusterError(f"unknown cluster {cluster!r} (use ray, or ray:ADDRESS to join a running one)")
    try:
        from gdl.cluster import RayCluster  # imports ray, an optional extra
    except ImportError:
        raise ClusterError("--cluster ray needs Ray: pip install 'gdl[cluster]'") from None
    return RayCluster(address.strip() or None, jobs, retries)


__all__ = ["Backend", "ClusterError", "Lost", "Outcome", "Processes", "open_backend"]


moved_names(__name__, "gdl.errors", "ClusterError")
