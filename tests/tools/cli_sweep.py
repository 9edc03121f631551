"""Run the ``gdl`` command over the shared corpus and over malformed inputs, as an outside user would.

Every run must end within its timeout, never print a Python traceback, and exit with one of the
documented statuses (0 ok, 1 the game or result is bad, 2 the input cannot be used). The script
prints one line per failing run and a summary per command::

    .venv/bin/python tests/tools/cli_sweep.py                 # everything (about 15 minutes on 2 cores)
    .venv/bin/python tests/tools/cli_sweep.py --only check    # one command
    .venv/bin/python tests/tools/cli_sweep.py --malformed     # only the malformed inputs (or --corpus)

The compiled engine is left out on purpose (``--engine datalog``): the sweep checks the user-facing
surface, not the engines.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from support.malformed import malformed_paths  # noqa: E402  (the tests' own module, found through the path above)

CORPUS = ROOT.parent / "shared" / "corpus"
GDL = [str(ROOT / ".venv" / "bin" / "gdl")]
#: Exit statuses the CLI documents: ok, bad game or unsolved, unusable input or command line.
ALLOWED_STATUSES = {0, 1, 2}
#: Games small enough that ``gdl solve`` is worth a try.
SOLVABLE = ("tictactoe", "buttons", "nim", "rps", "ggpbase_test_case_1a", "conn4")


@dataclass(frozen=True)
class Run:
    command: str
    target: str
    argv: tuple[str, ...]
    timeout: float


@dataclass(frozen=True)
class Outcome:
    run: Run
    status: int | None  # None: timed out
    seconds: float
    stderr: str

    @property
    def problem(self) -> str:
        """Why this run fails the sweep's criteria ("" when it does not)."""
        if self.status is None:
            return f"hang (no end within {self.run.timeout:g} s)"
        if "Traceback (most recent call last)" in self.stderr:
            return "traceback: " + self.stderr.strip().splitlines()[-1][:160]
        if self.status not in ALLOWED_STATUSES:
            return f"exit status {self.status}: " + (self.stderr.strip().splitlines() or [""])[-1][:160]
        if self.status == 2 and not self.stderr.strip():
            return "exit status 2 without a message on stderr"
        return ""


def corpus_files() -> list[Path]:
    files: list[Path] = []
    for folder in ("games", "invalid", "suspect", "gdl2"):
        directory = CORPUS / folder
        if directory.is_dir():
            files += sorted(p for p in directory.iterdir() if p.suffix in (".kif", ".gdl"))
    return files


def corpus_runs() -> Iterator[Run]:
    for path in corpus_files():
        target = f"{path.parent.name}/{path.name}"
        name = str(path)
        yield Run("check", target, ("check", name), 60)
        yield Run("check --dynamic", target,
                  ("check", "--dynamic", "--engine", "datalog", "--max-states", "2000", "--seconds", "3",
                   name), 60)
        yield Run("play", target, ("play", "--engine", "datalog", "-q", "--max-steps", "300",
                                   "--start-clock", "1", "--play-clock", "1", "--seed", "1", name), 90)
        yield Run("network", target, ("network", "--max-seconds", "5", name), 60)
        if path.stem in SOLVABLE:
            yield Run("solve", target, ("solve", "--engine", "datalog", "--budget", "20", name), 60)


def malformed_runs(paths: dict[str, Path]) -> Iterator[Run]:
    for name, path in paths.items():
        file = str(path)
        if name == "many_facts":  # about 5 GB of memory and minutes per run: one command is enough
            yield Run("check", name, ("check", file), 900)
            continue
        yield Run("check", name, ("check", file), 120)
        yield Run("check --dynamic", name,
                  ("check", "--dynamic", "--engine", "datalog", "--seconds", "3", file), 120)
        yield Run("play", name, ("play", "--engine", "datalog", "-q", "--max-steps", "50", file), 120)
        yield Run("network", name, ("network", "--max-seconds", "5", file), 120)
        yield Run("solve", name, ("solve", "--engine", "datalog", "--budget", "5", file), 120)


def execute(run: Run) -> Outcome:
    begun = time.monotonic()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        done = subprocess.run(
            [*GDL, *run.argv], capture_output=True, text=True, errors="replace", timeout=run.timeout,
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as expired:
        stderr = expired.stderr.decode(errors="replace") if isinstance(expired.stderr, bytes) else ""
        return Outcome(run, None, time.monotonic() - begun, stderr)
    return Outcome(run, done.returncode, time.monotonic() - begun, done.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], help="only this command (repeatable)")
    parser.add_argument("--malformed", action="store_true", help="only the malformed inputs")
    parser.add_argument("--corpus", action="store_true", help="only the corpus")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once (default 2)")
    args = parser.parse_args()
    only = set(args.only)
    with tempfile.TemporaryDirectory(prefix="gdl-sweep-") as scratch:
        runs = [] if args.corpus else list(malformed_runs(malformed_paths(Path(scratch), large=True)))
        if not args.malformed:
            runs += list(corpus_runs())
        runs = [r for r in runs if not only or r.command in only]
        outcomes = []
        with ThreadPoolExecutor(args.jobs) as pool:
            for future in as_completed([pool.submit(execute, run) for run in runs]):
                outcome = future.result()
                outcomes.append(outcome)
                if outcome.problem:
                    print(f"FAIL {outcome.run.command} {outcome.run.target}: {outcome.problem}", flush=True)
    statuses: dict[str, Counter[str]] = {}
    failures = sum(bool(outcome.problem) for outcome in outcomes)
    for outcome in sorted(outcomes, key=lambda o: o.run.command):
        shown = "hang" if outcome.status is None else f"exit {outcome.status}"
        statuses.setdefault(outcome.run.command, Counter())[shown] += 1
    print(f"\n{len(outcomes)} runs, {failures} failing the criteria")
    for command, counts in statuses.items():
        print(f"  {command:<16} " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
