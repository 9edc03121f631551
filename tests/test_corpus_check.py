"""The shared corpus: real games pass, broken ones fail for the reason their source gives.

The expectations below are written from ../shared/corpus/invalid/EXPECTED.md and suspect/NOTE.md (and,
for GDL-II, from reading the files), not from gdl's output. Offsets are 0-based [start, end).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from support.check import rules_hit, span_of
from support.gdl2_games import GDL2_DEFECTS

from gdl.check import check_text
from gdl.diagnostics import Diagnostic, Level
from gdl.syntax import read

ERROR, WARNING = Level.ERROR, Level.WARNING


@dataclass(frozen=True)
class Expected:
    code: str
    level: Level
    span: tuple[int, int] | None = None
    #: "1 error": the only error; "exactly 1 problem": the only diagnostic of any level.
    only: str | None = None


INVALID = {
    # ggp-base StaticValidationTest
    "ggpbase_test_case_3b.kif": Expected("unsafe-variable", ERROR),
    "ggpbase_test_case_3e.kif": Expected("unsafe-variable", ERROR),
    "ggpbase_test_case_3f.kif": Expected("unsafe-variable", ERROR),
    "ggpbase_test_clean_not_distinct.kif": Expected("negated-non-sentence", ERROR),
    "ggpbase_test_invalid_function_arities_differ.kif": Expected("function-arity", WARNING),
    # ggp-base only warns; the GDL specification makes one arity per relation an error, as
    # for libgdl_mularity below, so gdl is stricter here on purpose.
    "ggpbase_test_invalid_sentence_arities_differ.kif": Expected("relation-arity", ERROR),
    # griddle ValidatorTest / ParsingTest
    "griddle_badparens1.kif": Expected("unmatched-paren", ERROR, (4, 5), "error"),
    "griddle_badparens2.kif": Expected("unmatched-paren", ERROR, (8, 9), "error"),
    "griddle_badparens3.kif": Expected("unmatched-paren", ERROR, (16, 17), "error"),
    "griddle_badparens4.kif": Expected("list-as-operator", ERROR, (3, 4), "error"),
    "griddle_badparens5.kif": Expected("list-as-operator", ERROR, (2, 3), "error"),
    "griddle_misplaceddatalogkeyword1.kif": Expected("keyword-fact", ERROR, (0, 18), "error"),
    "griddle_misplaceddatalogkeyword2.kif": Expected("keyword-misuse", ERROR, (5, 8), "error"),
    "griddle_misplaceddatalogkeyword3.kif": Expected("keyword-misuse", ERROR, (6, 9), "error"),
    "griddle_varintoplevelsentence.kif": Expected("variable-in-fact", ERROR, (10, 15), "problem"),
    "griddle_emptydisjunction.kif": Expected("empty-or", WARNING, (31, 36), "problem"),
    "griddle_basedependsontrue.kif": Expected("forbidden-dependency", ERROR, (15, 25), "problem"),
    # No statements: a game validator rejects it for lacking role, legal, goal and terminal.
    "griddle_commenteof.kif": Expected("missing-keyword", ERROR),
    # libgdl kif_tests
    "libgdl_notunstrat.kif": Expected("unstratified", ERROR),
    "libgdl_recurseunstrat.kif": Expected("recursion-restriction", ERROR),
    "libgdl_headsafe.kif": Expected("unsafe-variable", ERROR),
    "libgdl_notsafe.kif": Expected("unsafe-variable", ERROR),
    "libgdl_orsafe.kif": Expected("unsafe-variable", ERROR),
    "libgdl_base_depen.kif": Expected("forbidden-dependency", ERROR),
    "libgdl_input_depen.kif": Expected("forbidden-dependency", ERROR),
    "libgdl_init_depen.kif": Expected("forbidden-dependency", ERROR),
    "libgdl_legal_depen.kif": Expected("forbidden-dependency", ERROR),
    "libgdl_ndef_role.kif": Expected("missing-keyword", ERROR),
    "libgdl_ndef_legal.kif": Expected("missing-keyword", ERROR),
    "libgdl_ndef_terminal.kif": Expected("missing-keyword", ERROR),
    "libgdl_ndef_goal.kif": Expected("missing-keyword", ERROR),
    "libgdl_mularity.kif": Expected("relation-arity", ERROR),
    "libgdl_unstratrec.kif": Expected("unstratified", ERROR),
}

def _check(path: Path) -> tuple[str, list[Diagnostic]]:
    text = path.read_text(encoding="utf-8")
    return text, list(check_text(text, str(path)).diagnostics)


def _errors(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.level is ERROR]


def test_expectations_cover_the_invalid_folder(corpus: Path) -> None:
    assert {p.name for p in (corpus / "invalid").glob("*.kif")} == set(INVALID)


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_file_is_rejected_for_its_reason(corpus: Path, name: str) -> None:
    expected = INVALID[name]
    _, diagnostics = _check(corpus / "invalid" / name)
    matching = [d for d in diagnostics if d.code == expected.code and d.level is expected.level]
    assert matching, [d.format() for d in diagnostics]
    if expected.span is not None:
        assert expected.span in {span_of(d) for d in matching}
    if expected.level is ERROR:
        assert {d.code for d in _errors(diagnostics)} == {expected.code}
    else:
        assert not _errors(diagnostics)
    if expected.only == "error":
        assert len(_errors(diagnostics)) == 1
    if expected.only == "problem":
        assert len(diagnostics) == 1


def test_recursion_restriction_variants_are_each_reported(corpus: Path) -> None:
    """The plain recursive call, the call inside 'or' and the call next to 'not' (lines 6, 8, 11)."""
    _, diagnostics = _check(corpus / "invalid" / "libgdl_recurseunstrat.kif")
    lines = {d.span.line for d in diagnostics if d.code == "recursion-restriction"}
    assert lines == {6, 8, 11}


def test_comment_at_end_of_file_reads_as_no_statements(corpus: Path) -> None:
    result = read((corpus / "invalid" / "griddle_commenteof.kif").read_text(encoding="utf-8"))
    assert result.ok and len(result.program) == 0


def test_every_game_checks_without_errors(corpus: Path) -> None:
    failures = {}
    games = sorted((corpus / "games").glob("*.kif"))
    assert len(games) >= 183
    for path in games:
        _, diagnostics = _check(path)
        if _errors(diagnostics):
            failures[path.name] = [d.format() for d in _errors(diagnostics)]
    assert not failures


@pytest.mark.parametrize("name", ["futoshiki4.kif", "hidato19.kif", "queens08lg.kif"])
def test_goal_negating_itself_is_accepted_with_a_warning(corpus: Path, name: str) -> None:
    _, diagnostics = _check(corpus / "games" / name)
    assert not _errors(diagnostics)
    assert "stratified-by-arguments" in {d.code for d in diagnostics}


def test_gdl2_games_check_except_those_with_real_defects(corpus: Path) -> None:
    games = sorted((corpus / "gdl2").glob("*.gdl"))
    assert len(games) >= 22
    for path in games:
        _, diagnostics = _check(path)
        found = {(d.code, d.span.line) for d in _errors(diagnostics)}
        defects = GDL2_DEFECTS.get(path.name, set())
        assert defects <= found, path.name
        assert {code for code, _ in found} <= {code for code, _ in defects}, path.name


def test_corridor_gets_the_and_connective_warning(corpus: Path) -> None:
    text, diagnostics = _check(corpus / "suspect" / "corridor.kif")
    warned = [d for d in diagnostics if d.code == "and-connective"]
    assert warned and all(d.level is WARNING for d in warned)
    assert all(text[d.span.start : d.span.end].startswith("(and") for d in warned)


@pytest.mark.parametrize(
    ("name", "rules", "where"),
    [("dresdensingleplayer1.kif", 2, "a negated literal"), ("dresdensingleplayer2.kif", 4, "the head")],
)
def test_dresden_games_have_their_unsafe_rules(corpus: Path, name: str, rules: int, where: str) -> None:
    text, diagnostics = _check(corpus / "suspect" / name)
    unsafe = [d for d in diagnostics if d.code == "unsafe-variable"]
    assert {d.code for d in _errors(diagnostics)} == {"unsafe-variable"}
    assert len(rules_hit(read(text).program, unsafe)) == rules
    assert all(f"occurs in {where}" in d.notes[0] for d in unsafe)
    assert all(text[d.span.start : d.span.end].startswith("?") for d in unsafe)


def test_dresden_2_names_the_unbound_head_variable(corpus: Path) -> None:
    _, diagnostics = _check(corpus / "suspect" / "dresdensingleplayer2.kif")
    assert "'?nownst'" in " ".join(d.message for d in diagnostics)


def test_kono_is_rejected_for_the_arity_of_next(corpus: Path) -> None:
    text, diagnostics = _check(corpus / "suspect" / "kono.kif")
    arity = [d for d in diagnostics if d.code == "keyword-arity"]
    assert len(arity) == 1 and text[arity[0].span.start :].startswith("(next ")
    # Every other error follows from the same misuse of 'next'.
    assert all("next" in d.message + " ".join(d.notes) for d in _errors(diagnostics))


def test_fire_sheep_terminal_depends_on_does_only_through_negation(corpus: Path) -> None:
    """terminal -> not sheep_moving -> ... -> not killed -> does: a warning, and the path in a note."""
    _, diagnostics = _check(corpus / "games" / "fire_sheep.kif")
    (found,) = [d for d in diagnostics if d.code == "negated-dependency"]
    assert found.level is WARNING and found.notes[0].startswith("dependency: terminal -> not sheep_moving")
    assert found.notes[0].endswith("-> does")
