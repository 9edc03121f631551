"""An independent GDL oracle for the tests: each game is translated to ASP and clingo computes its
relations. Only the parser is shared with gdl; the reasoning is clingo's.

The program is grounded once with ``true`` and ``does`` as externals ranging over ``base`` and
``input``, so each query only assigns externals and solves.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import clingo

from gdl.check import check_text
from gdl.game import Game
from gdl.syntax.model import Atom, Constant, Distinct, Literal, Not, Or, Rule, Term, Variable
from gdl.syntax.reader import parse_program, parse_term


def _ident(name: str) -> str:
    return re.sub(r"[^a-z0-9]", lambda m: f"_{ord(m.group()):x}_", name)


def _term(term: Term) -> str:
    if isinstance(term, Variable):
        return "V" + _ident(term.name)
    if isinstance(term, Constant):
        return '"' + term.name + '"'
    return f"f_{_ident(term.name)}({','.join(map(_term, term.args))})"


def _atom(atom: Atom) -> str:
    name = "r_" + _ident(atom.relation)
    return f"{name}({','.join(map(_term, atom.args))})" if atom.args else name


def _conjunctions(body: tuple[Literal, ...]) -> Iterator[list[str]]:
    """The body as a disjunction of ASP conjunctions (``or`` multiplied out)."""
    options: list[list[list[str]]] = []
    for literal in body:
        if isinstance(literal, Atom):
            options.append([[_atom(literal)]])
        elif isinstance(literal, Not):
            options.append([["not " + _atom(literal.atom)]])
        elif isinstance(literal, Distinct):
            options.append([[f"{_term(literal.left)} != {_term(literal.right)}"]])
        else:
            assert isinstance(literal, Or)
            options.append([c for branch in literal.branches for c in _conjunctions(branch)])
    for choice in itertools.product(*options):
        yield [part for conjunction in choice for part in conjunction]


def _rule(rule: Rule) -> Iterator[str]:
    for body in _conjunctions(rule.body):
        yield f"{_atom(rule.head)} :- {', '.join(body)}." if body else f"{_atom(rule.head)}."


def _kif(symbol: clingo.Symbol) -> str:
    if symbol.type is clingo.SymbolType.String:
        return symbol.string
    name = re.sub(r"_([0-9a-f]+)_", lambda m: chr(int(m.group(1), 16)), symbol.name[2:])
    return "(" + " ".join([name, *map(_kif, symbol.arguments)]) + ")"


def _only_model(control: clingo.Control) -> list[clingo.Symbol]:
    with control.solve(yield_=True) as handle:
        models = [list(m.symbols(atoms=True)) for m in handle]
    assert len(models) == 1, "a stratified program has exactly one model"
    return models[0]


class ClingoGame:
    """A game's relations computed by clingo; states are frozensets of fluents in KIF text."""

    def __init__(self, path: Path) -> None:
        program = parse_program(path.read_text(encoding="utf-8"), str(path))
        text = "\n".join(line for rule in program.rules for line in _rule(rule))
        self._rules = text
        text += "\n#external r_true(F) : r_base(F).\n#external r_does(R, M) : r_input(R, M).\n"
        self._control = clingo.Control(["--warn=none"])
        self._control.add("base", [], text)
        self._control.ground([("base", [])])
        self._true = {_kif(a.symbol.arguments[0]): a.symbol for a in self._atoms("r_true", 1)}
        self._does = {
            (_kif(a.symbol.arguments[0]), _kif(a.symbol.arguments[1])): a.symbol
            for a in self._atoms("r_does", 2)
        }
        model = self._solve(frozenset(), {})
        self.roles = tuple(_kif(s.arguments[0]) for s in model if s.name == "r_role")
        self.initial = frozenset(_kif(s.arguments[0]) for s in model if s.name == "r_init")

    def _atoms(self, name: str, arity: int) -> list[clingo.SymbolicAtom]:
        return list(self._control.symbolic_atoms.by_signature(name, arity))

    def _solve(self, state: frozenset[str], joint: dict[str, str]) -> list[clingo.Symbol]:
        moves = {(role, move) for role, move in joint.items()}
        if not state <= self._true.keys() or not moves <= self._does.keys():
            return self._solve_afresh(state, joint)  # base or input do not cover this query
        for fluent, symbol in self._true.items():
            self._control.assign_external(symbol, fluent in state)
        for key, symbol in self._does.items():
            self._control.assign_external(symbol, key in moves)
        return _only_model(self._control)

    def _solve_afresh(self, state: frozenset[str], joint: dict[str, str]) -> list[clingo.Symbol]:
        facts = [f"r_true({_term(parse_term(f))})." for f in state]
        facts += [f'r_does("{role}", {_term(parse_term(move))}).' for role, move in joint.items()]
        control = clingo.Control(["--warn=none"])
        control.add("base", [], self._rules + "\n" + "\n".join(facts))
        control.ground([("base", [])])
        return _only_model(control)

    def _by_role(
        self, state: frozenset[str], relation: str, role: str, joint: dict[str, str] | None = None
    ) -> list[str]:
        model = self._solve(state, joint or {})
        return sorted(
            _kif(s.arguments[1]) for s in model if s.name == relation and _kif(s.arguments[0]) == role
        )

    def legal(self, state: frozenset[str], role: str) -> list[str]:
        return self._by_role(state, "r_legal", role)

    def terminal(self, state: frozenset[str]) -> bool:
        return any(s.name == "r_terminal" for s in self._solve(state, {}))

    def goals(self, state: frozenset[str], role: str) -> list[str]:
        return self._by_role(state, "r_goal", role)

    def next(self, state: frozenset[str], joint: dict[str, str]) -> frozenset[str]:
        model = self._solve(state, joint)
        return frozenset(_kif(s.arguments[0]) for s in model if s.name == "r_next")

    def sees(self, state: frozenset[str], joint: dict[str, str], role: str) -> list[str]:
        """GDL-II: what ``role`` perceives after ``joint`` in ``state``."""
        return self._by_role(state, "r_sees", role, joint)

    def joint_moves(self, state: frozenset[str]) -> list[dict[str, str]]:
        moves = [self.legal(state, role) for role in self.roles]
        return [dict(zip(self.roles, combo, strict=True)) for combo in itertools.product(*moves)]


class ClingoReasoner:
    """The :class:`gdl.engines.base.Reasoner` protocol on top of :class:`ClingoGame`."""

    def __init__(self, path: Path) -> None:
        self.oracle = ClingoGame(path)
        self.roles = self.oracle.roles

    def initial(self) -> frozenset[str]:
        return self.oracle.initial

    def fluents(self, state: frozenset[str]) -> frozenset[Term]:
        return frozenset(map(parse_term, state))

    def from_fluents(self, fluents: Iterable[Term]) -> frozenset[str]:
        return frozenset(map(str, fluents))

    def legal(self, state: frozenset[str], role: int) -> tuple[Term, ...]:
        return tuple(map(parse_term, self.oracle.legal(state, self.roles[role])))

    def next(self, state: frozenset[str], moves: Sequence[Term]) -> frozenset[str]:
        return self.oracle.next(state, dict(zip(self.roles, map(str, moves), strict=True)))

    def terminal(self, state: frozenset[str]) -> bool:
        return self.oracle.terminal(state)

    def goals(self, state: frozenset[str], role: int) -> tuple[Term, ...]:
        return tuple(map(parse_term, self.oracle.goals(state, self.roles[role])))

    def sees(self, state: frozenset[str], moves: Sequence[Term]) -> tuple[frozenset[Term], ...]:
        joint = dict(zip(self.roles, map(str, moves), strict=True))
        return tuple(frozenset(map(parse_term, self.oracle.sees(state, joint, role))) for role in self.roles)


def clingo_game(path: Path) -> Game:
    """A :class:`gdl.Game` whose reasoning is done by clingo."""
    result = check_text(path.read_text(encoding="utf-8"), str(path))
    assert result.checked is not None, [d.format() for d in result.diagnostics]
    return Game(result.checked, ClingoReasoner(path), path.stem)
