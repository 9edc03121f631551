"""Join plans: each rule becomes a Python function of nested loops over hash indexes, compiled once.

A rule body is first split at every ``or`` into plain conjunctions. The literals are then ordered
greedily: a negated literal or ``distinct`` as soon as its variables are bound, otherwise the positive
literal that the bound variables constrain most. Each positive literal reads an :class:`IndexSpec`: a
hash index of a relation on the parts of its argument terms known when it is reached (constants and
bound variables, at any depth of nesting), keeping only facts whose compound terms have the functors
the literal asks for. The plan is emitted as Python source and compiled, so the evaluation loop runs
ordinary bytecode over tuples of interned term ids (see :mod:`gdl.datalog.terms`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from gdl.budget import checkpoint
from gdl.datalog.terms import TermTable
from gdl.errors import GameDefinitionError, GameTooLargeError
from gdl.syntax.model import Atom, Constant, Distinct, Function, Literal, Not, Or, Rule, Term, Variable

#: A fact: the ids of a relation's arguments.
Fact = tuple[int, ...]
#: Where a subterm sits inside a fact: argument position, then argument positions inside compounds.
Path = tuple[int, ...]
Paths = tuple[Path, ...]
#: Functors that compound arguments must have: (path, functor id) pairs, parents before children.
Shape = tuple[tuple[Path, int], ...]
#: A compiled rule: (relations, index lookup, add to the head's output) -> None.
RuleFunction = Callable[
    [dict[str, set[Fact]], Callable[["IndexSpec"], dict[object, list[Fact]]], Callable[[Fact], None]],
    None,
]

#: Prefix of the relation key under which a recursive stratum holds the facts new in the last round.
DELTA = "\N{GREEK CAPITAL LETTER DELTA}"


def relation_key(atom: Atom) -> str:
    """Relations are told apart by name and arity: ``cell/3``."""
    return f"{atom.relation}/{len(atom.args)}"


#: How many conjunctions one rule's ``or`` may multiply out to: forty two-way ``or`` in one body would
#: make a trillion rules. Real games stay below a hundred.
MAX_CONJUNCTIONS = 4096


def split_disjunctions(rule: Rule) -> list[tuple[Atom, tuple[Literal, ...]]]:
    """The rule as (head, body) pairs without ``or``: one pair per choice of a branch in each ``or``.

    Raises :class:`GameTooLargeError` when that makes more than :data:`MAX_CONJUNCTIONS` bodies.
    """
    return [(rule.head, body) for body in conjunctions(rule.body)]


def conjunctions(body: Sequence[Literal]) -> list[tuple[Literal, ...]]:
    """The body as a disjunction of conjunctions (``or`` multiplied out), at most
    :data:`MAX_CONJUNCTIONS` of them."""
    choices: list[list[tuple[Literal, ...]]] = []
    count = 1
    for literal in body:
        if isinstance(literal, Or):
            choices.append([c for branch in literal.branches for c in conjunctions(branch)])
        else:
            choices.append([(literal,)])
        count *= len(choices[-1])
        if count > MAX_CONJUNCTIONS:
            where = f" at {body[0].span.line}:{body[0].span.column}" if body and body[0].span.line else ""
            raise GameTooLargeError(
                f"a rule body{where} multiplies out to more than {MAX_CONJUNCTIONS} conjunctions of its 'or'"
            )
    checkpoint()
    return [tuple(literal for part in choice for literal in part) for choice in itertools.product(*choices)]


class IndexSpec:
    """A hash index of one relation: facts passing ``filters`` keyed by the ids at ``values``.

    ``filters`` are (path, functor id) pairs: the subterm at the path must be a compound with that
    functor. The key is the id at the single value path, or the tuple of ids at several. Specs are
    interned by :class:`SpecRegistry`, so a spec is its own (identity-hashed) dictionary key.
    """

    __slots__ = ("build", "filters", "relation", "values")

    def __init__(
        self, relation: str, filters: tuple[tuple[Path, int], ...], values: tuple[Path, ...],
        table: TermTable,
    ) -> None:
        self.relation = relation
        self.filters = filters
        self.values = values
        self.build: Callable[[Iterable[Fact], dict[object, list[Fact]]], None] = (
            self._compile(table)
        )

    def __repr__(self) -> str:
        return f"IndexSpec({self.relation}, filters={self.filters}, values={self.values})"

    def _compile(self, table: TermTable) -> Callable[..., None]:
        lines = ["def build(facts, index):", "    for t in facts:"]
        indent = "        "
        for path, functor in self.filters:
            lines.append(f"{indent}if F[{_path_expr('t', path)}] == {functor}:")
            indent += "    "
        key = _key_expr([_path_expr("t", path) for path in self.values])
        lines += [
            f"{indent}k = {key}",
            f"{indent}found = index.get(k)",
            f"{indent}if found is None:",
            f"{indent}    index[k] = [t]",
            f"{indent}else:",
            f"{indent}    found.append(t)",
        ]
        namespace: dict[str, object] = {"A": table.args, "F": table.functor}
        # Source generated from interned ids only; the file name tells profiles which index it is.
        exec(compile("\n".join(lines), f"<index {self.relation} {self.values}>", "exec"), namespace)
        build: Callable[..., None] = namespace["build"]  # type: ignore[assignment]
        return build


class SpecRegistry:
    """Interns index specs so that equal specs share one index per database."""

    def __init__(self, table: TermTable) -> None:
        self.table = table
        self._specs: dict[tuple[str, tuple[tuple[Path, int], ...], tuple[Path, ...]], IndexSpec] = {}

    def get(
        self, relation: str, filters: tuple[tuple[Path, int], ...], values: tuple[Path, ...]
    ) -> IndexSpec:
        key = (relation, filters, values)
        found = self._specs.get(key)
        if found is None:
            found = self._specs[key] = IndexSpec(relation, filters, values, self.table)
        return found


def fetch_line(local: str, relation: str, spec: IndexSpec | None) -> str:
    """The line that binds a relation's set or an index (global ``S<n>`` for local ``x<n>``) to a local."""
    if spec is None:
        return f"    {local} = R[{relation!r}]"
    return f"    {local} = IX(S{local[1:]})"


def _no_index(spec: IndexSpec) -> dict[object, list[Fact]]:
    raise AssertionError(f"no fixed relation: {spec}")


def _path_expr(root: str, path: Path) -> str:
    expr = f"{root}[{path[0]}]"
    for step in path[1:]:
        expr = f"A[{expr}][{step}]"
    return expr


def _key_expr(parts: Sequence[str]) -> str:
    if len(parts) == 1:
        return parts[0]
    return "(" + "".join(part + ", " for part in parts) + ")"


#: Nested loops of one rule before the bindings are kept in a list and joined on in a new nest.
LOOPS_PER_BLOCK = 15

#: Placeholder for the function that adds a derived fact, replaced when rule code is linked.
OUT = "__out__"

#: Placeholder line in a loop that counts its rounds and checks the budgets every so often.
_TICK = "__tick__"
#: A loop checks the budgets in force (:func:`gdl.budget.checkpoint`) once per this many rounds.
TICK_ROUNDS = 1024


@dataclass
class RuleCode:
    """A rule's join as Python source: ``fetches`` bind the sets and indexes it reads to locals (names
    unique per planner, so codes can be concatenated), ``body`` is the nest of loops ending in
    ``__out__(fact)``, and ``constants`` are the globals both refer to."""

    title: str
    fetches: list[tuple[str, str, IndexSpec | None]]  # (local name, relation, index spec or None)
    body: list[str]
    constants: dict[str, object]


@dataclass
class _Pattern:
    """How a positive or negated literal meets the variables bound before it."""

    filters: list[tuple[Path, int]]
    values: list[tuple[Path, str]]  # (path, expression of a constant id or a bound variable)
    binds: list[tuple[Path, str]]  # first occurrence of an unbound variable
    checks: list[tuple[Path, str]]  # later occurrence of a variable bound in this same literal


def _analyse(atom: Atom, bound: set[str], table: TermTable, names: dict[str, str]) -> _Pattern:
    pattern = _Pattern([], [], [], [])
    binding: set[str] = set()

    def visit(term: Term, path: Path) -> None:
        if isinstance(term, Constant):
            pattern.values.append((path, str(table.constant(term.name))))
        elif isinstance(term, Variable):
            if term.name in bound:
                pattern.values.append((path, names[term.name]))
            elif term.name in binding:
                pattern.checks.append((path, names[term.name]))
            else:
                binding.add(term.name)
                pattern.binds.append((path, names[term.name]))
        else:
            pattern.filters.append((path, table.functor_id(term.name, len(term.args))))
            for i, arg in enumerate(term.args):
                visit(arg, (*path, i))

    for i, arg in enumerate(atom.args):
        visit(arg, (i,))
    return pattern


def _count_rounds(lines: list[str]) -> None:
    """Make every loop but the innermost count its rounds and check the budgets every
    :data:`TICK_ROUNDS` of them. The innermost loop runs at most once per fact of the relation it reads,
    between two checks; the loops around it are what multiply (a join of four loops over a hundred facts
    that never adds a fact ran a hundred million rounds, and a deadline checked only as facts were added
    never came)."""
    marks = [number for number, line in enumerate(lines) if line.endswith(_TICK)]
    for number in marks[:-1]:
        indent = lines[number][: -len(_TICK)]
        lines[number] = f"{indent}n += 1\n{indent}if not n & {TICK_ROUNDS - 1}: TICK()"
    if marks:
        del lines[marks[-1]]
    if len(marks) > 1:
        lines.insert(0, "    n = 0")


def _variables(literal: Literal) -> set[str]:
    return {v.name for v in literal.variables()}


class RulePlanner:
    """Compiles rules into join functions over one term table and one registry of index specs."""

    def __init__(
        self, table: TermTable, specs: SpecRegistry, size: Callable[[str, Shape, Paths], float | None]
    ) -> None:
        self.table = table
        self.specs = specs
        self._size = size
        #: Scores of literals (see :meth:`_score`) by relation read, literal and the variables of it bound,
        #: while :attr:`size` stays the same: the variants of a recursive stratum reorder the same bodies.
        self._scores: dict[tuple[str, Literal, frozenset[str]], tuple[float, ...]] = {}
        #: Relations that are complete and the same wherever the rules run (a game's static ones): their
        #: sets and indexes are bound into the compiled rules instead of being looked up per run.
        self.fixed: Callable[[str], set[Fact] | None] = lambda relation: None
        self.fixed_index: Callable[[IndexSpec], dict[object, list[Fact]]] = _no_index
        self._names = itertools.count()

    @property
    def size(self) -> Callable[[str, Shape, Paths], float | None]:
        """Expected facts of a relation matching a shape per value of the given paths, when known."""
        return self._size

    @size.setter
    def size(self, size: Callable[[str, Shape, Paths], float | None]) -> None:
        self._size = size
        self._scores.clear()

    def compile(
        self, head: Atom, body: tuple[Literal, ...], delta: int | None = None,
        order: list[tuple[int, Literal]] | None = None,
    ) -> RuleCode:
        """The join code of ``head :- body``; literal number ``delta`` reads the last round's news. The
        literals are joined in ``order`` (by default :meth:`order`'s)."""
        names: dict[str, str] = {}
        for variable in itertools.chain(head.variables(), *(lit.variables() for lit in body)):
            names.setdefault(variable.name, f"v{len(names)}")
        code = RuleCode(_show(head, body), [], [], {})
        lines = code.body
        indent = "    "
        if order is None:
            order = self.order(body, delta)
        if order and not self._loops(order[0][1], set()):
            # Tests skip to the next candidate with ``continue`` rather than nesting one block each
            # (statespacelarge has rules of a hundred tests): so the first one needs a loop too.
            lines.append(f"{indent}for _ in ONCE:")
            indent += "    "

        def test(condition: str) -> None:
            lines.append(f"{indent}if not ({condition}):")
            lines.append(f"{indent}    continue")

        bound: set[str] = set()
        loop = 0
        for position, literal in order:
            if isinstance(literal, Distinct):
                test(f"not ({self._same(literal.left, literal.right, names)})")
                continue
            assert not isinstance(literal, Or), "split_disjunctions removes every or"
            negated = isinstance(literal, Not)
            atom = literal.atom if isinstance(literal, Not) else literal
            relation = relation_key(atom)
            if position == delta:
                relation = DELTA + relation
            pattern = _analyse(atom, bound, self.table, names)
            checkpoint()
            if negated and pattern.binds:
                raise GameDefinitionError(
                    f"unsafe rule: variables of {literal} are not bound in {_show(head, body)}"
                )
            if not pattern.binds and not pattern.checks:
                # Every argument is known: build the fact and look it up (a compound term that was
                # never interned gives None, which no fact contains).
                fact = "(" + "".join(self._term(arg, names, existing=True) + ", " for arg in atom.args) + ")"
                test(f"{fact} {'not in' if negated else 'in'} {self._fetch(code, relation)}")
                continue
            if loop and loop % LOOPS_PER_BLOCK == 0:
                # Python allows 20 nested blocks: keep the bindings so far and go on in a new nest.
                carried = [names[name] for name in sorted(bound)]
                middle = f"m{next(self._names)}"
                lines.insert(0, f"    {middle} = []")
                lines.append(f"{indent}{middle}.append({_key_expr(carried)})")
                indent = "    "
                lines.append(f"{indent}for {', '.join(carried) or '_'} in {middle}:")
                indent += "    "
                lines.append(indent + _TICK)
            key = _key_expr([expr for _, expr in pattern.values])
            fact = f"t{loop}"
            loop += 1
            if pattern.values or pattern.filters:
                spec = self.specs.get(relation, tuple(pattern.filters), tuple(p for p, _ in pattern.values))
                lines.append(f"{indent}for {fact} in {self._fetch(code, relation, spec)}.get({key}, ()):")
            else:
                lines.append(f"{indent}for {fact} in {self._fetch(code, relation)}:")
            indent += "    "
            lines.append(indent + _TICK)
            for path, name in pattern.binds:
                lines.append(f"{indent}{name} = {_path_expr(fact, path)}")
            for path, name in pattern.checks:
                test(f"{_path_expr(fact, path)} == {name}")
            bound |= _variables(atom)
        unbound = _variables(head) - bound
        if unbound:
            shown = ", ".join("?" + name for name in sorted(unbound))
            raise GameDefinitionError(f"unsafe rule: {shown} not bound by the body of {_show(head, body)}")
        lines.append(f"{indent}{OUT}(({''.join(self._term(arg, names) + ', ' for arg in head.args)}))")
        _count_rounds(lines)
        return code

    def _loops(self, literal: Literal, bound: set[str]) -> bool:
        """Whether a literal, reached with ``bound`` variables, is a loop over facts (not a test)."""
        if not isinstance(literal, Atom):
            return False
        return not _variables(literal) <= bound

    def function(self, code: RuleCode) -> RuleFunction:
        """A stand-alone function ``rule(R, IX, out)`` of compiled rule code."""
        fetches = [fetch_line(*fetch) for fetch in code.fetches]
        source = "\n".join(["def rule(R, IX, out):", *fetches, *code.body]).replace(OUT + "(", "out(")
        namespace = self.namespace(code.constants)
        # Source generated from the rule's structure only; the file name tells profiles which rule it is.
        exec(compile(source, f"<rule {code.title[:60]}>", "exec"), namespace)
        function: RuleFunction = namespace["rule"]  # type: ignore[assignment]
        function.source = source  # type: ignore[attr-defined]
        return function

    def namespace(self, constants: dict[str, object]) -> dict[str, object]:
        """Globals of generated code: the term table's lookups and the given constants."""
        return {
            "A": self.table.args, "C": self.table.compound, "G": self.table.ids.get, "ONCE": (None,),
            "TICK": checkpoint, **constants,
        }

    def _fetch(self, code: RuleCode, relation: str, spec: IndexSpec | None = None) -> str:
        """The local name of what a literal reads: the relation's set (``r...``) or an index (``x...``)."""
        name = str(next(self._names))
        fixed = self.fixed(relation)
        local = ("r" if spec is None else "x") + name
        if fixed is not None:
            code.constants[local] = fixed if spec is None else self.fixed_index(spec)
        else:
            if spec is not None:
                code.constants["S" + name] = spec
            code.fetches.append((local, relation, spec))
        return local

    def key_of(self, fact: Fact, shape: Shape, paths: tuple[Path, ...]) -> tuple[int, ...] | None:
        """The ids at ``paths`` of a fact, or None when the fact does not have the shape."""
        functor, args = self.table.functor, self.table.args

        def at(path: Path) -> int:
            term = fact[path[0]]
            for step in path[1:]:
                term = args[term][step]
            return term

        if any(functor[at(path)] != wanted for path, wanted in shape):
            return None
        return tuple(at(path) for path in paths)

    def _same(self, left: Term, right: Term, names: dict[str, str]) -> str:
        """An expression: whether two terms whose variables are bound are the same term. Compound terms
        are compared by their parts, never made: a ``distinct`` of compound terms made a term per round
        of its join (a join of a hundred million rounds that adds no fact took 13 GB)."""
        if isinstance(left, Function) and isinstance(right, Function):
            if (left.name, len(left.args)) != (right.name, len(right.args)):
                return "False"
            parts = [self._same(a, b, names) for a, b in zip(left.args, right.args, strict=True)]
            return " and ".join(f"({part})" for part in parts) or "True"
        if isinstance(left, Function) or isinstance(right, Function):
            compound, other = (left, right) if isinstance(left, Function) else (right, left)
            if isinstance(other, Constant):
                return "False"
            # A term never made is no variable's value: the lookup's None differs from every id.
            return f"{self._term(compound, names, existing=True)} == {self._term(other, names)}"
        return f"{self._term(left, names)} == {self._term(right, names)}"

    def _term(self, term: Term, names: dict[str, str], existing: bool = False) -> str:
        """An expression for the id of a term whose variables are bound (``None`` if ``existing`` and the
        term was never interned)."""
        if isinstance(term, Constant):
            return str(self.table.constant(term.name))
        if isinstance(term, Variable):
            return names[term.name]
        if term.is_ground():  # known now: its id is a constant of the code, however deep the term
            return str(self.table.intern(term))
        functor = self.table.functor_id(term.name, len(term.args))
        key = f"({functor}, {''.join(self._term(arg, names, existing) + ', ' for arg in term.args)})"
        if existing:
            return f"G({key})"
        # Most compound terms exist already: a dictionary lookup, and a call only for a new one. The key is
        # written once (a name holds it): repeated, it doubled the code with every level of nesting, and a
        # Peano numeral thirty levels deep took gigabytes.
        name = f"k{next(self._names)}"
        return f"(G({name} := {key}) or C({name}))"

    def order(self, body: tuple[Literal, ...], delta: int | None) -> list[tuple[int, Literal]]:
        """Literals in join order, each with its position in ``body``."""
        remaining = [(position, literal, _variables(literal)) for position, literal in enumerate(body)]
        bound: set[str] = set()
        order: list[tuple[int, Literal]] = []
        # A literal's score changes only when more of its own variables are bound: each round of the
        # choice below scores again only those (a body of n literals asks n * n / 2 scores otherwise).
        scores: dict[int, tuple[set[str], tuple[float, ...]]] = {}

        def score(item: tuple[int, Literal, set[str]]) -> tuple[float, ...]:
            known = item[2] & bound
            found = scores.get(item[0])
            if found is None or found[0] != known:
                found = scores[item[0]] = (known, self._score(item, bound, delta))
            return found[1]

        while remaining:
            checkpoint()
            ready = [
                item for item in remaining if not isinstance(item[1], Atom) and item[2] <= bound
            ]
            if ready:
                chosen = ready[0]
            else:
                positives = [item for item in remaining if isinstance(item[1], Atom)]
                # Without one, the rule is unsafe: that is reported on the first literal left, when compiled.
                chosen = max(positives, key=score) if positives else remaining[0]
            remaining.remove(chosen)
            order.append(chosen[:2])
            bound |= chosen[2]
        return order

    def _score(
        self, item: tuple[int, Literal, set[str]], bound: set[str], delta: int | None
    ) -> tuple[float, ...]:
        """Higher is better: the fewest facts expected to match, given the variables bound so far.

        Where the relation's facts are known (planning happens when a stratum first runs), that is the
        mean number of facts of the literal's shape per value of its known parts. Otherwise a relation
        of ``n`` facts with ``k`` of its ``m`` argument leaves known is expected to give
        ``n ** ((m - k) / m)`` matches, as if the leaves were independent and evenly spread.
        """
        position, literal, variables = item
        assert isinstance(literal, Atom)
        if variables <= bound:
            return (1, 0.0, 0)
        relation = DELTA + relation_key(literal) if position == delta else relation_key(literal)
        key = (relation, literal, frozenset(variables & bound))
        found = self._scores.get(key)
        if found is not None:
            return found
        pattern = _analyse(literal, bound, self.table, {name: name for name in variables})
        paths = tuple(path for path, _ in pattern.values)
        expected = self.size(relation, tuple(pattern.filters), paths)
        if expected is None:
            leaves = len(pattern.values) + len(pattern.binds) + len(pattern.checks)
            expected = float(UNKNOWN_SIZE) ** ((leaves - len(paths)) / leaves)
        found = self._scores[key] = (0, -expected, len(paths))
        return found


#: The size assumed for a relation whose facts are not known when its rules are compiled.
UNKNOWN_SIZE = 100


def _leaves(terms: Sequence[Term], bound: set[str] | None = None) -> Iterator[Term]:
    """Constants and variables of terms at any depth; with ``bound``, only the known ones."""
    for term in terms:
        if isinstance(term, Function):
            yield from _leaves(term.args, bound)
        elif bound is None or isinstance(term, Constant) or term.name in bound:
            yield term


def _show(head: Atom, body: tuple[Literal, ...]) -> str:
    return str(Rule(head, body))
