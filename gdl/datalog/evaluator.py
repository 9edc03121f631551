"""Bottom-up evaluation of a checked program, stratum by stratum, semi-naive within recursive strata.

A :class:`Database` holds facts as sets of id tuples per relation key (``name/arity``), and builds hash
indexes on demand. Databases can be layered: a child copies its parent's relation table (not the
sets) and owns only the relations it computes, so relations complete in the parent (for a game: those
that do not depend on ``true`` or ``does``) are shared, indexes included, by every state.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from gdl.check import CheckedProgram
from gdl.datalog.plan import (
    DELTA,
    OUT,
    Fact,
    IndexSpec,
    Path,
    RuleCode,
    RuleFunction,
    RulePlanner,
    Shape,
    SpecRegistry,
    fetch_line,
    relation_key,
    split_disjunctions,
)
from gdl.datalog.terms import TermTable
from gdl.errors import GameTooLargeError
from gdl.syntax.model import Atom, Literal, Not, Term, walk_atoms

#: A model: for each relation name, the tuples of ground argument terms of its facts.
Model = dict[str, frozenset[tuple[Term, ...]]]


class Relations(dict[str, set[Fact]]):
    """Relation key -> facts; a relation nobody defined reads as empty."""

    __slots__ = ()

    def __missing__(self, key: str) -> set[Fact]:
        return _EMPTY


_EMPTY: set[Fact] = set()


class Database:
    """Facts per relation key, with hash indexes built on demand and kept up to date."""

    __slots__ = ("_indexes", "_specs_of", "owned", "parent", "relations")

    def __init__(self, parent: Database | None = None) -> None:
        self.parent = parent
        self.relations: dict[str, set[Fact]] = Relations(parent.relations if parent is not None else ())
        self.owned: set[str] = set()
        self._indexes: dict[IndexSpec, dict[object, list[Fact]]] = {}
        self._specs_of: dict[str, list[IndexSpec]] = {}

    def own(self, relation: str, facts: Iterable[Fact] = ()) -> set[Fact]:
        """The set of a relation this database computes (new and empty unless owned already)."""
        if relation not in self.owned:
            self.owned.add(relation)
            self.relations[relation] = set(facts)
        else:
            self.relations[relation].update(facts)
        return self.relations[relation]

    def facts(self, relation: str) -> set[Fact]:
        return self.relations.get(relation) or set()

    def index(self, spec: IndexSpec) -> dict[object, list[Fact]]:
        found = self._indexes.get(spec)
        if found is not None:
            return found
        relation = spec.relation
        if relation not in self.owned and self.parent is not None:
            return self.parent.index(spec)
        found = self._indexes[spec] = {}
        spec.build(self.relations.get(relation, ()), found)
        self._specs_of.setdefault(relation, []).append(spec)
        return found

    def extended(self) -> Database:
        """A database holding this one's relations and indexes (shared, not copied) as its own, for
        complete relations that will not change, to which others can be added."""
        database = Database(self.parent)
        database.relations.update(self.relations)
        database.owned.update(self.owned)
        database._indexes.update(self._indexes)
        database._specs_of.update((relation, list(specs)) for relation, specs in self._specs_of.items())
        return database

    def extend(self, relation: str, facts: set[Fact]) -> None:
        """Add facts new to an owned relation, keeping its indexes up to date."""
        self.relations[relation] |= facts
        for spec in self._specs_of.get(relation, ()):
            spec.build(facts, self._indexes[spec])

    def forget_indexes(self, relation: str) -> None:
        if relation not in self._specs_of:
            return
        for spec in self._specs_of.pop(relation):
            del self._indexes[spec]


class _CompiledRule:
    """A rule's join code (see :class:`RuleCode`) for a head relation, and its function ``run``.

    The function is compiled from the code when the rule first runs: a recursive stratum of magic sets
    has a variant per literal reading the stratum, and most never run (sudoku: 173 of 544 variants).
    """

    __slots__ = ("_planner", "code", "head", "run")

    def __init__(self, head: str, code: RuleCode, planner: RulePlanner) -> None:
        self.head = head
        self.code = code
        self._planner = planner
        self.run: RuleFunction = self._compile_and_run

    def _compile_and_run(
        self, relations: dict[str, set[Fact]], index: Callable[[IndexSpec], dict[object, list[Fact]]],
        out: Callable[[Fact], None],
    ) -> None:
        self.run = self._planner.function(self.code)
        self.run(relations, index, out)


@dataclass(frozen=True, slots=True)
class CompiledStratum:
    """A stratum's rules as join functions; ``variants`` are the semi-naive ones of a recursive stratum.

    A ``direct`` stratum is not recursive, reads none of its own relations and is the only one defining
    them: its rules add facts straight into fresh sets.
    """

    heads: tuple[str, ...]
    rules: tuple[_CompiledRule, ...]
    variants: tuple[tuple[str, _CompiledRule], ...]  # (delta relation read, rule)
    direct: bool
    #: The variants by the delta relation they read.
    readers: dict[str, tuple[_CompiledRule, ...]] = field(default_factory=dict)


#: How many facts of a relation the planner looks at to estimate how selective a literal is.
SAMPLE = 2000


class Evaluator:
    """A checked program compiled for evaluation: its strata, rules and term table.

    Rules are compiled stratum by stratum, the first time a stratum runs, so that the planner knows
    the sizes of the relations completed before it.
    """

    def __init__(self, checked: CheckedProgram, table: TermTable | None = None) -> None:
        self.checked = checked
        self.table = table if table is not None else TermTable()
        self.specs = SpecRegistry(self.table)
        self._planner = RulePlanner(self.table, self.specs, lambda relation, shape, paths: None)
        self._compiled: dict[int, CompiledStratum] = {}
        #: Rules compiled, by head, body, delta position and join order: a stratum planned again (see
        #: :meth:`replan`) keeps the rules whose order did not change, and their functions.
        self._plans: dict[tuple[Atom, tuple[Literal, ...], int | None, tuple[int, ...]], _CompiledRule] = {}
        #: Whether the relations not fixed (see :meth:`fix`) are computed anew in each database.
        self._per_state = False
        producers: dict[str, int] = {}
        for stratum in checked.strata:
            for key in {relation_key(rule.head) for rule in stratum.rules}:
                producers[key] = producers.get(key, 0) + 1
        #: Relations whose rules all sit in one stratum (unlike a relation split by constant arguments).
        self._single_stratum = {key for key, count in producers.items() if count == 1}

    def fix(self, database: Database) -> None:
        """Declare the relations ``database`` owns complete and shared by every database run later.

        Rules compiled from now on read those relations and their indexes directly.
        """
        fixed = dict(database.relations)
        owned = frozenset(database.owned)
        self._per_state = True
        self._plans.clear()  # compiled before, they look up what is now bound into the code
        self._planner.fixed = lambda relation: fixed[relation] if relation in owned else None
        self._planner.fixed_index = database.index

    def stratum(self, number: int, database: Database) -> CompiledStratum:
        """A stratum's compiled rules; the first call plans joins by the relation sizes in ``database``."""
        found = self._compiled.get(number)
        if found is None:
            found = self._compiled[number] = self._compile(number, database)
        return found

    def _compile(self, number: int, database: Database) -> CompiledStratum:
        source = self.checked.strata[number]
        heads = tuple(dict.fromkeys(relation_key(rule.head) for rule in source.rules))

        planner = self._planner
        # The database does not change while the stratum is planned, so each estimate is sampled once:
        # a stratum of magic sets plans hundreds of rules and variants that ask the same questions
        # (sudoku's goal: 623 rules, 100,000 scores, 23,000 estimates of a few hundred kinds).
        estimates: dict[tuple[str, Shape, tuple[Path, ...]], float | None] = {}

        def size(relation: str, shape: Shape, paths: tuple[Path, ...]) -> float | None:
            key = (relation, shape, paths)
            if key in estimates:
                return estimates[key]
            found = estimates[key] = estimate(relation, shape, paths)
            return found

        def estimate(relation: str, shape: Shape, paths: tuple[Path, ...]) -> float | None:
            if relation.startswith(DELTA):
                # The news of the last round: few, and the reason to run this variant at all.
                return 1.0
            if relation in heads:
                return None
            facts = database.relations[relation]
            sample = list(itertools.islice(facts, SAMPLE))
            keys = [key for key in (planner.key_of(fact, shape, paths) for fact in sample) if key is not None]
            if not keys:
                # Exact for a relation computed once per game. A state's relation empty in the state
                # planned for may fill later (the initial state's empty board: read first as if empty,
                # pentago's lines became a search of the whole board), but it is most often small (as
                # unknown, ruledepthexponential's levels came after 2 ** 19 combinations of bits): one
                # match per value of its known parts, as the most selective lookup in a relation with facts.
                return 1.0 if self._per_state and planner.fixed(relation) is None else 0.0
            return len(keys) * (len(facts) / len(sample)) / len(set(keys))

        planner.size = size

        def compiled(head: Atom, body: tuple[Literal, ...], delta: int | None = None) -> _CompiledRule:
            order = planner.order(body, delta)
            plan = (head, body, delta, tuple(position for position, _ in order))
            found = self._plans.get(plan)
            if found is None:
                code = planner.compile(head, body, delta, order)
                found = self._plans[plan] = _CompiledRule(relation_key(head), code, planner)
            return found

        rules = []
        variants = []
        for rule in source.rules:
            for head, body in split_disjunctions(rule):
                rules.append(compiled(head, body))
                if not source.recursive:
                    continue
                for position, literal in enumerate(body):
                    if isinstance(literal, Atom) and literal.relation in source.relations:
                        variants.append((DELTA + relation_key(literal), compiled(head, body, position)))
        reads = {
            relation_key(literal.atom if isinstance(literal, Not) else literal)
            for rule in source.rules
            for _, body in split_disjunctions(rule)
            for literal in body
            if isinstance(literal, (Atom, Not))
        }
        # Such a stratum adds its facts straight into fresh sets: nothing reads or indexes them meanwhile.
        direct = not source.recursive and not reads & set(heads) and set(heads) <= self._single_stratum
        readers: dict[str, list[_CompiledRule]] = {}
        for delta, variant in variants:
            readers.setdefault(delta, []).append(variant)
        grouped = {delta: tuple(found) for delta, found in readers.items()}
        return CompiledStratum(heads, tuple(rules), tuple(variants), direct, grouped)

    def replan(self, numbers: Iterable[int]) -> None:
        """Forget the compiled rules of these strata: they are planned again when next run."""
        for number in numbers:
            self._compiled.pop(number, None)

    def runner(self, numbers: tuple[int, ...], database: Database) -> Callable[[Database], None]:
        """A function that runs the given strata in order on a database like ``database``.

        The strata run first in ``database`` (so that each is planned knowing the sizes of what came
        before it); the function returned then runs them all in one generated body: every direct
        stratum's rules inline, each index fetched once, and :meth:`run` for the others.
        """
        for number in numbers:
            self.run(number, database)
        lines = ["def strata(D):", "    R = D.relations", "    IX = D.index", "    OW = D.owned"]
        constants: dict[str, object] = {"RUN": self.run}
        fetched: dict[tuple[str, IndexSpec | None], str] = {}
        for number in numbers:
            stratum = self._compiled[number]
            if not stratum.direct:
                lines.append(f"    RUN({number}, D)")
                fetched.clear()
                continue
            adders = {}
            for i, head in enumerate(stratum.heads):
                adders[head] = f"add_{number}_{i}"
                lines += [
                    f"    facts = R[{head!r}] = set()",
                    f"    OW.add({head!r})",
                    f"    {adders[head]} = facts.add",
                ]
            for rule in stratum.rules:
                for local, relation, spec in rule.code.fetches:
                    known = fetched.setdefault((relation, spec), local)
                    line = fetch_line(local, relation, spec) if known == local else f"    {local} = {known}"
                    lines.append(line)
                lines += [line.replace(OUT + "(", adders[rule.head] + "(") for line in rule.code.body]
                constants.update(rule.code.constants)
        namespace = self._planner.namespace(constants)
        name = "<strata " + " ".join(map(str, numbers)) + ">"
        exec(compile("\n".join(lines), name, "exec"), namespace)  # source generated from compiled rules
        function: Callable[[Database], None] = namespace["strata"]  # type: ignore[assignment]
        return function

    def run(
        self, number: int, database: Database, limit: int | None = None, deadline: float | None = None
    ) -> None:
        """Evaluate one stratum to its fixpoint in ``database`` (earlier strata must be complete).

        With a ``limit``, a relation that passes that many facts raises :class:`GameTooLargeError`; with
        a ``deadline`` (a ``time.process_time()`` instant), passing it raises :class:`TimeoutError`. Both
        are checked as facts are added, at the cost of a function call per fact.
        """
        stratum = self.stratum(number, database)
        relations = database.relations
        index = database.index
        owned = database.owned
        if stratum.direct and owned.isdisjoint(stratum.heads):
            for head in stratum.heads:
                owned.add(head)
                relations[head] = set()
            for rule in stratum.rules:
                rule.run(relations, index, _adder(relations[rule.head], rule.head, limit, deadline))
            return
        for head in stratum.heads:
            database.own(head)
        # Each head's delta holds the facts new in the last round, owned here so that indexes on it are
        # built in this database. A round touches only the heads with news and the variants reading a
        # delta that has facts: magic sets make strata of a dozen heads and fifty variants that take a
        # round per step of demand, most of them idle (mummymaze1p: 19 rounds a step).
        news: dict[str, set[Fact]] = {head: set() for head in stratum.heads}
        for rule in stratum.rules:
            rule.run(relations, index, _adder(news[rule.head], rule.head, limit, deadline))
        readers = stratum.readers
        filled: list[str] = []
        try:
            while True:
                for delta in filled:
                    database.forget_indexes(delta)
                    relations[delta] = set()
                filled = []
                for head, new in news.items():
                    fresh = new - relations[head] if new else new
                    if fresh:
                        delta = DELTA + head
                        owned.add(delta)
                        relations[delta] = fresh
                        database.extend(head, fresh)
                        filled.append(delta)
                if not filled or not readers:
                    break
                news = {}
                for delta in filled:
                    for rule in readers.get(delta, ()):
                        target = news.get(rule.head)
                        if target is None:
                            target = news[rule.head] = set()
                        rule.run(relations, index, _adder(target, rule.head, limit, deadline))
                        if limit is not None and len(relations[rule.head]) > limit:
                            raise _too_many(rule.head, limit)
        finally:
            for head in stratum.heads:
                delta = DELTA + head
                if delta in owned:
                    database.forget_indexes(delta)
                    owned.discard(delta)
                    del relations[delta]


def _adder(
    facts: set[Fact], relation: str, limit: int | None, deadline: float | None
) -> Callable[[Fact], None]:
    """``facts.add``, or a function that also refuses to grow ``facts`` past ``limit`` or ``deadline``."""
    if limit is None and deadline is None:
        return facts.add
    add = facts.add
    most = limit if limit is not None else math.inf
    until = deadline if deadline is not None else math.inf

    def bounded(fact: Fact) -> None:
        add(fact)
        size = len(facts)
        if size > most:
            raise _too_many(relation, most)
        if not size & 1023 and time.process_time() > until:
            raise TimeoutError(f"evaluating {relation!r} passed its deadline")

    return bounded


def _too_many(relation: str, limit: float) -> GameTooLargeError:
    return GameTooLargeError(f"more than {limit} facts of {relation!r}")


def evaluate(checked: CheckedProgram, facts: Iterable[Atom] = ()) -> Model:
    """The model of a checked program together with extra ground ``facts``.

    Usable as a plain Datalog engine: the result maps each relation name that has at least one fact to
    the set of its facts' argument tuples (terms of the clause model; ``()`` for a 0-ary relation).
    """
    evaluator = Evaluator(checked)
    table = evaluator.table
    database = Database()
    arities = {
        atom.relation: len(atom.args)
        for rule in checked.program.rules
        for atom in (rule.head, *(a for a, _ in walk_atoms(rule.body)))
    }
    for atom in facts:
        if not atom.is_ground():
            raise ValueError(f"not a ground fact: {atom}")
        if arities.get(atom.relation, len(atom.args)) != len(atom.args):
            raise ValueError(
                f"fact {atom} has {len(atom.args)} argument(s), but the program uses {atom.relation!r}"
                f" with {arities[atom.relation]}"
            )
        database.own(relation_key(atom), [tuple(table.intern(arg) for arg in atom.args)])
    for number in range(len(checked.strata)):
        evaluator.run(number, database)
    model: dict[str, set[tuple[Term, ...]]] = {}
    for relation, tuples in database.relations.items():
        if tuples:
            name = relation.rsplit("/", 1)[0]
            model.setdefault(name, set()).update(tuple(table.term(i) for i in fact) for fact in tuples)
    return {name: frozenset(tuples) for name, tuples in model.items()}
