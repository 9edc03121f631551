"""Rules as patterns over variables, join plans ordered by the fact tables' fan-out, and joins compiled
to Python loops that enumerate a rule's bindings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gdl.budget import checkpoint
from gdl.errors import GameTooLargeError
from gdl.ground.facts import ArgPath, Facts
from gdl.ground.grounding import GroundRule, Value
from gdl.syntax.model import Atom, Constant, Distinct, Literal, Not, Term, Variable


class Var:
    """A rule variable; identity is the variable (one object per name and rule)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return "?" + self.name


Pattern = str | Var | tuple["Pattern", ...]


@dataclass
class PatternBody:
    """A rule body split by how the grounder treats each literal."""

    positive: list[tuple[str, tuple[Pattern, ...]]]
    negative: list[tuple[str, tuple[Pattern, ...]]]
    distinct: list[tuple[Pattern, Pattern]]
    #: For each positive/negative literal, its slot in the ground body (None for static ones).
    positive_slots: list[int | None]
    negative_slots: list[int | None]
    slots: int


@dataclass
class PatternRule:
    head: tuple[str, tuple[Pattern, ...]]
    body: PatternBody
    origin: int


def pattern_of(term: Term, variables: dict[str, Var]) -> Pattern:
    if isinstance(term, Variable):
        if term.name not in variables:
            variables[term.name] = Var(term.name)
        return variables[term.name]
    if isinstance(term, Constant):
        return term.name
    return (term.name, *(pattern_of(arg, variables) for arg in term.args))


def pattern_rule(head: Atom, literals: list[Literal], dynamic: set[str], origin: int) -> PatternRule:
    variables: dict[str, Var] = {}
    body = PatternBody([], [], [], [], [], 0)
    for literal in literals:
        if isinstance(literal, Atom):
            args = tuple(pattern_of(a, variables) for a in literal.args)
            body.positive.append((literal.relation, args))
            body.positive_slots.append(body.slots if literal.relation in dynamic else None)
            body.slots += literal.relation in dynamic
        elif isinstance(literal, Not):
            args = tuple(pattern_of(a, variables) for a in literal.atom.args)
            body.negative.append((literal.atom.relation, args))
            body.negative_slots.append(body.slots if literal.atom.relation in dynamic else None)
            body.slots += literal.atom.relation in dynamic
        elif isinstance(literal, Distinct):
            body.distinct.append((pattern_of(literal.left, variables), pattern_of(literal.right, variables)))
    head_args = tuple(pattern_of(a, variables) for a in head.args)
    return PatternRule((head.relation, head_args), body, origin)


def pattern_vars(pattern: Pattern, into: set[Var]) -> None:
    if isinstance(pattern, Var):
        into.add(pattern)
    elif isinstance(pattern, tuple):
        for part in pattern[1:]:
            pattern_vars(part, into)


def key_paths(args: tuple[Pattern, ...], bound: set[Var]) -> list[tuple[ArgPath, Pattern]]:
    """The sub-patterns of ``args`` that are ground once ``bound`` is, with their paths."""
    found: list[tuple[ArgPath, Pattern]] = []

    def visit(pattern: Pattern, path: ArgPath) -> None:
        variables: set[Var] = set()
        pattern_vars(pattern, variables)
        if variables <= bound:
            found.append((path, pattern))
        elif isinstance(pattern, tuple):
            found.append(((*path, 0), pattern[0]))
            for i, part in enumerate(pattern[1:], 1):
                visit(part, (*path, i))

    for i, arg in enumerate(args):
        visit(arg, (i,))
    return found


@dataclass
class Plan:
    """An order of a rule's positive literals, with the argument positions bound on reaching each."""

    order: list[int]
    #: The paths and sub-patterns of the index key used at each step.
    keys: list[list[tuple[ArgPath, Pattern]]]
    #: Distinct and negative-static checks that become decidable after each step.
    distinct_after: list[list[int]]
    negative_after: list[list[int]]


def plan_join(rule: PatternRule, first: int | None, facts: Facts) -> Plan:
    body = rule.body
    literal_vars = []
    for _relation, args in body.positive:
        found: set[Var] = set()
        for arg in args:
            pattern_vars(arg, found)
        literal_vars.append(found)
    bound: set[Var] = set()
    order: list[int] = []
    keys: list[list[tuple[ArgPath, Pattern]]] = []
    remaining = set(range(len(body.positive)))

    def key_size(index: int) -> tuple[float, int]:
        # Fewest expected matches first (from the index on the bound arguments), then fewest new variables.
        relation, args = body.positive[index]
        paths = tuple(path for path, _ in key_paths(args, bound))
        return (facts.fanout(relation, paths), len(literal_vars[index] - bound))

    while remaining:
        # Each choice scores every literal left: a body of n literals costs n * n / 2 scores.
        checkpoint()
        chosen = first if first is not None and not order else min(remaining, key=key_size)
        remaining.discard(chosen)
        keys.append([] if chosen == first and not order else key_paths(body.positive[chosen][1], bound))
        order.append(chosen)
        bound |= literal_vars[chosen]

    def decidable_step(found: set[Var]) -> int:
        checkpoint()
        seen: set[Var] = set()
        for step, index in enumerate(order):
            seen |= literal_vars[index]
            if found <= seen:
                return step
        return max(len(order) - 1, 0)

    distinct_after: list[list[int]] = [[] for _ in range(max(len(order), 1))]
    for i, (left, right) in enumerate(body.distinct):
        found = set()
        pattern_vars(left, found)
        pattern_vars(right, found)
        distinct_after[decidable_step(found)].append(i)
    negative_after: list[list[int]] = [[] for _ in range(max(len(order), 1))]
    for i, (_relation, args) in enumerate(body.negative):
        found = set()
        for arg in args:
            pattern_vars(arg, found)
        negative_after[decidable_step(found)].append(i)
    return Plan(order, keys, distinct_after, negative_after)


#: A compiled join: (delta or None, lookup, emit, tick) -> None; ``emit`` receives the variables' values.
Join = Callable[..., None]


#: Python limits statically nested blocks; a rule whose join needs more loops is not instantiated.
_MAX_LOOPS = 18


def _is_ground(pattern: Pattern) -> bool:
    if isinstance(pattern, Var):
        return False
    return isinstance(pattern, str) or all(_is_ground(part) for part in pattern[1:])


class _Source:
    """Python source of a compiled join, with names for the constants it uses."""

    def __init__(self, names: dict[Var, str]) -> None:
        self.names = names
        self.constants: dict[str, object] = {}
        self.lines: list[str] = []
        self._temps = 0

    def constant(self, value: object) -> str:
        name = f"c{len(self.constants)}"
        self.constants[name] = value
        return name

    def temp(self) -> str:
        self._temps += 1
        return f"t{self._temps}"

    def expression(self, pattern: Pattern) -> str:
        """An expression for the ground value of a pattern whose variables are bound."""
        if isinstance(pattern, Var):
            return self.names[pattern]
        if isinstance(pattern, str):
            return repr(pattern)
        if _is_ground(pattern):  # a constant of the code: nested terms would nest parentheses past
            return self.constant(pattern)  # what Python's parser takes (200 levels)
        return "(" + ", ".join([repr(pattern[0]), *map(self.expression, pattern[1:])]) + ",)"

    def match(self, pattern: Pattern, value: str, bound: set[Var], indent: str) -> None:
        """Statements that ``continue`` unless ``value`` matches ``pattern``, binding new variables."""
        if isinstance(pattern, Var):
            if pattern in bound:
                self.lines.append(f"{indent}if {value} != {self.names[pattern]}: continue")
            else:
                self.lines.append(f"{indent}{self.names[pattern]} = {value}")
                bound.add(pattern)
        elif isinstance(pattern, str):
            self.lines.append(f"{indent}if {value} != {pattern!r}: continue")
        elif _is_ground(pattern):
            self.lines.append(f"{indent}if {value} != {self.constant(pattern)}: continue")
        else:
            self.lines.append(
                f"{indent}if type({value}) is not tuple or len({value}) != {len(pattern)} "
                f"or {value}[0] != {pattern[0]!r}: continue"
            )
            for i, part in enumerate(pattern[1:], 1):
                if isinstance(part, tuple):
                    temp = self.temp()
                    self.lines.append(f"{indent}{temp} = {value}[{i}]")
                    self.match(part, temp, bound, indent)
                else:
                    self.match(part, f"{value}[{i}]", bound, indent)


def compile_join(rule: PatternRule, plan: Plan, facts: Facts, negative_ok: list[bool]) -> Join:
    """A function enumerating the rule's bindings by nested loops in the plan's order.

    The first literal ranges over the delta when one is given; every later one over an index lookup on
    its bound arguments. Distinct and static negative literals are tested as soon as they are decidable.
    """
    body = rule.body
    variables: list[Var] = []
    for _relation, args in body.positive:
        found: set[Var] = set()
        for arg in args:
            pattern_vars(arg, found)
        variables.extend(sorted(found - set(variables), key=lambda v: v.name))
    source = _Source({var: f"v{i}" for i, var in enumerate(variables)})
    lines = source.lines
    lines.append("def join(first, lookup, emit, tick):")
    lines.append("    n = 0")
    bound: set[Var] = set()
    indent = "    "
    for step, index in enumerate(plan.order):
        relation, args = body.positive[index]
        row = f"r{step}"
        found = set()
        for arg in args:
            pattern_vars(arg, found)
        if step > 0 and found <= bound:
            # Every argument is known: a membership test, not a loop.
            atom = "(" + "".join(source.expression(a) + ", " for a in args) + ")"
            lines.append(f"{indent}if {atom} not in {source.constant(facts.sets[relation])}: continue")
        else:
            if step == 0:
                every = source.constant(facts.sets[relation])
                lines.append(f"{indent}for {row} in ({every} if first is None else first):")
            else:
                key = plan.keys[step]
                paths = source.constant(tuple(path for path, _ in key))
                values = "(" + "".join(source.expression(p) + ", " for _, p in key) + ")"
                lines.append(f"{indent}for {row} in lookup({relation!r}, {paths}, {values}):")
            indent += "    "
            if len(indent) > 4 * _MAX_LOOPS:
                raise GameTooLargeError(
                    f"a rule for {rule.head[0]!r} needs more than {_MAX_LOOPS} nested loops to ground"
                )
            lines.append(f"{indent}n += 1")
            lines.append(f"{indent}if not n & 4095: tick()")
            lines.append(f"{indent}if len({row}) != {len(args)}: continue")
            for i, arg in enumerate(args):
                source.match(arg, f"{row}[{i}]", bound, indent)
        for i in plan.distinct_after[step]:
            left, right = body.distinct[i]
            lines.append(f"{indent}if {source.expression(left)} == {source.expression(right)}: continue")
        for i in plan.negative_after[step]:
            if negative_ok[i]:
                negated, negated_args = body.negative[i]
                values = "(" + "".join(source.expression(a) + ", " for a in negated_args) + ")"
                lines.append(f"{indent}if {values} in {source.constant(facts.sets[negated])}: continue")
    if not plan.order:
        checks = [f"{source.expression(a)} == {source.expression(b)}" for a, b in body.distinct]
        checks += [
            "(" + "".join(source.expression(a) + ", " for a in body.negative[i][1]) + ") in "
            + source.constant(facts.sets[body.negative[i][0]])
            for i in plan.negative_after[0]
            if negative_ok[i]
        ]
        if checks:
            lines.append(f"{indent}if {' or '.join(checks)}: return")
    lines.append(f"{indent}emit((" + "".join(f"{source.names[v]}, " for v in variables) + "))")
    if plan.order:
        # Bindings met are counted too: a join may find many without new candidates to scan.
        lines.append(f"{indent}n += 1")
        lines.append(f"{indent}if not n & 4095: tick()")
    namespace = dict(source.constants)
    exec(compile("\n".join(lines) + "\n", f"<join {rule.head[0]}>", "exec"), namespace)
    join: Join = namespace["join"]  # type: ignore[assignment]
    join.variables = variables  # type: ignore[attr-defined]
    return join


def value_builder(
    patterns: list[Pattern], variables: list[Var]
) -> Callable[[tuple[Value, ...]], tuple[Value, ...]]:
    """A function from the variables' values to the ground values of ``patterns``."""
    source = _Source({var: f"values[{i}]" for i, var in enumerate(variables)})
    text = "lambda values: (" + "".join(source.expression(p) + ", " for p in patterns) + ")"
    built: Callable[[tuple[Value, ...]], tuple[Value, ...]] = eval(text, dict(source.constants))
    return built


def instance_builder(rule: PatternRule, variables: list[Var]) -> Callable[[tuple[Value, ...]], GroundRule]:
    """A function from the variables' values to the ground instance of a state-dependent rule."""
    source = _Source({var: f"values[{i}]" for i, var in enumerate(variables)})
    slots = ["None"] * rule.body.slots
    body = rule.body
    literals = [(lit, slot, True) for lit, slot in zip(body.positive, body.positive_slots, strict=True)]
    literals += [(lit, slot, False) for lit, slot in zip(body.negative, body.negative_slots, strict=True)]
    for (relation, args), slot, positive in literals:
        if slot is not None:
            ground = "(" + "".join(source.expression(a) + ", " for a in args) + ")"
            slots[slot] = f"(({relation!r}, {ground}), {positive})"
    head = "(" + "".join(source.expression(a) + ", " for a in rule.head[1]) + ")"
    text = (
        f"lambda values: GroundRule(({rule.head[0]!r}, {head}), ("
        + "".join(slot + ", " for slot in slots)
        + f"), {rule.origin})"
    )
    namespace = {**source.constants, "GroundRule": GroundRule}
    built: Callable[[tuple[Value, ...]], GroundRule] = eval(text, namespace)
    return built
