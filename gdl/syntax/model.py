"""The clause model: immutable terms, literals, rules and programs.

Every item carries the source span it was read from. Spans take no part in equality or hashing, so a
program read back from its printed form equals the original.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from gdl.span import NO_SPAN, Span

__all__ = [
    "NO_SPAN",
    "NO_SPELLINGS",
    "Atom",
    "Constant",
    "Distinct",
    "Function",
    "Literal",
    "Not",
    "Or",
    "Program",
    "Rule",
    "Span",
    "Term",
    "Variable",
    "walk_atoms",
    "walk_terms",
]

class _NoSpellings(Mapping[str, str]):
    """The empty, immutable mapping of spellings, copied and pickled as itself (a mappingproxy cannot be
    deep-copied, and Gymnasium's registry deep-copies the game it is given)."""

    def __getitem__(self, name: str) -> str:
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __reduce__(self) -> str:
        return "NO_SPELLINGS"

    def __repr__(self) -> str:
        return "NO_SPELLINGS"


#: No respelling: every name as the canonical lower case spells it.
NO_SPELLINGS: Mapping[str, str] = _NoSpellings()


def _span() -> Span:
    return field(default=NO_SPAN, compare=False, hash=False, repr=False)


@dataclass(frozen=True, slots=True)
class Constant:
    """An object constant, a number or a 0-ary relation name, in canonical lower case."""

    name: str
    span: Span = _span()

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Constant({self.name!r})"

    def variables(self) -> Iterator[Variable]:
        return iter(())

    def is_ground(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class Variable:
    """A variable, named without its leading question mark."""

    name: str
    span: Span = _span()

    def __str__(self) -> str:
        return "?" + self.name

    def __repr__(self) -> str:
        return f"Variable({self.name!r})"

    def variables(self) -> Iterator[Variable]:
        yield self

    def is_ground(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class Function:
    """A compound term ``(name arg...)`` with at least one argument."""

    name: str
    args: tuple[Term, ...]
    span: Span = _span()

    def __str__(self) -> str:
        return "(" + " ".join([self.name, *map(str, self.args)]) + ")"

    def __repr__(self) -> str:
        # Constructor-style and short, so that a list of moves reads well in the REPL; no span.
        return f"Function({self.name!r}, {self.args!r})"

    def variables(self) -> Iterator[Variable]:
        for arg in self.args:
            yield from arg.variables()

    def is_ground(self) -> bool:
        return all(arg.is_ground() for arg in self.args)


Term = Constant | Variable | Function


@dataclass(frozen=True, slots=True)
class Atom:
    """A sentence: a relation applied to terms (``terminal`` has no arguments)."""

    relation: str
    args: tuple[Term, ...] = ()
    span: Span = _span()

    @property
    def arity(self) -> int:
        return len(self.args)

    def __str__(self) -> str:
        if not self.args:
            return self.relation
        return "(" + " ".join([self.relation, *map(str, self.args)]) + ")"

    def variables(self) -> Iterator[Variable]:
        for arg in self.args:
            yield from arg.variables()

    def is_ground(self) -> bool:
        return all(arg.is_ground() for arg in self.args)


@dataclass(frozen=True, slots=True)
class Not:
    """Negation as failure of a sentence."""

    atom: Atom
    span: Span = _span()

    def __str__(self) -> str:
        return f"(not {self.atom})"

    def variables(self) -> Iterator[Variable]:
        return self.atom.variables()


@dataclass(frozen=True, slots=True)
class Distinct:
    """``(distinct a b)``: true when the two ground terms differ."""

    left: Term
    right: Term
    span: Span = _span()

    def __str__(self) -> str:
        return f"(distinct {self.left} {self.right})"

    def variables(self) -> Iterator[Variable]:
        yield from self.left.variables()
        yield from self.right.variables()


@dataclass(frozen=True, slots=True)
class Or:
    """A disjunction; each branch is a conjunction (written ``(and ...)`` when it has several literals)."""

    branches: tuple[tuple[Literal, ...], ...]
    span: Span = _span()

    def __str__(self) -> str:
        parts = ["or"]
        for branch in self.branches:
            if len(branch) == 1:
                parts.append(str(branch[0]))
            else:
                parts.append("(" + " ".join(["and", *map(str, branch)]) + ")")
        return "(" + " ".join(parts) + ")"

    def variables(self) -> Iterator[Variable]:
        for branch in self.branches:
            for literal in branch:
                yield from literal.variables()


Literal = Atom | Not | Distinct | Or


@dataclass(frozen=True, slots=True)
class Rule:
    """A clause ``(<= head body...)``; a fact is a rule whose body is empty."""

    head: Atom
    body: tuple[Literal, ...] = ()
    span: Span = _span()

    def __str__(self) -> str:
        # A rule with an empty body and variables in its head is no fact: it keeps its '<='.
        if not self.body and self.head.is_ground():
            return str(self.head)
        return "(<= " + " ".join([str(self.head), *map(str, self.body)]) + ")"

    def variables(self) -> Iterator[Variable]:
        yield from self.head.variables()
        for literal in self.body:
            yield from literal.variables()


@dataclass(frozen=True, slots=True)
class Program:
    """A sequence of clauses as read from one source (not yet checked).

    Names are kept in canonical lower case, so that matching ignores case as GDL demands;
    ``spellings`` maps each name the source wrote otherwise to its first spelling there, for what gdl
    shows or sends (see :func:`gdl.syntax.spelling.spell`).
    """

    rules: tuple[Rule, ...]
    source: str = field(default="<string>", compare=False)
    spellings: Mapping[str, str] = field(default_factory=lambda: NO_SPELLINGS, compare=False)

    def __str__(self) -> str:
        return "".join(str(rule) + "\n" for rule in self.rules)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)


def walk_atoms(literals: tuple[Literal, ...]) -> Iterator[tuple[Atom, bool]]:
    """Yield every atom of a body with whether it occurs positively, looking inside ``not`` and ``or``."""
    for literal in literals:
        if isinstance(literal, Atom):
            yield literal, True
        elif isinstance(literal, Not):
            yield literal.atom, False
        elif isinstance(literal, Or):
            for branch in literal.branches:
                yield from walk_atoms(branch)


def walk_terms(term: Term) -> Iterator[Term]:
    """Yield a term and every term nested in it."""
    yield term
    if isinstance(term, Function):
        for arg in term.args:
            yield from walk_terms(arg)
