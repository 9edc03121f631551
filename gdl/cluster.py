"""The Ray backend: tasks on a Ray cluster, a local one started here or a running one joined.

The only module of gdl that imports Ray (the optional extra ``gdl[cluster]``); everything else
reaches it through :func:`gdl.backend.open_backend`. Each task asks Ray for as many CPUs as it keeps
busy (a match: one per player that thinks), so Ray never puts two tasks on one core. Ray's own
retries are off: :class:`gdl.backend.Backend` reruns a task whose worker or node died and records
why, which Ray's retries would hide. When joining a running cluster, the driver's copy of gdl is
shipped to the workers, so they run the same code (its dependencies must be installed on every
node; see docs/cluster.md).
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import math
import resource
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ray
import ray.exceptions
from ray import ObjectRef

from gdl.backend_base import Backend, Lost
from gdl.errors import ClusterError

#: How long one wait for results lasts, so Ctrl-C is noticed promptly.
_POLL_SECONDS = 0.5
#: The address space (bytes) a local Ray cluster needs to start its processes, which reserve large
#: virtual memory areas: under ``ulimit -v`` 8 GB Ray 2.60 hangs for minutes, under 16 GB it starts.
RAY_ADDRESS_SPACE = 16_000_000 << 10


class RayCluster(Backend[ObjectRef[Any]]):
    """Tasks on a Ray cluster: ``address`` None starts a local one of ``cpus`` CPUs (default all), and
    :meth:`close` shuts it down; an already connected Ray (``ray.init`` called by the caller) is used
    as it is and left running. Nothing starts before the first work is given."""

    name = "ray"

    def __init__(self, address: str | None = None, cpus: int | None = None, retries: int = 2) -> None:
        super().__init__(retries)
        self.address = address
        self._cpus = cpus
        self._started = False
        self._remotes: dict[Callable[..., Any], Any] = {}
        self._largest = 0
        self._window_size, self._sized = 16, -math.inf

    def _connect(self) -> None:
        """Start or join the cluster (the first time work is given), unless Ray is connected already."""
        _errors_to_stderr()
        if ray.is_initialized():
            self._largest = self._largest or self._largest_node()
            return
        options: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
        if self.address is None:
            _check_address_space()
            options.update(address="local", num_cpus=self._cpus, include_dashboard=False)
        else:
            package = str(Path(__file__).resolve().parent)
            options.update(address=self.address, runtime_env={"py_modules": [package]})
        try:
            ray.init(**options)
        except Exception as problem:  # Ray raises a bare Exception when its processes do not start
            where = "a local Ray cluster" if self.address is None else f"the Ray cluster at {self.address}"
            raise ClusterError(f"cannot start or join {where}: {_first_line(problem)}") from None
        self._started = True
        self._largest = self._largest_node()

    @staticmethod
    def _largest_node() -> int:
        cpus = [int(node["Resources"].get("CPU", 0)) for node in ray.nodes() if node.get("Alive")]
        return max(cpus, default=0)

    @property
    def cpus(self) -> int:
        """The CPUs of the cluster now (nodes may join or leave while it works)."""
        return int(ray.cluster_resources().get("CPU", 0))

    def _share(self, common: tuple[Any, ...]) -> tuple[Any, ...]:
        self._connect()
        return tuple(ray.put(value) for value in common)  # Ray passes each task the stored value

    def _window(self) -> int:
        # Enough queued work that joining nodes find some; little enough that Ctrl-C cancels fast. The
        # cluster's size is asked at most once a second: it is a round trip to the head node.
        now = time.monotonic()
        if now - self._sized >= 1.0:
            self._window_size, self._sized = max(4 * self.cpus, 16), now
        return self._window_size

    def _submit(self, function: Callable[..., Any], arguments: tuple[Any, ...], cpus: int) -> ObjectRef[Any]:
        if not inspect.isfunction(function):  # a builtin or other callable: Ray runs only functions
            function, arguments = _apply, (function, *arguments)
        remote = self._remotes.get(function)
        if remote is None:
            remote = self._remotes[function] = ray.remote(function)
        if cpus > self._largest:
            self._largest = self._largest_node()
        if cpus > self._largest > 0:
            note = (
                f"a task asks for {cpus} CPUs but the largest node has {self._largest}: "
                f"it runs on {self._largest}, so its players share cores"
            )
            if note not in self.notes:
                self.notes.append(note)
            cpus = self._largest
        ref: ObjectRef[Any] = remote.options(num_cpus=cpus, max_retries=0, retry_exceptions=False).remote(
            *arguments
        )
        return ref

    def _wait(self, handles: list[ObjectRef[Any]]) -> list[tuple[ObjectRef[Any], Any]]:
        ready: list[ObjectRef[Any]] = []
        while not ready:
            ready, _ = ray.wait(handles, num_returns=1, timeout=_POLL_SECONDS)
        ready, _ = ray.wait(handles, num_returns=len(handles), timeout=0)  # every one finished by now
        results: list[tuple[ObjectRef[Any], Any]] = []
        for ref in ready:
            try:
                results.append((ref, ray.get(ref)))
            except ray.exceptions.RayTaskError as problem:  # the function raised: not the worker's fault
                raise problem.cause from None
            except ray.exceptions.RuntimeEnvSetupError as problem:
                raise ClusterError(f"the cluster's workers cannot run gdl: {_first_line(problem)}") from None
            except ray.exceptions.TaskCancelledError:
                raise
            except ray.exceptions.RayError as problem:  # worker or node died, out of memory, object lost
                results.append((ref, Lost(f"{type(problem).__name__}: {_first_line(problem)}")))
        return results

    def _cancel(self, handles: list[ObjectRef[Any]]) -> None:
        for ref in handles:
            with contextlib.suppress(Exception):  # finished or gone already: nothing left to stop
                ray.cancel(ref, force=True)

    def close(self) -> None:
        if self._started and ray.is_initialized():
            ray.shutdown()
        self._started = False


def _check_address_space() -> None:
    """Refuse at once to start a local cluster under an address-space limit Ray cannot start in."""
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit != resource.RLIM_INFINITY and limit < RAY_ADDRESS_SPACE:
        raise ClusterError(
            f"a local Ray cluster cannot start its processes under an address-space limit of "
            f"{limit >> 20} MB (ulimit -v): it needs about {RAY_ADDRESS_SPACE / 1e9:.0f} GB; raise the "
            "limit, or join a running cluster with --cluster ray:ADDRESS"
        )


def _errors_to_stderr() -> None:
    """Send the errors Ray's driver hears from the cluster (``(raylet) A worker died ...``) to standard
    error: Ray prints them on standard output, where they would break ``--json`` output and tables, and
    gdl records what they say itself (a rerun's or an abort's reason)."""
    worker = getattr(getattr(ray, "_private", None), "worker", None)
    show: Callable[..., None] | None = getattr(worker, "print_to_stdstream", None)
    if show is None or getattr(show, "gdl_to_stderr", False):
        return

    def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
        assert show is not None
        show({**data, "is_err": True}, ignore_prefix)

    to_stderr.gdl_to_stderr = True  # type: ignore[attr-defined]
    setattr(worker, "print_to_stdstream", to_stderr)  # noqa: B010 - Ray's own name, looked up per message


def _apply(function: Callable[..., Any], *arguments: Any) -> Any:
    return function(*arguments)


def _first_line(problem: BaseException) -> str:
    text = str(problem).strip()
    return text.splitlines()[0] if text else "no details"
