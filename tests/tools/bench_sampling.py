"""Benchmark: Monte Carlo CFR sampled through the engine (no stored tree) and its statistical lower
bound, on Kuhn, Leduc and krieg-tictactoe from GDL-II.

For each game: iterations of sampled outcome-sampling MCCFR per CPU-second (median of ``--repeat`` runs
of ``--iterations`` iterations, each from fresh tables), the information sets the last run touched, its
average strategy's exploitability measured exactly on the stored tree (Kuhn and Leduc; krieg-tictactoe's
16 billion nodes are not stored), and the 95 % lower bound of it from ``--bound-plays`` plays per phase
(learning each responder, then evaluating the pair), with that bound's CPU seconds.

A second table gives, on the stored trees of Kuhn and Leduc, the CPU time of both players' best
responses to DCFR's strategies after 200 iterations, in floating point as measured
(``plans_exploitability``) and with the proven bound of their rounding error
(``gdl.extensive.rounding.proven_response``), medians of ``--repeat``, and that bound.

Run: ``.venv/bin/python tests/tools/bench_sampling.py [--repeat 3] [--iterations 200000]
[--bound-plays 100000]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from bench_extensive import median_cpu

from gdl.extensive.best_response import plans_exploitability
from gdl.extensive.cfr import solve_cfr
from gdl.extensive.from_gdl import load_gdl2
from gdl.extensive.generate import generate_tree
from gdl.extensive.rounding import ProvenResponse, proven_response
from gdl.extensive.sampled_bound import exploitability_lower_bound
from gdl.extensive.sampling import Sampler, sample_mccfr
from gdl.extensive.sequence import SequenceForm

GAMES = Path(__file__).resolve().parent.parent.parent / "games"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=200_000)
    parser.add_argument("--bound-plays", type=int, default=100_000)
    args = parser.parse_args()
    print("| game | iterations | iterations per CPU-s | information sets touched | exact exploitability "
          "| 95 % lower bound | bound CPU-s |")
    print("|------|-----------:|------:|------:|------:|------:|------:|")
    for name in ("kuhn", "leduc", "kriegtictactoe"):
        path = GAMES / f"{name}.kif"
        game = load_gdl2(path.read_text(), str(path))
        rates = []
        for seed in range(args.repeat):
            sampler = Sampler(game, seed=seed)
            rates.append(sample_mccfr(sampler, args.iterations).rate)
        exact = "(not stored)"
        if name != "kriegtictactoe":
            tree = generate_tree(game)
            form = SequenceForm.from_tree(tree)
            exact = f"{plans_exploitability(form, *sampler.average_plans(tree, form)).exploitability:.3g}"
        start = time.process_time()
        bound = exploitability_lower_bound(sampler, args.bound_plays)
        spent = time.process_time() - start
        touched = sum(sampler.infosets().values())
        print(f"| {name} | {args.iterations:,} | {statistics.median(rates):,.0f} | {touched:,} | {exact} "
              f"| {bound.lower:.3g} | {spent:.1f} |")
    print()
    print("| game | nodes | best responses, measured (CPU ms) | proven (CPU ms) | rounding error bound |")
    print("|------|------:|------:|------:|------:|")
    for name in ("kuhn", "leduc"):
        path = GAMES / f"{name}.kif"
        tree = generate_tree(load_gdl2(path.read_text(), str(path)))
        form = SequenceForm.from_tree(tree)
        x, y = solve_cfr(form, 200, report_every=200, variant="dcfr", strategies=False).plans
        most = float(np.abs(tree.payoffs()).max())
        terminals = len(tree.term_den)

        def measured() -> object:
            return plans_exploitability(form, x, y)  # noqa: B023

        def proven() -> list[ProvenResponse]:
            return [proven_response(form, mover, plan, terminals, most) for mover, plan in ((0, y), (1, x))]  # noqa: B023

        error = max(bound.error for bound in proven())
        print(f"| {name} | {tree.nodes:,} | {1000 * median_cpu(measured, args.repeat):.2f} "
              f"| {1000 * median_cpu(proven, args.repeat):.2f} | {error:.2g} |")


if __name__ == "__main__":
    main()
