"""The Datalog reasoner: game relations by bottom-up evaluation, sharing everything a state cannot change.

The strata of a game fall into three layers. Static strata (relations that depend on neither ``true``
nor ``does``) run once per game. State strata (depending on ``true`` only) run per state, and only
those that the relation asked for (``legal``, ``terminal``, ``goal``) needs, with the results kept
for the most recently used states; those reading only fluents that no move changes (a maze's walls, see
:mod:`gdl.engines.frame`) run once per set of those fluents instead. Move strata (depending on
``does``) run per joint move, for ``next`` and, in GDL-II, for ``sees``. A state is a frozenset of
interned fluent ids; terms of the clause model appear only at the API boundary.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from itertools import islice

import networkx as nx

from gdl.budget import budget, deadline, exceeded
from gdl.check import CheckedProgram
from gdl.check.graph import dependency_graph
from gdl.check.program import check_rewritten
from gdl.datalog.evaluator import Database, Evaluator
from gdl.datalog.magic import original_name, rewrite
from gdl.datalog.plan import DELTA, relation_key
from gdl.datalog.terms import TermTable
from gdl.engines.frame import reads_only, selector, terms_read, unchanging_reads
from gdl.errors import BudgetExceededError, GameDefinitionError, GameTooLargeError
from gdl.syntax.model import Term

#: A state of this reasoner: the ids of its fluents.
DatalogState = frozenset[int]

#: How many evaluated states are kept. A playout asks about each state several times in a row, then
#: never again; a state's database can be large (hundreds of thousands of facts in amazons).
CACHE_SIZE = 8


#: Facts a relation computed once per game may have: past it, loading the game fails with a clear error
#: rather than running out of memory (sudoku's exactlyfirst/10 would have about 387 million; the largest
#: that loads, mummymaze1p's direction-from/5, has 6.5 million).
STATIC_FACT_LIMIT = 16_000_000


#: Facts all the relations computed once per game may have together.
STATIC_TOTAL_LIMIT = 24_000_000


#: Relations computed once per game with more facts than this are asked for by demand in the
#: demand-driven evaluation (see :func:`demand_driven`), and not computed whole unless the game must be
#: evaluated as written.
LARGE_STATIC = 200_000


#: The queries whose strata are run on demand, as indexes into ``DatalogReasoner._needed``.
_LEGAL, _TERMINAL, _GOAL, _NEXT, _SEES = range(5)


#: The per-state strata are first planned with the relation sizes of the initial state, which can be
#: unlike the rest of the game (an empty board), and planned again when this many states were seen.
REPLAN_AT = 100


class _StateResults:
    """A state's database with the strata run so far and the answers already given."""

    __slots__ = ("database", "done", "goals", "legal", "legal_ids", "terminal")

    def __init__(self, database: Database) -> None:
        self.database = database
        self.done: frozenset[int] = frozenset()
        self.legal_ids: list[list[int]] | None = None
        self.legal: list[tuple[Term, ...]] | None = None
        self.goals: list[tuple[Term, ...]] | None = None
        self.terminal: bool | None = None


def _faster(rewritten: _Strata, plain: _Strata, state: DatalogState) -> _Strata:
    """Whichever answers ``state`` sooner (the rewritten game by a clear margin, since it evaluates more
    relations, so it is kept only where demand pays); the plain game gets a few times the rewritten
    one's time (plus a little), so that a game that is slow as written costs little more than the trial."""
    start = time.process_time()
    seconds = rewritten.state_seconds(state, math.inf)
    assert seconds is not None
    deadline = time.process_time() + 4 * (time.process_time() - start) + 0.05
    plain_seconds = plain.state_seconds(state, deadline)
    return plain if plain_seconds is not None and plain_seconds <= 1.25 * seconds else rewritten


def demand_driven(checked: CheckedProgram, large: Iterable[str] = ()) -> CheckedProgram:
    """The game rewritten to compute only what ``legal``, ``terminal``, ``goal`` and ``next`` can use.

    Relations that depend on ``true`` or ``does`` are computed per state, so computing only the facts
    some rule asks for pays off there (see :mod:`gdl.datalog.magic`); relations computed once per game
    are left whole, but for the ``large`` ones (names), which are asked for by demand like the others
    wherever only relations asked for by demand read them: computing all of mummymaze1p's 6.5 million
    facts of direction-from/5 took 15 s, where the few facts a step asks for cost microseconds. When
    the rewritten game cannot be stratified, the game is evaluated as written.
    """
    graph: nx.DiGraph = checked.graph
    inputs = {"true", "does"}
    per_state = {
        relation
        for relation in graph.nodes
        if relation not in inputs and not inputs.isdisjoint(nx.descendants(graph, relation))
    }
    queries = ("legal", "terminal", "goal", "next") + (("sees",) if "sees" in graph.nodes else ())
    # The reasoner reads the roles and the initial state whole, and a relation kept whole reads whole
    # what it uses (it is not rewritten, so it makes no demands).
    static = set(large) & set(graph.nodes) - {"role", "init"}
    while outside := {
        relation for relation in static
        if any(reader not in per_state and reader not in static for reader in graph.predecessors(relation))
    }:
        static -= outside
    rewritable = per_state | static
    # Demands fed by every literal before the call are the most selective, but a test in that feed can
    # close a cycle through negation; without tests, and then without the relations still on such a
    # cycle, the rest of the game is rewritten all the same.
    tests = True
    while rewritable:
        program = rewrite(checked.program, queries, rewritable, tests=tests).program
        found = check_rewritten(program, checked).checked
        if found is not None:
            return found
        if tests:
            tests = False
            continue
        cyclic = negative_cycles(dependency_graph(program))
        if not cyclic & rewritable:
            break
        rewritable -= cyclic
    return checked


def negative_cycles(graph: nx.DiGraph) -> set[str]:
    """The relations of the game (magic and adorned names read as the relation they copy) on a cycle of
    ``graph`` that goes through negation."""
    found: set[str] = set()
    for component in nx.strongly_connected_components(graph):
        edges = graph.subgraph(component).edges(data="negative")
        if any(negative for _, _, negative in edges):
            found |= {original_name(relation) for relation in component}
    return found


class _Strata:
    """One program's strata, sorted into layers, with the runners of the strata each query needs.

    Relations computed once per game (layer 0) are evaluated into ``static`` (or taken from ``shared``,
    the static database of another program for the same game, when it has them). With ``large``, a
    static stratum that makes more facts than that in a relation is left out, and so is every static
    stratum reading what was left out (see :attr:`large`): the program is then incomplete until
    :meth:`complete` evaluates them.
    """

    def __init__(
        self, program: CheckedProgram, table: TermTable, shared: Database | None = None,
        large: int | None = None,
    ) -> None:
        self.program = program
        self.evaluator = Evaluator(program, table)
        graph: nx.DiGraph = program.graph
        self._depends_on = depends_on = {node: nx.descendants(graph, node) | {node} for node in graph.nodes}

        def layer(number: int) -> int:
            uses = set().union(*(depends_on.get(r, {r}) for r in program.strata[number].relations))
            return 2 if "does" in uses else 1 if "true" in uses else 0

        self.layers = layers = [layer(number) for number in range(len(program.strata))]
        self.static = shared.extended() if shared is not None else Database()
        #: Relation names of the static strata that made more than ``large`` facts in a relation.
        self.large: set[str] = set()
        #: Static strata left out (numbers): those of :attr:`large` and those reading what they make.
        self.deferred: list[int] = []
        complete = frozenset(self.static.owned)  # a relation split over strata is owned after its first
        with budget("evaluating static relations"):
            for number, level in enumerate(layers):
                heads = {relation_key(rule.head) for rule in program.strata[number].rules}
                if level == 0 and not heads <= complete:
                    self._evaluate_static(number, large)
        self.evaluator.fix(self.static)

        # The state strata that read only fluents no move changes (see gdl.engines.frame) run once per
        # set of those fluents, in a database between the static one and the state's.
        unchanging = unchanging_reads(program.program)
        read = terms_read(program.program)
        #: State strata computed once for each set of the unchanging fluents a state has.
        self.frame = tuple(
            number for number, stratum in enumerate(program.strata)
            if layers[number] == 1 and reads_only(stratum.relations, depends_on, read, unchanging)
        )
        #: The fluents of a state that no move makes (instances of a term of ``unchanging``).
        self._unchanging = selector(unchanging, table)
        self._frames: dict[frozenset[int], Database] = {}
        frame = set(self.frame)

        def needed(relation: str, *levels: int) -> tuple[int, ...]:
            uses = depends_on.get(relation, {relation})
            return tuple(
                number for number, stratum in enumerate(program.strata)
                if layers[number] in levels and stratum.relations & uses and number not in frame
            )

        # legal, terminal and goal are decided before the moves: a relation they use that depends on
        # ``does`` is evaluated in the state, where ``does`` is empty (fire_sheep's terminal needs it).
        #: Per query (``_LEGAL`` ...), the strata it needs in a state.
        self.needed = (
            needed("legal", 1, 2), needed("terminal", 1, 2), needed("goal", 1, 2), needed("next", 1),
            needed("sees", 1),
        )
        self.next_move_strata = needed("next", 2)
        self.sees_move_strata = needed("sees", 2)
        #: (strata done, query) -> (function running the strata still needed, strata done after it).
        self.steps: dict[tuple[frozenset[int], int], tuple[Callable[[Database], None], frozenset[int]]] = {}
        self.move_runner: Callable[[Database], None] | None = None
        self.sees_runner: Callable[[Database], None] | None = None

    def state_database(self, state: DatalogState) -> Database:
        """A database holding ``state`` as ``true``, over the static relations and those of
        :attr:`frame` (computed for the state's unchanging fluents when first seen)."""
        parent = self.static
        if self.frame:
            fluents = self._unchanging(state)
            found = self._frames.get(fluents)
            if found is None:
                if len(self._frames) >= CACHE_SIZE:
                    self._frames.clear()
                found = self._frames[fluents] = Database(self.static)
                found.own("true/1", ((fluent,) for fluent in fluents))
                for number in self.frame:
                    self.evaluator.run(number, found)
            parent = found
        database = Database(parent)
        database.own("true/1", ((fluent,) for fluent in state))
        return database

    def complete(self) -> None:
        """Evaluate the static strata left out for their size (see :attr:`deferred`)."""
        deferred, self.deferred = self.deferred, []
        with budget("evaluating static relations"):
            for number in deferred:
                self._evaluate_static(number, None)
        self.evaluator.fix(self.static)

    def _evaluate_static(self, number: int, large: int | None) -> None:
        """Evaluate a stratum computed once per game, within the fact limits and the budget; with
        ``large``, leave it out (see :attr:`deferred`) when it reads a stratum left out or makes more
        facts than that in a relation."""
        stratum = self.program.strata[number]
        source = self.program.program.source
        total = sum(len(facts) for facts in self.static.relations.values())
        limit = min(STATIC_FACT_LIMIT, STATIC_TOTAL_LIMIT - total)
        heads = {relation_key(rule.head) for rule in stratum.rules}
        if large is not None and not heads & self.static.owned:  # (not a relation split over strata)
            reads = set().union(*(self._depends_on.get(r, {r}) for r in stratum.relations))
            left_out = {r for n in self.deferred for r in self.program.strata[n].relations}
            if reads & left_out:
                self.deferred.append(number)
                return
            limit = min(limit, large)
        else:
            large = None
        try:
            self.evaluator.run(number, self.static, limit, deadline())
        except BudgetExceededError:
            raise
        except GameTooLargeError as problem:
            if large is None or limit < large:
                raise GameTooLargeError(f"cannot evaluate {source!r}: {problem}") from None
            for relation in heads | {key for key in self.static.owned if key.startswith(DELTA)}:
                self.static.forget_indexes(relation)
                self.static.owned.discard(relation)
                self.static.relations.pop(relation, None)
            self.large |= stratum.relations
            self.deferred.append(number)
            return
        except TimeoutError:
            raise exceeded() from None
        if total + limit < STATIC_TOTAL_LIMIT:
            return
        raise GameTooLargeError(
            f"cannot evaluate {source!r}: its relations computed once per game have more than"
            f" {STATIC_TOTAL_LIMIT} facts together"
        )

    def state_seconds(self, state: DatalogState, deadline: float) -> float | None:
        """CPU seconds to take a step from ``state`` once the strata are compiled (by a first run; the
        best of up to three runs), or None when the runs pass ``deadline``: legal, terminal and goal in
        the state, then ``next`` after the joint move of each role's first legal move (a game can be
        cheap to ask about and dear to step, as mummymaze1p's mummy moves are)."""
        numbers = sorted({n for query in (_LEGAL, _TERMINAL, _GOAL, _NEXT) for n in self.needed[query]})
        roles = sorted(fact[0] for fact in self.static.facts("role/1"))
        best = math.inf
        for run in range(4):
            start = time.process_time()
            database = self.state_database(state)
            try:
                for number in numbers:
                    self.evaluator.run(number, database, deadline=deadline)
                moves: dict[int, int] = {}
                for role, move in sorted(database.facts("legal/2")):
                    moves.setdefault(role, move)
                if len(moves) == len(roles) and moves.keys() == set(roles):
                    database = Database(database)
                    database.own("does/2", moves.items())
                    for number in self.next_move_strata:
                        self.evaluator.run(number, database, deadline=deadline)
            except TimeoutError:
                return None
            if time.process_time() > deadline:
                return None
            if run:
                best = min(best, time.process_time() - start)
                if best > 0.05:
                    break  # one run of a slow state is measure enough
        return best


class DatalogReasoner:
    """A :class:`gdl.engines.base.Reasoner` over a stratified bottom-up Datalog evaluator.

    ``demand`` chooses between the game as written and its demand-driven rewriting
    (:func:`demand_driven`): either can be far faster than the other (chess computes millions of
    facts per state as written and a few thousand rewritten; checkers is three times slower
    rewritten), so by default both answer the initial state and the faster one is kept.
    """

    def __init__(self, checked: CheckedProgram, *, demand: bool | None = None) -> None:
        self.checked = checked
        self.table = table = TermTable()
        # A large static relation is asked for by demand; it is computed whole only for the game as
        # written, which is then evaluated only where the rewritten game cannot be.
        strata = plain = _Strata(checked, table, large=LARGE_STATIC if demand is not False else None)
        left_out = {relation for number in plain.deferred for relation in checked.strata[number].relations}
        rewritten = demand_driven(checked, left_out) if demand is not False else checked
        if rewritten is not checked:
            strata = _Strata(rewritten, table, plain.static)
            if demand is None and not plain.deferred:
                initial = frozenset(fact[0] for fact in plain.static.facts("init/1"))
                strata = _faster(strata, plain, initial)
        elif plain.deferred:
            plain.complete()
        self._initial: DatalogState = frozenset(fact[0] for fact in strata.static.facts("init/1"))
        #: Whether states are evaluated by the demand-driven rewriting of the game.
        self.demand_driven = strata is not plain
        self._strata = strata
        self.evaluator = strata.evaluator
        self._states = 0
        self._cache: dict[DatalogState, _StateResults] = {}
        self.roles: tuple[str, ...] = tuple(
            str(rule.head.args[0]) for rule in checked.program.rules
            if rule.head.relation == "role" and len(rule.head.args) == 1 and not rule.body
        )
        self._role_ids = tuple(table.constant(role) for role in self.roles)
        self._role_index = {role: i for i, role in enumerate(self._role_ids)}

    # -- states -------------------------------------------------------------------------------------

    def initial(self) -> DatalogState:
        return self._initial

    def fluents(self, state: DatalogState) -> frozenset[Term]:
        term = self.table.term
        return frozenset(term(fluent) for fluent in state)

    def from_fluents(self, fluents: Iterable[Term]) -> DatalogState:
        intern = self.table.intern
        return frozenset(intern(fluent) for fluent in fluents)

    def _results(self, state: DatalogState, query: int) -> _StateResults:
        """The state's results, with the strata that ``query`` (a ``_QUERIES`` index) needs run."""
        results = self._cache.get(state)
        if results is None:
            if len(self._cache) >= CACHE_SIZE:
                for old in list(islice(self._cache, CACHE_SIZE // 2)):
                    del self._cache[old]
            self._states += 1
            if self._states == REPLAN_AT:
                self._replan()
            database = self._strata.state_database(state)
            results = self._cache[state] = _StateResults(database)
        strata = self._strata
        key = (results.done, query)
        step = strata.steps.get(key)
        if step is None:
            todo = tuple(n for n in strata.needed[query] if n not in results.done)
            # The first state to need these strata runs them while they are compiled.
            runner = strata.evaluator.runner(todo, results.database)
            step = strata.steps[key] = (runner, results.done | frozenset(todo))
            results.done = step[1]
            return results
        step[0](results.database)
        results.done = step[1]
        return results

    def _replan(self) -> None:
        """Plan the per-state strata again, by the relation sizes of a state deeper in the game."""
        strata = self._strata
        strata.evaluator.replan(n for n, level in enumerate(strata.layers) if level > 0)
        strata.steps.clear()
        strata.move_runner = strata.sees_runner = None

    # -- relations ----------------------------------------------------------------------------------

    def legal(self, state: DatalogState, role: int) -> tuple[Term, ...]:
        results = self._cache.get(state)
        if results is None or results.legal is None:
            results = self._legal_results(state)
            term = self.table.term
            results.legal = [tuple(map(term, ids)) for ids in results.legal_ids or ()]
        return results.legal[role]

    def _legal_results(self, state: DatalogState) -> _StateResults:
        """The state's results with the legal moves' ids of each role, in the order of :meth:`legal`."""
        results = self._cache.get(state)
        if results is None or results.legal_ids is None:
            results = self._results(state, _LEGAL)
            results.legal_ids = self._ids_by_role(results.database, "legal/2")
        return results

    def depth_charge(
        self, state: DatalogState, rng: random.Random, max_depth: int
    ) -> tuple[DatalogState, int, bool]:
        """:func:`gdl.engines.base.depth_charge` on term ids: the same moves as the walk through
        :meth:`legal` and :meth:`next` with the same ``rng``, without making their terms."""
        roles = range(len(self.roles))
        depth = 0
        while not self.terminal(state):
            if depth == max_depth:
                return state, depth, False
            legal = self._legal_results(state).legal_ids
            assert legal is not None
            moves = []
            for role in roles:
                ids = legal[role]
                if not ids:
                    return state, depth, False
                moves.append(ids[rng.randrange(len(ids))])
            state = self._next_ids(state, moves)
            depth += 1
        return state, depth, True

    def goals(self, state: DatalogState, role: int) -> tuple[Term, ...]:
        results = self._cache.get(state)
        if results is None or results.goals is None:
            results = self._results(state, _GOAL)
            results.goals = self._by_role(results.database, "goal/2")
        return results.goals[role]

    def terminal(self, state: DatalogState) -> bool:
        results = self._results(state, _TERMINAL)
        if results.terminal is None:
            results.terminal = bool(results.database.facts("terminal/0"))
        return results.terminal

    def next(self, state: DatalogState, moves: Sequence[Term]) -> DatalogState:
        if len(moves) != len(self.roles):
            raise GameDefinitionError(f"joint move has {len(moves)} moves for {len(self.roles)} roles")
        return self._next_ids(state, list(map(self.table.intern, moves)))

    def _next_ids(self, state: DatalogState, moves: list[int]) -> DatalogState:
        database = self._with_moves(state, moves, _NEXT)
        strata = self._strata
        if strata.move_runner is None:
            strata.move_runner = strata.evaluator.runner(strata.next_move_strata, database)
        else:
            strata.move_runner(database)
        return frozenset(fact[0] for fact in database.facts("next/1"))

    def sees(self, state: DatalogState, moves: Sequence[Term]) -> tuple[frozenset[Term], ...]:
        if len(moves) != len(self.roles):
            raise GameDefinitionError(f"joint move has {len(moves)} moves for {len(self.roles)} roles")
        database = self._with_moves(state, list(map(self.table.intern, moves)), _SEES)
        strata = self._strata
        if strata.sees_runner is None:
            strata.sees_runner = strata.evaluator.runner(strata.sees_move_strata, database)
        else:
            strata.sees_runner(database)
        return tuple(frozenset(percepts) for percepts in self._by_role(database, "sees/2"))

    def _with_moves(self, state: DatalogState, moves: list[int], query: int) -> Database:
        """A database over the state's, with the strata ``query`` needs in the state run, and ``moves``
        (ids, one per role)."""
        results = self._results(state, query)
        database = Database(results.database)
        database.own("does/2", zip(self._role_ids, moves, strict=True))
        return database

    def _by_role(self, database: Database, relation: str) -> list[tuple[Term, ...]]:
        """For each role, the second arguments of its facts of ``relation``, sorted by KIF text."""
        term = self.table.term
        return [tuple(map(term, ids)) for ids in self._ids_by_role(database, relation)]

    def _ids_by_role(self, database: Database, relation: str) -> list[list[int]]:
        """For each role, the ids of the second arguments of its facts of ``relation``, sorted by KIF
        text."""
        found: list[list[int]] = [[] for _ in self.roles]
        index = self._role_index.get
        for role, value in database.facts(relation):
            position = index(role)
            if position is not None:
                found[position].append(value)
        text = self.table.text
        for ids in found:
            ids.sort(key=text)
        return found
