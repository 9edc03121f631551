"""``gdl bench GAME``: random playouts per CPU-second, through the reasoner protocol of an engine.

Every playout starts from the initial state; every role picks uniformly among its legal moves until a
terminal state, and the goals of that state are read. The loop is
:func:`gdl.engines.base.depth_charges`, called for chunks of playouts (as many as take about
:data:`CHUNK_SECONDS`, so that the time limit holds and the count of playouts is exact): the compiled
engine plays a whole chunk, goals included, in one native call; an engine without its own
``depth_charges`` (the Datalog evaluator) plays one :func:`gdl.engines.base.depth_charge` after another
and reads the goals through the reasoner. ``--per-playout`` measures instead the path of a player that
asks for one playout at a time: a ``depth_charge`` call per playout, then each role's goals through
``reasoner.goals``. After a short warm-up (so that one-time work such as compiling rules and kernels and
evaluating static relations is not counted), playouts run for the given number of seconds and one line is
printed::

    RESULT reasoner=gdl game=<name> playouts=<n> secs=<wall> cpu_secs=<cpu> playouts_per_cpu_s=<x>
    states_per_cpu_s=<y> avg_depth=<d> engine=<the engine that ran, what auto chose>
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gdl.cli._common import (
    add_command,
    add_engine_option,
    add_json_options,
    add_time_limit,
    checked_program,
    emit_json,
    plural,
    positive_int,
)
from gdl.engines import make_reasoner
from gdl.engines.base import Charges, Reasoner, depth_charge, depth_charges, goal_value
from gdl.syntax.spelling import spell

#: Seconds of playouts before measuring.
WARM_UP = 0.5
#: A playout stops here even if the game has not ended (for games that can go on for ever).
MAX_DEPTH = 10_000
#: Seconds a chunk of playouts should take (a chunk is never cut short, so the run overshoots its time
#: limit by about this much at most).
CHUNK_SECONDS = 0.01


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        subparsers, "bench", "measure random playouts per CPU-second",
        """Random playouts from the initial state (every role picks uniformly among its legal moves, the
goals of the end read), after a short warm-up so that one-time work such as compiling is not counted.
The playouts run in chunks, one call each (the compiled engine plays a chunk, goals included, in
native code); --per-playout makes one call per playout and reads the goals through the reasoner, as a
player asking for single playouts does. Prints one line: RESULT reasoner=gdl game=NAME playouts=N
secs=WALL cpu_secs=CPU playouts_per_cpu_s=X states_per_cpu_s=Y avg_depth=D engine=ENGINE (the engine
that ran); --json prints the same fields as a JSON object. See docs/performance.md.""",
        [
            "gdl bench games/tictactoe.kif",
            "gdl bench games/nim.kif --engine datalog --time-limit 3",
            "gdl bench games/tictactoe.kif --engine batched --batch 4096 --json",
        ],
    )
    parser.add_argument("game", metavar="GAME", help="GDL file (.kif)")
    add_time_limit(parser, 10.0, "seconds of playouts to measure")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    add_engine_option(parser, "batched")
    parser.add_argument(
        "--batch", type=positive_int, default=None, metavar="N",
        help="playouts at once with --engine batched (default: as many as fit the processor's cache)",
    )
    parser.add_argument(
        "--per-playout", action="store_true",
        help="one depth-charge call per playout, the goals read through the reasoner (default: chunks of "
        "playouts per call)",
    )
    add_json_options(parser, "the measurement")
    parser.set_defaults(run=run)


class Tally:
    """What the playouts showed of the game: how many ended in a terminal state, and in how many of
    those each role had its one goal value from 0 to 100."""

    def __init__(self, roles: int) -> None:
        self.playouts = self.terminal = 0
        self.goals = [0] * roles

    def add(self, charges: Charges[Any]) -> None:
        self.playouts += charges.playouts
        self.terminal += charges.terminal
        self.goals = [mine + theirs for mine, theirs in zip(self.goals, charges.goal_counts, strict=True)]


def playout(reasoner: Reasoner[Any], rng: random.Random, tally: Tally) -> int:
    """Play one random game from the initial state (the goals of its end included); the moves made."""
    state, depth, terminal = depth_charge(reasoner, reasoner.initial(), rng, MAX_DEPTH)
    tally.playouts += 1
    if terminal:
        tally.terminal += 1
        for role in range(len(reasoner.roles)):
            tally.goals[role] += goal_value(reasoner.goals(state, role)) is not None
    return depth


#: Playouts replayed to find out why some did not end in a terminal state.
PROBES = 5


def broken(
    reasoner: Reasoner[Any], tally: Tally, rng: random.Random, spell: Callable[[str], str]
) -> list[str]:
    """What the playouts showed to be wrong with the game: playouts without a terminal state (a role
    without a legal move, a game that may never end) and terminal states without goal values."""
    problems = []
    unended = tally.playouts - tally.terminal
    if unended:
        share = f"{unended} of {tally.playouts} playouts"
        why = f"{share} ended in no terminal state"
        for _ in range(PROBES):
            state, depth, terminal = depth_charge(reasoner, reasoner.initial(), rng, MAX_DEPTH)
            if terminal:
                continue
            if depth == MAX_DEPTH:
                why = f"{share} reached {MAX_DEPTH} moves without a terminal state: the game may never end"
            else:
                stuck = [spell(role) for i, role in enumerate(reasoner.roles) if not reasoner.legal(state, i)]
                why = (f"{share} ended in no terminal state: role {', '.join(stuck)} had no legal move "
                       f"after {depth} {plural(depth, 'move')}")
            break
        problems.append(why)
    for role, counted in zip(reasoner.roles, tally.goals, strict=True):
        if counted < tally.terminal:
            missing = f"{tally.terminal - counted} of {tally.terminal} terminal states"
            problems.append(f"role {spell(role)} had no goal value from 0 to 100 (or several) in {missing}")
    return problems


class Chunks:
    """Random playouts from the initial state in chunks of :func:`gdl.engines.base.depth_charges` calls,
    each chunk sized to take about :data:`CHUNK_SECONDS` from the pace of the ones before (doubling at
    most, from one playout)."""

    def __init__(self, reasoner: Reasoner[Any], rng: random.Random, tally: Tally) -> None:
        self.reasoner = reasoner
        self.rng = rng
        self.size = 1
        self.tally = tally

    def play(self) -> tuple[int, int]:
        """Play a chunk; the playouts and the states visited."""
        started = time.perf_counter()
        charges = depth_charges(self.reasoner, self.reasoner.initial(), self.size, self.rng, MAX_DEPTH)
        pace = (time.perf_counter() - started) / charges.playouts
        self.tally.add(charges)
        self.size = max(1, min(2 * self.size, int(CHUNK_SECONDS / max(pace, 1e-9))))
        return charges.playouts, charges.moves + charges.playouts


def run(args: argparse.Namespace) -> int:
    if math.isinf(args.time_limit):
        print("gdl bench: --time-limit must be a finite number of seconds of playouts", file=sys.stderr)
        return 2
    path = Path(args.game)
    checked = checked_program(path, "bench")
    if isinstance(checked, int):
        return checked
    if args.engine == "batched":
        from gdl.engines.batched import measure

        try:
            measured = measure(checked, args.batch, args.seed, WARM_UP, args.time_limit)
        except ValueError as problem:
            print(f"gdl bench: {problem}", file=sys.stderr)
            return 2
        return _report(args, path, "batched", *measured)
    try:
        reasoner = make_reasoner(checked, args.engine)
    except ValueError as problem:
        print(f"gdl bench: {problem}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    tally = Tally(len(reasoner.roles))
    if args.per_playout:

        def play() -> tuple[int, int]:
            return 1, playout(reasoner, rng, tally) + 1

    else:
        play = Chunks(reasoner, rng, tally).play
    warm_until = time.monotonic() + WARM_UP
    while time.monotonic() < warm_until:
        play()
    playouts = states = 0
    wall, cpu = time.perf_counter(), time.process_time()
    deadline = wall + args.time_limit
    while True:
        played, visited = play()
        playouts += played
        states += visited
        if time.perf_counter() >= deadline:
            break
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    problems = broken(reasoner, tally, rng, lambda name: spell(name, checked.program.spellings))
    for text in problems:
        print(f"gdl bench: warning: {path}: {text}", file=sys.stderr)
    return _report(args, path, engine_name(reasoner), playouts, states, wall, cpu)


def engine_name(reasoner: Reasoner[Any]) -> str:
    """The engine a reasoner is (what ``auto`` chose): its class name less ``Reasoner``, in lower case."""
    return type(reasoner).__name__.removesuffix("Reasoner").lower()


def _report(
    args: argparse.Namespace, path: Path, engine: str, playouts: int, states: int, wall: float, cpu: float
) -> int:
    cpu = max(cpu, 1e-9)
    result: dict[str, str | int | float] = {
        "reasoner": "gdl", "game": path.stem, "playouts": playouts, "secs": round(wall, 2),
        "cpu_secs": round(cpu, 2), "playouts_per_cpu_s": round(playouts / cpu, 1),
        "states_per_cpu_s": round(states / cpu, 1), "avg_depth": round(states / playouts - 1, 2),
        "engine": engine,
    }
    if not args.json:
        print(
            f"RESULT reasoner=gdl game={path.stem} playouts={playouts} secs={wall:.2f} cpu_secs={cpu:.2f} "
            f"playouts_per_cpu_s={playouts / cpu:.1f} states_per_cpu_s={states / cpu:.1f} "
            f"avg_depth={states / playouts - 1:.2f} engine={engine}"
        )
    return 0 if emit_json(args, result, "bench") else 2

