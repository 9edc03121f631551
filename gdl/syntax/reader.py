"""Reading KIF text into the clause model, with a diagnostic for every malformed clause.

Reading happens in three steps: a parenthesis scan (so that an unmatched parenthesis is reported where it
is, not where a parser gives up), the Lark grammar (lists of words and variables), and the conversion of
those lists into rules. A clause with a syntax error is reported and left out of the program, so that the
checker can still look at every other clause.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from typing import cast

import lark

from gdl.diagnostics import Diagnostic, error, has_errors, warning
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

#: Words that structure a rule and so can never be relation names, function names or constants.
RESERVED = frozenset({"<=", "not", "or", "distinct"})


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


def _token_span(token: lark.Token) -> Span:
    return Span(
        token.line or 0,
        token.column or 0,
        token.end_line or 0,
        token.end_column or 0,
        token.start_pos or 0,
        token.end_pos or 0,
    )


def _join(first: Span, last: Span) -> Span:
    return Span(first.line, first.column, last.end_line, last.end_column, first.start, last.end)


class _ToForms(lark.Transformer[lark.Token, list[Form]]):
    def start(self, items: list[lark.Token | ListForm]) -> list[Form]:
        return [self._wrap(item) for item in items]

    def list(self, items: list[lark.Token | ListForm]) -> ListForm:
        open_token, close_token = items[0], items[-1]
        assert isinstance(open_token, lark.Token) and isinstance(close_token, lark.Token)
        open_span = _token_span(open_token)
        return ListForm(
            [self._wrap(item) for item in items[1:-1]],
            _join(open_span, _token_span(close_token)),
            open_span,
        )

    @staticmethod
    def _wrap(item: lark.Token | ListForm) -> Form:
        if isinstance(item, ListForm):
            return item
        return Word(str(item), _token_span(item))


@cache
def _parser() -> lark.Lark:
    grammar = resources.files("gdl.syntax").joinpath("kif.lark").read_text(encoding="utf-8")
    return lark.Lark(grammar, parser="lalr", transformer=_ToForms(), maybe_placeholders=False)


def _offset_span(text: str, offset: int) -> Span:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return Span(line, column, line, column + 1, offset, offset + 1)


#: How deeply lists may nest. Real games stay below 10; the limit keeps the recursive conversion and
#: printing of terms far from Python's recursion limit, whatever the input.
MAX_DEPTH = 100


def _scan_parentheses(text: str) -> list[Diagnostic]:
    """Find the first unmatched closing and the outermost unclosed opening parenthesis, or the first
    parenthesis nested too deeply."""
    diagnostics: list[Diagnostic] = []
    open_offsets: list[int] = []
    unmatched_close = False
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == ";":
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
            continue
        if c == "(":
            open_offsets.append(i)
            if len(open_offsets) > MAX_DEPTH:
                return [
                    error(
                        "too-deep",
                        f"lists nested more than {MAX_DEPTH} deep",
                        _offset_span(text, i),
                        "GDL terms are small; this is most likely a stray parenthesis",
                    )
                ]
        elif c == ")":
            if open_offsets:
                open_offsets.pop()
            elif not unmatched_close:
                unmatched_close = True
                diagnostics.append(
                    error("unmatched-paren", "unmatched closing parenthesis", _offset_span(text, i))
                )
        i += 1
    if open_offsets:
        notes = []
        if len(open_offsets) > 1:
            inner = _offset_span(text, open_offsets[-1])
            notes.append(f"the innermost parenthesis left open is at {inner.line}:{inner.column}")
        diagnostics.append(
            error(
                "unmatched-paren",
                "unmatched opening parenthesis",
                _offset_span(text, open_offsets[0]),
                *notes,
            )
        )
    return diagnostics


class _SyntaxProblem(Exception):
    """Raised inside the conversion to abandon one clause."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _fail(code: str, message: str, span: Span, *notes: str) -> _SyntaxProblem:
    return _SyntaxProblem(error(code, message, span, *notes))


@dataclass(frozen=True, slots=True)
class ReadResult:
    """A program read from text with the syntax diagnostics found on the way."""

    program: Program
    diagnostics: tuple[Diagnostic, ...]

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


class _Converter:
    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.spellings: dict[str, set[str]] = {}

    # -- names ------------------------------------------------------------------------------

    def _name(self, word: Word) -> str:
        """Canonical lower-case name of a word, noting inconsistent capitalisation."""
        name = word.text.lower()
        seen = self.spellings.setdefault(name, {word.text})
        if word.text not in seen:
            first = sorted(seen)[0]
            seen.add(word.text)  # report each new spelling once
            self.diagnostics.append(
                warning(
                    "inconsistent-case",
                    f"name '{word.text}' is also written '{first}'",
                    word.span,
                    "gdl ignores case, so both spellings name the same thing",
                )
            )
        return name

    def _symbol(self, word: Word, what: str) -> str:
        name = self._name(word)
        if name in RESERVED:
            raise _fail(
                "keyword-misuse",
                f"keyword '{name}' used as {what}",
                word.span,
                f"'{name}' is reserved by GDL and may only start a "
                + ("rule" if name == "<=" else "literal in a rule body"),
            )
        return name

    def _variable(self, word: Word) -> Variable:
        if len(word.text) == 1:
            raise _fail("bad-variable", "variable without a name: '?'", word.span)
        return Variable(word.text[1:].lower(), word.span)

    # -- terms ------------------------------------------------------------------------------

    def term(self, form: Form) -> Term:
        if isinstance(form, Word):
            if form.text.startswith("?"):
                return self._variable(form)
            return Constant(self._symbol(form, "a constant"), form.span)
        head = self._list_head(form, "function term")
        name = self._symbol(head, "a function name")
        args = tuple(self.term(item) for item in form.items[1:])
        if not args:
            return Constant(name, form.span)
        return Function(name, args, form.span)

    def _list_head(self, form: ListForm, what: str) -> Word:
        if not form.items:
            raise _fail("empty-list", f"empty list '()' where a {what} was expected", form.span)
        head = form.items[0]
        if isinstance(head, ListForm):
            raise _fail(
                "list-as-operator",
                f"a list in head position of a {what}",
                head.open_span,
                "the first element of a list must be a relation, function or keyword name",
            )
        if head.text.startswith("?"):
            raise _fail(
                "variable-as-operator",
                f"variable '{head.text}' in head position of a {what}",
                head.span,
                "GDL is first order: relation and function names must be constants",
            )
        return head

    # -- sentences and literals -------------------------------------------------------------

    def sentence(self, form: Form, what: str = "sentence") -> Atom:
        if isinstance(form, Word):
            if form.text.startswith("?"):
                raise _fail(
                    "variable-as-sentence",
                    f"variable '{form.text}' where a {what} was expected",
                    form.span,
                )
            return Atom(self._symbol(form, f"a {what}"), (), form.span)
        head = self._list_head(form, what)
        name = self._symbol(head, f"a relation name in a {what}")
        return Atom(name, tuple(self.term(item) for item in form.items[1:]), form.span)

    def literal(self, form: Form, depth_in_or: int = 0) -> list[Literal]:
        """Convert a body literal; an ``(and ...)`` yields several literals."""
        if isinstance(form, ListForm) and form.items and isinstance(form.items[0], Word):
            keyword = form.items[0].text.lower()
            args = form.items[1:]
            if keyword == "not":
                return [self._negation(form, args)]
            if keyword == "distinct":
                if len(args) != 2:
                    raise _fail(
                        "distinct-arity",
                        f"distinct takes 2 arguments, not {len(args)}",
                        form.span,
                    )
                return [Distinct(self.term(args[0]), self.term(args[1]), form.span)]
            if keyword == "or":
                return [self._disjunction(form, args, depth_in_or)]
            if keyword == "and":
                self.diagnostics.append(
                    warning(
                        "and-connective",
                        "'(and ...)' is not portable GDL",
                        form.span,
                        "gdl reads it as a conjunction; most GDL systems read 'and' as a relation",
                    )
                )
                return [lit for item in args for lit in self.literal(item, depth_in_or)]
        return [self.sentence(form, "literal")]

    def _negation(self, form: ListForm, args: list[Form]) -> Not:
        if len(args) != 1:
            raise _fail("not-arity", f"not takes 1 argument, not {len(args)}", form.span)
        inner = args[0]
        if isinstance(inner, ListForm) and inner.items and isinstance(inner.items[0], Word):
            keyword = inner.items[0].text.lower()
            if keyword in {"not", "distinct", "or", "and"}:
                raise _fail(
                    "negated-non-sentence",
                    f"negation of '({keyword} ...)': only sentences may be negated",
                    inner.span,
                    "negation may not be applied to disjunctions, distinct, or other negations",
                )
        return Not(self.sentence(inner, "negated sentence"), form.span)

    def _disjunction(self, form: ListForm, args: list[Form], depth_in_or: int) -> Or:
        if depth_in_or:
            self.diagnostics.append(
                warning("nested-or", "disjunction nested inside a disjunction", form.span)
            )
        if not args:
            self.diagnostics.append(
                warning(
                    "empty-or",
                    "empty disjunction '(or)' is always false",
                    form.span,
                    "the rule containing it can never fire",
                )
            )
        branches = tuple(tuple(self.literal(item, depth_in_or + 1)) for item in args)
        return Or(branches, form.span)

    # -- clauses ----------------------------------------------------------------------------

    def clause(self, form: Form) -> Rule:
        if isinstance(form, ListForm) and form.items and isinstance(form.items[0], Word):
            keyword = form.items[0].text.lower()
            if keyword == "<=":
                return self._rule(form)
            if keyword in {"not", "distinct", "or"}:
                raise _fail(
                    "keyword-fact",
                    f"'({keyword} ...)' cannot be a fact",
                    form.span,
                    f"'{keyword}' may only appear in the body of a rule",
                )
        head = self.sentence(form, "fact")
        for variable in head.variables():
            raise _fail(
                "variable-in-fact",
                f"variable '{variable}' in a fact",
                variable.span,
                "variables may only appear within rules",
            )
        return Rule(head, (), form.span)

    def _rule(self, form: ListForm) -> Rule:
        if len(form.items) < 2:
            raise _fail("rule-without-head", "rule '(<=)' has no head", form.span)
        head_form = form.items[1]
        if isinstance(head_form, ListForm) and head_form.items and isinstance(head_form.items[0], Word):
            keyword = head_form.items[0].text.lower()
            if keyword in {"not", "distinct", "or", "and"}:
                raise _fail(
                    "keyword-head",
                    f"'({keyword} ...)' cannot be the head of a rule",
                    head_form.span,
                )
        head = self.sentence(head_form, "rule head")
        body: list[Literal] = []
        for item in form.items[2:]:
            body.extend(self.literal(item))
        if len(form.items) == 2:
            notes = ["write it as a fact instead"] if head.is_ground() else []
            self.diagnostics.append(
                warning("empty-body", f"rule for '{head}' has an empty body", form.span, *notes)
            )
        return Rule(head, tuple(body), form.span)


def read_forms(text: str) -> list[Form] | list[Diagnostic]:
    """The top-level lists and words of a text (raw KIF, before any GDL meaning is given to them),
    or the diagnostics that prevent reading it."""
    diagnostics = _scan_parentheses(text)
    if diagnostics:
        return diagnostics
    try:
        forms = cast(list[Form], _parser().parse(text))
    except lark.exceptions.UnexpectedInput as problem:
        offset = getattr(problem, "pos_in_stream", None) or 0
        span = _offset_span(text, min(offset, max(len(text) - 1, 0)))
        return [error("syntax", f"cannot read KIF here: {type(problem).__name__}", span)]
    return forms


def read(text: str, file: str = "<string>") -> ReadResult:
    """Read KIF text into a program, collecting a diagnostic for every malformed clause."""
    forms = read_forms(text)
    if forms and isinstance(forms[0], Diagnostic):
        return ReadResult(Program((), file), _in_file([f for f in forms if isinstance(f, Diagnostic)], file))
    converter = _Converter()
    rules: list[Rule] = []
    for form in forms:
        assert not isinstance(form, Diagnostic)
        try:
            rules.append(converter.clause(form))
        except _SyntaxProblem as problem:
            converter.diagnostics.append(problem.diagnostic)
    return ReadResult(Program(tuple(rules), file), _in_file(converter.diagnostics, file))


def _in_file(diagnostics: list[Diagnostic], file: str) -> tuple[Diagnostic, ...]:
    return tuple(sorted((replace(d, file=file) for d in diagnostics), key=lambda d: d.sort_key))


def parse_program(text: str, file: str = "<string>") -> Program:
    """Read a program, raising :class:`KifSyntaxError` when it has a syntax error."""
    result = read(text, file)
    if not result.ok:
        first = next(d for d in result.diagnostics if d.level.value == "error")
        raise KifSyntaxError(first.format(), result.diagnostics)
    return result.program


def parse_term(text: str) -> Term:
    """Read one term, e.g. a move written as ``(mark 1 1)``."""
    forms = read_forms(text)
    if len(forms) != 1 or isinstance(forms[0], Diagnostic):
        raise KifSyntaxError(f"not a term: {text!r}")
    try:
        return _Converter().term(forms[0])
    except _SyntaxProblem as problem:
        raise KifSyntaxError(f"not a term: {text!r}: {problem.diagnostic.message}") from None
