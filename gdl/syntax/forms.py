"""KIF text cut into tokens and nested into lists of words (the forms), before any GDL meaning is given
to them; an unmatched parenthesis is reported where it is, not where a parser gives up."""

from __future__ import annotations

import re
import sys
from bisect import bisect_right
from functools import cache
from importlib import resources

import lark

from gdl.diagnostics import Diagnostic, error
from gdl.syntax.model import Span


class Word:
    """A word or variable (``?x``) as written, with its span."""

    __slots__ = ("span", "text")

    def __init__(self, text: str, span: Span) -> None:
        self.text = text
        self.span = span


class ListForm:
    """A parenthesised list; ``open_span`` is the span of its opening parenthesis."""

    __slots__ = ("items", "open_span", "span")

    def __init__(self, items: list[Word | ListForm], span: Span, open_span: Span) -> None:
        self.items = items
        self.span = span
        self.open_span = open_span


Form = Word | ListForm


def join_spans(first: Span, last: Span) -> Span:
    """The span from the start of ``first`` to the end of ``last``."""
    return Span(first.line, first.column, last.end_line, last.end_column, first.start, last.end)



#: How deeply lists may nest. Real games stay below 10, but GDL sets no limit and other engines play
#: games with terms hundreds of levels deep (counters as Peano numerals); past this, input is refused
#: rather than let a stray parenthesis take the recursion of every later phase to its limit.
MAX_DEPTH = 1000

# Terms are converted, printed, hashed and compared recursively: a few frames per level.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 20 * MAX_DEPTH))


@cache
def _token_pattern() -> re.Pattern[str]:
    """One regular expression with a named group for each terminal of ``kif.lark`` but white space.

    The grammar's only rule nests lists in parentheses, which a stack does directly; Lark's LALR parser
    took 20 times longer on large games (0.25 s for the 46 kB statespacelarge.kif). So the grammar
    defines the tokens, and :func:`read_forms` builds the lists. Every character that no token matches
    is white space, since the terminals of the grammar cover every other character.
    """
    grammar = resources.files("gdl").joinpath("kif.lark").read_text(encoding="utf-8")
    terminals = [t for t in lark.Lark(grammar, parser="lalr").terminals if t.name != "WHITESPACE"]
    return re.compile("|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in terminals))


def unclosed_lists(opened: list[Span]) -> Diagnostic:
    """The diagnostic for lists left open at the end of a text, given their "(" spans, outermost first."""
    notes = []
    if len(opened) > 1:
        inner = opened[-1]
        notes.append(f"the innermost parenthesis left open is at {inner.line}:{inner.column}")
    return error("unmatched-paren", "unmatched opening parenthesis", opened[0], *notes)


def read_forms(text: str) -> list[Form] | list[Diagnostic]:
    """The top-level lists and words of a text (raw KIF, before any GDL meaning is given to them),
    or the diagnostics that prevent reading it: the first unmatched closing parenthesis and the
    outermost unclosed opening one, or the first parenthesis nested too deeply. A byte order mark at
    the start is no part of the text (positions are counted after it, as editors show them)."""
    text = text.removeprefix("\ufeff")
    top: list[Form] = []
    stack: list[tuple[list[Form], Span]] = []  # the items of each open list, and its "(" span
    diagnostics: list[Diagnostic] = []
    line_starts = [0, *(match.end() for match in re.finditer("\n", text))]
    for match in _token_pattern().finditer(text):
        kind = match.lastgroup
        if kind == "COMMENT":
            continue
        start, end = match.span()
        line = bisect_right(line_starts, start)
        column = start - line_starts[line - 1] + 1
        span = Span(line, column, line, column + end - start, start, end)
        if kind == "LPAR":
            stack.append(([], span))
            if len(stack) > MAX_DEPTH:
                message = f"lists nested too deeply (more than {MAX_DEPTH} levels)"
                note = "GDL terms are small; this is most likely a stray parenthesis"
                return [error("too-deep", message, span, note)]
        elif kind == "RPAR":
            if stack:
                items, open_span = stack.pop()
                form = ListForm(items, join_spans(open_span, span), open_span)
                (stack[-1][0] if stack else top).append(form)
            elif not diagnostics:
                diagnostics.append(error("unmatched-paren", "unmatched closing parenthesis", span))
        else:
            (stack[-1][0] if stack else top).append(Word(match.group(), span))
    if stack:
        diagnostics.append(unclosed_lists([span for _, span in stack]))
    return diagnostics or top
