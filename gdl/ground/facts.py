"""Fact tables: ground argument tuples per relation with hash indexes on chosen sub-terms, and the budget
that limits how many there may be."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable

from gdl.budget import checkpoint
from gdl.errors import GameTooLargeError
from gdl.ground.grounding import Value

_Index = dict[tuple["Value | None", ...], list[tuple[Value, ...]]]


class Facts:
    """Sets of ground argument tuples per relation, with hash indexes on chosen argument positions."""

    def __init__(self) -> None:
        self.sets: dict[str, set[tuple[Value, ...]]] = defaultdict(set)
        self._indexes: dict[tuple[str, tuple[ArgPath, ...]], _Index] = {}
        self._by_relation: dict[str, list[tuple[tuple[ArgPath, ...], _Index]]]
        self._by_relation = defaultdict(list)
        self.count = 0

    def add(self, relation: str, args: tuple[Value, ...]) -> bool:
        facts = self.sets[relation]
        if args in facts:
            return False
        facts.add(args)
        self.count += 1
        for paths, index in self._by_relation[relation]:
            index.setdefault(tuple(value_at(args, path) for path in paths), []).append(args)
        return True

    def discard(self, relation: str) -> None:
        """Forget every fact of ``relation`` and its indexes."""
        self.count -= len(self.sets.pop(relation, ()))
        self._by_relation.pop(relation, None)
        for key in [key for key in self._indexes if key[0] == relation]:
            del self._indexes[key]

    def fanout(self, relation: str, paths: tuple[ArgPath, ...]) -> float:
        """The average number of facts that share the values at ``paths``."""
        facts = self.sets.get(relation, ())
        if not paths or not facts:
            return float(len(facts))
        self.lookup(relation, paths, ())
        return len(facts) / max(len(self._indexes[(relation, paths)]), 1)

    def lookup(
        self, relation: str, paths: tuple[ArgPath, ...], key: tuple[Value, ...]
    ) -> Iterable[tuple[Value, ...]]:
        if not paths:
            return self.sets.get(relation, ())
        index = self._indexes.get((relation, paths))
        if index is None:
            index = {}
            for args in self.sets.get(relation, ()):
                index.setdefault(tuple(value_at(args, path) for path in paths), []).append(args)
            self._indexes[(relation, paths)] = index
            self._by_relation[relation].append((paths, index))
        return index.get(key, ())


#: Where a sub-term sits in an argument tuple: indexes into nested tuples (0 is a function's name).
ArgPath = tuple[int, ...]


def value_at(args: tuple[Value, ...], path: ArgPath) -> Value | None:
    value: Value | tuple[Value, ...] = args
    for step in path:
        if not isinstance(value, tuple) or step >= len(value):
            return None
        value = value[step]
    return value


class Budget:
    """Limits on ground atoms or rules and on CPU time; over a limit, says where the atoms went."""

    #: How many of the largest relations the message names.
    shown = 3

    def __init__(self, max_atoms: int, max_seconds: float, what: str) -> None:
        self.max_atoms = max_atoms
        self.deadline = time.process_time() + max_seconds
        self.max_seconds = max_seconds
        self.what = what
        #: The relaxed atoms so far, per relation (set by :func:`instantiate`).
        self.facts: Facts | None = None
        #: Ground rules so far, per head relation.
        self.rules: defaultdict[str, int] = defaultdict(int)
        #: The rule whose join is running, and the bindings it has found so far.
        self.joining: tuple[str, int] = ("", 0)

    def sizes(self) -> list[tuple[int, str]]:
        """The largest counts so far, as (count, "relation: count kind"), largest first."""
        found = [(count, f"{relation}: {count} rules") for relation, count in self.rules.items()]
        if self.facts is not None:
            sets = self.facts.sets.items()
            found += [(len(facts), f"{relation}: {len(facts)} atoms") for relation, facts in sets]
        relation, bindings = self.joining
        if bindings:
            found.append((bindings, f"{relation}: {bindings} bindings of one rule"))
        return sorted(found, reverse=True)

    def _where(self) -> str:
        largest = [text for count, text in self.sizes()[: self.shown] if count]
        return f" ({', '.join(largest)})" if largest else ""

    def tick_now(self) -> None:
        checkpoint()  # the budgets of loading as a whole
        if time.process_time() > self.deadline:
            raise GameTooLargeError(
                f"cannot instantiate {self.what!r} within {self.max_seconds:g} s{self._where()}"
            )

    def atoms(self, count: int) -> None:
        if count > self.max_atoms:
            raise GameTooLargeError(
                f"cannot instantiate {self.what!r}: more than {self.max_atoms} ground atoms or rules"
                + self._where()
            )
