"""Worker processes for work on untrusted rules, under CPU-time and memory limits, killed on demand.

Rules that arrive over the network may be built to explode: a START of a few kilobytes can ask for
gigabytes and minutes of checking, loading or reasoning. The player server therefore never does such
work itself: checking, the players and the spare referee each run in a child process whose address
space is capped (``RLIMIT_AS``) and whose CPU time is capped (``RLIMIT_CPU``: the kernel ends the
process when it is spent). A checker or a referee gets an allowance for each call; a player gets one
allowance for its whole match, which the server raises as the clocks run (:meth:`WorkerProcess.allow`),
so that what it saved on one turn it may spend on another. The server waits for a call only until its
deadline and kills the process when the match ends or the call overruns, so nothing keeps running that
nobody waits for. A worker reports a broken limit in words (:attr:`WorkerProcess.failure`).

The match runner uses the same workers for players that must not share its process: a player of a
game with hidden information would find the true state among the referee's objects.
"""

from __future__ import annotations

import contextlib
import gc
import math
import multiprocessing
import multiprocessing.connection
import os
import pickle
import resource
import signal
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gdl.deprecation import moved_names
from gdl.errors import LimitExceeded, ProtocolError

#: How much lower than the server's the scheduling priority of workers is (Unix niceness). Players at
#: the lowest priority, so that the server is scheduled first whenever it has a message (with forty
#: searches at niceness 5 the server missed most clocks); the spare referee higher, since it is wanted
#: only when a player is stuck, and then at once. Checkers of rules not yet known to be playable are at
#: the lowest niceness too, and the server puts those that run long in the idle scheduling class, below
#: every player, so that hostile STARTs cannot starve live matches.
PLAYER_NICENESS = 19
REFEREE_NICENESS = 10
CHECKER_NICENESS = 19

#: Modules every worker needs, imported once by the process that forks them (see :func:`preload`).
_PRELOAD = [
    "gdl.game",
    "gdl.players",
    "gdl.engines.compiled",
    "gdl.engines.datalog",
    "gdl.workers",
    "gdl.warm_workers",  # the playout kernel compiled before any clock runs
]


def preload(*modules: str) -> None:
    """Have the fork server import ``modules`` too, so that no worker imports them again: the modules
    of the workers' targets (effective when called before the fork server starts)."""
    _PRELOAD.extend(module for module in modules if module not in _PRELOAD)


@dataclass(frozen=True, slots=True)
class Limits:
    """What one worker may use: ``memory`` bytes of address space, and beyond the CPU time it is given
    (each call's, or in all), ``cpu_slack`` CPU seconds (loading and thinking overrun their clock a
    little)."""

    memory: int = 2 << 30
    cpu_slack: float = 2.0


#: The limits unless told otherwise.
DEFAULT_LIMITS = Limits()
#: The exit status of a worker that ran out of memory where no reply could say so (sysexits' EX_OSERR).
OUT_OF_MEMORY_EXIT = 71


def _cpu_used() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


#: Whether this system lets a process set another's limits (Linux): the server then raises a player's
#: CPU-time allowance at once, even while the player is busy; elsewhere at the player's next call.
RAISES_LIMITS_OF_OTHERS = hasattr(resource, "prlimit")


def _cpu_limit(seconds: float, hard: int) -> tuple[int, int]:
    """The limits (soft, hard) that end a process at ``seconds`` of CPU time (the hard limit stays)."""
    soft = math.ceil(seconds)
    return (soft if hard == resource.RLIM_INFINITY else min(soft, hard)), hard


def _allow_cpu(seconds: float) -> None:
    """Let this process use ``seconds`` more CPU time; SIGXCPU ends it beyond."""
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, _cpu_limit(_cpu_used() + seconds + 1, hard))


def _cap_cpu(seconds: float) -> None:
    """Let this process use ``seconds`` of CPU time in all, counted from its start."""
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, _cpu_limit(seconds, hard))


def _serve(
    connection: multiprocessing.connection.Connection, target: Any, limits: Limits, niceness: int
) -> None:
    """The body of a worker: run the calls ``(method, cpu_seconds, cpu_total, *args)`` on ``target``:
    ``cpu_seconds`` more CPU time for this call, or else (None) ``cpu_total`` in all, if not None."""
    if hasattr(os, "nice"):  # below the server's priority: the server answers in time
        os.nice(niceness)
    # Ctrl-C at the terminal reaches every process of the group; the server ends its workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory, limits.memory))
    # A full collection walks every object, a search tree included, and in a busy machine such a pause
    # can outlast a deadline. So the collector is off while the worker computes; after each reply the
    # survivors are frozen (left out of later collections, still freed by reference counting).
    gc.disable()
    while True:
        try:
            method, cpu_seconds, cpu_total, *args = connection.recv()
        except (EOFError, OSError):
            return  # the server has gone
        except MemoryError:
            os._exit(OUT_OF_MEMORY_EXIT)
        if cpu_seconds is not None:
            _allow_cpu(cpu_seconds + limits.cpu_slack)
        elif cpu_total is not None:
            _cap_cpu(cpu_total + limits.cpu_slack)
        try:
            reply = ("ok", getattr(target, method)(*args))
        except MemoryError:
            reply = ("memory", f"ran out of memory (limit {limits.memory >> 20} MB)")
        except RecursionError:
            reply = ("error", "terms or rules nested too deeply")
        except ValueError as problem:  # gdl's domain errors: their message says what is wrong
            reply = ("error", " ".join(str(problem).split()))
        except Exception as problem:  # reported to the server, which decides what to do
            reply = ("error", f"{type(problem).__name__}: {problem}")
        try:
            connection.send(reply)
        except OSError:
            return  # the server gave up on this call (the match ended while it ran)
        except MemoryError:  # the reply did not fit in what the work left; nothing of it was written
            os._exit(OUT_OF_MEMORY_EXIT)
        if reply[0] == "memory":
            return  # the heap may be in pieces: a fresh worker is safer
        gc.collect(1)
        gc.freeze()


def context() -> multiprocessing.context.ForkServerContext | multiprocessing.context.SpawnContext:
    """Workers are forked from a small clean fork server: the server's own threads (event loop, worker
    threads) must not be copied into a child mid-operation, as a plain fork would."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    forkserver = multiprocessing.get_context("forkserver")
    forkserver.set_forkserver_preload(_PRELOAD)
    return forkserver


def prepare_processes() -> None:
    """Start the fork server now (it imports gdl once), so that the first START does not wait for it."""
    process = context().Process(target=int)
    with _main_left_alone(int):
        process.start()
    process.join()


_MAIN_HIDDEN = threading.Lock()


@contextlib.contextmanager
def _main_left_alone(target: Any) -> Iterator[None]:
    """Start a worker without running the main script again in it, unless ``target`` needs it (an object
    of a class the script defines). multiprocessing would run the script again in every worker to
    rebuild its main module; a script without an ``if __name__ == "__main__":`` guard would then start
    over in every worker, and a worker only ever runs gdl's code."""
    main = sys.modules.get("__main__")
    pickled = pickle.dumps(target)
    if main is None or b"__main__" in pickled or b"__mp_main__" in pickled:
        yield
        return
    with _MAIN_HIDDEN:
        hidden = {name: main.__dict__.pop(name) for name in ("__file__",) if name in main.__dict__}
        spec, main.__spec__ = getattr(main, "__spec__", None), None
        try:
            yield
        finally:
            main.__dict__.update(hidden)
            main.__spec__ = spec


class WorkerProcess:
    """A child process serving calls on ``target`` (pickled into it) under ``limits``.

    :meth:`call` blocks; call it from a worker thread. :meth:`kill` ends the process at once, from any
    thread, and a call waiting on it then raises. A call's CPU time is its own allowance, or the total
    allowance that :meth:`allow` sets.
    """

    def __init__(
        self, target: Any, limits: Limits, name: str = "gdl-worker", niceness: int = PLAYER_NICENESS
    ) -> None:
        self.target = target
        self.limits = limits
        self.name = name
        self.niceness = niceness
        self.connection: multiprocessing.connection.Connection | None = None
        self.process: multiprocessing.process.BaseProcess | None = None
        #: Why the worker ended (it broke a limit, was killed or died); None while it serves.
        self.failure: str | None = None
        # Starting takes a while on a busy machine; a kill or close from another thread meanwhile waits for
        # the process to have started, and then ends it (a process not yet started cannot be joined).
        self._starting = threading.Lock()
        #: The CPU seconds the process may use in all (with the slack), for calls without their own.
        self.allowed = 0.0
        self._allowing = threading.Lock()

    def allow(self, seconds: float) -> None:
        """Let the process use ``seconds`` of CPU time in all, counted from its start, plus the slack; the
        allowance only grows. It holds for calls made without an allowance of their own, and where the
        system allows (:data:`RAISES_LIMITS_OF_OTHERS`) at once, even in the middle of a call."""
        with self._allowing:
            self.allowed = max(self.allowed, seconds)
        self._apply_allowance()

    def _apply_allowance(self) -> None:
        process = self.process
        if not RAISES_LIMITS_OF_OTHERS or process is None or process.pid is None:
            return
        with self._allowing:
            try:
                _, hard = resource.prlimit(process.pid, resource.RLIMIT_CPU)
                limit = _cpu_limit(self.allowed + self.limits.cpu_slack, hard)
                resource.prlimit(process.pid, resource.RLIMIT_CPU, limit)
            except OSError:
                pass  # the process has ended

    def start(self) -> None:
        forkserver = context()
        with self._starting:
            self.connection, child = forkserver.Pipe()
            self.process = forkserver.Process(
                target=_serve, args=(child, self.target, self.limits, self.niceness), name=self.name,
                daemon=True,
            )
            with _main_left_alone(self.target):
                self.process.start()
        child.close()
        # No limit yet: until its first call the process only rebuilds its target (trusted objects, whose
        # modules it may have to import), and a call sets the limit it runs under.

    def call(self, method: str, cpu_seconds: float | None, *args: Any) -> Any:
        """Run ``target.method(*args)`` in the worker with ``cpu_seconds`` (plus the slack) of CPU time,
        or (None) within the total allowance (:meth:`allow`)."""
        if self.connection is None or self.process is None:
            raise ProtocolError(f"the {self.name} process was never started")
        if self.failure is not None:
            raise LimitExceeded(self.failure)
        # Where the server cannot raise the limit itself, the worker sets the total with each call.
        cpu_total = None if cpu_seconds is not None or RAISES_LIMITS_OF_OTHERS else self.allowed
        if cpu_seconds is None:
            self._apply_allowance()
        try:
            self.connection.send((method, cpu_seconds, cpu_total, *args))
            status, result = self.connection.recv()
        except (EOFError, OSError):
            raise self._ended() from None
        if status == "memory":
            self.failure = f"the {self.name} {result}"
            self.kill()
            raise LimitExceeded(self.failure)
        if status == "error":
            raise ProtocolError(f"the {self.name} failed: {result}")
        return result

    def _ended(self) -> ProtocolError:
        """The error for a worker that ended in the middle of a call."""
        assert self.process is not None
        self.process.join(1.0)
        code = self.process.exitcode
        if self.failure is not None:
            return LimitExceeded(self.failure)
        if code == -signal.SIGXCPU:
            self.failure = f"the {self.name} ran out of CPU time"
            return LimitExceeded(self.failure)
        if code == OUT_OF_MEMORY_EXIT:
            self.failure = f"the {self.name} ran out of memory (limit {self.limits.memory >> 20} MB)"
            return LimitExceeded(self.failure)
        if code == -signal.SIGKILL:
            self.failure = f"the {self.name} was killed"
            return LimitExceeded(self.failure)
        self.failure = f"the {self.name} process ended (exit code {code})"
        return ProtocolError(self.failure)

    def kill(self, reason: str | None = None) -> None:
        """End the process now; a call waiting on it raises :class:`LimitExceeded` with ``reason``."""
        if reason is not None and self.failure is None:
            self.failure = reason
        # The pipe stays open: a thread may be reading it, and reads the end of the file instead.
        with self._starting:
            if self.process is not None and self.process.is_alive():
                self.process.kill()
                self.process.join(5.0)

    def close(self, wait: float = 1.0) -> None:
        """Let the process end by itself within ``wait`` seconds (it ends when the pipe closes), else kill
        it."""
        with self._starting:
            if self.connection is not None:
                self.connection.close()
            if self.process is not None:
                self.process.join(wait)
                if self.process.is_alive():
                    self.process.kill()
                    self.process.join(5.0)


def run_limited(target: Any, method: str, cpu_seconds: float, limits: Limits, *args: Any) -> Any:
    """One call in a fresh worker, which is ended afterwards; raises :class:`LimitExceeded` when it
    broke a limit, :class:`ProtocolError` when it failed."""
    worker = WorkerProcess(target, limits, name=f"{method} worker")
    worker.start()
    try:
        return worker.call(method, cpu_seconds, *args)
    finally:
        worker.kill()
        worker.close()


moved_names(__name__, "gdl.errors", "LimitExceeded")
