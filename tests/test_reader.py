"""The KIF reader: what it accepts, what it reports, and the printer's round trip."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from support.check import located, programs, span_of

from gdl.diagnostics import Level
from gdl.syntax import read
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
from gdl.syntax.reader import MAX_DEPTH, parse_term


def _one(text: str) -> Rule:
    result = read(text)
    assert result.ok and len(result.program) == 1, result.diagnostics
    return result.program.rules[0]


# -- what KIF as GDL uses it may contain ---------------------------------------------------------


def test_comments_crlf_and_case() -> None:
    text = "; a comment\r\n(ROLE White) ; trailing\r\n(<= (Legal ?P Noop)\r\n  (role ?p)) ; no newline at end"
    result = read(text)
    assert result.ok
    assert str(result.program) == "(role white)\n(<= (legal ?p noop) (role ?p))\n"


def test_zero_ary_relations_bare_or_in_parentheses() -> None:
    rule = _one("(<= terminal (open2) done)")
    assert rule.head == Atom("terminal") and rule.body == (Atom("open2"), Atom("done"))


def test_numbers_and_deep_function_terms() -> None:
    rule = _one("(cell (pos 1 (f (g 2))) 10)")
    assert rule.head.args == (
        Function("pos", (Constant("1"), Function("f", (Function("g", (Constant("2"),)),)))),
        Constant("10"),
    )


def test_body_forms() -> None:
    rule = _one("(<= (p ?x) (q ?x) (not (r ?x)) (distinct ?x a) (or (s ?x) (and (t ?x) (u ?x))))")
    assert rule.body == (
        Atom("q", (Variable("x"),)),
        Not(Atom("r", (Variable("x"),))),
        Distinct(Variable("x"), Constant("a")),
        Or(((Atom("s", (Variable("x"),)),), (Atom("t", (Variable("x"),)), Atom("u", (Variable("x"),))))),
    )


def test_and_in_a_body_is_read_as_a_conjunction_with_a_warning() -> None:
    result = read("(<= p (and q r))")
    assert result.program.rules[0].body == (Atom("q"), Atom("r"))
    assert [(d.code, d.level) for d in result.diagnostics] == [("and-connective", Level.WARNING)]


def test_gdl2_words() -> None:
    result = read("(role random)\n(<= (sees ?r (card ?c)) (does random (deal ?r ?c)))")
    assert result.ok and result.program.rules[1].head.relation == "sees"


def test_spans_are_lines_columns_and_offsets() -> None:
    text = "(role a)\n(<= (legal a (mark 1 2))\n    (true (cell 1 2 b)))"
    rule = read(text).program.rules[1]
    literal = rule.body[0]
    assert isinstance(literal, Atom)
    span = literal.span
    assert (span.line, span.column, span.end_line) == (3, 5, 3)
    assert span_of_item(literal) == located(text, "(true (cell 1 2 b))")
    mark = rule.head.args[1]
    assert span_of_item(mark) == located(text, "(mark 1 2)")


def test_a_byte_order_mark_is_no_word_and_positions_follow_it() -> None:
    with_mark = read("\ufeff(role a)\n(init (p))")
    assert with_mark.program == read("(role a)\n(init (p))").program and not with_mark.diagnostics
    broken = read("\ufeff(role a")
    assert [(d.code, d.span.line, d.span.column) for d in broken.diagnostics] == [("unmatched-paren", 1, 1)]


def span_of_item(item: Literal | Term) -> tuple[int, int]:
    return item.span.start, item.span.end


# -- what the reader reports ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code", "fragment"),
    [
        ("(role a)\n(legal a", "unmatched-paren", "(legal"),
        (")(role a)", "unmatched-paren", ")"),
        ("((role) a)", "list-as-operator", "(role)"),
        ("(<= (p ?x) (?r ?x))", "variable-as-operator", "?r"),
        ("(p not)", "keyword-misuse", "not"),
        ("(p (or a))", "keyword-misuse", "or"),
        ("(<= p (q distinct))", "keyword-misuse", "distinct"),
        ("(not p)", "keyword-fact", "(not p)"),
        ("(distinct a b)", "keyword-fact", "(distinct a b)"),
        ("(<= p (not (distinct a b)))", "negated-non-sentence", "(distinct a b)"),
        ("(<= p (not (not q)))", "negated-non-sentence", "(not q)"),
        ("(cell ?x 1)", "variable-in-fact", "?x"),
        ("(<= p (distinct a))", "distinct-arity", "(distinct a)"),
        ("(<= p (not q r))", "not-arity", "(not q r)"),
        ("(<= p ())", "empty-list", "()"),
        ("(<=)", "rule-without-head", "(<=)"),
        ("(<= (not p) q)", "keyword-head", "(not p)"),
        ("(<= (p ?) q)", "bad-variable", "?"),
        ("(<= p ?x)", "variable-as-sentence", "?x"),
    ],
)
def test_syntax_errors_are_reported_where_they_are(text: str, code: str, fragment: str) -> None:
    result = read(text)
    errors = [d for d in result.diagnostics if d.level is Level.ERROR]
    assert [d.code for d in errors] == [code]
    start = located(text, fragment)[0]
    assert errors[0].span.start == start


@pytest.mark.parametrize(
    ("text", "code", "fragment"),
    [
        ("(<= p (or))", "empty-or", "(or)"),
        ("(<= p (or q (or r s)))", "nested-or", "(or r s)"),
        ("(<= (goal a 100))", "empty-body", "(<= (goal a 100))"),
        ("(<= p (and q r))", "and-connective", "(and q r)"),
        ("(cell a)\n(<= p (Cell a))", "inconsistent-case", "Cell"),
    ],
)
def test_warnings_keep_the_clause(text: str, code: str, fragment: str) -> None:
    result = read(text)
    assert [(d.code, d.level) for d in result.diagnostics] == [(code, Level.WARNING)]
    assert span_of(result.diagnostics[0]) == located(text, fragment)
    assert len(result.program) == text.count("\n") + 1


def test_a_bad_clause_is_left_out_and_the_rest_is_read() -> None:
    result = read("(role a)\n(p not)\n(q b)")
    assert [str(rule) for rule in result.program] == ["(role a)", "(q b)"]


def test_an_unmatched_parenthesis_leaves_an_empty_program() -> None:
    result = read("(role a)\n(q b")
    assert len(result.program) == 0 and [d.code for d in result.diagnostics] == ["unmatched-paren"]


def test_a_parenthesis_in_a_comment_does_not_count() -> None:
    assert read("(role a) ; (\n(q b) ; )").ok


def test_nesting_beyond_the_limit_is_an_error_not_a_crash() -> None:
    deep = "(p " + "(f " * (MAX_DEPTH + 5) + "a" + ")" * (MAX_DEPTH + 6)
    assert [d.code for d in read(deep).diagnostics] == ["too-deep"]
    shallow = "(p " + "(f " * (MAX_DEPTH - 2) + "a" + ")" * (MAX_DEPTH - 1)
    assert read(shallow).ok


def test_any_unicode_white_space_separates_words() -> None:
    assert str(read("(cell\u00a0a\u2028b)\x0b(q\x1cc)").program) == "(cell a b)\n(q c)\n"


def test_an_empty_body_rule_with_variables_prints_as_a_rule() -> None:
    rule = _one_with_warning("(<= (p ?x))")
    assert str(rule) == "(<= (p ?x))" and read(str(rule)).program.rules == (rule,)


def _one_with_warning(text: str) -> Rule:
    result = read(text)
    assert len(result.program) == 1
    return result.program.rules[0]


# -- printing and reading back --------------------------------------------------------------------

@settings(max_examples=100, deadline=None)
@given(programs())
def test_round_trip_on_generated_programs(program: Program) -> None:
    result = read(str(program))
    assert not [d for d in result.diagnostics if d.level is Level.ERROR], result.diagnostics
    assert result.program == program


def test_round_trip_on_every_corpus_game(corpus: Path) -> None:
    games = sorted((corpus / "games").glob("*.kif"))
    assert len(games) >= 183
    for path in games:
        program = read(path.read_text(encoding="utf-8")).program
        assert read(str(program)).program == program, path.name


def test_terms_have_a_constructor_style_repr() -> None:
    move = parse_term("(mark 1 (f ?x))")
    assert repr(move) == "Function('mark', (Constant('1'), Function('f', (Variable('x'),))))"
    assert eval(repr(move)) == move  # the names the repr uses are the model's constructors


@pytest.mark.parametrize("name", ["a\x00b", "red\x1b[31m", "x\u202ey", "\x07"])
def test_control_characters_in_names_are_refused(name: str) -> None:
    # A NUL would break every engine; terminal escapes would reach terminals raw.
    result = read(f"(role robot) (init (cell {name})) (<= (p ?{name}) (true (cell ?{name})))")
    codes = [d.code for d in result.diagnostics]
    assert codes.count("bad-character") == 2 and not result.ok
    assert "U+" in next(d.message for d in result.diagnostics if d.code == "bad-character")
