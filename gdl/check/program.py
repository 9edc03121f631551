"""The checking stage: run every family of checks and, when none reports an error, stratify."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import networkx as nx

from gdl.budget import budget
from gdl.check.dependencies import check_dependencies
from gdl.check.gdl2 import check_gdl2
from gdl.check.graph import dependency_graph
from gdl.check.keywords import check_keywords, check_required
from gdl.check.moves import check_goal_values, check_moves
from gdl.check.recursion import check_recursion
from gdl.check.safety import check_safety
from gdl.check.stratify import Stratum, stratify
from gdl.check.symbols import check_arities, check_goals_derivable, check_usage
from gdl.diagnostics import Diagnostic, has_errors
from gdl.syntax.model import Program
from gdl.syntax.reader import gc_paused, read

#: A family of checks: given the program and its dependency graph, yield what is wrong with it.
Check = Callable[[Program, nx.DiGraph], Iterable[Diagnostic]]

_CHECKS: tuple[Check, ...] = (
    check_keywords,
    check_gdl2,
    check_arities,
    check_dependencies,
    check_safety,
    check_recursion,
    check_goal_values,
)

#: The checks that make sense for a plain Datalog program, which is no game: no GDL keyword has a
#: special place or a required definition, and unused relations are simply the program's outputs.
def _check_datalog_recursion(program: Program, graph: nx.DiGraph) -> Iterator[Diagnostic]:
    return check_recursion(program, graph, games=False)


_DATALOG_CHECKS: tuple[Check, ...] = (check_arities, check_safety, _check_datalog_recursion)

#: Checks that ask whether something is defined or used anywhere in the program. After a syntax error
#: the reader has left clauses out, so these would report what is only missing from the part that could
#: be read: they run only when reading found no error. In particular an unmatched parenthesis, after
#: which the reader yields an empty program, is reported alone, without "the game never defines 'role'"
#: and the like, which would only be noise.
_COMPLETENESS_CHECKS: tuple[Check, ...] = (check_required, check_usage, check_goals_derivable, check_moves)

_TOKEN = object()


@dataclass(frozen=True, eq=False)
class CheckedProgram:
    """A program that passed every static check, with its rules in strata in evaluation order.

    Only :func:`check` makes one, so holding one proves the program is valid and stratified.
    """

    program: Program
    strata: tuple[Stratum, ...]
    graph: nx.DiGraph = field(repr=False)
    token: object = field(repr=False)

    def __post_init__(self) -> None:
        if self.token is not _TOKEN:
            raise TypeError("a CheckedProgram is made by gdl.check.check(), not directly")


@dataclass(frozen=True)
class CheckResult:
    """Every diagnostic for a program, and the checked program when there was no error."""

    diagnostics: tuple[Diagnostic, ...]
    checked: CheckedProgram | None

    @property
    def ok(self) -> bool:
        return self.checked is not None


def check(program: Program, prior: Iterable[Diagnostic] = (), *, game: bool = True) -> CheckResult:
    """Check a program; ``prior`` are diagnostics already found (by the reader) for the same source.

    With ``game=False`` the program is checked as plain Datalog (safety, arities, the recursion
    restriction and stratified negation), without the rules GDL sets for its keywords, so that
    :func:`gdl.datalog.evaluate` can serve as a general Datalog engine.
    """
    with gc_paused(), budget("checking"):
        return _check(program, prior, game)


def _check(program: Program, prior: Iterable[Diagnostic], game: bool) -> CheckResult:
    graph = dependency_graph(program)
    diagnostics = list(prior)
    if not game:
        families = _DATALOG_CHECKS
    elif has_errors(diagnostics):
        families = _CHECKS
    else:
        families = _CHECKS + _COMPLETENESS_CHECKS
    for family in families:
        diagnostics.extend(family(program, graph))
    strata, problems = stratify(program, graph)
    diagnostics.extend(problems)
    diagnostics = sorted(
        {d: None for d in (_in_file(d, program.source) for d in diagnostics)},
        key=lambda d: d.sort_key,
    )
    if has_errors(diagnostics) or strata is None:
        return CheckResult(tuple(diagnostics), None)
    return CheckResult(tuple(diagnostics), CheckedProgram(program, strata, graph, _TOKEN))


def check_rewritten(program: Program, original: CheckedProgram) -> CheckResult:
    """Check a program rewritten from ``original`` so that it derives no fact beyond a finite set.

    The magic-set rewriting (:mod:`gdl.datalog.magic`) derives a subset of the original's facts plus
    finitely many demands, but its recursive demands break the letter of the recursion restriction, which
    exists to guarantee finiteness. So only safety, arities and stratified negation are checked.
    """
    graph = dependency_graph(program)
    diagnostics = [d for check in (check_arities, check_safety) for d in check(program, graph)]
    strata, problems = stratify(program, graph)
    diagnostics.extend(problems)
    if has_errors(diagnostics) or strata is None:
        return CheckResult(tuple(diagnostics), None)
    return CheckResult(tuple(diagnostics), CheckedProgram(program, strata, graph, _TOKEN))


def check_text(text: str, file: str = "<string>", *, game: bool = True, reader: str = "fast") -> CheckResult:
    """Read and check KIF text (as a game, or as plain Datalog with ``game=False``) with the named
    reader (see :data:`gdl.syntax.reader.READERS`)."""
    result = read(text, file, reader=reader)
    return check(result.program, result.diagnostics, game=game)


def _in_file(diagnostic: Diagnostic, file: str) -> Diagnostic:
    from dataclasses import replace

    return diagnostic if diagnostic.file == file else replace(diagnostic, file=file)
