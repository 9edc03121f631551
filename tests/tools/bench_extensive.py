"""Benchmark: gdl's sequence-form LP and CFR+ beside OpenSpiel's, on Kuhn and Leduc poker, in one run.

Both sides solve the same games: OpenSpiel's ``kuhn_poker`` and ``leduc_poker``, which gdl reads by
traversing them into its model (tests/support/openspiel_games.py). For each game and solver it prints
the median time of ``--repeat`` runs and, for CFR+, the iterations until the exploitability of the
average strategy is at most ``--target`` (found by measuring after every iteration; the timed runs then
do exactly that many iterations without measuring).

- gdl LP: building the sequence form from the game tree, then the LP on HiGHS (scipy).
- OpenSpiel LP: ``open_spiel.python.algorithms.sequence_form_lp.solve_zero_sum_game`` as shipped
  (cvxpy with ECOS, its default solver), which also builds its sequence form.
- gdl CFR+: ``gdl.extensive.cfr.solve_cfr`` (numpy, on the sequence form; the form built once, not timed).
- OpenSpiel CFR+: ``pyspiel.CFRPlusSolver`` (C++), ``evaluate_and_update_policy`` per iteration.

``--part generation`` instead measures the extensive form of GDL-II games made from their rules, in
nodes per CPU-second (medians of ``--repeat``): over State objects (``extensive_from_gdl(objects=True)``)
and on the compiled network into arrays (``generate_tree``); kriegtictactoe, whose tree has 16 billion
nodes, for its first ``--krieg-nodes`` nodes. ``--part iterations`` measures iterations per CPU-second
of CFR+, DCFR and outcome-sampling MCCFR on the sequence form of Kuhn and Leduc poker from GDL-II
(the form built once, not timed; no exploitability measured but at the end).

Run: ``.venv/bin/python tests/tools/bench_extensive.py [--part solvers|generation|iterations] [--repeat 5]
[--target 1e-3]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextlib

import pyspiel
from open_spiel.python.algorithms import sequence_form_lp
from support.openspiel_games import from_openspiel

from gdl.extensive.cfr import solve_cfr
from gdl.extensive.lp import solve_lp
from gdl.extensive.sequence import SequenceForm

MAX_ITERATIONS = 100_000
GAMES = Path(__file__).resolve().parent.parent.parent / "games"


def median_cpu(run: Callable[[], object], repeat: int) -> float:
    """The median CPU seconds of ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return statistics.median(times)


def generation(repeat: int, krieg_nodes: int) -> None:
    import gdl
    from gdl.errors import GameTooLargeError, OutOfTimeError
    from gdl.extensive.from_gdl import extensive_from_gdl
    from gdl.extensive.generate import generate_tree
    from gdl.extensive.warm import warm_up

    warm_up()
    print("| game | nodes | over State objects (nodes per CPU-s) | on the network (nodes per CPU-s) |")
    print("|------|------:|------:|------:|")
    for name in ("kuhn", "leduc", "spoof", "kriegtictactoe"):
        game = gdl.load(GAMES / f"{name}.kif")
        partial = name == "kriegtictactoe"
        objects_nodes = krieg_nodes // 20 if partial else generate_tree(game).nodes
        arrays_nodes = krieg_nodes if partial else objects_nodes

        def objects(game: gdl.Game = game, nodes: int = objects_nodes) -> None:
            with contextlib.suppress(GameTooLargeError, OutOfTimeError):
                extensive_from_gdl(game, objects=True, max_nodes=nodes, seconds=float("inf"))

        def arrays(game: gdl.Game = game, nodes: int = arrays_nodes) -> None:
            with contextlib.suppress(GameTooLargeError):
                generate_tree(game, max_nodes=nodes)

        slow = objects_nodes / median_cpu(objects, repeat)
        fast = arrays_nodes / median_cpu(arrays, repeat)
        shown = f"first {arrays_nodes:,}" if partial else f"{arrays_nodes:,}"
        print(f"| {name} | {shown} | {slow:,.0f} | {fast:,.0f} |")


def iterations(repeat: int) -> None:
    import gdl
    from gdl.extensive.from_gdl import extensive_from_gdl
    from gdl.extensive.mccfr import solve_mccfr

    counts = {"cfr+": 500, "dcfr": 500, "mccfr": 200_000}
    print("| game | method | iterations | iterations per CPU-s | exploitability at the end |")
    print("|------|--------|-----------:|------:|------:|")
    for name in ("kuhn", "leduc"):
        form = SequenceForm.from_game(extensive_from_gdl(gdl.load(GAMES / f"{name}.kif")))
        for method, count in counts.items():
            if method == "mccfr":
                def run(count: int = count) -> object:
                    return solve_mccfr(form, count, report_every=count, strategies=False)  # noqa: B023
            else:
                def run(count: int = count, method: str = method) -> object:
                    return solve_cfr(form, count, report_every=count, variant=method, strategies=False)  # noqa: B023
            seconds = median_cpu(run, repeat)
            gap = run().exploitability.exploitability  # type: ignore[attr-defined]
            print(f"| {name} | {method} | {count:,} | {count / seconds:,.0f} | {gap:.2e} |")


def median_seconds(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def openspiel_cfr_iterations(game: pyspiel.Game, target: float) -> int:
    solver = pyspiel.CFRPlusSolver(game)
    for iteration in range(1, MAX_ITERATIONS + 1):
        solver.evaluate_and_update_policy()
        if pyspiel.exploitability(game, solver.average_policy()) <= target:
            return iteration
    return MAX_ITERATIONS


def openspiel_cfr(game: pyspiel.Game, iterations: int) -> None:
    solver = pyspiel.CFRPlusSolver(game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--target", type=float, default=1e-3)
    parser.add_argument("--part", choices=("solvers", "generation", "iterations"), default="solvers")
    parser.add_argument("--krieg-nodes", type=int, default=2_000_000)
    args = parser.parse_args()
    if args.part == "generation":
        generation(args.repeat, args.krieg_nodes)
        return
    if args.part == "iterations":
        iterations(args.repeat)
        return
    print("| game | solver | value of player 1 | exploitability | CFR+ iterations | median time |")
    print("|------|--------|-------------------|----------------|-----------------|-------------|")
    for name in ("kuhn_poker", "leduc_poker"):
        ours = from_openspiel(name)
        theirs = pyspiel.load_game(name)

        lp = solve_lp(ours)
        seconds = median_seconds(lambda: solve_lp(SequenceForm.from_game(ours)), args.repeat)  # noqa: B023
        gap = lp.exploitability.exploitability
        print(f"| {name} | gdl LP | {lp.value['1']:.12f} | {gap:.1e} | | {seconds:.3f} s |")

        value = sequence_form_lp.solve_zero_sum_game(theirs)[0]
        seconds = median_seconds(lambda: sequence_form_lp.solve_zero_sum_game(theirs), args.repeat)  # noqa: B023
        print(f"| {name} | OpenSpiel LP (cvxpy, ECOS) | {value:.12f} | | | {seconds:.3f} s |")

        form = SequenceForm.from_game(ours)
        measured = solve_cfr(form, MAX_ITERATIONS, target=args.target, report_every=1)
        count = measured.iterations
        seconds = median_seconds(lambda: solve_cfr(form, count, report_every=count), args.repeat)  # noqa: B023
        print(
            f"| {name} | gdl CFR+ | {measured.value['1']:.6f} | {measured.exploitability.exploitability:.1e} "
            f"| {count} | {seconds:.3f} s |"
        )

        count = openspiel_cfr_iterations(theirs, args.target)
        seconds = median_seconds(lambda: openspiel_cfr(theirs, count), args.repeat)  # noqa: B023
        solver = pyspiel.CFRPlusSolver(theirs)
        for _ in range(count):
            solver.evaluate_and_update_policy()
        gap = pyspiel.exploitability(theirs, solver.average_policy())
        print(f"| {name} | OpenSpiel CFR+ (C++) | | {gap:.1e} | {count} | {seconds:.3f} s |")


if __name__ == "__main__":
    main()
