"""Random walks through the reasoner protocol of the compiled engine: ``legal`` for every role, a random
joint move, ``next``, until a terminal state (``terminal`` and then ``goals`` read), as a player's tree
search asks them (not the native depth charge that ``gdl bench`` measures). Prints, per game, the
loading phases (``CompiledReasoner.phases``, CPU seconds) and the states per CPU-second of the walks,
the median of ``--runs`` runs of ``--seconds`` each::

    .venv/bin/python tests/tools/protocol_walks.py games/tictactoe.kif ../shared/corpus/games/kalaha_2009.kif
    taskset -c 0 .venv/bin/python tests/tools/protocol_walks.py --runs 5 --code-limit 0 GAME...

``--code-limit N`` is passed to :class:`gdl.engines.compiled.CompiledReasoner` (the most gate inputs
a function's generated code may read; larger ones are evaluated from tables); give several to compare
them in the same run, one reasoner each.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from gdl.check import check_text
from gdl.engines.base import random_walk
from gdl.engines.compiled import DEFAULT_CODE_LIMIT, CompiledReasoner


def walks(reasoner: CompiledReasoner, seconds: float, seed: int) -> float:
    """States per CPU-second of random walks from the initial state for ``seconds`` CPU-seconds."""
    rng = random.Random(seed)
    states = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        last, depth, ended = random_walk(reasoner, reasoner.initial(), rng, 10_000)
        if ended:
            for role in range(len(reasoner.roles)):
                reasoner.goals(last, role)
        states += depth + 1
    return states / (time.process_time() - started)


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("games", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=3, help="runs per game (default 3)")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per run (default 2)")
    parser.add_argument(
        "--code-limit", type=int, action="append", default=None, metavar="N",
        help=f"CompiledReasoner's code_limit (default {DEFAULT_CODE_LIMIT}); repeat to compare",
    )
    args = parser.parse_args()
    sys.setrecursionlimit(100_000)
    print("| game | code limit | " + " | ".join(PHASES) + " | states/CPU-s |")
    print("|---|---|" + "---|" * len(PHASES) + "---|")
    for path in args.games:
        checked = check_text(path.read_text(), str(path)).checked
        if checked is None:
            raise SystemExit(f"{path}: does not check")
        for limit in args.code_limit or [DEFAULT_CODE_LIMIT]:
            reasoner = CompiledReasoner(checked, code_limit=limit)
            rates = [walks(reasoner, args.seconds, seed) for seed in range(args.runs)]
            phases = " | ".join(f"{reasoner.phases.get(k, 0.0):.2f}" for k in PHASES)
            print(f"| {path.stem} | {limit} | {phases} | {statistics.median(rates):.0f} |", flush=True)


#: The phases printed, in order.
PHASES = ("instantiate", "network", "cones", "generate", "compile", "kernel", "tables")

if __name__ == "__main__":
    main()
