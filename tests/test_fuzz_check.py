"""No input whatsoever makes the reader, the checker or ``gdl check`` raise: random text, random bytes,
and real games with random edits."""

from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st
from support.check import programs
from support.paths import CORPUS, needs_corpus

from gdl.check import check, check_text
from gdl.cli import main
from gdl.diagnostics import has_errors
from gdl.syntax.model import Program

CORPUS_GAMES = CORPUS / "games"
#: Small games with rules of every kind: or, not, distinct, recursion, function terms, GDL-II words.
_SAMPLES = ["tictactoe.kif", "buttons.kif", "hanoi.kif", "montyhall.kif", "blocksworld.kif", "nim1.kif"]
_KEYS = {"file", "line", "column", "end_line", "end_column", "level", "code", "message", "notes"}



def _assert_well_formed(text: str, file: str = "<string>") -> None:
    result = check_text(text, file)
    diagnostics = list(result.diagnostics)
    assert diagnostics == sorted(diagnostics, key=lambda d: d.sort_key)
    assert all(0 <= d.span.start <= d.span.end <= len(text) for d in diagnostics)
    assert result.ok == (not has_errors(diagnostics))


@settings(max_examples=150, deadline=None)
@given(st.text(st.sampled_from("()?; \n\r\tabcXY12<=notrdisc\u00a0\u2028é") | st.characters(), max_size=300))
def test_random_text_is_read_and_checked_without_exceptions(text: str) -> None:
    _assert_well_formed(text)


_EDIT_CHARACTERS = st.sampled_from([*"()()??;\n <=x1", "not", "or", "distinct", "and", "?x", "(", ")"])


@st.composite
def _edited_game(draw: st.DrawFn) -> str:
    text = (CORPUS_GAMES / draw(st.sampled_from(_SAMPLES))).read_text(encoding="utf-8")
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["delete", "insert", "swap"]))
        if kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 12)) :]
        elif kind == "insert":
            text = text[:at] + draw(_EDIT_CHARACTERS) + text[at:]
        elif at + 1 < len(text):
            other = draw(st.integers(at + 1, len(text) - 1))
            text = text[:at] + text[other] + text[at + 1 : other] + text[at] + text[other + 1 :]
    return text


@needs_corpus
@settings(max_examples=120, deadline=None)
@given(_edited_game())
def test_edited_games_are_read_and_checked_without_exceptions(text: str) -> None:
    _assert_well_formed(text)


def _run_cli(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["check", *args])
    return status, out.getvalue()


@settings(max_examples=80, deadline=None)
@given(st.binary(max_size=200))
@example(b"{")
@example(b" (role")
def test_cli_on_random_bytes_exits_cleanly(data: bytes) -> None:
    try:
        text: str | None = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.kif"
        path.write_bytes(data)
        status, _ = _run_cli(str(path))
    # Text that begins as another format's files do (a JSON game, a Gambit file, a maze's two numbers)
    # is named as that format and refused as unusable input, as unreadable bytes are.
    start = "" if text is None else text.lstrip("\ufeff \t\r\n")
    other_format = start.startswith(("{", "EFG ")) or re.match(r"\d+\s*\n\s*\d+\s*\n", start) is not None
    assert status in ({2} if text is None or other_format else {0, 1})


@needs_corpus
@settings(max_examples=40, deadline=None)
@given(_edited_game())
def test_cli_json_on_edited_games(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.kif"
        path.write_text(text, encoding="utf-8")
        status, out = _run_cli("--json", str(path))
    reported = json.loads(out)
    assert all(set(item) == _KEYS for item in reported)
    assert status == (1 if any(item["level"] == "error" for item in reported) else 0)


@settings(max_examples=150, deadline=None)
@given(programs())
def test_generated_programs_are_checked_without_exceptions(program: Program) -> None:
    result = check(program)
    assert result.ok == (not has_errors(list(result.diagnostics)))
    if result.checked is not None:
        evaluated = [rule for stratum in result.checked.strata for rule in stratum.rules]
        assert sorted(map(str, evaluated)) == sorted(map(str, program.rules))
