"""The Datalog reasoner: game relations by bottom-up evaluation, sharing everything a state cannot change.

The strata of a game fall into three layers. Static strata (relations that depend on neither ``true``
nor ``does``) run once per game. State strata (depending on ``true`` only) run per state, and only
those that the relation asked for (``legal``, ``terminal``, ``goal``) needs, with the results kept
for the most recently used states. Move strata (depending on ``does``) run per joint move, for
``next``. A state is a frozenset of interned fluent ids; terms of the clause model appear only at the
API boundary.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import islice

import networkx as nx

from gdl.check import CheckedProgram
from gdl.datalog.evaluator import Database, Evaluator
from gdl.errors import GameDefinitionError
from gdl.syntax.model import Term

#: A state of this reasoner: the ids of its fluents.
DatalogState = frozenset[int]

#: How many evaluated states are kept. A playout asks about each state several times in a row, then
#: never again; a state's database can be large (hundreds of thousands of facts in amazons).
CACHE_SIZE = 8


#: The queries whose strata are run on demand, as indexes into ``DatalogReasoner._needed``.
_LEGAL, _TERMINAL, _GOAL, _NEXT = range(4)


#: The per-state strata are first planned with the relation sizes of the initial state, which can be
#: unlike the rest of the game (an empty board), and planned again when this many states were seen.
REPLAN_AT = 100


class _StateResults:
    """A state's database with the strata run so far and the answers already given."""

    __slots__ = ("database", "done", "goals", "legal", "terminal")

    def __init__(self, database: Database) -> None:
        self.database = database
        self.done: frozenset[int] = frozenset()
        self.legal: list[tuple[Term, ...]] | None = None
        self.goals: list[tuple[Term, ...]] | None = None
        self.terminal: bool | None = None


class DatalogReasoner:
    """A :class:`gdl.engines.base.Reasoner` over a stratified bottom-up Datalog evaluator."""

    def __init__(self, checked: CheckedProgram) -> None:
        self.checked = checked
        self.evaluator = evaluator = Evaluator(checked)
        self.table = table = evaluator.table
        graph: nx.DiGraph = checked.graph
        depends_on = {node: nx.descendants(graph, node) | {node} for node in graph.nodes}

        def layer(number: int) -> int:
            uses = set().union(*(depends_on.get(r, {r}) for r in checked.strata[number].relations))
            return 2 if "does" in uses else 1 if "true" in uses else 0

        layers = [layer(number) for number in range(len(checked.strata))]
        self._static = Database()
        for number, level in enumerate(layers):
            if level == 0:
                evaluator.run(number, self._static)
        evaluator.fix(self._static)

        def needed(relation: str, *levels: int) -> tuple[int, ...]:
            uses = depends_on.get(relation, {relation})
            return tuple(
                number for number, stratum in enumerate(checked.strata)
                if layers[number] in levels and stratum.relations & uses
            )

        # legal, terminal and goal are decided before the moves: a relation they use that depends on
        # ``does`` is evaluated in the state, where ``does`` is empty (fire_sheep's terminal needs it).
        #: Per query (``_LEGAL`` ...), the strata it needs in a state.
        self._needed = (
            needed("legal", 1, 2), needed("terminal", 1, 2), needed("goal", 1, 2), needed("next", 1)
        )
        self._next_move_strata = needed("next", 2)
        #: (strata done, query) -> (function running the strata still needed, strata done after it).
        self._steps: dict[tuple[frozenset[int], int], tuple[Callable[[Database], None], frozenset[int]]] = {}
        self._move_runner: Callable[[Database], None] | None = None
        self._layers = layers
        self._states = 0

        self.roles: tuple[str, ...] = tuple(
            str(rule.head.args[0]) for rule in checked.program.rules
            if rule.head.relation == "role" and len(rule.head.args) == 1 and not rule.body
        )
        self._role_ids = tuple(table.constant(role) for role in self.roles)
        self._role_index = {role: i for i, role in enumerate(self._role_ids)}
        self._initial: DatalogState = frozenset(fact[0] for fact in self._static.facts("init/1"))
        self._cache: dict[DatalogState, _StateResults] = {}

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
            database = Database(self._static)
            database.own("true/1", ((fluent,) for fluent in state))
            results = self._cache[state] = _StateResults(database)
        key = (results.done, query)
        step = self._steps.get(key)
        if step is None:
            todo = tuple(n for n in self._needed[query] if n not in results.done)
            # The first state to need these strata runs them while they are compiled.
            runner = self.evaluator.runner(todo, results.database)
            step = self._steps[key] = (runner, results.done | frozenset(todo))
            results.done = step[1]
            return results
        step[0](results.database)
        results.done = step[1]
        return results

    def _replan(self) -> None:
        """Plan the per-state strata again, by the relation sizes of a state deeper in the game."""
        self.evaluator.replan(n for n, level in enumerate(self._layers) if level > 0)
        self._steps.clear()
        self._move_runner = None

    # -- relations ----------------------------------------------------------------------------------

    def legal(self, state: DatalogState, role: int) -> tuple[Term, ...]:
        results = self._cache.get(state)
        if results is None or results.legal is None:
            results = self._results(state, _LEGAL)
            results.legal = self._by_role(results.database, "legal/2")
        return results.legal[role]

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
        results = self._results(state, _NEXT)
        database = Database(results.database)
        intern = self.table.intern
        database.own("does/2", zip(self._role_ids, map(intern, moves), strict=True))
        if self._move_runner is None:
            self._move_runner = self.evaluator.runner(self._next_move_strata, database)
        else:
            self._move_runner(database)
        return frozenset(fact[0] for fact in database.facts("next/1"))

    def _by_role(self, database: Database, relation: str) -> list[tuple[Term, ...]]:
        """For each role, the second arguments of its facts of ``relation``, sorted by KIF text."""
        found: list[list[int]] = [[] for _ in self.roles]
        index = self._role_index.get
        for role, value in database.facts(relation):
            position = index(role)
            if position is not None:
                found[position].append(value)
        table = self.table
        return [tuple(map(table.term, sorted(ids, key=table.text))) for ids in found]
