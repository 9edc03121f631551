"""``gdl check --dynamic`` and ``gdl solve`` over many games: one game per task (see :mod:`gdl.corpus_runs`).

Used when several games are given with ``--cluster`` or ``--jobs``: a count of the games done goes
to standard error while the work runs, and a summary table, one row per game, ends the output.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gdl.backend import open_backend
from gdl.cli._common import emit_json, read_source
from gdl.cli._dynamic import record_report
from gdl.cli.extensive import EXTENSIVE_FORMATS
from gdl.cli.progress import Progress
from gdl.corpus_runs import GameRun, check_game, run_games, solve_game
from gdl.diagnostics import Diagnostic, Level
from gdl.extensive.solve_gdl2 import NotStored, Sampled
from gdl.extensive.solving import ExtensiveSolution
from gdl.memory import usable_memory
from gdl.solve import Solution
from gdl.wellformed import PROPERTIES, Report

#: Column headings of the check table, one per property of :data:`gdl.wellformed.PROPERTIES`.
_HEADINGS = ("term", "play", "goals", "mono", "weak", "strong")


def check_many(args: argparse.Namespace, texts: dict[str, str], diagnostics: Sequence[Diagnostic]) -> int:
    """Explore every game without errors; 0 when every required property is proven, 1 when one fails
    or is not decided or a game has errors or could not be explored, 2 for bad options, 130 when
    interrupted."""
    status = 0
    results: dict[str, dict[str, Any]] = {}
    games: list[tuple[str, str]] = []
    for file, text in texts.items():
        own = [d for d in diagnostics if d.file == file]
        results[file] = {"file": file, "diagnostics": [d.to_json() for d in own]}
        if not args.json:
            for diagnostic in own:
                print(diagnostic.format())
        if any(d.level is Level.ERROR for d in own):
            status = 1
        else:
            games.append((file, text))

    def show(run: GameRun) -> None:
        result = results[run.file]
        if run.problem is None:
            statuses.append(record_report(run.result, args.require, result, args.json))
        else:
            print(f"gdl check: {run.file}: {run.problem}", file=sys.stderr)
            result["problem"] = run.problem
            statuses.append(1)
        if run.reruns:
            result["reruns"] = list(run.reruns)

    statuses = [status]
    runs = _run("check", args, check_game, games, (args.engine, args.max_states, args.time_limit), show)
    status = max(statuses)
    if not args.json:
        print(_check_table(runs, args.require))
    listed = list(results.values())  # as without --cluster: one object for one file
    return status if emit_json(args, listed[0] if len(args.files) == 1 else listed, "check") else 2


def solve_many(args: argparse.Namespace, files: Sequence[str]) -> int:
    """Solve every game as ``gdl solve`` does one alone; 0 when all are solved, 1 when some is not, 2
    when a file cannot be read."""
    readable = (read_source(Path(file), "solve", EXTENSIVE_FORMATS) for file in files)
    games = [(file, text) for file, text in zip(files, readable, strict=True) if text is not None]

    def show(run: GameRun) -> None:
        if run.problem is not None:
            # A diagnostic names its file itself (with the line and column, or the JSON path).
            named = run.problem.startswith(run.file)
            print(run.problem if named else f"gdl solve: {run.file}: {run.problem}", file=sys.stderr)

    # The command's memory, as for one file alone (a pool's workers may have started before it was set).
    tree_memory = usable_memory() // 2
    arguments = (
        args.engine, args.time_limit, args.max_states, args.method or "auto", args.iterations, tree_memory
    )
    runs = _run("solve", args, solve_game, games, arguments, show)
    if args.json:
        print(json.dumps([_solution_json(run) for run in runs], indent=2))
    else:
        print(_solve_table(runs))
    if len(games) < len(files):
        return 2
    return 0 if all(run.result is not None and run.result.solved for run in runs) else 1


def _run(
    command: str,
    args: argparse.Namespace,
    task: Callable[..., GameRun],
    games: list[tuple[str, str]],
    arguments: tuple[Any, ...],
    show: Callable[[GameRun], None],
) -> list[GameRun]:
    """Run the games on the backend ``--cluster`` and ``--jobs`` name, showing each as it finishes."""
    if not games:
        return []
    bar = Progress(command)

    def done(run: GameRun, count: int) -> None:
        bar.close()
        show(run)
        bar.count(count, len(games), "games")

    with open_backend(args.cluster, args.jobs) as backend:
        runs = run_games(backend, task, games, arguments, done)
    for note in backend.notes:
        print(f"gdl {command}: note: {note}", file=sys.stderr)
    return runs


def _table(header: Sequence[str], align: str, rows: list[list[str]]) -> str:
    """Columns aligned as ``align`` says (``l`` or ``r`` per column); a row of two cells is a name
    and a message in place of its figures."""
    full = [list(header), *(row for row in rows if len(row) == len(header))]
    widths = [max(len(row[i]) for row in full) for i in range(len(header))]
    widths[0] = max(len(row[0]) for row in [list(header), *rows])
    lines = []
    for row in [list(header), *rows]:
        if len(row) == len(header):
            aligned = zip(row, widths, align, strict=True)
            cells = [cell.ljust(w) if a == "l" else cell.rjust(w) for cell, w, a in aligned]
        else:
            cells = [row[0].ljust(widths[0]), *row[1:]]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _verdict(value: bool | None) -> str:
    return "?" if value is None else "yes" if value else "no"


def _check_table(runs: list[GameRun], required: Sequence[str]) -> str:
    rows = []
    for run in runs:
        if run.problem is not None:
            rows.append([run.file, f"error: {run.problem}"])
            continue
        report: Report = run.result
        rows.append([
            run.file, str(report.reachable_states), "all" if report.complete else "some",
            *(_verdict(report.verdict(name)) for name in PROPERTIES), f"{report.seconds:.1f}",
        ])
    verdicts = [False if run.problem is not None else run.result.well_formed(required) for run in runs]
    header = ("game", "states", "explored", *_HEADINGS, "seconds")
    table = _table(header, "lrl" + "l" * len(PROPERTIES) + "r", rows)
    names = ", ".join(name.replace("_", " ") for name in required) or "nothing"
    counts = (
        f"{verdicts.count(True)} well-formed, {verdicts.count(False)} not well-formed or not explored, "
        f"{verdicts.count(None)} undecided"
    )
    return f"{table}\n{len(runs)} game(s) explored: {counts} (required: {names})"


def _solve_table(runs: list[GameRun]) -> str:
    rows = []
    for run in runs:
        solution: Solution | ExtensiveSolution | NotStored | None = run.result
        if solution is None:
            rows.append([run.file, f"error: {run.problem}"])
        elif isinstance(solution, NotStored):  # the reason gives the extensive form's size
            bound = f"; {solution.solution.guarantee}" if isinstance(solution, Sampled) else ""
            rows.append([run.file, f"{solution.reason}{bound} ({solution.seconds:.2f} s)"])
        elif not solution.solved:  # the reason, long, after the figures' columns: it would widen them
            rows.append([
                run.file, f"{solution.reason} ({solution.states} states, {solution.seconds:.2f} s)"
            ])
        else:
            value = ", ".join(f"{role} {v}" for role, v in _exact_value(solution).items())
            rows.append([run.file, "solved", value, str(solution.states), f"{solution.seconds:.2f}"])
    solved = sum(run.result is not None and run.result.solved for run in runs)
    table = _table(("game", "result", "value", "states", "seconds"), "lllrr", rows)
    return f"{table}\n{solved} of {len(runs)} game(s) solved"


def _exact_value(solution: Solution | ExtensiveSolution) -> dict[str, Any]:
    """Each player's value as it is proven, in fractions (an extensive-form game's in payoffs, as
    ``gdl solve`` shows it alone)."""
    if isinstance(solution, ExtensiveSolution):
        return dict(solution.exact or solution.value)
    return dict(solution.exact_value or solution.value)


def _solution_json(run: GameRun) -> dict[str, Any]:
    data: dict[str, Any] = {"file": run.file, "game": run.game}
    if run.result is None:
        data["problem"] = run.problem
    else:
        data.update(run.result.to_json())
    if run.reruns:
        data["reruns"] = list(run.reruns)
    return data
