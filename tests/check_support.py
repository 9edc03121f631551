"""Helpers for the checker tests: a minimal valid game to extend, and where diagnostics point."""

from __future__ import annotations

from gdl.check import check_text
from gdl.diagnostics import Diagnostic, Level
from gdl.syntax.model import Program

#: The smallest complete game: every keyword a game needs, nothing unused, nothing undefined.
GAME = """\
(role robot)
(init p)
(legal robot go)
(<= (next q) (does robot go))
(<= terminal (true q))
(goal robot 100)
"""


def diagnose(extra: str, base: str = GAME) -> list[Diagnostic]:
    return list(check_text(base + extra).diagnostics)


def codes(extra: str, base: str = GAME) -> list[str]:
    return [d.code for d in diagnose(extra, base)]


def errors(extra: str, base: str = GAME) -> list[Diagnostic]:
    return [d for d in diagnose(extra, base) if d.level is Level.ERROR]


def located(text: str, fragment: str, after: int = 0) -> tuple[int, int]:
    """The [start, end) offsets of the first appearance of ``fragment`` in ``text`` from ``after`` on."""
    start = text.index(fragment, after)
    return start, start + len(fragment)


def span_of(diagnostic: Diagnostic) -> tuple[int, int]:
    return diagnostic.span.start, diagnostic.span.end


def rules_hit(program: Program, diagnostics: list[Diagnostic]) -> set[int]:
    """Indices of the rules that contain at least one of the diagnostics."""
    return {
        index
        for d in diagnostics
        for index, rule in enumerate(program.rules)
        if rule.span.start <= d.span.start < rule.span.end
    }
