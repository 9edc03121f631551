"""Source spans: where in a text an item was read. Kept apart so that diagnostics and the clause model
can both use them without importing each other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    """A region of source text: 1-based line and column, and 0-based character offsets."""

    line: int
    column: int
    end_line: int
    end_column: int
    start: int
    end: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


NO_SPAN = Span(0, 0, 0, 0, 0, 0)
