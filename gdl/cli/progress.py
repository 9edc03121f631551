"""The terminal's progress line, the one helper every long command uses to show how far it is."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import TextIO

from gdl.wellformed_report import Progress as Exploration


class Progress:
    """One line on standard error rewritten in place, and only when that is a terminal (a redirected
    file gets no ``\\r`` frames): what a long job is doing (:meth:`say`), how many of its tasks are done
    (:meth:`count`), or a bar of how far it is (:meth:`bar`). :meth:`close` erases the line, before
    other output is printed."""

    def __init__(self, command: str, stream: TextIO | None = None) -> None:
        self.command = command
        # sys.stderr looked up now, not at import: it may have been replaced since (tests, IDEs)
        self.stream = sys.stderr if stream is None else stream
        self.active = self.stream.isatty()
        self.shown = False

    def _show(self, line: str, end: str = "") -> None:
        if self.active:
            self.stream.write(f"\r\033[K{line}{end}")
            self.stream.flush()
            self.shown = not end

    def say(self, text: str) -> None:
        """Show ``text`` in place of the line shown before."""
        self._show(f"gdl {self.command}: {text}")

    def states(self, states: int, seconds: float) -> None:
        """A progress function of :func:`gdl.solve.solve`: the states searched so far, and how fast."""
        self.say(f"{states:,} states searched, {seconds:.0f} s, {states / max(seconds, 1e-9):,.0f} a second")

    def bar(self, fraction: float, text: str, end: str = "") -> None:
        """A bar of 30 characters filled to ``fraction`` (0 to 1), then ``text``."""
        filled = math.floor(30 * min(1.0, max(0.0, fraction)))
        self._show(f"[{'#' * filled}{'.' * (30 - filled)}] {text}", end)

    def explored(self, progress: Exploration) -> None:
        """A progress function of :func:`gdl.wellformed.analyse`: a bar of the state budget used."""
        self.bar(
            progress.states / max(progress.max_states, 1),
            f"{progress.states} states, {progress.frontier} to expand, depth {progress.depth}, "
            f"{progress.seconds:.0f} s",
        )

    def counter(self, noun: str) -> Callable[[int, int], None]:
        """A progress function of tasks finished (:meth:`count` with ``noun``)."""
        return lambda done, total: self.count(done, total, noun)

    def count(self, done: int, total: int, noun: str) -> None:
        """``done`` of ``total`` tasks (``noun``: games, matches) as a bar; the last one stays shown."""
        self.bar(done / total, f"{done}/{total} {noun}", "\n" if done == total else "")

    def close(self) -> None:
        """Erase the line."""
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False
