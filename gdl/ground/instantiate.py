"""Instantiation: ground a checked game into propositional rules over the atoms that can ever hold.

The ground atoms are over-approximated by a relaxed fixpoint: negation of state-dependent relations is
ignored, ``true`` is fed by ``init`` and by everything ``next`` can derive, and ``does`` by everything
``legal`` can derive. Relations that depend on neither ``true`` nor ``does`` (static relations) are
evaluated exactly, stratum by stratum, and folded into the ground rules as constants. Every other rule is
then grounded over the relaxed atoms, after three exact rewritings of the state-dependent rules:

- relations no output (``legal``, ``next``, ``goal``, ``terminal``) depends on are dropped;
- rule bodies are split by variable elimination (:class:`gdl.ground.relaxed.Splitter`), so that
  independent variables cost a sum of ground instances instead of a product;
- relations only ever used with some arguments bound are grounded on demand, by the magic-set rewriting
  of the relaxed program (:func:`gdl.ground.relaxed.demand`): only the atoms some rule instance refers to.

The relaxed fixpoint joins rules over the fact tables of :mod:`gdl.ground.facts` with the compiled joins
of :mod:`gdl.ground.joins`.

Budgets on the number of atoms and on time (CPU time of the process, so that a busy machine does not
make a game fail) keep a game that is too large from costing more than its budget:
:class:`gdl.errors.GameTooLargeError` says so and names the largest relations so far, and
``engine="auto"`` falls back to the Datalog evaluator.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable

from gdl.budget import budget as phase_budget
from gdl.check import CheckedProgram
from gdl.errors import GameTooLargeError
from gdl.ground.facts import Budget, Facts
from gdl.ground.grounding import (
    OUTPUT_RELATIONS,
    GroundAtom,
    Grounding,
    GroundRule,
    Value,
    sorted_roles,
    value_text,
)
from gdl.ground.joins import (
    Join,
    PatternRule,
    compile_join,
    instance_builder,
    pattern_rule,
    plan_join,
    value_builder,
)
from gdl.ground.relaxed import Splitter, demand, expand_or, relevant
from gdl.syntax.model import Atom, Variable

DEFAULT_MAX_ATOMS = 400_000
DEFAULT_MAX_SECONDS = 30.0


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
    budget = Budget(max_atoms, max_seconds, checked.program.source)
    dynamic = _dynamic_relations(checked)
    facts = Facts()
    budget.facts = facts
    stats: dict[str, float] = {}

    # Static strata, exactly, in evaluation order. A stratum over a quarter of the atom budget (e.g. a
    # table of sums up to 600) is grounded instead with the state-dependent rules, on demand, with every
    # stratum that depends on it: its atoms then become constants of the network.
    # The roles and the initial state are needed whole.
    import networkx as nx

    whole = {"init", "role"}
    for relation in [r for r in whole if r in checked.graph]:
        whole |= nx.descendants(checked.graph, relation)
    deferred: set[str] = set()
    for stratum in checked.strata:
        rules = [
            pattern_rule(rule.head, body, dynamic, -1)
            for rule in stratum.rules
            if rule.head.relation not in dynamic
            for body in expand_or(rule.body)
        ]
        heads = {rule.head[0] for rule in rules}
        needs = set().union(*(checked.graph.successors(relation) for relation in heads))
        if rules and heads & whole:
            _fixpoint(rules, facts, budget, lambda relation: True)
        elif rules and (needs & deferred or not _static(rules, facts, budget)):
            deferred |= heads
    dynamic |= deferred
    stats["static_seconds"] = time.process_time() - started

    # The relaxed fixpoint of the state-dependent rules.
    splitter = Splitter(checked.graph.nodes, dynamic, facts)
    with phase_budget("planning joins"):
        split = [
            (rule.head, splitter.split(rule.head, body))
            for rule in checked.program.rules
            if rule.head.relation in dynamic
            for body in expand_or(rule.body)
        ]
    origin_rules: list[PatternRule] = []
    for head, body in demand(relevant([*splitter.rules, *split]), dynamic, splitter.taken, facts):
        origin = len(origin_rules) if head.relation in dynamic else -1
        origin_rules.append(pattern_rule(head, body, dynamic, origin))
    feeds = [
        pattern_rule(Atom("true", (Variable("f"),)), [Atom("init", (Variable("f"),))], dynamic, -1),
        pattern_rule(Atom("true", (Variable("f"),)), [Atom("next", (Variable("f"),))], dynamic, -1),
        pattern_rule(
            Atom("does", (Variable("r"), Variable("m"))),
            [Atom("legal", (Variable("r"), Variable("m")))],
            dynamic,
            -1,
        ),
    ]
    # Every instance of a state-dependent rule is met on the way, and recorded.
    found: list[GroundRule] = []
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


def _static(rules: list[PatternRule], facts: Facts, budget: Budget) -> bool:
    """Evaluate a static stratum exactly; False (and nothing added) if it exceeds a quarter of the budget."""
    share = Budget(facts.count + budget.max_atoms // 4, 0.0, budget.what)
    share.deadline = budget.deadline
    try:
        _fixpoint(rules, facts, share, lambda relation: True)
    except GameTooLargeError:
        budget.tick_now()
        for relation in {rule.head[0] for rule in rules}:
            facts.discard(relation)
        return False
    return True


def _fold_negations(rule: GroundRule, facts: Facts) -> GroundRule:
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


def _fixpoint(
    rules: list[PatternRule],
    facts: Facts,
    budget: Budget,
    negation_checked: Callable[[str], bool],
    instances: list[GroundRule] | None = None,
) -> None:
    """Add to ``facts`` everything ``rules`` derive, semi-naively.

    ``negation_checked(relation)`` says whether a negative literal on ``relation`` is checked (its facts
    are complete) or ignored (the relaxation of state-dependent relations). ``instances``, when given,
    receives every ground instance of a rule with an origin, once.
    """
    negative_ok = [[negation_checked(relation) for relation, _ in rule.body.negative] for rule in rules]
    by_relation: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for r, rule in enumerate(rules):
        for i, (relation, _args) in enumerate(rule.body.positive):
            by_relation[relation].append((r, i))
    joins: dict[tuple[int, int | None], Join] = {}
    compiled_plans: dict[tuple[int, int | None, str], Join] = {}
    heads: dict[int, Callable[[tuple[Value, ...]], tuple[Value, ...]]] = {}
    builders: dict[int, Callable[[tuple[Value, ...]], GroundRule]] = {}
    seen: list[set[GroundRule]] = [set() for _ in rules]
    lookup = facts.lookup

    def join(r: int, first: int | None) -> Join:
        if (r, first) not in joins:
            plan = plan_join(rules[r], first, facts)
            key = (r, first, repr((plan.order, [[p for p, _ in k] for k in plan.keys])))
            if key not in compiled_plans:
                compiled_plans[key] = compile_join(rules[r], plan, facts, negative_ok[r])
            joins[(r, first)] = compiled_plans[key]
        return joins[(r, first)]

    def derive(r: int, first: int | None, delta: Iterable[tuple[Value, ...]] | None) -> list[GroundAtom]:
        rule = rules[r]
        compiled = join(r, first)
        found: list[tuple[Value, ...]] = []

        def tick() -> None:
            budget.joining = (rule.head[0], len(found))
            budget.tick_now()
            budget.atoms(len(found) // 4)

        compiled(delta, lookup, found.append, tick)
        budget.joining = ("", 0)
        variables = compiled.variables  # type: ignore[attr-defined]
        if r not in heads:
            heads[r] = value_builder(list(rule.head[1]), variables)
        head = heads[r]
        if instances is not None and rule.origin >= 0:
            if r not in builders:
                builders[r] = instance_builder(rule, variables)
            build, known = builders[r], seen[r]
            before = len(instances)
            # Bindings that differ only in variables of folded literals make the same ground rule.
            for count, values in enumerate(found):
                if not count & 4095:
                    # Building instances can cost more than the join that found their bindings.
                    budget.tick_now()
                    budget.atoms(len(instances))
                instance = build(values)
                if instance not in known:
                    known.add(instance)
                    instances.append(instance)
            budget.rules[rule.head[0]] += len(instances) - before
            budget.atoms(len(instances))
        relation = rule.head[0]
        return [(relation, head(values)) for values in found]

    delta: dict[str, list[tuple[Value, ...]]] = defaultdict(list)
    for r in range(len(rules)):
        for relation, args in derive(r, None, None):
            if facts.add(relation, args):
                delta[relation].append(args)
    budget.atoms(facts.count)
    planned_at = facts.count
    while delta:
        new: dict[str, list[tuple[Value, ...]]] = defaultdict(list)
        for relation, values in delta.items():
            for r, i in by_relation.get(relation, ()):
                for head_relation, args in derive(r, i, values):
                    if facts.add(head_relation, args):
                        new[head_relation].append(args)
        budget.atoms(facts.count)
        delta = new
        # Join orders are chosen afresh when the relations have grown by half.
        if facts.count > 1.5 * planned_at:
            joins.clear()
            planned_at = facts.count
