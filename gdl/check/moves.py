"""What ``legal`` and ``goal`` rules promise: moves that some ``legal`` rule can produce, goal values
from 0 to 100."""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx

from gdl.diagnostics import Diagnostic, warning
from gdl.syntax.model import Constant, Function, Program, Term, Variable, walk_atoms


def check_goal_values(program: Program, graph: nx.DiGraph) -> Iterator[Diagnostic]:
    """A goal rule whose value is a constant but no whole number from 0 to 100 (a match that reaches it
    cannot end with a score)."""
    for rule in program.rules:
        head = rule.head
        if head.relation != "goal" or head.arity != 2 or not isinstance(head.args[1], Constant):
            continue
        value = head.args[1].name
        if goal_number(value) is None:
            yield warning(
                "goal-value",
                f"goal value '{value}' is not a whole number from 0 to 100",
                head.args[1].span,
                "a terminal state where this rule holds gives its role no valid goal value",
            )


def goal_number(text: str) -> int | None:
    """The goal value ``text`` names, an integer from 0 to 100 in ASCII digits; None for anything else
    (checked before conversion: ``int`` refuses very long numbers and accepts digits of other scripts)."""
    if text.isascii() and text.isdigit() and len(text.lstrip("0")) <= 3 and int(text) <= 100:
        return int(text)
    return None


def _could_match(pattern: Term, term: Term) -> bool:
    """Whether two terms may stand for the same ground term (a variable stands for anything; repeated
    variables are not compared, so this errs on the side of a match)."""
    if isinstance(pattern, Variable) or isinstance(term, Variable):
        return True
    if isinstance(pattern, Function) and isinstance(term, Function):
        return (
            pattern.name == term.name and len(pattern.args) == len(term.args)
            and all(_could_match(p, t) for p, t in zip(pattern.args, term.args, strict=True))
        )
    return pattern == term


def check_moves(program: Program, graph: nx.DiGraph) -> Iterator[Diagnostic]:
    """A ``does`` of a move that no ``legal`` rule can produce for that role (a typo such as ``pushh``
    for ``push``): the literal is always false, or always true under ``not``."""
    legal = [
        (rule.head.args[0], rule.head.args[1])
        for rule in program.rules if rule.head.relation == "legal" and rule.head.arity == 2
    ]
    if not legal:
        return
    for rule in program.rules:
        for atom, positive in walk_atoms(rule.body):
            if atom.relation != "does" or atom.arity != 2:
                continue
            role, move = atom.args
            if any(_could_match(r, role) and _could_match(m, move) for r, m in legal):
                continue
            whose = "" if isinstance(role, Variable) else f" to '{role}'"
            always = "false" if positive else "true (under 'not')"
            yield warning(
                "impossible-move",
                f"no 'legal' rule gives the move '{move}'{whose}",
                move.span,
                f"so (does {role} {move}) is always {always}; a misspelt move?",
            )
