"""What ``gdl bandits`` prints: the sequences, the extended utility table, the solution and its value.

The text, in this order (``S`` are the agent's sequences, ``Q`` the attacker's, numbered from 1 in
the order of :class:`~gdl.extensive.sequence.SequenceForm`, ``S1`` and ``Q1`` the empty ones)::

    AGENT:
    S1:[]
    S2:[(1,1)]
    ...
    ATTACKER:
    Q1:[]
    Q2:[(1,1)]
    ...
    AGENT\\ATTACKER
    S13 Q2:3.3
    ...
    SOLUTION_AGENT:
    S1:1.0
    ...
    SOLUTION_ATTACKER:
    Q1:1.0
    ...
    SOLUTION_VALUE:[5.054761904762]

The utility table has one line per agent sequence with a nonzero entry, listing its nonzero entries
g(S, Q) (the agent's expected payoff over the terminals the pair leads to, chance included). The
solution lists the sequences in the support of the realization plans (above 1e-9). Numbers are printed
rounded to 12 decimals.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from gdl.bandits.game import BanditsGame
from gdl.extensive.lp import LPSolution
from gdl.extensive.model import tidy
from gdl.extensive.sequence import SequenceForm

#: Realization probabilities below this are outside the support.
SUPPORT = 1e-9


def number(value: float) -> str:
    """A number as printed: rounded to 12 decimals, without a negative zero."""
    return repr(round(tidy(value), 12) + 0.0)


def sequence_names(form: SequenceForm) -> tuple[list[str], list[str]]:
    """``S1`` ... for the agent's sequences, ``Q1`` ... for the attacker's."""
    agent, attacker = form.sides
    return (
        [f"S{i}" for i in range(1, len(agent.sequences) + 1)],
        [f"Q{j}" for j in range(1, len(attacker.sequences) + 1)],
    )


def lp_sizes(form: SequenceForm) -> dict[str, int]:
    """The sizes of the LP in :mod:`gdl.extensive.lp_file`: columns, rows and nonzero coefficients."""
    agent, attacker = form.sides
    return {
        "columns": len(agent.sequences) + attacker.constraints.shape[0],
        "rows": len(attacker.sequences) + agent.constraints.shape[0],
        "nonzeros": form.matrices[0].nnz + attacker.constraints.nnz + agent.constraints.nnz,
    }


def report_lines(bandits: BanditsGame, solution: LPSolution) -> list[str]:
    """The report of a solved maze, line by line (see the module docstring)."""
    form = solution.form
    names = sequence_names(form)
    lines: list[str] = []
    for title, side, named in zip(("AGENT:", "ATTACKER:"), form.sides, names, strict=True):
        lines.append(title)
        pairs = zip(named, side.sequences, strict=True)
        lines.extend(f"{name}:{bandits.sequence_text(sequence)}" for name, sequence in pairs)
    lines.append("AGENT\\ATTACKER")
    rows: dict[int, list[int]] = defaultdict(list)
    for (i, j), value in form.payoffs[0].items():
        if value:
            rows[i].append(j)
    table = form.payoffs[0]
    for i in sorted(rows):
        cells = " ".join(f"{names[1][j]}:{number(float(table[(i, j)]))}" for j in sorted(rows[i]))
        lines.append(f"{names[0][i]} {cells}")
    titles = ("SOLUTION_AGENT:", "SOLUTION_ATTACKER:")
    for title, plan, named in zip(titles, solution.plans, names, strict=True):
        lines.append(title)
        lines.extend(f"{name}:{number(p)}" for name, p in zip(named, plan, strict=True) if p > SUPPORT)
    lines.append(f"SOLUTION_VALUE:[{number(solution.value[bandits.game.players[0]])}]")
    return lines


def report_json(bandits: BanditsGame, solution: LPSolution, seconds: dict[str, float]) -> dict[str, Any]:
    """The value, the realization plans' supports (with each sequence's name and steps) and the sizes."""
    form = solution.form
    plans = {}
    for side, plan, named in zip(form.sides, solution.plans, sequence_names(form), strict=True):
        plans[side.player] = [
            {"name": name, "sequence": list(bandits.sequence_steps(seq)), "probability": float(p)}
            for name, seq, p in zip(named, side.sequences, plan, strict=True)
            if p > SUPPORT
        ]
    return {
        "value": tidy(solution.value[bandits.game.players[0]]),
        "plans": plans,
        "sizes": {
            "nodes": dict(bandits.game.sizes),
            **form.describe(),
            "lp": lp_sizes(form),
        },
        "seconds": seconds,
    }
