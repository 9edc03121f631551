"""Source spans: where in a text an item was read. Kept apart so that diagnostics and the clause model
can both use them without importing each other."""

from __future__ import annotations

from typing import NamedTuple


class Span(NamedTuple):
    """A region of source text: 1-based line and column, and 0-based character offsets.

    A named tuple rather than a frozen dataclass: the reader makes one per token and per list, and a
    tuple is made three times faster.
    """

    line: int
    column: int
    end_line: int
    end_column: int
    start: int
    end: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


NO_SPAN = Span(0, 0, 0, 0, 0, 0)
