"""``gdl check --dynamic``: each game's report, the policy line that says whether it is well-formed, and
the exit status.

A game is well-formed only when every required property is proven. A required property disproven
makes it "not well-formed"; one left undecided by the budget or an interrupt makes it "undecided"
and names the properties; both give exit status 1 (130 after Ctrl-C).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from gdl.budget import LOAD_SECONDS, budget
from gdl.cli.progress import Progress
from gdl.diagnostics import Diagnostic, Level
from gdl.game import load
from gdl.wellformed import REQUIRED, Report, analyse


def check_files(
    files: Sequence[str],
    diagnostics: Sequence[Diagnostic],
    max_states: int,
    seconds: float,
    as_json: bool,
    engine: str = "auto",
    required: Sequence[str] = REQUIRED,
    emit: Callable[[Any], bool] | None = None,
) -> int:
    """Print the static diagnostics and a report per valid game.

    The exit status is 0 when every required property is proven (the failure of another is a warning),
    1 when one fails or is not decided (or a game has errors), 130 when interrupted; with ``as_json``
    each game gives an object with the report's keys plus ``file``, ``diagnostics``, ``required``,
    ``violations``, ``undecided`` and ``well_formed`` (a list of objects when there are several files).
    ``emit``, when given, is handed that JSON instead of its being printed, and returns False when it
    could not be written (exit status 2).
    """
    if max_states < 1 or not seconds > 0:
        print("gdl check: --max-states must be at least 1 and --seconds positive", file=sys.stderr)
        return 2
    status = 0
    results: list[dict[str, Any]] = []
    for file in files:
        own = [d for d in diagnostics if d.file == file]
        result: dict[str, Any] = {"file": file, "diagnostics": [d.to_json() for d in own]}
        results.append(result)
        if not as_json:
            for diagnostic in own:
                print(diagnostic.format())
        if any(d.level is Level.ERROR for d in own):
            status = 1
            continue
        line = Progress("check")
        try:
            # The time per game covers loading it too.
            started = time.monotonic()
            with budget("loading", seconds, total=True, wall=True):
                game = load(file, engine, max_seconds=min(seconds, LOAD_SECONDS))
            left = max(seconds - (time.monotonic() - started), 0.01)
            report = analyse(game, max_states, left, progress=line.explored)
        except ValueError as problem:  # a run-time promise of GDL the reasoner could not keep
            print(f"gdl check: {file}: {problem}", file=sys.stderr)
            status = 1
            continue
        except (MemoryError, RecursionError) as problem:
            print(
                f"gdl check: {file}: the reasoner ran out of resources ({type(problem).__name__})",
                file=sys.stderr,
            )
            status = 1
            continue
        finally:
            line.close()
        status = max(status, record_report(report, required, result, as_json))
        if report.interrupted:
            status = 130
            break
    data = results[0] if len(files) == 1 else results
    if emit is not None:
        return status if emit(data) else 2
    if as_json:
        print(json.dumps(data, indent=2))
    return status


def record_report(report: Report, required: Sequence[str], result: dict[str, Any], as_json: bool) -> int:
    """Add a game's report to its JSON ``result`` and print it (unless ``as_json``) under the policy
    ``required``; the exit status it calls for: 0 when the game is proven well-formed, else 1 (130 when
    the analysis was interrupted)."""
    well_formed = report.well_formed(required)
    result.update(
        report.to_json(),
        required=list(required),
        violations=report.violations(required),
        undecided=report.undecided(required),
        well_formed=well_formed,
    )
    if not as_json:
        print(report.format())
        print(policy_line(report, required))
    if report.interrupted:
        return 130
    return 0 if well_formed else 1


def policy_line(report: Report, required: Sequence[str]) -> str:
    """``GAME: well-formed``, ``not well-formed`` or ``undecided``, the policy, then what was not
    decided and the warnings (properties disproven that were not required)."""
    def names(properties: Sequence[str]) -> str:
        return ", ".join(name.replace("_", " ") for name in properties)

    verdict = {True: "well-formed", False: "not well-formed", None: "undecided"}[report.well_formed(required)]
    line = f"{report.game}: {verdict} (required: {names(required) or 'nothing'})"
    if undecided := report.undecided(required):
        why = "interrupted" if report.interrupted else "the budget ran out"
        line += f"; not decided ({why}): {names(undecided)}"
    if warned := [name for name in report.faults() if name not in required]:
        line += f"; warning: not {names(warned)} (not required)"
    return line


__all__ = ["check_files", "policy_line", "record_report"]
