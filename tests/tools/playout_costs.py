"""Where a native playout's time goes, layer by layer: microseconds per playout from the initial state,
the least of 7 repeats of CPU time (``time.process_time``), for the compiled engine.

Run: ``taskset -c 0 .venv/bin/python tests/tools/playout_costs.py GAME.kif [--number N]``. Rows:

- ``kernel``: the numba kernel ``playout`` called directly (numba's dispatch, the walk, the goals read);
- ``Kernel.run``: with the kernel's Python wrapper (the state handed in and out);
- ``depth_charge``: the reasoner's ``depth_charge`` (the seed drawn, the goals decoded);
- ``bench --per-playout``: ``gdl bench``'s loop of one call per playout (the goals read through the
  reasoner);
- ``depth_charges``: one ``depth_charges`` call of 1,000 playouts, per playout (``gdl bench``'s loop);
- ``start``: the same with no move allowed (the start from the saved network, the goals, the tallies).

Instructions instead of time (repeatable whatever the machine's load), under callgrind::

    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.out \\
        .venv/bin/python tests/tools/playout_costs.py GAME.kif --callgrind 10000
    callgrind_annotate /tmp/cg.out | grep TOTALS   # divided by 10,000: instructions per playout

makes one ``depth_charges`` call of that many playouts from the initial state with callgrind's
instrumentation switched on just before (with ``callgrind_control``, so that loading Python, numba and
the game is not counted) and the process ended just after.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import time
import timeit
from collections.abc import Callable
from pathlib import Path

from gdl.check import check_text
from gdl.cli.bench import MAX_DEPTH, playout
from gdl.engines.compiled import CompiledReasoner
from gdl.engines.native_layout import FROM_SAVED


def least(call: Callable[[], object], number: int, per: int = 1) -> float:
    """Microseconds of CPU per playout: the least of 7 repeats of ``number`` calls of ``per`` playouts."""
    seconds = min(timeit.repeat(call, number=number, repeat=7, timer=time.process_time))
    return seconds / number / per * 1e6


def instrumentation_on() -> None:
    """Switch callgrind's instrumentation of this process on. callgrind reads the command while the
    process runs code, not while it waits in a system call: so the process spins until it is done."""
    control = subprocess.Popen(["callgrind_control", "-i", "on", str(os.getpid())], stdout=subprocess.DEVNULL)
    while control.poll() is None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", type=Path)
    parser.add_argument("--number", type=int, default=20_000, help="calls per repeat (default 20,000)")
    parser.add_argument(
        "--callgrind", type=int, metavar="N", help="under callgrind: N playouts in one call, instrumented"
    )
    args = parser.parse_args()
    checked = check_text(args.game.read_text(encoding="utf-8"), str(args.game)).checked
    assert checked is not None, "the game has errors"
    reasoner = CompiledReasoner(checked)
    rng, initial, kernel = random.Random(0), reasoner.initial(), reasoner.kernel
    reasoner.depth_charges(initial, 2, rng, MAX_DEPTH)  # the network flattened, the kernels loaded
    if args.callgrind:
        instrumentation_on()
        reasoner.depth_charges(initial, args.callgrind, rng, MAX_DEPTH)
        os._exit(0)  # at once: the interpreter's clean-up would be counted
    play, data, n = kernel._play, kernel.data, args.number
    print(f"{args.game.stem}: {kernel.nodes} nodes, {kernel.bases} base propositions")
    rows = {
        "kernel": least(lambda: play(data, rng.getrandbits(63), MAX_DEPTH, FROM_SAVED), n),
        "Kernel.run": least(lambda: kernel.run(initial, rng.getrandbits(63), MAX_DEPTH), n),
        "depth_charge": least(lambda: reasoner.depth_charge(initial, rng, MAX_DEPTH), n),
        "bench --per-playout": least(lambda: playout(reasoner, rng), n),
        "depth_charges": least(
            lambda: reasoner.depth_charges(initial, 1000, rng, MAX_DEPTH), n // 1000 or 1, 1000
        ),
        "start": least(lambda: reasoner.depth_charges(initial, 1000, rng, 0), n // 1000 or 1, 1000),
    }
    for name, micros in rows.items():
        print(f"{name:>20}: {micros:7.3f} us")


if __name__ == "__main__":
    main()
