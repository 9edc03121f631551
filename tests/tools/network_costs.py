"""What each optimisation of the kernels' network buys: the network's size, the fanout entries a step
visits, playouts per CPU-second (``--rounds``) and the instructions a playout costs (``--callgrind``),
with the network the kernel runs built three ways:

- ``built``: the network as :func:`gdl.ground.propnet.build` makes it;
- ``simplified``: :func:`gdl.ground.simplify.simplify` of it (constants, duplicates, absorption; what
  the kernels run from a state that disagrees with the reachable constants);
- ``folded``: ``simplified`` after :func:`gdl.ground.optimise.optimise` (base propositions constant in
  reachable states folded: what the kernels run from the reachable states, :mod:`gdl.engines.folding`).

Run::

    taskset -c 0 .venv/bin/python tests/tools/network_costs.py tictactoe hanoi
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.out \\
        .venv/bin/python tests/tools/network_costs.py --callgrind /tmp/cg.out --variants built hanoi

With ``--callgrind OUT_FILE`` (the script must run under ``valgrind --tool=callgrind --instr-atstart=no
--callgrind-out-file=OUT_FILE``), the instrumentation is switched on and the counters zeroed
(``callgrind_control``) after the kernel is built and has played a first playout, for ``--playouts``
playouts from the initial state in one native call (:meth:`gdl.engines.native.Kernel.charges`), then
dumped and read back. Instruction counts do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from gdl.check import check_text
from gdl.engines import native
from gdl.engines.native_layout import SIZES, TALLY_MOVES, WORK
from gdl.ground.instantiate import instantiate
from gdl.ground.optimise import optimise
from gdl.ground.propnet import PropNet, build
from gdl.ground.simplify import simplify

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "games"
VARIANTS: dict[str, Callable[[PropNet], PropNet]] = {
    "built": lambda net: net,
    "simplified": simplify,
    "folded": lambda net: simplify(optimise(net)),
}


def instructions_since_zeroed(out_file: Path) -> int:
    """Callgrind's instructions since the counters were last zeroed (a dump of them, read back)."""
    dumps = set(out_file.parent.glob(f"{out_file.name}.*"))
    subprocess.run(["callgrind_control", "-d", str(os.getpid())], capture_output=True, check=True)
    (dump,) = set(out_file.parent.glob(f"{out_file.name}.*")) - dumps
    for line in dump.read_text().splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise SystemExit(f"no summary in {dump}")


def callgrind(command: str) -> None:
    subprocess.run(["callgrind_control", command, str(os.getpid())], capture_output=True, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="+", help="corpus games (names) or .kif files")
    choices = ", ".join(VARIANTS)
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, of: {choices}")
    parser.add_argument("--playouts", type=int, default=200, help="playouts measured (default 200)")
    parser.add_argument(
        "--callgrind",
        type=Path,
        metavar="OUT_FILE",
        help="count instructions (under callgrind, run with --callgrind-out-file=OUT_FILE)",
    )
    parser.add_argument(
        "--rounds", type=int, default=0, help="also time the variants in turn, this many rounds (default 0)"
    )
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per variant and round")
    args = parser.parse_args()
    kernels_of = native.simplify
    for name in args.games:
        path = Path(name) if name.endswith(".kif") else CORPUS / f"{name}.kif"
        checked = check_text(path.read_text(encoding="utf-8"), str(path)).checked
        assert checked is not None, f"{path}: the game has errors"
        net = build(instantiate(checked))
        initial = sum(1 << i for i in net.init)
        kernels: dict[str, native.Kernel] = {}
        for variant in args.variants.split(","):
            shape = VARIANTS[variant]
            native.simplify = shape  # type: ignore[assignment]
            try:
                kernel = native.flatten(net)
            finally:
                native.simplify = kernels_of
            ran = shape(net)
            kernels[variant] = kernel
            # The kernels loaded, the saved network in the initial state.
            kernel.charges(initial, 1, 2, 10_000)
            sizes = kernel.section(SIZES)
            sizes[WORK] = 0
            if args.callgrind:
                callgrind("--instr=on")
                callgrind("--zero")
            _, tallies = kernel.charges(initial, 7, args.playouts, 10_000)
            counted = ""
            steps = int(tallies[TALLY_MOVES])
            if args.callgrind:
                spent = instructions_since_zeroed(args.callgrind)
                callgrind("--instr=off")
                counted = f" {spent / args.playouts:12,.0f} instr/playout {spent / steps:9,.0f} /step"
            print(
                f"{path.stem:>14} {variant:>10}: {len(ran.kinds):7,} gates {sum(map(len, ran.args)):8,} edges"
                f" {kernel.nodes:7,} kernel nodes {int(sizes[WORK]) / steps:8.1f} fanout/step{counted}",
                flush=True,
            )
        rates: dict[str, list[float]] = {variant: [] for variant in kernels}
        for _ in range(args.rounds):
            for variant, kernel in kernels.items():
                rates[variant].append(rate(kernel, initial, args.seconds))
        for variant, found in rates.items():
            if found:
                shown = "; ".join(f"{r:,.0f}" for r in found)
                median = statistics.median(found)
                print(f"{path.stem:>14} {variant:>10}: {median:10,.0f} playouts/CPU-s ({shown})")


def rate(kernel: native.Kernel, initial: int, seconds: float) -> float:
    """Playouts per CPU-second from ``initial``, over about ``seconds`` (batches of native calls)."""
    playouts, started, seed = 0, time.process_time(), 0
    while (spent := time.process_time() - started) < seconds:
        kernel.charges(initial, seed, 100, 10_000)
        playouts, seed = playouts + 100, seed + 100
    return playouts / spent


if __name__ == "__main__":
    main()
