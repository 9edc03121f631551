"""Fluents no move changes, and the state relations that read only them.

A fluent whose every ``next`` rule is a frame axiom, ``(<= (next F) (true F))`` and nothing else, is in
the next state exactly when it is in this one. wargame01 keeps its walls so (``blockedNorth``,
``blockedEast``), and derives from them, through ``stepBlocked``, the relations its terrorists move by
(``horizontalStep/6``, ``verticalStep/6``: thousands of facts). They read ``true``, so the Datalog
engine computed and indexed them whole in every state, 15 to 50 ms a step, where a top-down prover asks
for the dozen facts a step uses. Computed once for each set of the unchanging fluents a state has (in
a game's reachable states: once), they cost nothing per state.

Whichever fluents a state holds, this is sound: a stratum whose ``true`` literals can match only
fluents of the unchanging kinds gives the same facts from those fluents alone as from the whole state.
The analysis only chooses which strata are worth keeping apart.
"""

from __future__ import annotations

from collections.abc import Iterable

from gdl.syntax.model import Atom, Constant, Function, Program, Term, walk_atoms

#: A kind of fluent: its functor's name and arity (0 for a constant).
FluentKind = tuple[str, int]

#: What a ``(true ?x)`` literal reads: any fluent.
ANY: FluentKind = ("", -1)


def fluent_kind(term: Term) -> FluentKind:
    """The kind of fluent a term in ``(true term)`` or ``(next term)`` can match (:data:`ANY` for a
    variable)."""
    if isinstance(term, Constant):
        return (term.name, 0)
    if isinstance(term, Function):
        return (term.name, len(term.args))
    return ANY


def unchanging_kinds(program: Program) -> frozenset[FluentKind]:
    """The kinds of fluents that ``true`` reads and that only frame axioms make in the next state."""
    read: set[FluentKind] = set()
    changing: set[FluentKind] = set()
    for rule in program.rules:
        for atom, _ in walk_atoms(rule.body):
            if atom.relation == "true" and len(atom.args) == 1:
                read.add(fluent_kind(atom.args[0]))
        head = rule.head
        if head.relation != "next" or len(head.args) != 1:
            continue
        frame = rule.body == (Atom("true", head.args),)
        if not frame:
            changing.add(fluent_kind(head.args[0]))
    if ANY in changing:
        return frozenset()
    return frozenset(read - changing - {ANY})


def kinds_read(program: Program) -> dict[str, set[FluentKind]]:
    """For each relation defined by the program, the kinds of fluents its own rules read by ``true``."""
    found: dict[str, set[FluentKind]] = {}
    for rule in program.rules:
        kinds = found.setdefault(rule.head.relation, set())
        for atom, _ in walk_atoms(rule.body):
            if atom.relation == "true" and len(atom.args) == 1:
                kinds.add(fluent_kind(atom.args[0]))
    return found


def reads_only(
    relations: Iterable[str], depends_on: dict[str, set[str]], read: dict[str, set[FluentKind]],
    kinds: frozenset[FluentKind],
) -> bool:
    """Whether the relations read, directly or through the relations they use, fluents of ``kinds``
    only (and no move)."""
    for relation in relations:
        for used in depends_on.get(relation, {relation}):
            if used == "does" or not read.get(used, set()) <= kinds:
                return False
    return True
