"""Solve every corpus game in a fresh process under a CPU-time and a memory limit, and tabulate the
reachable states, the value, the path that solved it and the CPU time.

    nice -n 10 .venv/bin/python tests/tools/solve_corpus.py --out solve_corpus.jsonl --table solve_corpus.md
    .venv/bin/python tests/tools/solve_corpus.py --cpu-limit 60 ../shared/corpus/games/nim*.kif
    .venv/bin/python tests/tools/solve_corpus.py --search-check 120 --out solve_corpus.jsonl
    .venv/bin/python tests/tools/solve_corpus.py --compare-with old.jsonl --out new.jsonl

Each game is solved as ``gdl solve`` solves it alone (:func:`gdl.corpus_runs.solve_game` for
extensive-form games, :func:`gdl.solve.solve` otherwise) in its own niced process with RLIMIT_CPU
(``--cpu-limit``, loading included) and RLIMIT_AS (``--memory-limit``), and a cap of ``--max-states``
reachable states, so that a game larger than the cap is reported as such once it has explored that many
states, not at the CPU limit. An extensive-form game is given :data:`EXTENSIVE_SHARE` of the CPU limit in
wall-clock seconds, so that a GDL-II tree too large to store is recorded as too large with its node count
(sampled with its bound, or refused) before the limit ends it. The CPU seconds and the peak resident
memory are the process's own (from ``wait4``). Each game's record is appended to the JSON lines file at
once, so a run that is stopped is resumed by running the same command again: a game already recorded is
skipped, unless it stopped at the CPU limit and the limit is now higher. ``--table`` writes the Markdown
table of every game recorded.

``--search-check S`` also solves each game whose native result is small enough with the search over
game states on the Datalog engine (the solver the native one replaces: no network, no shared code but
the valuing), within S CPU-seconds; where both finish their values must agree. ``--compare-with OLD``
compares each game's value with the value recorded in an older run's file. Every disagreement is
printed to standard error, marked in the table, and makes the exit status 1.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "games"
#: The state cap: a game with more reachable states is reported as larger than it.
MAX_STATES = 10_000_000
CPU_LIMIT = 600
MEMORY_LIMIT_GIB = 12.0
#: The wall-clock seconds a game may take per CPU-second of its limit (a niced process on a busy machine
#: gets a small share of a core).
WALL_PER_CPU_SECOND = 12
#: Games larger than this are not given to ``--search-check`` (the search keeps a Python object a state).
SEARCH_MAX_STATES = 300_000
#: The share of the CPU limit an extensive-form game is solved in, counted in wall-clock seconds (never
#: fewer than its CPU seconds, on one thread): it reports a sampled or refused tree before the limit ends it.
EXTENSIVE_SHARE = 0.75

SOLVED = "solved"
TOO_LARGE = "too large"
CPU = "CPU limit"
MEMORY = "memory limit"
NOT_SOLVED = "not solved"
ERROR = "error"


# --- the worker: one game, in its own process --------------------------------------------------------


def work(
    path: str, budget: float, max_states: int, engine: str, progress_file: str, cpu_limit: int
) -> dict[str, Any]:
    """Solve one game and return its record's fields (those the worker knows)."""
    from gdl.corpus_runs import _guarded, solve_game
    from gdl.extensive import is_extensive_text
    from gdl.extensive.solve_gdl2 import NotStored
    from gdl.extensive.solving import ExtensiveSolution
    from gdl.game import Game
    from gdl.solve import solve, solving_engine

    text = Path(path).read_text(encoding="utf-8", errors="replace")
    facts: dict[str, Any] = {}
    last = [0.0]

    def progress(states: int, seconds: float) -> None:
        # Which solver is at work: the module that reports (gdl.retrograde..., or gdl.solve's search).
        module = sys._getframe(1).f_globals.get("__name__", "")
        at_work = "native" if module.startswith("gdl.retrograde") else "search"
        if facts.get("path") != at_work:
            facts["path"] = at_work
            Path(progress_file + ".facts").write_text(json.dumps(facts), encoding="utf-8")
        if time.monotonic() - last[0] >= 1.0:  # the count so far, for the parent if the limit strikes
            last[0] = time.monotonic()
            Path(progress_file).write_text(f"{states}\n", encoding="utf-8")

    def solved(game: Game) -> Any:
        if engine == "auto":  # as gdl solve does: a network built in a share of the time auto gave up on
            game = solving_engine(game, budget)
        facts["roles"] = len(game.roles)
        facts["network"] = getattr(game.reasoner, "net", None) is not None
        facts["nature"] = game.chance_role is not None
        # What the parent records if the process is ended by a limit.
        Path(progress_file + ".facts").write_text(json.dumps(facts), encoding="utf-8")
        return solve(game, budget, max_states, progress=progress)

    if is_extensive_text(text, path):
        Path(progress_file + ".facts").write_text(json.dumps({"path": "extensive"}), encoding="utf-8")
        run = solve_game(text, path, engine, EXTENSIVE_SHARE * cpu_limit, max_states)
    else:
        run = _guarded(path, text, engine, solved)
    record: dict[str, Any] = {"game": run.game, **facts}
    if run.problem is not None:
        record.update(status=ERROR, reason=run.problem, states=0, exact=False)
        if "ran out of resources (MemoryError)" in run.problem:
            record["status"] = MEMORY
        return record
    result = run.result
    if isinstance(result, ExtensiveSolution | NotStored):
        record.update(path="extensive", **extensive_fields(result, max_states))
        return record
    notes = getattr(result, "notes", [])
    if result.solved:  # else the path is the solver's last at work, if any
        record["path"] = "native" if any("retrograde" in note for note in notes) else "search"
    record.update(states=int(result.states), exact=bool(result.solved), reason=result.reason)
    if result.solved:
        record.update(status=SOLVED, value=dict(result.value), concept=result.concept)
    elif result.states >= max_states:
        record.update(status=TOO_LARGE, reason=f"more than {max_states:,} reachable states")
    elif "would not fit" in result.reason:  # the native solver's refusal: its arrays would pass its memory
        record.update(status=MEMORY)
    else:
        record.update(status=NOT_SOLVED)
    return record


def extensive_fields(result: Any, max_states: int) -> dict[str, Any]:
    """The record's fields of an extensive-form game: solved (exactly, or with its exploitability), or
    too large to store: sampled with a bound of its exploitability, or refused, with the tree's size."""
    from gdl.extensive.solve_gdl2 import GAME, SIZE, TIME, NotStored, Sampled

    fields: dict[str, Any] = {
        "states": int(result.states), "exact": bool(result.solved), "reason": result.reason
    }
    if isinstance(result, NotStored):
        # Too large once the tree has more nodes than the cap on states (counted, or made before the
        # memory or the time ran out); else the limit that stopped it, or the game's own rules.
        status = {SIZE: MEMORY, TIME: CPU, GAME: NOT_SOLVED}[result.cause]
        if result.cause != GAME and result.states >= max_states:
            status = TOO_LARGE
        fields.update(status=status, made=result.made)
        if result.size is not None:
            size = result.size
            fields.update(
                nodes=size.nodes, terminals=size.terminals, saturated=size.saturated, tree_states=size.states
            )
        if isinstance(result, Sampled):
            run = result.solution.run
            fields.update(
                method="mccfr", iterations=run.iterations, stopped=run.stopped,
                infosets=result.solution.infosets, exploitability_bound=result.solution.bound.to_json(),
            )
        return fields
    fields.update(
        status=SOLVED if result.solved else NOT_SOLVED, value=dict(result.value), concept=result.concept,
        method=result.method, exploitability=result.exploitability,
    )
    return fields


def worker_main(arguments: list[str]) -> None:
    path, budget, max_states, engine, progress_file, cpu_limit = arguments
    record = work(path, float(budget), int(max_states), engine, progress_file, int(cpu_limit))
    print(json.dumps(record), flush=True)


# --- the driver: one process a game --------------------------------------------------------------------


def limits(cpu_seconds: int, memory_bytes: int, niceness: int) -> Callable[[], None]:
    def set_limits() -> None:
        os.nice(max(0, niceness - os.nice(0)))  # at least this niceness, whether the driver is niced or not
        # SIGXCPU at the soft limit ends the process (its default action); SIGKILL 10 s later if caught.
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 10))
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    return set_limits


def run_one(
    path: str, cpu_limit: int, memory_limit: float, max_states: int, niceness: int, engine: str = "auto"
) -> dict[str, Any]:
    """One game's record: the worker's fields, or why its process ended, with its CPU time and peak memory."""
    memory_bytes = int(memory_limit * 2**30)
    # A process that waits rather than computes is stopped too, but not one that other work crowds out.
    wall_limit = WALL_PER_CPU_SECOND * cpu_limit + 300
    with tempfile.TemporaryDirectory(prefix="solve_corpus") as scratch:
        progress_file = os.path.join(scratch, "progress")
        out_path, err_path = os.path.join(scratch, "out"), os.path.join(scratch, "err")
        command = [
            sys.executable, str(Path(__file__).resolve()), "--worker",
            path, str(wall_limit), str(max_states), engine, progress_file, str(cpu_limit),
        ]
        started = time.monotonic()
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            process = subprocess.Popen(
                command, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                preexec_fn=limits(cpu_limit, memory_bytes, niceness),
            )
            status, usage = _wait(process, wall_limit)
        wall = time.monotonic() - started
        stdout = Path(out_path).read_text(encoding="utf-8", errors="replace").strip()
        stderr = Path(err_path).read_text(encoding="utf-8", errors="replace").strip()
        so_far = Path(progress_file).read_text().strip() if os.path.exists(progress_file) else "0"
        facts_file = Path(progress_file + ".facts")
        facts = json.loads(facts_file.read_text()) if facts_file.exists() else {}
    record: dict[str, Any] = {"file": Path(path).name}
    lines = stdout.splitlines()
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and lines:
        record.update(json.loads(lines[-1]))
    else:
        record.update(facts, states=int(so_far or 0), exact=False)
        signalled = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        cpu = usage.ru_utime + usage.ru_stime
        if signalled == signal.SIGXCPU or (signalled == signal.SIGKILL and cpu >= cpu_limit):
            record.update(status=CPU, reason=f"more than {cpu_limit} CPU-s")
        elif signalled == signal.SIGKILL and wall >= wall_limit:
            record.update(status=ERROR, reason=f"more than {wall_limit} s of wall-clock time")
        elif "MemoryError" in stderr or "std::bad_alloc" in stderr:
            record.update(status=MEMORY, reason=f"more than {memory_limit:g} GiB of address space")
        else:
            why = f"signal {signal.Signals(signalled).name}" if signalled else f"exit status {status >> 8}"
            last = stderr.splitlines()[-1] if stderr else ""
            record.update(status=ERROR, reason=f"the process ended ({why}): {last}"[:300])
    record.update(
        cpu_seconds=round(usage.ru_utime + usage.ru_stime, 2),
        peak_mib=round(usage.ru_maxrss / 1024),
        wall_seconds=round(wall, 1),
        cpu_limit=cpu_limit,
        max_states=max_states,
        engine=engine,
    )
    return record


def _wait(process: subprocess.Popen[bytes], wall_limit: float) -> tuple[int, Any]:
    """The process's wait status and resource usage (its own, from wait4), killing it past ``wall_limit``."""
    deadline = time.monotonic() + wall_limit
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            process.returncode = status  # reaped here: Popen must not wait for it again
            return status, usage
        if time.monotonic() > deadline:
            process.kill()
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = status
            return status, usage
        time.sleep(0.2)


# --- records, resumption, comparison -------------------------------------------------------------------


def read_records(path: Path) -> dict[str, dict[str, Any]]:
    """The last record of each game in a JSON lines file (none if it does not exist)."""
    records: dict[str, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                records[record["file"]] = record
    return records


def is_done(record: dict[str, Any] | None, cpu_limit: int, max_states: int) -> bool:
    """Whether a recorded game need not be run again with these limits."""
    if record is None or record.get("max_states") != max_states:
        return False
    return record["status"] != CPU or record["cpu_limit"] >= cpu_limit


def same_value(one: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether two values (role -> number) agree, to the 4 places a value is rounded to."""
    if set(one) != set(other):
        return False
    return all(abs(float(one[role]) - float(other[role])) < 1e-3 for role in one)


def disagreements(records: Iterable[dict[str, Any]], old: dict[str, dict[str, Any]]) -> list[str]:
    """A line for every game whose value differs from the search's or from the older run's."""
    lines = []
    for record in records:
        searched = record.get("search_status") == SOLVED and record["status"] == SOLVED
        if searched and not same_value(record["value"], record["search_value"]):
            searched_value = record["search_value"]
            lines.append(f"{record['file']}: value {record['value']} but the search gives {searched_value}")
        before = old.get(record["file"])
        if before and before["status"] == SOLVED:
            if record["status"] != SOLVED:
                lines.append(f"{record['file']}: solved before ({before['value']}), now {record['status']}")
            elif not same_value(record["value"], before["value"]):
                lines.append(f"{record['file']}: value {record['value']}, before {before['value']}")
    return lines


def search_check(record: dict[str, Any], path: str, seconds: int, memory_limit: float, niceness: int) -> None:
    """Add the search's result over game states (Datalog engine) to the record."""
    if record["status"] not in (SOLVED, NOT_SOLVED) or record["states"] > SEARCH_MAX_STATES:
        return
    if record.get("path") == "extensive" or record.get("search_limit", 0) >= seconds:
        return
    searched = run_one(path, seconds, memory_limit, SEARCH_MAX_STATES, niceness, engine="datalog")
    record.update(
        search_status=searched["status"], search_value=searched.get("value"),
        search_cpu_seconds=searched["cpu_seconds"], search_limit=seconds,
    )


# --- the table -------------------------------------------------------------------------------------------


def states_cell(record: dict[str, Any]) -> str:
    if record["exact"]:
        return f"{record['states']:,}"
    if "nodes" in record:  # an extensive form too large to store, counted
        return f"{'≥ ' if record['saturated'] else ''}{record['nodes']:,}"
    if "made" in record:  # one not counted: more nodes than were made
        return f"> {record['made']:,}" if record["made"] else "?"
    if record["status"] == TOO_LARGE:
        return f"> {record['max_states']:,}"
    return f"≥ {record['states']:,}" if record["states"] else "?"


def value_cell(record: dict[str, Any]) -> str:
    if record["status"] != SOLVED:
        return ""
    return ", ".join(f"{role} {value:g}" for role, value in record["value"].items())


def result_cell(record: dict[str, Any], disagreeing: set[str]) -> str:
    status = record["status"]
    if status in (SOLVED, TOO_LARGE, CPU) or (status == MEMORY and "would not fit" not in record["reason"]):
        cell = status
    else:
        reason = record.get("reason", "").removeprefix("not solved: ").split(" <State")[0].rstrip(": ")
        cell = f"{status}: {reason}".replace("|", "\\|").replace("\n", " ")
    if record.get("path"):
        cell += f" ({record['path']})"
    if "exploitability_bound" in record:
        cell += f", sampled: exploitability ≥ {record['exploitability_bound']['lower_bound']:.3g} (95%)"
    if status != SOLVED and record.get("network") is False:
        cell += " [no network]"
    elif status != SOLVED and record.get("nature"):
        cell += " [nature]"
    if record.get("search_status") == SOLVED and status == SOLVED:
        cell += "; search agrees" if record["file"] not in disagreeing else ""
    if record["file"] in disagreeing:
        cell += " **VALUE DISAGREES**"
    return cell


def table(records: list[dict[str, Any]], disagreeing: set[str]) -> str:
    lines = [
        "| game | states | result | value | CPU s | peak MiB |",
        "|---|--:|---|---|--:|--:|",
    ]
    for record in sorted(records, key=lambda r: r["file"].lower()):
        lines.append(
            f"| {record['file'].removesuffix('.kif')} | {states_cell(record)} | "
            f"{result_cell(record, disagreeing)} | {value_cell(record)} | {record['cpu_seconds']:.1f} | "
            f"{record['peak_mib']:,} |"
        )
    return "\n".join(lines)


def summary(records: list[dict[str, Any]]) -> str:
    counts: dict[str, int] = {}
    for record in records:
        key = f"{record['status']} ({record['path']})" if record["status"] == SOLVED else record["status"]
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{count} {key}" for key, count in sorted(counts.items(), key=lambda kv: -kv[1]))


# --- main ------------------------------------------------------------------------------------------------


def commit() -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["--worker"]:
        worker_main(arguments[1:])
        return 0
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="*", help=f"the .kif files (default: every game of {CORPUS})")
    parser.add_argument("--out", type=Path, default=Path("solve_corpus.jsonl"), help="the JSON lines file")
    parser.add_argument("--table", type=Path, help="write the Markdown table of every recorded game here")
    parser.add_argument("--cpu-limit", type=int, default=CPU_LIMIT, help="CPU seconds a game (RLIMIT_CPU)")
    parser.add_argument("--memory-limit", type=float, default=MEMORY_LIMIT_GIB, help="GiB a game (RLIMIT_AS)")
    parser.add_argument("--max-states", type=int, default=MAX_STATES, help="reachable states a game")
    parser.add_argument("--jobs", type=int, default=1, help="games at once (default 1)")
    parser.add_argument("--nice", type=int, default=10, help="the least niceness of the games' processes")
    parser.add_argument("--search-check", type=int, metavar="S", help="check values with the search, S CPU-s")
    parser.add_argument("--compare-with", type=Path, metavar="OLD", help="compare values with an older run")
    args = parser.parse_args(arguments)
    games = [str(Path(game)) for game in args.games] or [str(p) for p in sorted(CORPUS.glob("*.kif"))]
    records = read_records(args.out)
    old = read_records(args.compare_with) if args.compare_with else {}
    started = f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC"
    print(f"commit {commit()}, {started}, load average {os.getloadavg()[0]:.2f}", file=sys.stderr)

    def one(path: str) -> tuple[dict[str, Any], bool]:
        """The game's record, and whether it is new or changed."""
        record = records.get(Path(path).name)
        before = json.dumps(record)
        if record is None or not is_done(record, args.cpu_limit, args.max_states):
            record = run_one(path, args.cpu_limit, args.memory_limit, args.max_states, args.nice)
            record.update(commit=commit(), date=started)
        if args.search_check:
            search_check(record, path, args.search_check, args.memory_limit, args.nice)
        return record, json.dumps(record) != before

    with ThreadPoolExecutor(max(1, args.jobs)) as pool, args.out.open("a", encoding="utf-8") as out:
        for record, changed in pool.map(one, games):
            if changed:
                out.write(json.dumps(record) + "\n")
                out.flush()
            records[record["file"]] = record
            shown = value_cell(record) or record.get("reason", "")
            print(f"{record['file']}: {record['status']}, {states_cell(record)} states, "
                  f"{record['cpu_seconds']:.1f} CPU-s {shown}", file=sys.stderr, flush=True)
    chosen = [records[Path(path).name] for path in games]
    problems = disagreements(chosen, old)
    for problem in problems:
        print(f"VALUE DISAGREES: {problem}", file=sys.stderr)
    print(f"{len(chosen)} games: {summary(chosen)}", file=sys.stderr)
    if args.table:
        disagreeing = {problem.split(":")[0] for problem in problems}
        args.table.write_text(table(chosen, disagreeing) + "\n", encoding="utf-8")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
