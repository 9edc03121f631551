"""What every backend of :mod:`gdl.backend` is: the loop that runs tasks, reruns those whose worker died
and yields each task's :class:`Outcome`; a backend says only how to submit, wait and cancel. The local
processes and :func:`gdl.backend.open_backend` are in :mod:`gdl.backend`, the Ray cluster in
:mod:`gdl.cluster`, both built on this."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Generic, TypeVar

T = TypeVar("T")
#: How a backend refers to a task under way (a future, a Ray object reference).
Handle = TypeVar("Handle")


@dataclass(frozen=True, slots=True)
class Outcome(Generic[T]):
    """What became of one task: its ``value``, or why it was ``lost``; ``reruns`` says why earlier
    attempts were lost (empty when the first attempt did the work)."""

    index: int
    value: T | None
    lost: str | None = None
    reruns: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Lost:
    """The worker running a task died; ``reason`` says how. A task that may only have shared the
    fate of another (``blamed`` false) is run again without using up one of its reruns."""

    reason: str
    blamed: bool = True


class Backend(ABC, Generic[Handle]):
    """Runs tasks; subclasses say how to submit one, wait for some, and cancel the rest."""

    #: How the backend is named in messages and figures.
    name = "backend"

    def __init__(self, retries: int = 2) -> None:
        self.retries = retries
        #: Remarks on how the work was run (e.g. tasks that asked for more CPUs than any node has).
        self.notes: list[str] = []

    def map(
        self,
        function: Callable[..., T],
        calls: Sequence[tuple[Any, ...]],
        *,
        common: tuple[Any, ...] = (),
        cpus: Sequence[int] | int = 1,
    ) -> Iterator[Outcome[T]]:
        """Run ``function(*common, *call)`` for each call, yielding outcomes in the order they finish.

        ``function`` must be importable by name (a module-level function of an installed package).
        ``common`` arguments are shipped once, not once per call. ``cpus`` (one for every call, or one
        per call) is how many CPUs a task keeps for itself; backends that cannot reserve CPUs ignore it.
        """
        needs = [cpus] * len(calls) if isinstance(cpus, int) else list(cpus)
        shared = self._share(common)
        reruns: list[list[str]] = [[] for _ in calls]
        blamed = [0] * len(calls)
        waiting = list(range(len(calls) - 1, -1, -1))  # a stack, so tasks start in order
        running: dict[Handle, int] = {}
        try:
            while waiting or running:
                while waiting and len(running) < self._window():
                    index = waiting.pop()
                    running[self._submit(function, (*shared, *calls[index]), needs[index])] = index
                for handle, result in self._wait(list(running)):
                    index = running.pop(handle)
                    if not isinstance(result, Lost):
                        yield Outcome(index, result, None, tuple(reruns[index]))
                    elif blamed[index] < self.retries or not result.blamed:
                        reruns[index].append(result.reason)
                        blamed[index] += result.blamed
                        waiting.append(index)
                    else:
                        yield Outcome(index, None, result.reason, tuple(reruns[index]))
        except BaseException:
            self._cancel(list(running))
            raise

    def _share(self, common: tuple[Any, ...]) -> tuple[Any, ...]:
        """The arguments every task gets, made ready to be shipped once (before the first task)."""
        return common

    @abstractmethod
    def _window(self) -> int:
        """How many tasks to keep submitted at once (more are queued here, so Ctrl-C stays cheap)."""

    @abstractmethod
    def _submit(self, function: Callable[..., Any], arguments: tuple[Any, ...], cpus: int) -> Handle:
        """Start one task."""

    @abstractmethod
    def _wait(self, handles: list[Handle]) -> list[tuple[Handle, Any]]:
        """Wait until some of the tasks finish; their values, or :class:`Lost` for those whose worker
        died. An exception of the function itself is raised."""

    @abstractmethod
    def _cancel(self, handles: list[Handle]) -> None:
        """Stop these tasks, started or not."""

    def close(self) -> None:
        """Release the workers (and a cluster this backend started)."""

    def __enter__(self) -> Backend[Handle]:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
