"""The benchmark table: every ``gdl bench`` engine beside SWI-Prolog, in one run.

For each run (``--runs``, default 3), for each game, for each system, one measurement of ``--seconds``
of random playouts, so that the machine's noise falls on every system alike: ``gdl bench GAME --engine
E --seed RUN`` for every engine ``gdl bench`` offers but ``auto`` (read from its parser, so new engines
are picked up; ``batched`` with its default batch size), and the game translated to Prolog by
``gdl_to_prolog.py`` run with ``swipl -O``. Each is pinned to one core with ``taskset`` when there is
one. Prints markdown: the playouts per CPU-second of every run with their median, then the medians'
ratios to SWI-Prolog beside the references' (Sancho's and ggp-base's propnet, measured the same way),
and each engine's ratio as a share of Sancho's, with the load average before and after.

Run: ``.venv/bin/python tests/tools/bench_reference.py [--games tictactoe,nim1] [--engines compiled]
[--runs 3] [--seconds 5] [--json results.json]``
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from gdl_to_prolog import SWIPL_OPTIONS, translate_file

from gdl.cli import bench

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "games"
GAMES = ("tictactoe", "connectfour", "breakthrough", "nim1", "hanoi", "buttons", "blocker")
#: Ratios to SWI-Prolog of the references, per game in the order of GAMES.
REFERENCES = {
    "Sancho": (39, 94, 148, 243, 56, 65, 50),
    "ggp-base propnet": (13, 9.7, 1.4, 23, 3.3, 26, 15),
}
PROLOG = "swipl"
LABELS = {PROLOG: "SWI-Prolog"}


@dataclass
class Measurement:
    run: int
    game: str
    system: str
    playouts_per_cpu_s: float | None  # None when the system failed on the game
    states_per_cpu_s: float | None
    avg_depth: float | None
    problem: str = ""


def bench_engines() -> list[str]:
    """The engines ``gdl bench --engine`` accepts, ``auto`` left out (it is one of the others)."""
    subparsers = argparse.ArgumentParser().add_subparsers()
    bench.register(subparsers)
    option = next(a for a in subparsers.choices["bench"]._actions if "--engine" in a.option_strings)
    return [engine for engine in option.choices or () if engine != "auto"]


def result_fields(output: str) -> dict[str, str] | None:
    """The fields of the ``RESULT`` line of a benchmark's output."""
    for line in output.splitlines():
        if line.startswith("RESULT "):
            return dict(field.split("=", 1) for field in line.split()[1:])
    return None


def measure(command: list[str], run: int, game: str, system: str, timeout: float) -> Measurement:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return Measurement(run, game, system, None, None, None, f"no result within {timeout:g} s")
    fields = result_fields(done.stdout)
    if done.returncode != 0 or fields is None:
        said = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return Measurement(run, game, system, None, None, None, said)
    return Measurement(
        run, game, system, float(fields["playouts_per_cpu_s"]), float(fields["states_per_cpu_s"]),
        float(fields["avg_depth"]),
    )


def output(command: list[str]) -> str | None:
    """What a command prints, or None if it cannot run or fails."""
    try:
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def versions() -> str:
    """The gdl commit measured and SWI-Prolog's version."""
    commit = output(["git", "-C", str(Path(__file__).parent), "describe", "--always", "--dirty"])
    return f"gdl {commit or '(commit unknown)'}, {output([PROLOG, '--version']) or 'no SWI-Prolog'}"


#: The suffix of a system measured with ``gdl bench --per-playout``.
PER_PLAYOUT = "/per-playout"


def median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def number(value: float | None) -> str:
    if value is None:
        return "failed"
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def ratio(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:.2g}" if value < 10 else f"{value:,.0f}"


def tables(measured: list[Measurement], games: list[str], systems: list[str]) -> str:
    """The markdown tables: every run with its median, then ratios to SWI-Prolog and to Sancho's."""
    rates = {
        (game, system): [m.playouts_per_cpu_s for m in measured if (m.game, m.system) == (game, system)]
        for game in games for system in systems
    }
    medians = {key: median(values) for key, values in rates.items()}
    lines = [
        "| playouts per CPU-second | " + " | ".join(LABELS.get(s, s) for s in systems) + " |",
        "|---|" + "---|" * len(systems),
    ]
    for game in games:
        cells = [f"{'; '.join(map(number, rates[game, s]))}: **{number(medians[game, s])}**" for s in systems]
        lines.append(f"| {game} | " + " | ".join(cells) + " |")
    engines = [s for s in systems if s != PROLOG]
    if PROLOG not in systems:
        return "\n".join(lines)
    lines += [
        "",
        "| ratio to SWI-Prolog | " + " | ".join([*engines, *REFERENCES]) + " | "
        + " | ".join(f"{e} / Sancho" for e in engines) + " |",
        "|---|" + "---:|" * (2 * len(engines) + len(REFERENCES)),
    ]
    for game in games:
        prolog = medians[game, PROLOG]
        ratios = [
            None if prolog is None or medians[game, e] is None else medians[game, e] / prolog  # type: ignore[operator]
            for e in engines
        ]
        references = [refs[GAMES.index(game)] if game in GAMES else None for refs in REFERENCES.values()]
        sancho = references[0]
        shares = [None if r is None or sancho is None else r / sancho for r in ratios]
        cells = [*map(ratio, ratios), *map(ratio, references), *map(ratio, shares)]
        lines.append(f"| {game} | " + " | ".join(cells) + " |")
    problems = sorted({f"- {m.game}, {m.system}: {m.problem}" for m in measured if m.problem})
    return "\n".join(lines + (["", *problems] if problems else []))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games", default=",".join(GAMES), help="comma-separated corpus games (default: the seven)"
    )
    parser.add_argument("--engines", help="comma-separated gdl bench engines (default: all but auto)")
    parser.add_argument("--no-prolog", action="store_true", help="leave SWI-Prolog out")
    parser.add_argument(
        "--per-playout", action="store_true",
        help=f"also measure every engine but batched with gdl bench --per-playout (one call per playout), "
        f"as the system ENGINE{PER_PLAYOUT}",
    )
    parser.add_argument(
        "--tabled", action="store_true",
        help="table Prolog's recursive relations (for games SLD resolution loops on; not how the "
        "references' ratios were measured)",
    )
    parser.add_argument("--runs", type=int, default=3, help="runs of every measurement (default 3)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement (default 5)")
    parser.add_argument("--core", type=int, default=0, help="the core to pin to with taskset (default 0)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="folder of the games")
    parser.add_argument("--json", type=Path, help="also write every measurement to this JSON file")
    args = parser.parse_args()
    games = args.games.split(",")
    engines = args.engines.split(",") if args.engines else bench_engines()
    unknown = set(engines) - set(bench_engines())
    if unknown:
        print(f"bench_reference: gdl bench has no engine {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    missing = [game for game in games if not (args.corpus / f"{game}.kif").is_file()]
    if missing:
        print(f"bench_reference: no {', '.join(missing)} in {args.corpus} (.kif)", file=sys.stderr)
        return 2
    if shutil.which(PROLOG) is None and not args.no_prolog:
        print(f"bench_reference: {PROLOG} is not on PATH (or say --no-prolog)", file=sys.stderr)
        return 2
    systems = ([] if args.no_prolog else [PROLOG]) + engines
    if args.per_playout:
        systems += [f"{engine}{PER_PLAYOUT}" for engine in engines if engine != "batched"]
    gdl = shutil.which("gdl", path=str(Path(sys.executable).parent)) or shutil.which("gdl") or "gdl"
    pin = ["taskset", "-c", str(args.core)] if shutil.which("taskset") else []
    timeout = 300 + 10 * args.seconds  # loading a game under load, then the warm-up and the measurement
    load_before = os.getloadavg()
    started, measured_versions = datetime.datetime.now(datetime.UTC), versions()
    measured: list[Measurement] = []
    with tempfile.TemporaryDirectory() as folder:
        programs = {}
        for game in games:
            programs[game] = Path(folder) / f"{game}.pl"
            if not args.no_prolog:
                programs[game].write_text(translate_file(args.corpus / f"{game}.kif", tabled=args.tabled))
        for run in range(1, args.runs + 1):
            for game in games:
                for system in systems:
                    if system == PROLOG:
                        program = str(programs[game])
                        command = [PROLOG, *SWIPL_OPTIONS, program, "bench", game, f"{args.seconds:g}"]
                    else:
                        engine = system.removesuffix(PER_PLAYOUT)
                        command = [
                            gdl, "bench", str(args.corpus / f"{game}.kif"), "--engine", engine,
                            *(["--per-playout"] if system != engine else []),
                            "--time-limit", f"{args.seconds:g}", "--seed",
                        ]
                    m = measure([*pin, *command, str(run)], run, game, system, timeout)
                    measured.append(m)
                    said = f"run {run} {game} {system}: {number(m.playouts_per_cpu_s)} {m.problem}"
                    print(said, file=sys.stderr, flush=True)
    load_after = os.getloadavg()
    if args.json:
        args.json.write_text(json.dumps([asdict(m) for m in measured], indent=1) + "\n")
    finished = datetime.datetime.now(datetime.UTC)
    print(
        f"{started:%Y-%m-%d %H:%M} to {finished:%H:%M} UTC, {measured_versions}: "
        f"{args.runs} runs of {args.seconds:g} s each, interleaved, "
        f"{'the Prolog translation tabled, ' if args.tabled else ''}"
        f"{'pinned with taskset -c ' + str(args.core) if pin else 'not pinned (no taskset)'}; "
        f"load average (1, 5, 15 min) before {', '.join(f'{x:.1f}' for x in load_before)}, "
        f"after {', '.join(f'{x:.1f}' for x in load_after)}.\n"
    )
    print(tables(measured, games, systems))
    return 0


if __name__ == "__main__":
    sys.exit(main())
