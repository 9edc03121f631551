"""Helpers for the checker tests: a minimal valid game to extend, and where diagnostics point."""

from __future__ import annotations

from hypothesis import strategies as st

from gdl.check import check_text
from gdl.diagnostics import Diagnostic, Level
from gdl.syntax.model import (
    Atom,
    Constant,
    Distinct,
    Function,
    Literal,
    Not,
    Or,
    Program,
    Rule,
    Term,
    Variable,
)

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


# -- generated programs: any shape the clause model allows, printable as KIF -----------------------

_NAMES = st.sampled_from(["a", "b", "cell", "x1", "10", "and", "white-piece", "q"])
_RELATIONS = st.sampled_from(["p", "q", "cell", "role", "true", "does", "legal", "next", "terminal", "x1"])
_VARIABLES = st.builds(Variable, st.sampled_from(["x", "y", "z9", "long_name"]))
_TERMS: st.SearchStrategy[Term] = st.recursive(
    st.one_of(st.builds(Constant, _NAMES), _VARIABLES),
    lambda inner: st.builds(
        lambda name, args: Function(name, tuple(args)), _NAMES, st.lists(inner, min_size=1, max_size=3)
    ),
    max_leaves=4,
)
_ATOMS = st.builds(lambda name, args: Atom(name, tuple(args)), _RELATIONS, st.lists(_TERMS, max_size=3))
_SIMPLE: st.SearchStrategy[Literal] = st.one_of(
    _ATOMS, st.builds(Not, _ATOMS), st.builds(Distinct, _TERMS, _TERMS)
)
_LITERALS: st.SearchStrategy[Literal] = st.recursive(
    _SIMPLE,
    lambda inner: st.builds(
        lambda branches: Or(tuple(tuple(b) for b in branches)),
        st.lists(st.lists(inner, max_size=2), max_size=3),
    ),
    max_leaves=4,
)


def programs() -> st.SearchStrategy[Program]:
    """Small programs over a few names (keywords among them), with every kind of literal."""
    rule = st.builds(lambda head, body: Rule(head, tuple(body)), _ATOMS, st.lists(_LITERALS, max_size=3))
    return st.builds(lambda rules: Program(tuple(rules)), st.lists(rule, max_size=4))
