"""Parsing: KIF text to the immutable clause model, and back."""

from gdl.errors import KifSyntaxError
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
    Span,
    Term,
    Variable,
)
from gdl.syntax.reader import ReadResult, parse_program, parse_term, read

__all__ = [
    "Atom",
    "Constant",
    "Distinct",
    "Function",
    "KifSyntaxError",
    "Literal",
    "Not",
    "Or",
    "Program",
    "ReadResult",
    "Rule",
    "Span",
    "Term",
    "Variable",
    "parse_program",
    "parse_term",
    "read",
]
