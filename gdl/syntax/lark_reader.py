"""Reading KIF with Lark's LALR parser over the grammar ``kif.lark``: the reference path.

The default reader (:func:`gdl.syntax.reader.read_forms`) nests the lists with a stack, 20 times faster;
this one lets the grammar do the parsing, so that the grammar is a real, executable definition of the
syntax gdl reads (``reader="lark"`` wherever text is read). Both give the same forms and the same
diagnostics: a stray closing parenthesis is skipped by the parser's error handler and reported once, the
lists still open at the end of the text are the LALR parser's own stack, and nesting past
:data:`~gdl.syntax.reader.MAX_DEPTH` is stopped while lexing, before any list is built.
"""

from __future__ import annotations

import builtins
import threading
from functools import cache
from importlib import resources
from typing import cast

import lark

from gdl.diagnostics import Diagnostic, error
from gdl.syntax.forms import MAX_DEPTH, Form, ListForm, Word, join_spans, unclosed_lists
from gdl.syntax.model import Span


def _span(token: lark.Token) -> Span:
    assert token.line is not None and token.column is not None
    assert token.end_line is not None and token.end_column is not None
    assert token.start_pos is not None and token.end_pos is not None
    return Span(token.line, token.column, token.end_line, token.end_column, token.start_pos, token.end_pos)


def _form(item: lark.Token | ListForm) -> Form:
    return item if isinstance(item, ListForm) else Word(str(item), _span(item))


class _Forms(lark.Transformer[lark.Token, list[Form]]):
    """Builds the reader's forms while the LALR parser reduces (no parse tree, no recursion)."""

    def list(self, children: builtins.list[lark.Token | ListForm]) -> ListForm:  # the grammar's rule "list"
        opening, *items, closing = children
        assert isinstance(opening, lark.Token) and isinstance(closing, lark.Token)
        open_span = _span(opening)
        return ListForm([_form(item) for item in items], join_spans(open_span, _span(closing)), open_span)

    def start(self, children: builtins.list[lark.Token | ListForm]) -> builtins.list[Form]:
        return [_form(item) for item in children]


class _TooDeep(Exception):
    def __init__(self, token: lark.Token) -> None:
        super().__init__()
        self.token = token


class _Depth(threading.local):
    """Counts open parentheses as the lexer meets them (a stray ``)`` at the top opens nothing); one
    count per thread, since the parser is built once and shared."""

    open = 0

    def opening(self, token: lark.Token) -> lark.Token:
        self.open += 1
        if self.open > MAX_DEPTH:
            raise _TooDeep(token)
        return token

    def closing(self, token: lark.Token) -> lark.Token:
        self.open = max(0, self.open - 1)
        return token


_DEPTH = _Depth()


@cache
def _parser() -> lark.Lark:
    grammar = resources.files("gdl").joinpath("kif.lark").read_text(encoding="utf-8")
    return lark.Lark(
        grammar,
        parser="lalr",
        lexer="basic",
        transformer=_Forms(),
        lexer_callbacks={"LPAR": _DEPTH.opening, "RPAR": _DEPTH.closing},
    )


def read_forms_lark(text: str) -> list[Form] | list[Diagnostic]:
    """What :func:`gdl.syntax.reader.read_forms` returns, computed by Lark's LALR parser."""
    text = text.removeprefix("\ufeff")
    _DEPTH.open = 0
    diagnostics: list[Diagnostic] = []
    still_open: list[lark.Token] = []

    def recover(problem: lark.exceptions.UnexpectedInput) -> bool:
        if not isinstance(problem, lark.exceptions.UnexpectedToken):
            return False
        if problem.token.type == "RPAR":  # only a closing parenthesis at the top level is unexpected
            if not diagnostics:
                message = "unmatched closing parenthesis"
                diagnostics.append(error("unmatched-paren", message, _span(problem.token)))
            return True
        stack = problem.interactive_parser.parser_state.value_stack
        still_open.extend(v for v in stack if isinstance(v, lark.Token) and v.type == "LPAR")
        return False

    try:
        # The transformer makes the parser return the forms, not the tree its type names.
        forms = cast(list[Form], _parser().parse(text, on_error=recover))
    except _TooDeep as deep:
        message = f"lists nested too deeply (more than {MAX_DEPTH} levels)"
        note = "GDL terms are small; this is most likely a stray parenthesis"
        return [error("too-deep", message, _span(deep.token), note)]
    except lark.exceptions.UnexpectedInput:
        return [*diagnostics, unclosed_lists([_span(token) for token in still_open])]
    return diagnostics or forms
