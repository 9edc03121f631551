"""Instantiation: ground a checked game into propositional rules over the atoms that can ever hold.

The ground atoms are over-approximated by a relaxed fixpoint: negation of state-dependent relations is
ignored, ``true`` is fed by ``init`` and by everything ``next`` can derive, and ``does`` by everything
``legal`` can derive. Relations that depend on neither ``true`` nor ``does`` (static relations) are
evaluated exactly, stratum by stratum, and folded into the ground rules as constants. Every other rule is
then grounded over the relaxed atoms.

Budgets on the number of atoms and on time (CPU time of the process, so that a busy machine does not
make a game fail) keep a game that is too large from costing more than its
budget: :class:`gdl.errors.GameTooLargeError` says so, and ``engine="auto"`` falls back to the Datalog
evaluator.
"""

from __future__ import annotations

import itertools
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from gdl.check import CheckedProgram
from gdl.errors import GameTooLargeError
from gdl.syntax.model import Atom, Constant, Distinct, Function, Literal, Not, Or, Term, Variable

#: A ground term: a constant's name, or ``(name, arg, ...)`` for a function term.
Value = str | tuple["Value", ...]
#: A ground atom: the relation and its argument values.
GroundAtom = tuple[str, tuple[Value, ...]]

DEFAULT_MAX_ATOMS = 400_000
DEFAULT_MAX_SECONDS = 30.0

#: Relations whose ground rules make the network's outputs.
OUTPUT_RELATIONS = ("legal", "next", "goal", "terminal")


class _Var:
    """A rule variable; identity is the variable (one object per name and rule)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return "?" + self.name


_Pattern = str | _Var | tuple["_Pattern", ...]


def value_of(term: Term) -> Value:
    """The ground value of a ground term of the clause model."""
    if isinstance(term, Constant):
        return term.name
    if isinstance(term, Function):
        return (term.name, *map(value_of, term.args))
    raise ValueError(f"term is not ground: {term}")


def term_of(value: Value) -> Term:
    """The clause-model term of a ground value."""
    if isinstance(value, str):
        return Constant(value)
    return Function(value[0], tuple(term_of(arg) for arg in value[1:]))  # type: ignore[arg-type]


def atom_text(atom: GroundAtom) -> str:
    """The KIF text of a ground atom."""
    relation, args = atom
    if not args:
        return relation
    return "(" + " ".join([relation, *map(value_text, args)]) + ")"


def value_text(value: Value) -> str:
    if isinstance(value, str):
        return value
    return "(" + " ".join([value[0], *map(value_text, value[1:])]) + ")"  # type: ignore[list-item]


@dataclass(frozen=True, slots=True)
class GroundRule:
    """``head`` holds when every body literal holds; ``origin`` numbers the (or-free) rule it came from.

    The body keeps one slot per literal of the origin rule that depends on the state, in order; a slot is
    ``None`` where the literal was folded to true, so that instances of one rule line up by position.
    """

    head: GroundAtom
    body: tuple[tuple[GroundAtom, bool] | None, ...]
    origin: int


@dataclass
class Grounding:
    """The instantiated game: its roles, fluents, moves and ground rules, and what it cost."""

    roles: tuple[str, ...]
    init: frozenset[Value]
    #: Every fluent that can ever hold (the relaxed ``true`` atoms), sorted by KIF text.
    fluents: tuple[Value, ...]
    #: Every (role, move) that can ever be played (the relaxed ``does`` atoms), sorted.
    moves: tuple[tuple[Value, Value], ...]
    #: Ground rules of every state-dependent relation needed by the outputs.
    rules: tuple[GroundRule, ...]
    #: Static output facts (e.g. a constant ``goal``), already true in every state.
    facts: frozenset[GroundAtom]
    relaxed_atoms: int
    seconds: float
    stats: dict[str, float] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------------------
# Rules in the grounder's form


@dataclass
class _Body:
    """A rule body split by how the grounder treats each literal."""

    positive: list[tuple[str, tuple[_Pattern, ...]]]
    negative: list[tuple[str, tuple[_Pattern, ...]]]
    distinct: list[tuple[_Pattern, _Pattern]]
    #: For each positive/negative literal, its slot in the ground body (None for static ones).
    positive_slots: list[int | None]
    negative_slots: list[int | None]
    slots: int


@dataclass
class _Rule:
    head: tuple[str, tuple[_Pattern, ...]]
    body: _Body
    origin: int


def _pattern(term: Term, variables: dict[str, _Var]) -> _Pattern:
    if isinstance(term, Variable):
        if term.name not in variables:
            variables[term.name] = _Var(term.name)
        return variables[term.name]
    if isinstance(term, Constant):
        return term.name
    return (term.name, *(_pattern(arg, variables) for arg in term.args))


def _expand_or(body: tuple[Literal, ...]) -> Iterator[list[Literal]]:
    """The body as a disjunction of conjunctions (``or`` multiplied out)."""
    options: list[list[list[Literal]]] = []
    for literal in body:
        if isinstance(literal, Or):
            options.append([c for branch in literal.branches for c in _expand_or(branch)])
        else:
            options.append([[literal]])
    for choice in itertools.product(*options):
        yield [literal for conjunction in choice for literal in conjunction]


def _compile(head: Atom, literals: list[Literal], dynamic: set[str], origin: int) -> _Rule:
    variables: dict[str, _Var] = {}
    body = _Body([], [], [], [], [], 0)
    for literal in literals:
        if isinstance(literal, Atom):
            args = tuple(_pattern(a, variables) for a in literal.args)
            body.positive.append((literal.relation, args))
            body.positive_slots.append(body.slots if literal.relation in dynamic else None)
            body.slots += literal.relation in dynamic
        elif isinstance(literal, Not):
            args = tuple(_pattern(a, variables) for a in literal.atom.args)
            body.negative.append((literal.atom.relation, args))
            body.negative_slots.append(body.slots if literal.atom.relation in dynamic else None)
            body.slots += literal.atom.relation in dynamic
        elif isinstance(literal, Distinct):
            body.distinct.append((_pattern(literal.left, variables), _pattern(literal.right, variables)))
    head_args = tuple(_pattern(a, variables) for a in head.args)
    return _Rule((head.relation, head_args), body, origin)


def _pattern_vars(pattern: _Pattern, into: set[_Var]) -> None:
    if isinstance(pattern, _Var):
        into.add(pattern)
    elif isinstance(pattern, tuple):
        for part in pattern[1:]:
            _pattern_vars(part, into)


def _substitute(pattern: _Pattern, binding: dict[_Var, Value]) -> Value:
    if isinstance(pattern, _Var):
        return binding[pattern]
    if isinstance(pattern, str):
        return pattern
    return (pattern[0], *(_substitute(p, binding) for p in pattern[1:]))  # type: ignore[arg-type]


def _match(pattern: _Pattern, value: Value, binding: dict[_Var, Value], trail: list[_Var]) -> bool:
    if isinstance(pattern, _Var):
        bound = binding.get(pattern)
        if bound is None:
            binding[pattern] = value
            trail.append(pattern)
            return True
        return bound == value
    if isinstance(pattern, str):
        return pattern == value
    if not isinstance(value, tuple) or len(value) != len(pattern) or value[0] != pattern[0]:
        return False
    return all(_match(p, v, binding, trail) for p, v in zip(pattern[1:], value[1:], strict=True))


# ---------------------------------------------------------------------------------------------------------
# Facts with indexes for joins


_Index = dict[tuple["Value | None", ...], list[tuple[Value, ...]]]


class _Facts:
    """Sets of ground argument tuples per relation, with hash indexes on chosen argument positions."""

    def __init__(self) -> None:
        self.sets: dict[str, set[tuple[Value, ...]]] = defaultdict(set)
        self._indexes: dict[tuple[str, tuple[_Path, ...]], _Index] = {}
        self._by_relation: dict[str, list[tuple[tuple[_Path, ...], _Index]]]
        self._by_relation = defaultdict(list)
        self.count = 0

    def add(self, relation: str, args: tuple[Value, ...]) -> bool:
        facts = self.sets[relation]
        if args in facts:
            return False
        facts.add(args)
        self.count += 1
        for paths, index in self._by_relation[relation]:
            index.setdefault(tuple(_at(args, path) for path in paths), []).append(args)
        return True

    def fanout(self, relation: str, paths: tuple[_Path, ...]) -> float:
        """The average number of facts that share the values at ``paths``."""
        facts = self.sets.get(relation, ())
        if not paths or not facts:
            return float(len(facts))
        self.lookup(relation, paths, ())
        return len(facts) / max(len(self._indexes[(relation, paths)]), 1)

    def lookup(
        self, relation: str, paths: tuple[_Path, ...], key: tuple[Value, ...]
    ) -> Iterable[tuple[Value, ...]]:
        if not paths:
            return self.sets.get(relation, ())
        index = self._indexes.get((relation, paths))
        if index is None:
            index = {}
            for args in self.sets.get(relation, ()):
                index.setdefault(tuple(_at(args, path) for path in paths), []).append(args)
            self._indexes[(relation, paths)] = index
            self._by_relation[relation].append((paths, index))
        return index.get(key, ())


#: Where a sub-term sits in an argument tuple: indexes into nested tuples (0 is a function's name).
_Path = tuple[int, ...]


def _at(args: tuple[Value, ...], path: _Path) -> Value | None:
    value: Value | tuple[Value, ...] = args
    for step in path:
        if not isinstance(value, tuple) or step >= len(value):
            return None
        value = value[step]
    return value


def _key_paths(args: tuple[_Pattern, ...], bound: set[_Var]) -> list[tuple[_Path, _Pattern]]:
    """The sub-patterns of ``args`` that are ground once ``bound`` is, with their paths."""
    found: list[tuple[_Path, _Pattern]] = []

    def visit(pattern: _Pattern, path: _Path) -> None:
        variables: set[_Var] = set()
        _pattern_vars(pattern, variables)
        if variables <= bound:
            found.append((path, pattern))
        elif isinstance(pattern, tuple):
            found.append(((*path, 0), pattern[0]))
            for i, part in enumerate(pattern[1:], 1):
                visit(part, (*path, i))

    for i, arg in enumerate(args):
        visit(arg, (i,))
    return found


class _Budget:
    def __init__(self, max_atoms: int, max_seconds: float, what: str) -> None:
        self.max_atoms = max_atoms
        self.deadline = time.process_time() + max_seconds
        self.max_seconds = max_seconds
        self.what = what
        self._ticks = 0

    def tick(self) -> None:
        self._ticks += 1
        if self._ticks & 0xFFF == 0 and time.process_time() > self.deadline:
            raise GameTooLargeError(
                f"cannot instantiate {self.what!r} within {self.max_seconds:g} s"
            )

    def atoms(self, count: int) -> None:
        if count > self.max_atoms:
            raise GameTooLargeError(
                f"cannot instantiate {self.what!r}: more than {self.max_atoms} ground atoms"
            )


# ---------------------------------------------------------------------------------------------------------
# The join


@dataclass
class _Plan:
    """An order of a rule's positive literals, with the argument positions bound on reaching each."""

    order: list[int]
    #: The paths and sub-patterns of the index key used at each step.
    keys: list[list[tuple[_Path, _Pattern]]]
    #: Distinct and negative-static checks that become decidable after each step.
    distinct_after: list[list[int]]
    negative_after: list[list[int]]


def _plan(rule: _Rule, first: int | None, facts: _Facts) -> _Plan:
    body = rule.body
    literal_vars = []
    for _relation, args in body.positive:
        found: set[_Var] = set()
        for arg in args:
            _pattern_vars(arg, found)
        literal_vars.append(found)
    bound: set[_Var] = set()
    order: list[int] = []
    keys: list[list[tuple[_Path, _Pattern]]] = []
    remaining = set(range(len(body.positive)))

    def key_size(index: int) -> tuple[float, int]:
        # Fewest expected matches first (from the index on the bound arguments), then fewest new variables.
        relation, args = body.positive[index]
        paths = tuple(path for path, _ in _key_paths(args, bound))
        return (facts.fanout(relation, paths), len(literal_vars[index] - bound))

    while remaining:
        chosen = first if first is not None and not order else min(remaining, key=key_size)
        remaining.discard(chosen)
        keys.append([] if chosen == first and not order else _key_paths(body.positive[chosen][1], bound))
        order.append(chosen)
        bound |= literal_vars[chosen]

    def decidable_step(found: set[_Var]) -> int:
        seen: set[_Var] = set()
        for step, index in enumerate(order):
            seen |= literal_vars[index]
            if found <= seen:
                return step
        return max(len(order) - 1, 0)

    distinct_after: list[list[int]] = [[] for _ in range(max(len(order), 1))]
    for i, (left, right) in enumerate(body.distinct):
        found = set()
        _pattern_vars(left, found)
        _pattern_vars(right, found)
        distinct_after[decidable_step(found)].append(i)
    negative_after: list[list[int]] = [[] for _ in range(max(len(order), 1))]
    for i, (_relation, args) in enumerate(body.negative):
        found = set()
        for arg in args:
            _pattern_vars(arg, found)
        negative_after[decidable_step(found)].append(i)
    return _Plan(order, keys, distinct_after, negative_after)


def _bindings(
    rule: _Rule,
    plan: _Plan,
    facts: _Facts,
    first_facts: Iterable[tuple[Value, ...]] | None,
    negative_ok: list[bool],
    budget: _Budget,
) -> Iterator[dict[_Var, Value]]:
    """Every binding of the rule's variables that satisfies its positive literals over ``facts``.

    ``first_facts`` (a delta) replaces the facts of the plan's first literal. ``negative_ok[i]`` says
    whether negative literal ``i`` is checked against ``facts`` (a static, complete relation) or ignored.
    """
    body = rule.body
    binding: dict[_Var, Value] = {}

    def checks(step: int) -> bool:
        for i in plan.distinct_after[step]:
            left, right = body.distinct[i]
            if _substitute(left, binding) == _substitute(right, binding):
                return False
        for i in plan.negative_after[step]:
            if negative_ok[i]:
                relation, args = body.negative[i]
                if tuple(_substitute(a, binding) for a in args) in facts.sets.get(relation, ()):
                    return False
        return True

    def extend(step: int) -> Iterator[dict[_Var, Value]]:
        if step == len(plan.order):
            yield binding
            return
        index = plan.order[step]
        relation, args = body.positive[index]
        if step == 0 and first_facts is not None:
            candidates: Iterable[tuple[Value, ...]] = first_facts
        else:
            key = plan.keys[step]
            candidates = facts.lookup(
                relation, tuple(path for path, _ in key), tuple(_substitute(p, binding) for _, p in key)
            )
        trail: list[_Var] = []
        for values in candidates:
            budget.tick()
            if len(values) == len(args) and all(
                _match(p, v, binding, trail) for p, v in zip(args, values, strict=True)
            ) and checks(step):
                yield from extend(step + 1)
            for var in trail:
                del binding[var]
            trail.clear()

    if not plan.order:
        if checks(0):
            yield binding
        return
    yield from extend(0)


# ---------------------------------------------------------------------------------------------------------
# Instantiation


def _dynamic_relations(checked: CheckedProgram) -> set[str]:
    """Relations that depend, directly or not, on ``true`` or ``does``."""
    import networkx as nx

    graph = checked.graph
    dynamic = {"true", "does"}
    for relation in graph.nodes:
        if dynamic & (nx.descendants(graph, relation) | {relation}):
            dynamic.add(relation)
    return dynamic


def instantiate(
    checked: CheckedProgram,
    max_atoms: int = DEFAULT_MAX_ATOMS,
    max_seconds: float = DEFAULT_MAX_SECONDS,
) -> Grounding:
    """Ground ``checked``; raises :class:`GameTooLargeError` when a budget is exceeded."""
    started = time.process_time()
    budget = _Budget(max_atoms, max_seconds, checked.program.source)
    dynamic = _dynamic_relations(checked)
    facts = _Facts()
    stats: dict[str, float] = {}

    # Static strata, exactly, in evaluation order.
    for stratum in checked.strata:
        rules = [
            _compile(rule.head, body, dynamic, -1)
            for rule in stratum.rules
            if rule.head.relation not in dynamic
            for body in _expand_or(rule.body)
        ]
        if rules:
            _fixpoint(rules, facts, budget, lambda relation: True)
    stats["static_seconds"] = time.process_time() - started

    # The relaxed fixpoint of the state-dependent rules.
    origin_rules: list[_Rule] = []
    for rule in checked.program.rules:
        if rule.head.relation in dynamic:
            for body in _expand_or(rule.body):
                origin_rules.append(_compile(rule.head, body, dynamic, len(origin_rules)))
    feeds = [
        _compile(Atom("true", (Variable("f"),)), [Atom("init", (Variable("f"),))], dynamic, -1),
        _compile(Atom("true", (Variable("f"),)), [Atom("next", (Variable("f"),))], dynamic, -1),
        _compile(
            Atom("does", (Variable("r"), Variable("m"))),
            [Atom("legal", (Variable("r"), Variable("m")))],
            dynamic,
            -1,
        ),
    ]
    # Every instance of a state-dependent rule is met on the way, and recorded.
    found: dict[GroundRule, None] = {}
    _fixpoint([*origin_rules, *feeds], facts, budget, lambda relation: relation not in dynamic, found)
    stats["relaxed_seconds"] = time.process_time() - started - stats["static_seconds"]
    ground = [_fold_negations(rule, facts) for rule in found]

    roles = tuple(sorted_roles(checked))
    outputs_static = {
        (relation, args)
        for relation in OUTPUT_RELATIONS
        if relation not in dynamic
        for args in facts.sets.get(relation, ())
    }
    seconds = time.process_time() - started
    stats["ground_seconds"] = seconds - stats["static_seconds"] - stats["relaxed_seconds"]
    return Grounding(
        roles=roles,
        init=frozenset(args[0] for args in facts.sets.get("init", ()) if len(args) == 1),
        fluents=tuple(sorted((args[0] for args in facts.sets.get("true", ())), key=value_text)),
        moves=tuple(sorted(
            ((args[0], args[1]) for args in facts.sets.get("does", ())),
            key=lambda rm: (value_text(rm[0]), value_text(rm[1])),
        )),
        rules=tuple(ground),
        facts=frozenset(outputs_static),
        relaxed_atoms=facts.count,
        seconds=seconds,
        stats=stats,
    )


def _instance(rule: _Rule, binding: dict[_Var, Value]) -> GroundRule:
    """The ground instance of a state-dependent rule, its static literals folded."""
    slots: list[tuple[GroundAtom, bool] | None] = [None] * rule.body.slots
    for (relation, args), slot in zip(rule.body.positive, rule.body.positive_slots, strict=True):
        if slot is not None:
            slots[slot] = ((relation, tuple(_substitute(a, binding) for a in args)), True)
    for (relation, args), slot in zip(rule.body.negative, rule.body.negative_slots, strict=True):
        if slot is not None:
            slots[slot] = ((relation, tuple(_substitute(a, binding) for a in args)), False)
    head = (rule.head[0], tuple(_substitute(a, binding) for a in rule.head[1]))
    return GroundRule(head, tuple(slots), rule.origin)


def _fold_negations(rule: GroundRule, facts: _Facts) -> GroundRule:
    """Fold to true every negated atom that can never hold."""
    if all(slot is None or slot[1] or slot[0][1] in facts.sets.get(slot[0][0], ()) for slot in rule.body):
        return rule
    body = tuple(
        None
        if slot is not None and not slot[1] and slot[0][1] not in facts.sets.get(slot[0][0], ())
        else slot
        for slot in rule.body
    )
    return GroundRule(rule.head, body, rule.origin)


def sorted_roles(checked: CheckedProgram) -> list[str]:
    """Role names in declaration order."""
    return [
        str(rule.head.args[0])
        for rule in checked.program.rules
        if rule.head.relation == "role" and not rule.body and len(rule.head.args) == 1
    ]


def _fixpoint(
    rules: list[_Rule],
    facts: _Facts,
    budget: _Budget,
    negation_checked: Callable[[str], bool],
    instances: dict[GroundRule, None] | None = None,
) -> None:
    """Add to ``facts`` everything ``rules`` derive, semi-naively.

    ``negation_checked(relation)`` says whether a negative literal on ``relation`` is checked (its facts
    are complete) or ignored (the relaxation of state-dependent relations). ``instances``, when given,
    receives every ground instance met of a rule with an origin.
    """
    negative_ok = [[negation_checked(relation) for relation, _ in rule.body.negative] for rule in rules]
    by_relation: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for r, rule in enumerate(rules):
        for i, (relation, _args) in enumerate(rule.body.positive):
            by_relation[relation].append((r, i))
    plans: dict[tuple[int, int | None], _Plan] = {}

    def plan(r: int, first: int | None) -> _Plan:
        # Plans are made afresh each round, as the relations grow.
        if (r, first) not in plans:
            plans[(r, first)] = _plan(rules[r], first, facts)
        return plans[(r, first)]

    def derive(r: int, first: int | None, delta: Iterable[tuple[Value, ...]] | None) -> list[GroundAtom]:
        rule = rules[r]
        relation, head = rule.head
        found = []
        record = instances is not None and rule.origin >= 0
        for binding in _bindings(rule, plan(r, first), facts, delta, negative_ok[r], budget):
            found.append((relation, tuple(_substitute(a, binding) for a in head)))
            if record:
                instances[_instance(rule, binding)] = None  # type: ignore[index]
        if record:
            budget.atoms(len(instances))  # type: ignore[arg-type]
        return found

    delta: dict[str, list[tuple[Value, ...]]] = defaultdict(list)
    for r in range(len(rules)):
        for relation, args in derive(r, None, None):
            if facts.add(relation, args):
                delta[relation].append(args)
    budget.atoms(facts.count)
    while delta:
        new: dict[str, list[tuple[Value, ...]]] = defaultdict(list)
        for relation, values in delta.items():
            for r, i in by_relation.get(relation, ()):
                for head_relation, args in derive(r, i, values):
                    if facts.add(head_relation, args):
                        new[head_relation].append(args)
        budget.atoms(facts.count)
        delta = new
        plans.clear()
