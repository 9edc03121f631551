"""Reading KIF text into the clause model, with a diagnostic for every malformed clause.

Reading happens in two steps: the text is cut into the tokens of the grammar ``kif.lark`` and nested into
lists of words and variables (reporting an unmatched parenthesis where it is, not where a parser gives
up), then those lists are converted into rules. A clause with a syntax error is reported and left out of
the program, so that the checker can still look at every other clause.
"""

from __future__ import annotations

import gc
import sys
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

from gdl.diagnostics import Diagnostic, error, has_errors, warning
from gdl.errors import KifSyntaxError
from gdl.syntax.forms import MAX_DEPTH as MAX_DEPTH
from gdl.syntax.forms import Form as Form
from gdl.syntax.forms import ListForm as ListForm
from gdl.syntax.forms import Word as Word
from gdl.syntax.forms import join_spans as join_spans
from gdl.syntax.forms import read_forms as read_forms
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


def _refuse_control(word: Word) -> None:
    """Control and format characters (NUL, terminal escapes, bidirectional overrides) in a name would
    break engines and reach terminals and other programs raw; no game needs them."""
    for character in word.text:
        if unicodedata.category(character) in ("Cc", "Cf", "Cs"):
            raise _fail(
                "bad-character",
                f"name {word.text!r} contains the control character U+{ord(character):04X}",
                word.span,
                "names are printable text",
            )


class _Converter:
    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        #: The first word seen for each name, by spelling: each new spelling is reported once.
        self.spellings: dict[str, dict[str, Word]] = {}

    # -- names ------------------------------------------------------------------------------

    def spelled(self) -> dict[str, str]:
        """The first spelling of every name written otherwise than in lower case."""
        table = {}
        for name, seen in self.spellings.items():
            first = next(iter(seen))
            if first != name and name not in RESERVED:
                table[name] = first
        return table

    def _name(self, word: Word) -> str:
        """Canonical lower-case name of a word, noting inconsistent capitalisation."""
        _refuse_control(word)
        name = sys.intern(word.text.lower())  # one string per name, however often it is written
        seen = self.spellings.get(name)
        if seen is None:
            self.spellings[name] = {word.text: word}
        elif word.text not in seen:
            first = next(iter(seen.values()))
            seen[word.text] = word
            self.diagnostics.append(
                warning(
                    "inconsistent-case",
                    f"name written '{word.text}' here and '{first.text}' at {first.span}",
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
        _refuse_control(word)
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


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: reading and checking make millions of objects and no
    cycles, and the collector scanning them over and over made large files three times slower."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


#: The readers of KIF text: ``fast`` nests the grammar's tokens with a stack (the default), ``lark`` runs
#: Lark's LALR parser on the grammar; both give the same programs and diagnostics.
READERS = ("fast", "lark")


def read(text: str, file: str = "<string>", *, reader: str = "fast") -> ReadResult:
    """Read KIF text into a program, collecting a diagnostic for every malformed clause."""
    if reader not in READERS:
        raise ValueError(f"unknown reader: {reader!r} (readers: {', '.join(READERS)})")
    with gc_paused():
        return _read(text, file, reader)


def _read(text: str, file: str, reader: str) -> ReadResult:
    if reader == "lark":
        from gdl.syntax.lark_reader import read_forms_lark

        forms = read_forms_lark(text)
    else:
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
    program = Program(tuple(rules), file, converter.spelled())
    return ReadResult(program, _in_file(converter.diagnostics, file))


def _in_file(diagnostics: list[Diagnostic], file: str) -> tuple[Diagnostic, ...]:
    return tuple(sorted((replace(d, file=file) for d in diagnostics), key=lambda d: d.sort_key))


def parse_program(text: str, file: str = "<string>", *, reader: str = "fast") -> Program:
    """Read a program, raising :class:`KifSyntaxError` when it has a syntax error."""
    result = read(text, file, reader=reader)
    if not result.ok:
        first = next(d for d in result.diagnostics if d.level.value == "error")
        raise KifSyntaxError(first.format(), result.diagnostics)
    return result.program


def parse_terms(text: str) -> list[Term]:
    """Read the terms of a text, e.g. the fluents of a state written ``(cell 1 1 x) (control o)``."""
    forms = read_forms(text)
    if forms and isinstance(forms[0], Diagnostic):
        raise KifSyntaxError(f"not terms: {text!r}: {forms[0].message}")
    converter = _Converter()
    try:
        return [converter.term(form) for form in forms if not isinstance(form, Diagnostic)]
    except _SyntaxProblem as problem:
        raise KifSyntaxError(f"not terms: {text!r}: {problem.diagnostic.message}") from None


def parse_term(text: str) -> Term:
    """Read one term, e.g. a move written as ``(mark 1 1)``."""
    forms = read_forms(text)
    if len(forms) != 1 or isinstance(forms[0], Diagnostic):
        raise KifSyntaxError(f"not a term: {text!r}")
    try:
        return _Converter().term(forms[0])
    except _SyntaxProblem as problem:
        raise KifSyntaxError(f"not a term: {text!r}: {problem.diagnostic.message}") from None
