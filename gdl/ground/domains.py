"""The moves, base propositions and percepts a game can ever have, by a relaxed analysis of argument
positions: what numbers the actions and observations of a game that does not instantiate.

Instantiation (:mod:`gdl.ground.instantiate`) lists every ground atom that can hold, which multiplies the
choices of a rule's variables together; on some games that is millions of atoms. This analysis keeps one
set of ground terms per argument position of each relation instead, so its cost is a sum where
instantiation's is a product:

- a rule's variable ranges over what every positive literal of its body allows at its occurrences, each
  occurrence projected on its own (which combinations occur together is not tracked), and ``not`` and
  ``distinct`` are ignored;
- a head's argument is every instance of its term under those ranges;
- ``true`` holds what ``init``, ``next`` or ``base`` make, ``does`` what ``legal`` or ``input`` make;
- ``legal``, ``does``, ``input`` and ``sees`` keep a set per role (their first argument).

Every set is a superset of the terms that can occur there in a reachable state (the analysis relaxes
each rule), so a game's legal moves are always among its :attr:`Domains.moves`, and the fluents of its
states among :attr:`Domains.fluents`. Sets are bounded (:data:`MAX_TERMS` per position, terms nested at
most :data:`MAX_DEPTH` deep); past a bound the game is refused with :class:`DomainTooLargeError`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from gdl.budget import checkpoint
from gdl.datalog.plan import conjunctions
from gdl.errors import DomainTooLargeError
from gdl.syntax.model import Atom, Constant, Function, Program, Term, Variable, walk_atoms

#: The most ground terms one argument position (one role's moves, the fluents) may have.
MAX_TERMS = 100_000
#: The deepest nesting of a term the analysis follows (a counter built as ``(s (s ... 0))``).
MAX_DEPTH = 12

#: Relations whose first argument is a role; their second argument has a set per role.
ROLE_KEYED = frozenset({"legal", "does", "input", "sees"})
#: Relations whose first argument feeds ``true``'s, and ``does``'s second argument.
_FEEDS_TRUE = frozenset({"init", "next", "base"})
_FEEDS_DOES = frozenset({"legal", "input"})

#: A set's key: the relation, the role for :data:`ROLE_KEYED` relations (else ``""``), the position.
Key = tuple[str, str, int]


@dataclass(frozen=True)
class Domains:
    """What a game can ever have: each role's moves, the fluents, each role's percepts, sorted by KIF
    text; roles by their canonical (lower-case) names."""

    moves: dict[str, tuple[Term, ...]]
    fluents: tuple[Term, ...]
    percepts: dict[str, tuple[Term, ...]]


def domains(program: Program, roles: Sequence[str]) -> Domains:
    """The domains of ``program``'s moves, fluents and percepts (see the module docstring); ``roles``
    are the canonical names of its roles."""
    analysis = _Analysis(program, roles)
    analysis.run()

    def ordered(terms: Iterable[Term]) -> tuple[Term, ...]:
        return tuple(sorted(terms, key=str))

    return Domains(
        moves={role: ordered(analysis.terms(("does", role, 1))) for role in roles},
        fluents=ordered(analysis.terms(("true", "", 0))),
        percepts={role: ordered(analysis.terms(("sees", role, 1))) for role in roles},
    )


class _Analysis:
    """The fixpoint: rules are evaluated over the sets until none grows."""

    def __init__(self, program: Program, roles: Sequence[str]) -> None:
        self.roles = tuple(roles)
        self.sets: dict[Key, set[Term]] = {}
        #: 0-ary relations that can hold, and relations with arguments that can (their sets say what).
        self.holding: set[str] = set()
        #: How often each set grew: a rule is evaluated again only when a set it reads grew since.
        self.versions: dict[Key | str, int] = {}
        self.rules: list[tuple[Atom, tuple[Atom, ...]]] = []
        for rule in program:
            for conjunction in conjunctions(rule.body):
                positives = tuple(atom for atom, positive in walk_atoms(conjunction) if positive)
                self.rules.append((rule.head, positives))

    def terms(self, key: Key) -> set[Term]:
        return self.sets.get(key, set())

    def run(self) -> None:
        seen: list[tuple[int, ...] | None] = [None] * len(self.rules)
        changed = True
        while changed:
            changed = False
            for index, (head, body) in enumerate(self.rules):
                checkpoint()
                versions = tuple(self.versions.get(name, 0) for atom in body for name in self._reads(atom))
                if seen[index] == versions:
                    continue
                seen[index] = versions
                ranges = self._bind(body)
                if ranges is not None and self._derive(head, ranges):
                    changed = True

    def _reads(self, atom: Atom) -> Iterator[Key | str]:
        yield atom.relation
        for position in range(atom.arity):
            yield from self._keys(atom, position)

    def _keys(self, atom: Atom, position: int) -> Iterator[Key]:
        """The sets an argument of a body atom reads (one per role when the role is a variable)."""
        if atom.relation in ROLE_KEYED and position == 1:
            role = atom.args[0]
            if isinstance(role, Constant):
                yield (atom.relation, role.name, 1)
            else:
                yield from ((atom.relation, r, 1) for r in self.roles)
        elif atom.relation in ROLE_KEYED and position == 0:
            return
        else:
            yield (atom.relation, "", position)

    def _candidates(self, atom: Atom, position: int) -> set[Term]:
        """The terms an argument of a body atom can be (roles with a set, for a role argument)."""
        if atom.relation in ROLE_KEYED and position == 0:
            return {Constant(r) for r in self.roles if self.sets.get((atom.relation, r, 1))}
        found: set[Term] = set()
        for key in self._keys(atom, position):
            found |= self.sets.get(key, set())
        return found

    def _bind(self, body: tuple[Atom, ...]) -> dict[str, set[Term]] | None:
        """Each variable's range under the body's positive atoms, or None when one cannot hold."""
        ranges: dict[str, set[Term]] = {}
        for atom in body:
            if atom.relation not in self.holding:
                return None
            for position, pattern in enumerate(atom.args):
                candidates = self._candidates(atom, position)
                if pattern.is_ground():
                    if pattern not in candidates:
                        return None
                    continue
                found: dict[str, set[Term]] = {}
                for term in candidates:
                    _match(pattern, term, found)
                if not found:
                    return None
                for name, values in found.items():
                    ranges[name] = ranges[name] & values if name in ranges else values
                    if not ranges[name]:
                        return None
        return ranges

    def _derive(self, head: Atom, ranges: dict[str, set[Term]]) -> bool:
        """Add the head's instances under ``ranges``; whether anything grew."""
        grew = self._hold(head.relation)
        if head.relation in ROLE_KEYED and head.arity == 2:
            role = head.args[0]
            if isinstance(role, Variable):
                names = [t.name for t in ranges.get(role.name, set()) if isinstance(t, Constant)]
            else:
                names = [role.name] if isinstance(role, Constant) else []
            instances = list(_instances(head.args[1], ranges))
            for name in names:
                if name in self.roles:
                    grew |= self._add((head.relation, name, 1), instances)
                    if head.relation in _FEEDS_DOES:
                        grew |= self._add(("does", name, 1), instances)
            return grew
        for position, pattern in enumerate(head.args):
            instances = list(_instances(pattern, ranges))
            grew |= self._add((head.relation, "", position), instances)
            if head.relation in _FEEDS_TRUE and position == 0:
                grew |= self._add(("true", "", 0), instances)
        return grew

    def _hold(self, relation: str) -> bool:
        if relation in self.holding:
            return False
        self.holding.add(relation)
        self.versions[relation] = self.versions.get(relation, 0) + 1
        return True

    def _add(self, key: Key, terms: list[Term]) -> bool:
        present = self.sets.setdefault(key, set())
        before = len(present)
        present.update(terms)
        grew = self._hold(key[0])
        if len(present) == before:
            return grew
        if len(present) > MAX_TERMS:
            relation, role, position = key
            where = f"of {role}" if role else f"at argument {position + 1}"
            raise DomainTooLargeError(
                f"'{relation}' {where} ranges over more than {MAX_TERMS} terms in a relaxed analysis"
            )
        self.versions[key] = self.versions.get(key, 0) + 1
        return True


def _match(pattern: Term, term: Term, found: dict[str, set[Term]]) -> None:
    """Add the values ``term`` gives the variables of ``pattern`` to ``found``, if it matches."""
    bound: dict[str, Term] = {}
    if _unify(pattern, term, bound):
        for name, value in bound.items():
            found.setdefault(name, set()).add(value)


def _unify(pattern: Term, term: Term, bound: dict[str, Term]) -> bool:
    if isinstance(pattern, Variable):
        previous = bound.setdefault(pattern.name, term)
        return previous == term
    if isinstance(pattern, Constant):
        return isinstance(term, Constant) and term.name == pattern.name
    return (
        isinstance(term, Function)
        and term.name == pattern.name
        and len(term.args) == len(pattern.args)
        and all(_unify(p, t, bound) for p, t in zip(pattern.args, term.args, strict=True))
    )


def _instances(pattern: Term, ranges: dict[str, set[Term]]) -> Iterator[Term]:
    """Every instance of ``pattern`` with its variables over ``ranges`` (each variable on its own)."""
    names = sorted({v.name for v in pattern.variables()})
    count = 1
    for name in names:
        count *= len(ranges.get(name, ()))
    if count > MAX_TERMS:
        raise DomainTooLargeError(
            f"'{pattern}' has more than {MAX_TERMS} instances in a relaxed analysis"
        )
    for values in itertools.product(*(sorted(ranges.get(n, ()), key=str) for n in names)):
        term = _substitute(pattern, dict(zip(names, values, strict=True)))
        if _depth(term) > MAX_DEPTH:
            raise DomainTooLargeError(
                f"'{pattern}' makes terms nested more than {MAX_DEPTH} deep in a relaxed analysis"
            )
        yield term


def _substitute(pattern: Term, values: dict[str, Term]) -> Term:
    if isinstance(pattern, Variable):
        return values[pattern.name]
    if isinstance(pattern, Constant):
        return Constant(pattern.name)
    return Function(pattern.name, tuple(_substitute(a, values) for a in pattern.args))


def _depth(term: Term) -> int:
    if isinstance(term, Function):
        return 1 + max(_depth(a) for a in term.args)
    return 0
