"""What the Datalog engine pays once against what it pays per state: CPU seconds (``time.process_time``)
of its loading, its first random playout from the initial state (the rules of the strata it needs are
planned and compiled then), the playouts until 150 states (the state strata planned again at
``REPLAN_AT`` inside), and the milliseconds per state of the median of the next 5 playouts.

Run: ``taskset -c 0 .venv/bin/python tests/tools/datalog_costs.py GAME.kif [GAME.kif ...]``; one JSON line
per game. ``gdl bench`` counts from its warm-up's end, so a one-time cost past its 0.5 s warm-up (a
replan) is counted as playout time: a game whose plans are dear looks slow per state there.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from gdl.check import check_text
from gdl.cli.bench import MAX_DEPTH
from gdl.engines.datalog import DatalogReasoner

#: States played (from the first playout on) before the per-state figure is taken.
SETTLED = 150


def costs(path: Path) -> dict[str, object]:
    checked = check_text(path.read_text(encoding="utf-8"), str(path)).checked
    if checked is None:
        return {"game": path.stem, "error": "the game does not check"}
    rng = random.Random(0)
    start = time.process_time()
    reasoner = DatalogReasoner(checked)
    load = time.process_time() - start

    def playout() -> tuple[float, int]:
        begin = time.process_time()
        state, depth, _ = reasoner.depth_charge(reasoner.initial(), rng, MAX_DEPTH)
        if reasoner.terminal(state):
            reasoner.goals(state, 0)
        return time.process_time() - begin, depth + 1

    first, states = playout()
    settling = 0.0
    while states < SETTLED:
        seconds, count = playout()
        settling += seconds
        states += count
    per_state = statistics.median(seconds / count for seconds, count in (playout() for _ in range(5)))
    return {
        "game": path.stem, "demand_driven": reasoner.demand_driven, "load_s": round(load, 3),
        "first_playout_s": round(first, 3), f"until_{SETTLED}_states_s": round(settling, 3),
        "per_state_ms": round(1000 * per_state, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="+", type=Path, metavar="GAME")
    for path in parser.parse_args().games:
        print(json.dumps(costs(path)), flush=True)


if __name__ == "__main__":
    main()
