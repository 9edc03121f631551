"""ggp-base's prover beside the Datalog engine: states per CPU-second, same run, medians.

    .venv/bin/python tests/tools/bench_ggpbase.py --classpath CLASSPATH [GAME...] [--runs 3]
        [--time-limit 10] [--timeout 600] [--cpu 0] [--jsonl FILE] [--corpus] [--resume]
    .venv/bin/python tests/tools/bench_ggpbase.py --table --jsonl FILE [--jsonl FILE2 ...] [--below 2]

CLASSPATH holds an already-built reference: ggp-base's ProverStateMachine (classes compiled from
ggp-base's public sources), Guava, and the harness class ``ProverBench`` that plays random depth
charges and prints a ``gdl bench``-shaped JSON line. Neither is in this repository: docs/performance.md
("ggp-base's prover beside the Datalog engine") says how to build them by hand. GAME is a .kif path or
a corpus game's name (looked up in ../shared/corpus/games); by default the benchmark games;
``--corpus`` adds every corpus game, alphabetically, GDL-II included (INDEX.tsv's ``gdl2`` column;
those are marked in the table). Both systems play a GDL-II game alike: ``random`` is a role that picks
uniformly among its legal moves (ggp-base's ``getRandomJointMove``; ``gdl bench``'s depth charge), and
``sees`` is never asked for (the prover only asks for ``legal``, ``next``, ``terminal`` and ``goal``;
``gdl bench``'s Datalog depth charge evaluates the strata of ``next``, not those of ``sees``).
``--resume`` skips the games FILE (``--jsonl``) already has a measurement of by both systems, so that a
long sweep can be stopped and started again; ``--table`` prints the table of FILE's measurements and how
many games the Datalog engine is at least as fast on, and measures nothing: given several files (a first pass,
then a second one with more runs on some games), a game's row comes from the last file that has it;
with ``--below RATIO`` it prints instead the games whose ratio is below RATIO or missing, the GAMEs of
a second pass.

For each game and each run, the reference and ``gdl bench --engine datalog`` run one after the other,
each in its own process pinned to one core (``taskset -c CPU``) and killed after ``--timeout`` seconds.
Prints one markdown row per game as soon as it is measured (medians of the runs that finished), then
the table again at the end; ``--jsonl`` appends every single measurement to FILE.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "games"
PROBE_GAME = ROOT / "games" / "tictactoe.kif"
DEFAULT_GAMES = (
    "mummymaze1p", "chess", "amazons", "alexchess", "racer",
    "tictactoe", "connectfour", "breakthrough", "nim1", "hanoi", "buttons", "blocker",
)
JVM_FLAGS = ("-XX:+UseSerialGC", "-Xss64m", "-Xmx4g")


class ReferenceMissing(Exception):
    """The ggp-base reference cannot be run from the given class path."""


@dataclass
class Row:
    """The measurements of one game: states per CPU-second of each run, or why a run gave none."""

    game: str
    prover: list[float] = field(default_factory=list)
    datalog: list[float] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)
    #: The reference's states per CPU-second of the whole JVM (GC and JIT threads included).
    prover_process: list[float] = field(default_factory=list)
    #: Each system's average playout length (joint moves) per run: where they differ much, the two do
    #: not play the same game (a reasoner's wrong legal moves), and the ratio compares different work.
    depths: dict[str, list[float]] = field(default_factory=dict)

    def add(self, system: str, result: dict[str, object] | None, failure: str | None) -> None:
        """Record one run of ``system`` ("prover" or "datalog"): what it reported, or why it did not."""
        if result is not None:
            getattr(self, system).append(float(str(result["states_per_cpu_s"])))
            if "states_per_process_cpu_s" in result:
                self.prover_process.append(float(str(result["states_per_process_cpu_s"])))
            if result.get("avg_depth") is not None:
                self.depths.setdefault(system, []).append(float(str(result["avg_depth"])))
        elif failure:
            self.failures[system] = failure

    def ratio(self) -> float | None:
        """The Datalog engine's median over the prover's (None unless both have a figure)."""
        prover = _median(self.prover)
        datalog = _median(self.datalog)
        return datalog / prover if prover and datalog else None

    def cells(self, mark: str = "") -> list[str]:
        prover = _median(self.prover)
        datalog = _median(self.datalog)
        process = _median(self.prover_process)
        ratio = self.ratio()
        depths = [_median(self.depths.get(system, [])) for system in ("prover", "datalog")]
        return [
            self.game + mark,
            _figure(prover, self.prover, self.failures.get("prover")),
            _number(process) if process is not None else "",
            _figure(datalog, self.datalog, self.failures.get("datalog")),
            f"{ratio:.2f}" if ratio is not None else "",
            " / ".join("" if depth is None else f"{depth:.1f}" for depth in depths) if any(depths) else "",
        ]


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _number(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def _figure(median: float | None, values: list[float], failure: str | None) -> str:
    if median is None:
        return failure or ""
    runs = ", ".join(_number(value) for value in values)
    note = f"; {failure}" if failure else ""
    return f"{_number(median)} ({runs}{note})"


HEADER = (
    "| game | ggp-base prover, states per thread CPU-s (runs) | prover, per process CPU-s "
    "| Datalog engine, states per CPU-s (runs) | Datalog / prover | avg playout, prover / Datalog |"
    "\n|---|---:|---:|---:|---:|---:|"
)


#: The mark of a GDL-II game's name in the table.
GDL2_MARK = " (GDL-II)"


def table(rows: list[Row], gdl2: set[str] | frozenset[str] = frozenset()) -> str:
    """The markdown table of ``rows``: medians, each run in brackets, and the ratio of the medians; the
    games named in ``gdl2`` are marked as GDL-II."""
    lines = ("| " + " | ".join(row.cells(GDL2_MARK if row.game in gdl2 else "")) + " |" for row in rows)
    return "\n".join([HEADER, *lines])


def summary(rows: list[Row]) -> str:
    """How many games the Datalog engine is at least as fast on, slower on, and without a ratio on
    (with why: which system gave no figure), the last two named."""
    faster = [row for row in rows if (ratio := row.ratio()) is not None and ratio >= 1]
    slower = [row for row in rows if (ratio := row.ratio()) is not None and ratio < 1]
    missing = [row for row in rows if row.ratio() is None]

    def without(row: Row) -> str:
        systems = [system for system in ("prover", "datalog") if not getattr(row, system)]
        return f"{row.game} (no figure: {' and '.join(systems)})"

    return "\n".join([
        f"{len(rows)} games: the Datalog engine at least as fast as the prover on {len(faster)}, "
        f"slower on {len(slower)}, no ratio on {len(missing)}",
        "slower: " + (", ".join(f"{row.game} ({row.ratio():.2f})" for row in slower) or "none"),
        "no ratio: " + (", ".join(map(without, missing)) or "none"),
    ])


def below(rows: list[Row], least: float) -> list[str]:
    """The games whose ratio is below ``least`` or missing (those a second pass measures again)."""
    return [row.game for row in rows if (ratio := row.ratio()) is None or ratio < least]


def rows_of(*jsonls: Path) -> list[Row]:
    """The rows of the measurements ``--jsonl`` files hold, in the order the games were first measured;
    a game measured in a later file has that file's measurements only (a second pass replaces the first)."""
    rows: dict[str, Row] = {}
    for jsonl in jsonls:
        fresh: dict[str, Row] = {}
        for line in jsonl.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                row = fresh.setdefault(record["game"], Row(record["game"]))
                row.add(record["system"], record["result"], record["failure"])
        rows.update(fresh)
    return list(rows.values())


def _pinned(command: list[str], cpu: str | None) -> list[str]:
    if cpu is None or shutil.which("taskset") is None:
        return command
    return ["taskset", "-c", cpu, *command]


def _last_json(text: str) -> dict[str, object]:
    """The JSON object that ends ``text`` (``gdl bench --json`` indents it; the reference prints one line)."""
    start = text.rfind("\n{")
    parsed: dict[str, object] = json.loads(text[start + 1 :] if start >= 0 else text)
    return parsed


def reference_command(java: str, classpath: str, game: Path, seconds: float, warm_up: float) -> list[str]:
    """The command that measures ``game`` with the ggp-base reference."""
    return [
        java, *JVM_FLAGS, "-cp", classpath, "ProverBench", str(game),
        "--time-limit", str(seconds), "--warm-up", str(warm_up), "--json",
    ]


def datalog_command(game: Path, seconds: float) -> list[str]:
    """The command that measures ``game`` with gdl's Datalog engine."""
    gdl = Path(sys.executable).with_name("gdl")
    return [str(gdl) if gdl.exists() else "gdl", "bench", str(game), "--engine", "datalog",
            "--time-limit", str(seconds), "--json"]


def probe(java: str, classpath: str) -> None:
    """Raise ReferenceMissing unless the reference plays a bundled game from ``classpath``."""
    if shutil.which(java) is None:
        raise ReferenceMissing(f"no java executable '{java}' (the reference needs Java 17 or later)")
    missing = [entry for entry in classpath.split(":") if entry and not Path(entry).exists()]
    if missing:
        raise ReferenceMissing(f"the class path names what does not exist: {', '.join(missing)}")
    command = reference_command(java, classpath, PROBE_GAME, 0.0, 0.0)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired as timeout:
        raise ReferenceMissing("the reference did not answer on tictactoe within 120 s") from timeout
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ReferenceMissing(f"the reference does not run from this class path ({last})")


def _why(stderr: str, status: int) -> str:
    """The line of a failed run's error output that says what went wrong (a Java exception's first)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    said = [line for line in lines if "Exception" in line or "Error" in line] or lines
    return said[0][:100] if said else f"exit status {status}"


def measure(command: list[str], timeout: float) -> tuple[dict[str, object] | None, str | None]:
    """What ``command`` reports (its JSON object), or None and why there is none."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:g} s"
    if done.returncode != 0:
        return None, f"failed: {_why(done.stderr, done.returncode)}"
    try:
        result = _last_json(done.stdout)
        float(str(result["states_per_cpu_s"]))
        return result, None
    except (ValueError, KeyError) as problem:
        return None, f"unreadable output: {problem}"


def corpus_games(corpus: Path = CORPUS) -> list[str]:
    """Every corpus game, GDL-II included, alphabetically."""
    return sorted(path.stem for path in corpus.glob("*.kif"))


def gdl2_games(corpus: Path = CORPUS) -> set[str]:
    """The corpus games INDEX.tsv's ``gdl2`` column marks as GDL-II (none without an index)."""
    index = corpus / "INDEX.tsv"
    if not index.exists():
        return set()
    lines = index.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    file, gdl2 = header.index("file"), header.index("gdl2")
    rows = [line.split("\t") for line in lines[1:] if line.strip()]
    return {Path(row[file]).stem for row in rows if row[gdl2] not in ("-", "")}


def commit() -> str | None:
    """The commit of gdl's working tree (None outside git), recorded with every measurement."""
    try:
        done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None


def measured(*jsonls: Path) -> set[str]:
    """The games JSON-lines files of measurements have a line of for both systems (a game with only the
    prover's line was stopped in the middle, by a restart or a kill: it is measured again)."""
    systems: dict[str, set[str]] = {}
    for jsonl in jsonls:
        if jsonl.exists():
            for line in jsonl.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    record = json.loads(line)
                    systems.setdefault(record["game"], set()).add(record["system"])
    return {game for game, seen in systems.items() if seen >= {"prover", "datalog"}}


def resolve(game: str) -> Path:
    """A game given as a path, or by its name in the corpus."""
    path = Path(game)
    if path.suffix == ".kif" and path.exists():
        return path
    return CORPUS / f"{game}.kif"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="*")
    parser.add_argument("--classpath", help="class path of the built reference (to measure)")
    parser.add_argument("--java", default="java")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds each run measures")
    parser.add_argument("--warm-up", type=float, default=3.0, help="CPU seconds of JIT warm-up (reference)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before a run is killed")
    parser.add_argument("--cpu", default="0", help="core to pin to (taskset -c); 'none' not to pin")
    parser.add_argument("--jsonl", type=Path, action="append", default=[],
                        help="append every measurement to this file (the last if repeated); with --table, "
                        "the files to read, a later file's games replacing an earlier's")
    parser.add_argument("--corpus", action="store_true", help="every corpus game (GDL-II included)")
    parser.add_argument("--resume", action="store_true",
                        help="skip the games the --jsonl files have already (checked again before each game, "
                        "so that two sweeps, one per core, can share the work)")
    parser.add_argument("--table", action="store_true", help="only print the table of --jsonl's measurements")
    parser.add_argument("--below", type=float, metavar="RATIO",
                        help="with --table: only print the games whose ratio is below RATIO or missing")
    args = parser.parse_args(argv)
    if args.table:
        absent = [str(path) for path in args.jsonl if not path.exists()]
        if not args.jsonl or absent:
            print("bench_ggpbase: --table reads the measurements of --jsonl FILE"
                  + (f" (no file {', '.join(absent)})" if absent else ""), file=sys.stderr)
            return 2
        recorded = rows_of(*args.jsonl)
        if args.below is not None:
            print(" ".join(below(recorded, args.below)))
        else:
            print(table(recorded, gdl2_games()))
            print()
            print(summary(recorded))
        return 0
    if args.classpath is None:
        parser.error("the following arguments are required to measure: --classpath")
    games = [*dict.fromkeys([*args.games, *corpus_games()])] if args.corpus else args.games
    games = games or list(DEFAULT_GAMES)
    if args.resume and args.jsonl:
        done = measured(*args.jsonl)
        games = [game for game in games if resolve(game).stem not in done]
    cpu = None if args.cpu == "none" else args.cpu
    try:
        probe(args.java, args.classpath)
    except ReferenceMissing as problem:
        print(f"bench_ggpbase: {problem}; build the reference as docs/performance.md says "
              "(section: ggp-base's prover beside the Datalog engine)", file=sys.stderr)
        return 2
    rows: list[Row] = []
    code = commit()
    print(HEADER, flush=True)
    for name in games:
        game = resolve(name)
        if not game.exists():
            print(f"bench_ggpbase: no game {name} ({game})", file=sys.stderr)
            return 2
        if args.resume and game.stem in measured(*args.jsonl):
            continue  # measured meanwhile by another sweep writing to one of the files
        row = Row(game.stem)
        for run in range(args.runs):
            commands = {
                "prover": reference_command(args.java, args.classpath, game, args.time_limit, args.warm_up),
                "datalog": datalog_command(game, args.time_limit),
            }
            for system, command in commands.items():
                if "timed out" in row.failures.get(system, ""):
                    continue  # a run that timed out once would time out again: spare the machine
                result, failure = measure(_pinned(command, cpu), args.timeout)
                row.add(system, result, failure)
                if args.jsonl:
                    with args.jsonl[-1].open("a", encoding="utf-8") as out:
                        out.write(json.dumps({"game": game.stem, "system": system, "run": run, "cpu": cpu,
                                              "commit": code, "result": result,
                                              "failure": failure}) + "\n")
        rows.append(row)
        print("| " + " | ".join(row.cells()) + " |", flush=True)
    print()
    print(table(rows, gdl2_games()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
