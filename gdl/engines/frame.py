"""Fluents no move changes, and the state relations that read only them.

A fluent that only frame axioms, ``(<= (next F) (true F))``, can make in the next state is there exactly
when it is in this one (or, made by no rule at all, only in the initial state). wargame01 keeps its
walls so (``blockedNorth``, ``blockedEast``), and derives from them, through ``stepBlocked``, the
relations its terrorists move by (``horizontalStep/6``, ``verticalStep/6``: thousands of facts). They
read ``true``, so the Datalog engine computed and indexed them whole in every state, 15 to 50 ms a step,
where a top-down prover asks for the dozen facts a step uses. Computed once for each set of the
unchanging fluents a state has (in a game's reachable states: a few), they cost nothing per state.

A ``(true T)`` literal reads only unchanging fluents when ``T`` unifies with the head of no ``next``
rule but frame axioms: then a fluent matching ``T`` can only be kept, never made. Whichever fluents a
state holds, evaluating a stratum from the state's fluents that match such literals alone is sound: a
stratum whose ``true`` literals are all such gives the same facts from those fluents as from the whole
state. The analysis only chooses which strata are worth keeping apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gdl.datalog.terms import TermTable
from gdl.syntax.model import Atom, Constant, Function, Program, Term, Variable, walk_atoms

#: A substitution built while unifying: a variable (by side and name) to the term it stands for.
_Bindings = dict[tuple[int, str], tuple[int, Term]]


def _resolve(side: int, term: Term, bindings: _Bindings) -> tuple[int, Term]:
    while isinstance(term, Variable) and (side, term.name) in bindings:
        side, term = bindings[(side, term.name)]
    return side, term


def _unify(left: Term, right: Term, bindings: _Bindings, sides: tuple[int, int] = (0, 1)) -> bool:
    """Whether ``left`` (its variables on side 0) and ``right`` (side 1) unify, extending ``bindings``.

    Without the occurs check, two terms may be said to unify that do not: callers only lose a frame.
    """
    (side_a, a), (side_b, b) = _resolve(sides[0], left, bindings), _resolve(sides[1], right, bindings)
    if isinstance(a, Variable):
        if not (isinstance(b, Variable) and (side_a, a.name) == (side_b, b.name)):
            bindings[(side_a, a.name)] = (side_b, b)
        return True
    if isinstance(b, Variable):
        bindings[(side_b, b.name)] = (side_a, a)
        return True
    if isinstance(a, Constant) or isinstance(b, Constant):
        return isinstance(a, Constant) and isinstance(b, Constant) and a.name == b.name
    assert isinstance(a, Function) and isinstance(b, Function)
    if a.name != b.name or len(a.args) != len(b.args):
        return False
    return all(_unify(x, y, bindings, (side_a, side_b)) for x, y in zip(a.args, b.args, strict=True))


def unifiable(left: Term, right: Term) -> bool:
    """Whether two terms, their variables apart, may have a common instance."""
    return _unify(left, right, {})


def changing_heads(program: Program) -> tuple[Term, ...]:
    """The fluents the ``next`` rules other than frame axioms make (terms with variables)."""
    return tuple(
        rule.head.args[0] for rule in program.rules
        if rule.head.relation == "next" and len(rule.head.args) == 1
        and rule.body != (Atom("true", rule.head.args),)
    )


def unchanging_reads(program: Program) -> frozenset[Term]:
    """The terms of ``(true T)`` literals that only fluents no move makes can match (``T`` no bare
    variable: reading every fluent is reading the state)."""
    made = changing_heads(program)
    return frozenset(
        atom.args[0] for rule in program.rules for atom, _ in walk_atoms(rule.body)
        if atom.relation == "true" and len(atom.args) == 1 and not isinstance(atom.args[0], Variable)
        and not any(unifiable(atom.args[0], head) for head in made)
    )


def terms_read(program: Program) -> dict[str, set[Term]]:
    """For each relation defined by the program, the terms its own rules read by ``(true T)``."""
    found: dict[str, set[Term]] = {}
    for rule in program.rules:
        terms = found.setdefault(rule.head.relation, set())
        for atom, _ in walk_atoms(rule.body):
            if atom.relation == "true" and len(atom.args) == 1:
                terms.add(atom.args[0])
    return found


def reads_only(
    relations: Iterable[str], depends_on: dict[str, set[str]], read: dict[str, set[Term]],
    unchanging: frozenset[Term],
) -> bool:
    """Whether the relations read, directly or through the relations they use, by ``true`` literals of
    ``unchanging`` only (and no move)."""
    for relation in relations:
        for used in depends_on.get(relation, {relation}):
            if used == "does" or not read.get(used, set()) <= unchanging:
                return False
    return True


def matcher(patterns: Iterable[Term], table: TermTable) -> Callable[[int], bool]:
    """A function telling whether a ground term (id of ``table``) is an instance of one of
    ``patterns`` (all are, when one is a variable)."""
    by_functor: dict[int, list[Term]] = {}
    constants: set[int] = set()
    for pattern in patterns:
        if isinstance(pattern, Variable):
            return lambda fluent: True
        if isinstance(pattern, Constant):
            constants.add(table.constant(pattern.name))
        elif isinstance(pattern, Function):
            by_functor.setdefault(table.functor_id(pattern.name, len(pattern.args)), []).append(pattern)
    functor_of, args_of = table.functor, table.args

    def matches(pattern: Term, ident: int, bindings: dict[str, int]) -> bool:
        if isinstance(pattern, Variable):
            return bindings.setdefault(pattern.name, ident) == ident
        if isinstance(pattern, Constant):
            return table.ids.get(pattern.name) == ident
        assert isinstance(pattern, Function)
        if functor_of[ident] != table.functor_id(pattern.name, len(pattern.args)):
            return False
        return all(matches(p, i, bindings) for p, i in zip(pattern.args, args_of[ident], strict=True))

    def unchanging(fluent: int) -> bool:
        candidates = by_functor.get(functor_of[fluent], ())
        return fluent in constants or any(matches(p, fluent, {}) for p in candidates)

    return unchanging


def selector(patterns: Iterable[Term], table: TermTable) -> Callable[[frozenset[int]], frozenset[int]]:
    """A function giving the fluents of a state (ids of ``table``) that are instances of one of
    ``patterns``; each fluent is matched once, a game having far fewer fluents than states."""
    match = matcher(patterns, table)
    seen: set[int] = set()
    kept: set[int] = set()

    def select(state: frozenset[int]) -> frozenset[int]:
        new = state.difference(seen)
        if new:
            seen.update(new)
            kept.update(filter(match, new))
        return state & kept

    return select
