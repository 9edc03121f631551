"""The compiled engine: the propositional network turned into generated Python code over integer bitsets.

A state is an ``int`` with bit ``i`` set when base proposition ``i`` holds. Generated functions
evaluate the parts of the network a question needs: ``analyse(s)`` (terminal and every role's legal moves,
as bit masks over the sorted legal outputs), ``goals(s)``, ``successor(s, d)`` (``d`` has a bit per
input) and, in a GDL-II game with percepts, ``percepts(s, d)`` (masks over each role's sorted ``sees``
outputs). A gate reads several base propositions at once with one mask test, and a disjunction of moves
with one mask test on ``d``.

Writing and ``compile()``-ing that code costs about 10 microseconds per gate input, as much as
instantiating the game: on a large network (kalaha's successor reads 1.5 million gate inputs) it took
longer than instantiation. So a function whose gates read more than ``code_limit`` gate inputs is not
written: a :class:`gdl.engines.sweep.Sweep` stands for it, the same gates evaluated from tables by a
native kernel, which costs a fraction of that to build and runs faster on a large network too. Once
one function is a sweep (numba is loaded), so is every function over :data:`SWEPT_TOO` gate inputs; a
game whose functions are all small stays generated code, which needs no numba at load time.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property

from gdl.budget import checkpoint
from gdl.check import CheckedProgram
from gdl.engines.base import Charges, charges_arguments, goal_value
from gdl.engines.native import TALLY_GOALS, TALLY_MOVES, TALLY_TERMINAL, TERMINAL, Kernel, flatten
from gdl.engines.sweep import Sweep, loaded_kernel
from gdl.errors import GameDefinitionError
from gdl.ground.grounding import Grounding, term_of
from gdl.ground.instantiate import DEFAULT_MAX_ATOMS, DEFAULT_MAX_SECONDS, instantiate
from gdl.ground.propnet import FALSE, TRUE, Gate, PropNet, build
from gdl.syntax.model import Term

#: The most gate inputs a generated function may read, by default (see :class:`CompiledReasoner`).
#: Writing and compiling Python costs about 10 microseconds per gate input, as much as instantiating
#: the game; a sweep's tables cost a fraction of that, and a sweep runs faster on a large cone.
DEFAULT_CODE_LIMIT = 20_000
#: Once one function is a sweep (numba is loaded), the others over this many gate inputs are sweeps
#: too: from about a thousand gate inputs (connect four's functions read 700 to 900), a sweep is built
#: and run faster than generated code.
SWEPT_TOO = 1_000
#: Terms per statement when an output mask is assembled (keeps the compiler's recursion shallow).
_CHUNK = 64
#: How deep gates are written into each other's expressions (the parser limits nesting).
_MAX_NESTING = 20
#: Masks wider than this are named constants of the generated code, not literals: a literal's text grows
#: with the number of base propositions, and a large network reads hundreds of thousands of masks.
_LITERAL_BITS = 256


class _Constants:
    """The names of the wide masks that generated code reads; narrow ones are written as literals."""

    def __init__(self) -> None:
        #: The value of each name, for the namespace of the generated code.
        self.values: dict[str, int] = {}
        self._names: dict[int, str] = {}

    def __call__(self, value: int) -> str:
        if value.bit_length() <= _LITERAL_BITS:
            return f"{value:#x}"
        name = self._names.get(value)
        if name is None:
            name = self._names[value] = f"k{len(self._names)}"
            self.values[name] = value
        return name


class _Writer:
    """Writes the straight-line code of one function over the gates of the network it needs.

    A gate read once is written into the expression that reads it rather than into a variable.
    """

    def __init__(self, net: PropNet, outputs: Sequence[int], constant: _Constants, gates: list[int]) -> None:
        """``gates`` is ``net.cone(outputs)``."""
        self.net = net
        self.constant = constant
        self.first_input = net.first_input
        self.first_gate = net.first_gate
        self.block_of = net.block_of
        self.gates = gates
        uses: Counter[int] = Counter()
        for node in self.gates:
            if self._kind(node) is not Gate.NOT:
                uses.update(self._literal(arg)[0] for arg in net.args[node - self.first_gate])
        uses.update(self._literal(node)[0] for node in outputs)
        self.inline = {
            node
            for node in self.gates
            if uses[node] == 1 and node not in self.block_of and self._kind(node) is not Gate.NOT
        }
        #: Inlined gates that the nesting limit made a writing refer to by name (see :meth:`write`).
        self.spilled: set[int] = set()
        self._factorable_masks: dict[int, int] = {}

    def _kind(self, node: int) -> Gate | None:
        return self.net.kinds[node - self.first_gate] if node >= self.first_gate else None

    def _literal(self, node: int) -> tuple[int, bool]:
        """The node a literal reads, and whether it is read positively (looking through not-gates)."""
        positive = True
        while self._kind(node) is Gate.NOT:
            node = self.net.args[node - self.first_gate][0]
            positive = not positive
        return node, positive

    def _gate(self, node: int, depth: int) -> str:
        if node in self.inline:
            if depth < _MAX_NESTING:
                return f"({self.expression(node, depth + 1)})"
            self.spilled.add(node)
        return f"g{node}"

    def write(self, emit: Callable[[_Writer], list[str]]) -> list[str]:
        """The lines ``emit`` writes, written again until every gate they name has a variable.

        A gate read once is inlined, but past the nesting limit it is named instead; such gates lose
        their inlining and the function is written again (the inlined set only shrinks, so this ends).
        """
        while True:
            self.spilled.clear()
            lines = emit(self)
            if not self.spilled:
                return lines
            self.inline -= self.spilled
            self._factorable_masks.clear()

    def operand(self, node: int, depth: int = 0) -> str:
        """A boolean expression for a node's value."""
        if node == TRUE:
            return "True"
        if node == FALSE:
            return "False"
        node, positive = self._literal(node)
        test = "!=" if positive else "=="
        if node < self.first_input:
            return f"s & {self.constant(1 << node)} {test} 0"
        if node < self.first_gate:
            return f"d & {self.constant(1 << (node - self.first_input))} {test} 0"
        text = self._gate(node, depth)
        return text if positive else f"not {text}"

    def expression(self, node: int, depth: int = 0, known: int = 0) -> str:
        """The gate's expression; ``known`` has the base propositions already known to hold."""
        kind = self._kind(node)
        if kind is Gate.NOT:
            return self.operand(node, depth)
        conjunction = kind is Gate.AND
        masks = {("s", True): 0, ("s", False): 0, ("d", True): 0, ("d", False): 0}
        parts: list[str] = []
        args = self.net.args[node - self.first_gate]
        if not conjunction and depth < _MAX_NESTING:
            # Conjunctions of base propositions under a disjunction are tested by a decision on the
            # proposition most of them read (e.g. the lines through a cell of a board).
            factorable = [arg for arg in args if self._factorable(arg)]
            if len(factorable) >= 4:
                items = [
                    (self._factorable(arg), self.expression(arg, depth + 1, self._factorable(arg)))
                    for arg in factorable
                ]
                parts.append(_decide(items, self.constant))
                args = tuple(arg for arg in args if not self._factorable(arg))
        for arg in args:
            target, positive = self._literal(arg)
            if target < self.first_input:
                masks[("s", positive)] |= 1 << target
            elif target < self.first_gate:
                masks[("d", positive)] |= 1 << (target - self.first_input)
            else:
                gate = self._gate(target, depth)
                parts.append(gate if positive else f"not {gate}")
        if conjunction:
            masks[("s", True)] &= ~known
        tests = []
        for (var, positive), mask in masks.items():
            if not mask:
                continue
            m = self.constant(mask)
            if conjunction:
                tests.append(f"{var} & {m} == {m}" if positive else f"not {var} & {m}")
            else:
                tests.append(f"{var} & {m} != 0" if positive else f"{var} & {m} != {m}")
        parts = tests + parts
        if not parts:
            return "True" if conjunction else "False"
        return (" and " if conjunction else " or ").join(parts)

    def body(self) -> list[str]:
        lines = []
        done_blocks = set()
        for count, node in enumerate(self.gates):
            if count % 1024 == 0:
                checkpoint()
            block = self.block_of.get(node)
            if block is None:
                if self._kind(node) is not Gate.NOT and node not in self.inline:
                    lines.append(f"    g{node} = {self.expression(node)}")
                continue
            if block in done_blocks:
                continue
            done_blocks.add(block)
            members = [n for n in range(*block) if self._kind(n) is not Gate.NOT]
            names = ", ".join(f"g{n}" for n in members) + ","
            lines.append("    " + " = ".join(f"g{n}" for n in members) + " = False")
            lines.append("    while True:")
            lines.append(f"        old = ({names})")
            lines.extend(f"        g{n} = {self.expression(n)}" for n in members)
            lines.append(f"        if ({names}) == old:")
            lines.append("            break")
        return lines

    def _factorable(self, node: int) -> int:
        """The base propositions a conjunction written into an output's test reads positively."""
        mask = self._factorable_masks.get(node)
        if mask is None:
            mask = 0
            if node >= self.first_gate and node in self.inline and self._kind(node) is Gate.AND:
                for arg in self.net.args[node - self.first_gate]:
                    if arg < self.first_input:
                        mask |= 1 << arg
            self._factorable_masks[node] = mask
        return mask

    def _term(self, bit: int, node: int, known: int) -> str:
        test = self.expression(node, 1, known) if known else self.operand(node)
        return f"({self.constant(1 << bit)} if {test} else 0)"

    def mask(self, name: str, bits: Sequence[tuple[int, int]]) -> list[str]:
        """Statements setting ``name`` to the int with bit ``k`` set when node ``n`` holds, for (k, n).

        The outputs whose tests share a base proposition (e.g. whose turn it is) are tested under one
        test of it, so that they cost nothing in the states where it does not hold.
        """
        shared, count = _most_shared_bit(self._factorable(node) for _, node in bits)
        if count < 4:
            shared = 0
        plain = [
            self.constant(1 << bit) if node == TRUE else self._term(bit, node, 0)
            for bit, node in bits
            if node != FALSE and not self._factorable(node) & shared
        ]
        grouped = [self._term(bit, node, shared) for bit, node in bits if self._factorable(node) & shared]
        lines = [f"    {name} = 0"]
        for start in range(0, len(plain), _CHUNK):
            lines.append(f"    {name} |= " + " | ".join(plain[start : start + _CHUNK]))
        if grouped:
            lines.append(f"    if s & {self.constant(shared)}:")
            for start in range(0, len(grouped), _CHUNK):
                lines.append(f"        {name} |= " + " | ".join(grouped[start : start + _CHUNK]))
        return lines


def function_outputs(net: PropNet) -> dict[str, list[int]]:
    """The nodes each generated function reads out: ``analyse`` (terminal, then every role's legal
    outputs), ``goals``, ``successor`` (the ``next`` of the base propositions that may change) and, with
    percepts, ``percepts``."""
    functions = {
        "analyse": [net.terminal, *(node for entries in net.legal for _, node in entries)],
        "goals": [node for entries in net.goals for _, node in entries],
        "successor": [node for i, node in enumerate(net.next) if node != i],
    }
    if net.sees:
        functions["percepts"] = [node for entries in net.sees for _, node in entries]
    return functions


def generate(net: PropNet, cones: dict[str, list[int]] | None = None) -> tuple[str, dict[str, int]]:
    """The Python source of the functions named in ``cones`` (by default all of :func:`function_outputs`),
    with the gates each needs (``net.cone`` of its outputs), and the wide masks the source names."""
    constant = _Constants()
    legal = [[(k, node) for k, (_, node) in enumerate(entries)] for entries in net.legal]
    goals = [[(k, node) for k, (_, node) in enumerate(entries)] for entries in net.goals]
    sees = [[(k, node) for k, (_, node) in enumerate(entries)] for entries in net.sees]
    results = ", ".join(f"legal{role}" for role in range(len(legal)))

    def analyse(writer: _Writer) -> list[str]:
        lines = ["def analyse(s):", *writer.body()]
        for role, bits in enumerate(legal):
            lines += writer.mask(f"legal{role}", bits)
        return [*lines, f"    return ({writer.operand(net.terminal)}, ({results},))"]

    def goal_values(writer: _Writer) -> list[str]:
        lines = ["def goals(s):", *writer.body()]
        for role, bits in enumerate(goals):
            lines += writer.mask(f"goal{role}", bits)
        return [*lines, f"    return ({', '.join(f'goal{role}' for role in range(len(goals)))},)"]

    changing = [(i, node) for i, node in enumerate(net.next) if node != i]
    identity = sum(1 << i for i, node in enumerate(net.next) if node == i)

    def successor(writer: _Writer) -> list[str]:
        lines = ["def successor(s, d):", *writer.body(), *writer.mask("state", changing)]
        return [*lines, f"    return state | s & {constant(identity)}"]

    def percepts(writer: _Writer) -> list[str]:
        lines = ["def percepts(s, d):", *writer.body()]
        for role, bits in enumerate(sees):
            lines += writer.mask(f"sees{role}", bits)
        return [*lines, f"    return ({', '.join(f'sees{role}' for role in range(len(sees)))},)"]

    emitters = {"analyse": analyse, "goals": goal_values, "successor": successor, "percepts": percepts}
    outputs = function_outputs(net)
    if cones is None:
        cones = {name: net.cone(nodes) for name, nodes in outputs.items()}
    lines: list[str] = []
    for name, cone in cones.items():
        lines += _Writer(net, outputs[name], constant, cone).write(emitters[name])
    return "\n".join(lines) + "\n", constant.values


def _most_shared_bit(masks: Iterable[int]) -> tuple[int, int]:
    """The bit (as a mask) set in the most of ``masks``, and in how many; (0, 0) when none is set."""
    counts: Counter[int] = Counter()
    for mask in masks:
        while mask:
            low = mask & -mask
            counts[low] += 1
            mask ^= low
    return counts.most_common(1)[0] if counts else (0, 0)


def _decide(items: list[tuple[int, str]], constant: _Constants) -> str:
    """A disjunction of conjunctions ``s & mask == mask and rest``, deciding first on the shared bits."""
    return _decide_bits([(_bit_indexes(mask), rest) for mask, rest in items], constant)


def _decide_bits(items: list[tuple[tuple[int, ...], str]], constant: _Constants) -> str:
    """:func:`_decide` over the masks' bit indexes, ascending (a wide mask is costly to take apart at
    every level of the decision)."""
    decided = []
    while items:
        counts = Counter(bit for bits, _ in items for bit in bits)
        shared, count = counts.most_common(1)[0] if counts else (0, 0)
        if count < 3:
            for bits, rest in items:
                mask = constant(sum(1 << bit for bit in bits))
                tests = [f"s & {mask} == {mask}"] if bits else []
                tests += [] if rest == "True" else [f"({rest})"]
                decided.append("(" + (" and ".join(tests) or "True") + ")")
            break
        inner = [(tuple(b for b in bits if b != shared), rest) for bits, rest in items if shared in bits]
        decided.append(f"(s & {constant(1 << shared)} != 0 and ({_decide_bits(inner, constant)}))")
        items = [(bits, rest) for bits, rest in items if shared not in bits]
    return " or ".join(decided)


def _bit_indexes(mask: int) -> tuple[int, ...]:
    """The indexes of the bits set in ``mask``, ascending."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return tuple(found)


def _gate_inputs(net: PropNet, cone: list[int]) -> int:
    """The gate inputs (edges) of the gates ``cone``."""
    args = net.args
    first_gate = net.first_gate
    return sum(len(args[node - first_gate]) for node in cone)


def _sweep_outputs(net: PropNet, function: str) -> list[int]:
    """The outputs of a sweep standing for one of :func:`function_outputs`: the same, except that the
    successor reads every base proposition's ``next`` (so that its bits are the next state)."""
    return list(net.next) if function == "successor" else function_outputs(net)[function]


def _split(
    sweep: Sweep, entries: Sequence[Sequence[object]], terminal: bool = False
) -> Callable[..., object]:
    """A function like the generated one a sweep stands for: each role's mask over its ``entries``
    (after the terminal bit, with ``terminal``: ``analyse``'s ``(terminal, masks)``)."""
    spans = []
    start = int(terminal)
    for role_entries in entries:
        spans.append((start, (1 << len(role_entries)) - 1))
        start += len(role_entries)

    def masks(state: int, inputs: int = 0) -> tuple[int, ...]:
        bits = sweep(state, inputs)
        return tuple(bits >> first & mask for first, mask in spans)

    def analyse(state: int) -> tuple[bool, tuple[int, ...]]:
        bits = sweep(state)
        return bool(bits & 1), tuple(bits >> first & mask for first, mask in spans)

    return analyse if terminal else masks


class CompiledReasoner:
    """A :class:`gdl.engines.base.Reasoner` over int bitsets, from generated code (see the module doc)."""

    def __init__(
        self,
        checked: CheckedProgram,
        max_atoms: int = DEFAULT_MAX_ATOMS,
        max_seconds: float = DEFAULT_MAX_SECONDS,
        code_limit: int = DEFAULT_CODE_LIMIT,
        network: tuple[Grounding, PropNet] | None = None,
    ) -> None:
        """``code_limit``: the most gate inputs a function's generated code may read; a function that
        needs more is a :class:`gdl.engines.sweep.Sweep` (-1: every function is), and then so is every
        function over :data:`SWEPT_TOO`. ``network``: the
        game's grounding and network, when built already (the budgets then do not apply to them).

        Loading checks the budgets of :mod:`gdl.budget` as it goes (:func:`gdl.budget.checkpoint`)."""
        started = time.process_time()
        if network is None:
            self.grounding = instantiate(checked, max_atoms, max_seconds)
            self.net = build(self.grounding)
        else:
            self.grounding, self.net = network
        built = time.process_time()
        self.roles = self.net.roles
        net = self.net
        outputs = function_outputs(net)
        cones = {name: net.cone(nodes) for name, nodes in outputs.items()}
        checkpoint()
        found = time.process_time()
        sizes = {name: _gate_inputs(net, cone) for name, cone in cones.items()}
        if max(sizes.values()) > code_limit:
            code_limit = min(code_limit, SWEPT_TOO)
        written = {name: cone for name, cone in cones.items() if sizes[name] <= code_limit}
        self.source, constants = generate(net, written)
        checkpoint()
        generated = time.process_time()
        namespace: dict[str, object] = dict(constants)
        exec(compile(self.source, f"<compiled {checked.program.source}>", "exec"), namespace)
        compiled = time.process_time()
        large = [name for name in cones if name not in written]
        if large:
            loaded_kernel()
        loaded = time.process_time()
        swept = {name: Sweep(net, _sweep_outputs(net, name), cones[name]) for name in large}
        #: CPU seconds of each phase of loading: instantiation and the network (0 when they were handed
        #: in), the gates each function needs, code generation, compile(), loading the sweeps' kernel
        #: (numba's import: once per process) and the tables of the functions too large for generated
        #: code (:class:`gdl.engines.sweep.Sweep`).
        self.phases = {
            "instantiate": self.grounding.seconds if network is None else 0.0,
            "network": built - started - self.grounding.seconds if network is None else 0.0,
            "cones": found - built,
            "generate": generated - found,
            "compile": compiled - generated,
            "kernel": loaded - compiled,
            "tables": time.process_time() - loaded,
        }
        #: The functions evaluated by a sweep rather than generated code.
        self.swept = frozenset(swept)
        self._analyse = namespace.get("analyse") or _split(swept["analyse"], net.legal, terminal=True)
        self._goals = namespace.get("goals") or _split(swept["goals"], net.goals)
        self._successor = namespace.get("successor") or swept["successor"]
        self._percepts = namespace.get("percepts") or (
            _split(swept["percepts"], net.sees) if "percepts" in swept else None
        )
        self._sees_terms = [tuple(term_of(p) for p, _ in entries) for entries in self.net.sees]
        self._fluent_terms = [term_of(f) for f in self.net.fluents]
        self._bit_of = {term: 1 << i for i, term in enumerate(self._fluent_terms)}
        self._input_of: dict[tuple[int, Term], int] = {
            (role, term_of(move)): 1 << j for j, (role, move) in enumerate(self.net.moves)
        }
        self._legal_terms = [tuple(term_of(m) for m, _ in entries) for entries in self.net.legal]
        # The moves handed out by legal() are found by identity, without hashing the terms.
        self._input_by_identity = [
            {id(term): self._input_of[(role, term)] for term in terms}
            for role, terms in enumerate(self._legal_terms)
        ]
        #: The last state whose goals were asked for, and each role's goal values in it.
        self._goal_cache: tuple[int, tuple[tuple[Term, ...], ...]] = (-1, ())
        #: Each role's goal values, by the goals' key of a native playout (see :meth:`depth_charge`).
        self._goals_by_key: dict[int, tuple[tuple[Term, ...], ...]] = {}
        self._goal_terms = [tuple(term_of(v) for v, _ in entries) for entries in self.net.goals]
        self._decoded: dict[tuple[int, int], tuple[Term, ...]] = {}
        self._cache: dict[int, tuple[bool, tuple[int, ...]]] = {}
        self._initial = sum(1 << i for i in self.net.init)

    def initial(self) -> int:
        return self._initial

    def fluents(self, state: int) -> frozenset[Term]:
        terms = self._fluent_terms
        return frozenset(terms[i] for i in range(state.bit_length()) if state >> i & 1)

    def from_fluents(self, fluents: Iterable[Term]) -> int:
        state = 0
        for fluent in fluents:
            bit = self._bit_of.get(fluent)
            if bit is None:
                raise GameDefinitionError(f"fluent {str(fluent)!r} can never hold in this game")
            state |= bit
        return state

    def analyse(self, state: int) -> tuple[bool, tuple[int, ...]]:
        """Whether ``state`` is terminal, and each role's legal moves as a mask over sorted outputs."""
        found = self._cache.get(state)
        if found is None:
            if len(self._cache) > 50_000:
                self._cache.clear()
            found = self._cache[state] = self._analyse(state)  # type: ignore[operator]
        return found

    def _decode(self, terms: Sequence[tuple[Term, ...]], role: int, mask: int) -> tuple[Term, ...]:
        key = (role, mask) if terms is self._legal_terms else (-1 - role, mask)
        found = self._decoded.get(key)
        if found is None:
            options = terms[role]
            chosen = []
            while mask:
                low = mask & -mask
                chosen.append(options[low.bit_length() - 1])
                mask ^= low
            found = self._decoded[key] = tuple(chosen)
        return found

    def legal(self, state: int, role: int) -> tuple[Term, ...]:
        return self._decode(self._legal_terms, role, self.analyse(state)[1][role])

    def terminal(self, state: int) -> bool:
        return self.analyse(state)[0]

    def goals(self, state: int, role: int) -> tuple[Term, ...]:
        cache = self._goal_cache
        if cache[0] != state:
            masks = self._goals(state)  # type: ignore[operator]
            cache = self._goal_cache = (state, self._decode_goals(masks))
        return cache[1][role]

    def _decode_goals(self, masks: Sequence[int]) -> tuple[tuple[Term, ...], ...]:
        return tuple(self._decode(self._goal_terms, role, mask) for role, mask in enumerate(masks))

    def next(self, state: int, moves: Sequence[Term]) -> int:
        return self._successor(state, self._does(moves))  # type: ignore[operator, no-any-return]

    def sees(self, state: int, moves: Sequence[Term]) -> tuple[frozenset[Term], ...]:
        if self._percepts is None:
            return tuple(frozenset() for _ in self.roles)
        masks = self._percepts(state, self._does(moves))  # type: ignore[operator]
        return tuple(frozenset(self._percept_terms(role, mask)) for role, mask in enumerate(masks))

    def _percept_terms(self, role: int, mask: int) -> list[Term]:
        options = self._sees_terms[role]
        return [options[i] for i in range(mask.bit_length()) if mask >> i & 1]

    def _does(self, moves: Sequence[Term]) -> int:
        """The input bits of a joint move."""
        does = 0
        for role, move in enumerate(moves):
            bit = self._input_by_identity[role].get(id(move)) or self._input_of.get((role, move))
            if bit is None:
                raise GameDefinitionError(
                    f"move {str(move)!r} of role {self.roles[role]!r} can never be legal"
                )
            does |= bit
        return does

    @cached_property
    def kernel(self) -> Kernel:
        """The network flattened for native random playouts (built on the first playout)."""
        return flatten(self.net)

    def depth_charge(self, state: int, rng: random.Random, max_depth: int) -> tuple[int, int, bool]:
        """A random playout in native code (:mod:`gdl.engines.native`); see
        :func:`gdl.engines.base.depth_charge`."""
        last, depth, outcome, key = self.kernel.run(state, rng.getrandbits(63), max_depth)
        if outcome == TERMINAL:
            # The kernel has read the goals of the last state, which the caller asks for next.
            goals = self._goals_by_key.get(key)
            if goals is None:
                indexes = self.kernel.goals_of(key)
                goals = self._decode_goals([1 << i for i in indexes]) if min(indexes) >= 0 else ()
                if key >= 0:
                    self._goals_by_key[key] = goals
            if goals:
                self._goal_cache = (last, goals)
        return last, depth, outcome == TERMINAL

    def depth_charges(self, state: int, count: int, rng: random.Random, max_depth: int) -> Charges[int]:
        """``count`` random playouts from ``state`` and their goals in one native call (the kernel's seeds
        are ``rng.getrandbits(63) + i``); see :func:`gdl.engines.base.depth_charges`."""
        count, max_depth = charges_arguments(count, max_depth)
        last, tallies = self.kernel.charges(state, rng.getrandbits(63), count, max_depth)
        ends = tallies[TALLY_GOALS:].tolist()
        sums, counts = [], []
        first = 0
        for values in self._goal_values:
            found = ends[first : first + len(values)]
            sums.append(sum(n * v for n, v in zip(found, values, strict=True) if v is not None))
            counts.append(sum(n for n, v in zip(found, values, strict=True) if v is not None))
            first += len(values)
        terminal, moves = int(tallies[TALLY_TERMINAL]), int(tallies[TALLY_MOVES])
        return Charges(count, terminal, moves, tuple(sums), tuple(counts), last)

    @cached_property
    def _goal_values(self) -> list[tuple[int | None, ...]]:
        """Each role's goal outputs' values (None for a value that is no number from 0 to 100)."""
        return [tuple(goal_value((term,)) for term in terms) for terms in self._goal_terms]
