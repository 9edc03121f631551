"""An independent engine for the tests: GDL rules translated to ASP and evaluated by clingo.

Only the parsed clause model is shared with gdl; the dependency analysis and the evaluation are done
here and by clingo. Every relation becomes a predicate ``p_<name>``, every function symbol a function
``f_<name>`` (characters outside ``[a-z0-9]`` written as ``_<hex>_``), every constant a string, so no
name of a game can clash with ASP syntax. ``distinct`` becomes ``!=`` and ``or`` is multiplied out.

To check a whole random walk at once, the relations that depend on ``true`` or ``does`` get the state
as an extra first argument (:func:`walk_program`): clingo then evaluates every state of the walk in one
grounding.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence

import clingo

from gdl.syntax.model import Atom, Constant, Distinct, Literal, Not, Or, Rule, Term, Variable


def _ident(name: str) -> str:
    return re.sub(r"[^a-z0-9]", lambda m: f"_{ord(m.group()):x}_", name)


def _unident(name: str) -> str:
    return re.sub(r"_([0-9a-f]+)_", lambda m: chr(int(m.group(1), 16)), name)


def asp_term(term: Term) -> str:
    if isinstance(term, Variable):
        return "V" + _ident(term.name)
    if isinstance(term, Constant):
        return '"' + term.name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"f_{_ident(term.name)}({','.join(map(asp_term, term.args))})"


def asp_atom(atom: Atom, state: str | None = None) -> str:
    args = [asp_term(arg) for arg in atom.args]
    if state is not None:
        args.insert(0, state)
    name = "p_" + _ident(atom.relation)
    return f"{name}({','.join(args)})" if args else name


def kif(symbol: clingo.Symbol) -> str:
    """The KIF text of a term given back by clingo."""
    if symbol.type is clingo.SymbolType.String:
        return str(symbol.string)
    name = _unident(symbol.name[2:])
    return "(" + " ".join([name, *map(kif, symbol.arguments)]) + ")"


def _bodies(body: Sequence[Literal]) -> Iterator[list[Literal]]:
    options: list[list[list[Literal]]] = []
    for literal in body:
        if isinstance(literal, Or):
            options.append([b for branch in literal.branches for b in _bodies(branch)])
        else:
            options.append([[literal]])
    for choice in itertools.product(*options):
        yield [literal for part in choice for literal in part]


def asp_rules(rules: Iterable[Rule], stateful: frozenset[str] = frozenset()) -> str:
    """ASP text of ``rules``; relations in ``stateful`` get the state variable ``S`` first."""
    lines = []
    for rule in rules:
        threaded = rule.head.relation in stateful

        def atom(a: Atom, threaded: bool = threaded) -> str:
            return asp_atom(a, "S" if threaded and a.relation in stateful else None)

        for body in _bodies(rule.body):
            parts = ["state(S)"] if threaded else []
            for literal in body:
                if isinstance(literal, Atom):
                    parts.append(atom(literal))
                elif isinstance(literal, Not):
                    parts.append("not " + atom(literal.atom))
                else:
                    assert isinstance(literal, Distinct)
                    parts.append(f"{asp_term(literal.left)} != {asp_term(literal.right)}")
            head = atom(rule.head)
            lines.append(f"{head} :- {', '.join(parts)}." if parts else f"{head}.")
    return "\n".join(lines) + "\n"


def dependents(rules: Iterable[Rule], sources: Iterable[str]) -> frozenset[str]:
    """Relations whose rules use one of ``sources``, directly or through other relations."""
    used_by: dict[str, set[str]] = defaultdict(set)
    for rule in rules:
        for body in _bodies(rule.body):
            for literal in body:
                if isinstance(literal, (Atom, Not)):
                    atom = literal.atom if isinstance(literal, Not) else literal
                    used_by[atom.relation].add(rule.head.relation)
    found = set(sources)
    frontier = list(found)
    while frontier:
        for user in used_by[frontier.pop()]:
            if user not in found:
                found.add(user)
                frontier.append(user)
    return frozenset(found)


def solve(text: str) -> list[clingo.Symbol]:
    """The unique stable model of a stratified ASP program."""
    control = clingo.Control(["--warn=none"])
    control.add("base", [], text)
    control.ground([("base", [])])
    with control.solve(yield_=True) as handle:
        models = [list(model.symbols(atoms=True)) for model in handle]
    assert len(models) == 1, f"expected one stable model, got {len(models)}"
    return models[0]


def model_of(rules: Iterable[Rule], facts: Iterable[Atom] = ()) -> dict[str, set[tuple[str, ...]]]:
    """Relation name -> the KIF texts of the arguments of each of its facts, as clingo computes them."""
    text = asp_rules(rules) + "".join(asp_atom(fact) + ".\n" for fact in facts)
    model: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    for symbol in solve(text):
        if symbol.name.startswith("p_"):
            model[_unident(symbol.name[2:])].add(tuple(kif(arg) for arg in symbol.arguments))
    return dict(model)


#: The predicates a walk asks clingo about.
_ASKED = ("p_legal", "p_goal", "p_terminal", "p_next", "p_sees")


class Step:
    """What clingo says about one state of a walk (KIF texts, sorted where there are several)."""

    def __init__(self) -> None:
        self.legal: dict[str, list[str]] = defaultdict(list)
        self.goals: dict[str, list[str]] = defaultdict(list)
        self.terminal = False
        self.next: set[str] = set()
        #: GDL-II: each role's percepts after the state's joint move.
        self.sees: dict[str, list[str]] = defaultdict(list)


class WalkOracle:
    """Evaluates the states of a walk of a game, each with and without its joint move, in one run."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = rules
        # The relations asked about are threaded even when a game defines them by plain facts.
        self.stateful = dependents(rules, ("true", "does", "legal", "goal", "terminal", "next", "sees"))
        self.static_text = asp_rules(rules, self.stateful)

    def static(self) -> tuple[list[str], set[str]]:
        """The roles in declaration order and the initial fluents."""
        roles = [
            str(rule.head.args[0]) for rule in self.rules
            if rule.head.relation == "role" and not rule.body and len(rule.head.args) == 1
        ]
        initial = {kif(s.arguments[0]) for s in solve(self.static_text) if s.name == "p_init"}
        return roles, initial

    def evaluate(self, states: Sequence[Iterable[Term]], moves: Sequence[dict[str, Term]]) -> list[Step]:
        """Each state's legal moves, goals and termination, and its successor and percepts under
        ``moves[i]``."""
        facts = []
        for i, fluents in enumerate(states):
            facts.append(f"state(q({i})). state(m({i})).")
            for fluent in fluents:
                facts.append(f"p_true(q({i}),{asp_term(fluent)}). p_true(m({i}),{asp_term(fluent)}).")
            for role, move in moves[i].items() if i < len(moves) else ():
                facts.append(f"p_does(m({i}),{asp_term(Constant(role))},{asp_term(move)}).")
        steps = [Step() for _ in states]
        for symbol in solve(self.static_text + "\n".join(facts)):
            if symbol.name not in _ASKED or not symbol.arguments:
                continue
            where = symbol.arguments[0]
            step = steps[where.arguments[0].number]
            args = [kif(a) for a in symbol.arguments[1:]]
            if where.name == "m":
                if symbol.name == "p_next":
                    step.next.add(args[0])
                elif symbol.name == "p_sees":
                    step.sees[args[0]].append(args[1])
            elif symbol.name == "p_legal":
                step.legal[args[0]].append(args[1])
            elif symbol.name == "p_goal":
                step.goals[args[0]].append(args[1])
            elif symbol.name == "p_terminal":
                step.terminal = True
        for step in steps:
            for values in (*step.legal.values(), *step.goals.values(), *step.sees.values()):
                values.sort()
        return steps

