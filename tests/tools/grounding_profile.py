"""Where instantiation spends its atoms and time, per game: ``python tests/tools/grounding_profile.py
[--max-atoms N] [--max-seconds S] GAME...`` prints, per game, the CPU seconds of instantiation (static,
relaxed and grounding phases), the relaxed atoms and ground rules, and the ``--top`` largest relations;
a game over budget prints the budget's message, naming the ``--top`` largest relations so far."""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from gdl.check import check_text
from gdl.errors import GameTooLargeError
from gdl.ground.facts import Budget
from gdl.ground.instantiate import instantiate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("games", nargs="+")
    parser.add_argument("--max-atoms", type=int, default=400_000)
    parser.add_argument("--max-seconds", type=float, default=30.0)
    parser.add_argument("--top", type=int, default=6)
    args = parser.parse_args()
    Budget.shown = args.top
    for name in args.games:
        path = Path(name)
        checked = check_text(path.read_text(encoding="utf-8"), str(path)).checked
        if checked is None:
            print(f"{path.stem}: does not check")
            continue
        started = time.process_time()
        try:
            grounding = instantiate(checked, args.max_atoms, args.max_seconds)
        except GameTooLargeError as problem:
            print(f"{path.stem}: {time.process_time() - started:.1f} s: {problem}", flush=True)
            continue
        rules = Counter(rule.head[0] for rule in grounding.rules)
        phases = " ".join(f"{k.removesuffix('_seconds')} {v:.2f}" for k, v in grounding.stats.items())
        largest = ", ".join(f"{r}: {n}" for r, n in rules.most_common(args.top))
        print(
            f"{path.stem}: {grounding.seconds:.2f} s ({phases}), {grounding.relaxed_atoms} relaxed atoms, "
            f"{len(grounding.rules)} ground rules ({largest})",
            flush=True,
        )


if __name__ == "__main__":
    main()
