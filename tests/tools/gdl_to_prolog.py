"""A GDL game as a SWI-Prolog program: the reference reasoner of the speed benchmarks.

The translation is the direct one the published reasoner comparisons use: every GDL rule becomes a
Prolog clause, and a state lives in the Prolog database as ``true/1`` facts (``does/2`` facts for a
joint move), asserted and retracted per step. The rules then stay the game's own clauses, read by
SWI-Prolog's first-argument (JIT) indexing, with no state argument threaded through every predicate;
that is how Prolog-based GGP reasoners (Fluxplayer, ggp-base's Prolog prover) hold a state. Legal moves
and the next state are ``findall`` + ``sort``; a playout picks each role's move with
``random_member``. Nothing is tabled or reordered beyond what correctness needs: a ``not`` or
``distinct`` (or an ``or`` holding one) moves to just after the positive literals that bind its
variables, as SLD resolution needs them bound.

Names: every relation ``r`` becomes the predicate ``gdl_r`` (no clash with Prolog's built-ins such as
``succ/2``); object constants, numbers included, become atoms (``1`` and ``01`` are different GDL
constants), quoted where Prolog needs it; ``?x`` becomes ``V_x``. A relation with no rules is declared
dynamic, so that asking it fails instead of raising an existence error.

Run the program with ``swipl --on-error=halt -O GAME.pl bench NAME SECONDS [SEED]`` (prints a
``RESULT`` line shaped like ``gdl bench``'s, with ``reasoner=swipl``; CPU time from
``statistics(cputime)``), or with ``trace`` after :func:`walk_clauses` (prints, per step of a given
move sequence, the state, legal moves, terminal and goals, as tab-separated KIF).

Usage: ``.venv/bin/python tests/tools/gdl_to_prolog.py GAME.kif [-o GAME.pl]``
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import networkx as nx

from gdl.check import CheckedProgram, check_text
from gdl.syntax.model import (
    Atom,
    Constant,
    Distinct,
    Function,
    Literal,
    Not,
    Or,
    Rule,
    Term,
    Variable,
    walk_atoms,
)

#: How to run a translation: optimised, and refused at its first error (a syntax error would drop a rule).
SWIPL_OPTIONS = ("--on-error=halt", "-O")

#: The state's and the joint move's relations: facts the runtime asserts.
STATE_RELATIONS = (("true", 1), ("does", 2))
#: The relations the runtime asks (``true`` and ``does`` are its facts): those without rules are declared.
RUNTIME_RELATIONS = {
    *STATE_RELATIONS, ("role", 1), ("init", 1), ("legal", 2), ("next", 1), ("terminal", 0),
    ("goal", 2),
}

#: The playout loop, the benchmark driver and the trace of a given walk (``walk/1``), in Prolog.
RUNTIME = r"""
:- use_module(library(random)).
:- use_module(library(lists)).

roles(Roles) :- findall(R, gdl_role(R), Roles).

set_state(State) :- retractall(gdl_true(_)), forall(member(F, State), assertz(gdl_true(F))).
initial_state(State) :- findall(F, gdl_init(F), Fs), sort(Fs, State).
legal_moves(Role, Moves) :- findall(M, gdl_legal(Role, M), Ms), sort(Ms, Moves).
goals(Role, Goals) :- findall(G, gdl_goal(Role, G), Gs), sort(Gs, Goals).

% The state after the joint move Moves (one per role, in role order) from the asserted state.
next_state(Roles, Moves, State) :-
    forall(nth1(I, Roles, R), (nth1(I, Moves, M), assertz(gdl_does(R, M)))),
    findall(F, gdl_next(F), Fs), sort(Fs, State),
    retractall(gdl_does(_, _)).

random_joint_move([], []).
random_joint_move([R|Rs], [M|Ms]) :- legal_moves(R, L), random_member(M, L), random_joint_move(Rs, Ms).

% A random playout from the initial state: the joint moves made. It ends at a terminal state (whose
% goals are read), at a role without legal moves, or after 10,000 joint moves, as gdl bench's.
playout(Roles, Depth) :- initial_state(S), set_state(S), playout(Roles, 0, Depth).
playout(Roles, D0, D) :-
    (   gdl_terminal -> D = D0, forall(member(R, Roles), goals(R, _))
    ;   D0 < 10000, random_joint_move(Roles, Ms) ->
        next_state(Roles, Ms, S), set_state(S), D1 is D0 + 1, playout(Roles, D1, D)
    ;   D = D0
    ).

playouts_until(Roles, Until, N0, N, S0, S) :-
    statistics(cputime, T),
    (   T >= Until -> N = N0, S = S0
    ;   playout(Roles, D), N1 is N0 + 1, S1 is S0 + D + 1, playouts_until(Roles, Until, N1, N, S1, S)
    ).

bench(Game, Seconds, Seed) :-
    set_random(seed(Seed)), roles(Roles),
    statistics(cputime, W0), Warm is W0 + 0.5, playouts_until(Roles, Warm, 0, _, 0, _),
    get_time(Wall0), statistics(cputime, T0), Until is T0 + Seconds,
    playouts_until(Roles, Until, 0, N, 0, States),
    get_time(Wall1), statistics(cputime, T1),
    Cpu is T1 - T0, Wall is Wall1 - Wall0,
    format("RESULT reasoner=swipl game=~w playouts=~d secs=~2f cpu_secs=~2f playouts_per_cpu_s=~1f \c
states_per_cpu_s=~1f avg_depth=~2f engine=prolog~n",
           [Game, N, Wall, Cpu, N / Cpu, States / Cpu, States / N - 1]).

% KIF text of a term, as gdl prints it.
kif(T, T) :- atom(T), !.
kif(T, Text) :-
    T =.. [F|Args], maplist(kif, Args, Texts),
    atomic_list_concat([F|Texts], ' ', Inner), atomic_list_concat(['(', Inner, ')'], Text).
kif_line(Tag, Terms) :-
    maplist(kif, Terms, Texts), atomic_list_concat([Tag|Texts], '\t', Line), format("~w~n", [Line]).

% Per step of walk(Moves): the state, each role's legal moves, terminal, each role's goals.
trace_walk(Roles, S, Moves) :-
    set_state(S), kif_line(state, S),
    forall(member(R, Roles), (legal_moves(R, L), kif_line(legal, [R|L]))),
    ( gdl_terminal -> kif_line(terminal, [true]) ; kif_line(terminal, [false]) ),
    forall(member(R, Roles), (goals(R, G), kif_line(goal, [R|G]))),
    (   Moves = [Joint|Rest] -> next_state(Roles, Joint, Next), trace_walk(Roles, Next, Rest)
    ;   true
    ).

main :-
    set_stream(user_output, encoding(utf8)), current_prolog_flag(argv, Argv),
    (   Argv = [bench, Game, Seconds | Seed] ->
        atom_number(Seconds, S), ( Seed = [N] -> atom_number(N, Sd) ; Sd = 0 ), bench(Game, S, Sd)
    ;   Argv = [trace] -> roles(Roles), initial_state(S), walk(Moves), trace_walk(Roles, S, Moves)
    ;   format(user_error, "usage: swipl -O GAME.pl bench NAME SECONDS [SEED] | trace~n", []), halt(2)
    ).

:- initialization(main, main).
"""

_PLAIN_ATOM = re.compile(r"[a-z][a-zA-Z0-9_]*")


def atom(name: str) -> str:
    """A Prolog atom for a GDL name, quoted unless it is a plain lower-case identifier."""
    if _PLAIN_ATOM.fullmatch(name):
        return name
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"


def variable(var: Variable) -> str:
    """A Prolog variable for a GDL variable: ``?x`` is ``V_x``; other characters as their code."""
    return "V_" + "".join(c if c.isalnum() and c.isascii() else f"_{ord(c)}_" for c in var.name)


def term(t: Term) -> str:
    if isinstance(t, Variable):
        return variable(t)
    if isinstance(t, Function):
        return f"{atom(t.name)}({', '.join(map(term, t.args))})"
    return atom(t.name)


def operand(t: Term) -> str:
    """A term beside an operator: a constant in parentheses, as it may be an operator itself (``table``)."""
    return f"({term(t)})" if isinstance(t, Constant) else term(t)


def goal(a: Atom) -> str:
    """The call of a GDL atom: its relation ``r`` as the predicate ``gdl_r``."""
    name = atom("gdl_" + a.relation)
    return f"{name}({', '.join(map(term, a.args))})" if a.args else name


def _needs(literal: Literal) -> set[str]:
    """The variables that must be bound before a literal runs: those of a ``not`` or ``distinct``, and
    those an ``or`` branch needs and does not bind itself."""
    if isinstance(literal, Atom):
        return set()
    if isinstance(literal, Or):
        return set().union(
            *(set().union(*map(_needs, branch)) - _binds_all(branch) for branch in literal.branches)
        )
    return {v.name for v in literal.variables()}


def _binds(literal: Literal) -> set[str]:
    """The variables a literal binds: an atom's, those every branch of an ``or`` binds."""
    if isinstance(literal, Atom):
        return {v.name for v in literal.variables()}
    if isinstance(literal, Or):
        return set.intersection(*(_binds_all(branch) for branch in literal.branches))
    return set()


def _binds_all(body: Iterable[Literal]) -> set[str]:
    return set().union(*(_binds(literal) for literal in body))


def _ordered(body: Sequence[Literal], bound: set[str]) -> list[Literal]:
    """The body in written order, except that each literal waits until what it needs is bound."""
    waiting, ordered, bound = list(body), [], set(bound)
    while waiting:
        ready = next((lit for lit in waiting if _needs(lit) <= bound), waiting[0])
        waiting.remove(ready)
        ordered.append(ready)
        bound |= _binds(ready)
    return ordered


def literal(lit: Literal, bound: set[str]) -> str:
    if isinstance(lit, Atom):
        return goal(lit)
    if isinstance(lit, Not):
        return f"\\+ {goal(lit.atom)}"
    if isinstance(lit, Distinct):
        return f"{operand(lit.left)} \\== {operand(lit.right)}"
    return "(" + " ; ".join(conjunction(branch, bound) for branch in lit.branches) + ")"


def conjunction(body: Sequence[Literal], bound: set[str]) -> str:
    parts, bound = [], set(bound)
    for lit in _ordered(body, bound):
        parts.append(literal(lit, bound))
        bound |= _binds(lit)
    return ", ".join(parts) if parts else "true"


def clause(rule: Rule) -> str:
    if not rule.body:
        return goal(rule.head) + "."
    return f"{goal(rule.head)} :-\n    {conjunction(rule.body, set())}."


def translate(checked: CheckedProgram, *, tabled: bool = False) -> str:
    """The Prolog program of a checked GDL program, with the runtime of :data:`RUNTIME`.

    With ``tabled``, every recursive relation is tabled (incrementally when it depends on the state or
    the move, so that its tables follow the asserted facts): SLD resolution loops on left or mutual
    recursion (``(<= (r ?x) (r ?x) (q ?x))``) and repeats work on deep recursion. The benchmark runs
    the direct translation, untabled, as the reference figures were measured.
    """
    program = checked.program
    arity = {r.head.relation: r.head.arity for r in program}
    used = {(a.relation, a.arity) for r in program for a, _ in walk_atoms(r.body)} | RUNTIME_RELATIONS
    lines = [
        "% Translated from GDL by tests/tools/gdl_to_prolog.py.",
        ":- encoding(utf8).",
        ":- style_check(-singleton).",
        ":- style_check(-discontiguous).",
        *(f":- dynamic({indicator(name, n)})." for name, n in sorted(used) if name not in arity),
    ]
    if tabled:
        graph = checked.graph
        recursive = sorted(
            name for component in nx.strongly_connected_components(graph) for name in component
            if len(component) > 1 or graph.has_edge(name, name)
        )
        on_state = set().union(*(nx.ancestors(graph, name) for name, _ in STATE_RELATIONS if name in graph))
        if any(name in on_state for name in recursive):
            declared = ", ".join(indicator(*r) for r in STATE_RELATIONS)
            lines.append(f":- dynamic([{declared}], [incremental(true)]).")
        lines += [
            f":- table {indicator(name, arity[name])}{' as incremental' if name in on_state else ''}."
            for name in recursive
        ]
    return "\n".join([*lines, *map(clause, program)]) + "\n" + RUNTIME


def indicator(relation: str, arity: int) -> str:
    """The predicate indicator of a relation, ``gdl_r/n``."""
    return f"{atom('gdl_' + relation)}/{arity}"


def walk_clauses(moves: Iterable[Sequence[Term]]) -> str:
    """The fact ``walk/1`` that ``trace`` replays: joint moves, one move per role in role order."""
    return "walk([" + ", ".join("[" + ", ".join(map(term, joint)) + "]" for joint in moves) + "]).\n"


def translate_file(path: Path, *, tabled: bool = False) -> str:
    """Read, check and translate a .kif file; ValueError with the checker's diagnostics if it fails."""
    result = check_text(path.read_text(), str(path))
    if result.checked is None:
        raise ValueError("\n".join(d.format() for d in result.diagnostics))
    return translate(result.checked, tabled=tabled)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", type=Path, help="GDL file (.kif)")
    parser.add_argument("--tabled", action="store_true", help="table the recursive relations")
    parser.add_argument("-o", "--output", type=Path, help="Prolog file to write (default: standard output)")
    args = parser.parse_args()
    try:
        text = translate_file(args.game, tabled=args.tabled)
    except (OSError, ValueError) as problem:
        print(f"gdl_to_prolog: {problem}", file=sys.stderr)
        return 2
    if args.output:
        args.output.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
