"""The two readers (the fast stack reader and Lark's LALR parser on kif.lark) agree on everything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.paths import GAMES

import gdl
from gdl.check import check_text
from gdl.diagnostics import Diagnostic
from gdl.syntax.lark_reader import read_forms_lark
from gdl.syntax.reader import MAX_DEPTH, ListForm, Word, read, read_forms


def _shape(forms: list[Any]) -> Any:
    """Forms or diagnostics as plain, comparable data, every position included."""
    out: list[Any] = []
    for form in forms:
        if isinstance(form, Diagnostic):
            out.append(("diagnostic", form.format()))
        elif isinstance(form, Word):
            out.append(("word", form.text, form.span))
        else:
            assert isinstance(form, ListForm)
            out.append(("list", form.span, form.open_span, _shape(form.items)))
    return out


def assert_same_reading(text: str) -> None:
    assert _shape(read_forms_lark(text)) == _shape(read_forms(text))
    fast, slow = read(text, "t.kif"), read(text, "t.kif", reader="lark")
    assert fast == slow
    assert [d.format() for d in fast.diagnostics] == [d.format() for d in slow.diagnostics]
    assert [rule.span for rule in fast.program.rules] == [rule.span for rule in slow.program.rules]


def test_every_game_reads_the_same() -> None:
    ours = sorted(GAMES.glob("*.kif"))
    assert len(ours) >= 9
    for path in ours:
        assert_same_reading(path.read_text(encoding="utf-8", errors="replace"))


def test_every_corpus_file_reads_the_same(corpus: Path) -> None:
    theirs = sorted(p for p in corpus.rglob("*") if p.suffix in {".kif", ".gdl", ".txt"} and p.is_file())
    assert len(theirs) >= 183 + 22
    for path in theirs:
        assert_same_reading(path.read_text(encoding="utf-8", errors="replace"))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "(a (b c)",
        "(a) ) b )",
        "(a (b (c",
        "(" * (MAX_DEPTH + 1) + ")" * (MAX_DEPTH + 1),
        ") " + "(" * (MAX_DEPTH + 5),
        "\ufeff(role x)\n; comment (\n(<= (p ?x) (q ?x))",
        "(init (f ?x))(<= p)(not a)",
        "?",
        "(a;b)c)",
    ],
)
def test_malformed_texts_read_the_same(text: str) -> None:
    assert_same_reading(text)


_PIECES = st.sampled_from(
    ["(", ")", " ", "\n", "\t", ";", "?", "?x", "a", "B", "é", "<=", "not", "or", "1", "\u00a0"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=60).map("".join))
def test_random_texts_read_the_same(text: str) -> None:
    assert_same_reading(text)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_mutated_games_read_the_same(data: st.DataObject) -> None:
    text = (GAMES / data.draw(st.sampled_from(["tictactoe.kif", "nim.kif", "buttons.kif"]))).read_text()
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text)))
        if data.draw(st.booleans()) and at < len(text):
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + data.draw(_PIECES) + text[at:]
    assert_same_reading(text)


def test_the_lark_reader_is_reachable_from_the_api() -> None:
    text = (GAMES / "tictactoe.kif").read_text()
    assert gdl.parse(text, reader="lark").roles == gdl.parse(text).roles
    assert check_text("(role x", reader="lark").diagnostics == check_text("(role x").diagnostics


def test_an_unknown_reader_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown reader: 'yacc'"):
        read("(role x)", reader="yacc")
