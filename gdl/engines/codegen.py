"""Code generation for the compiled engine (:mod:`gdl.engines.compiled`): the straight-line Python of the
functions a state's questions need, over integer bitsets, written from the propositional network.

A gate reads several base propositions at once with one mask test, and a disjunction of moves with one
mask test on the inputs ``d``; masks wider than :data:`_LITERAL_BITS` bits are named constants.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from gdl.budget import checkpoint
from gdl.ground.propnet import FALSE, TRUE, Gate, PropNet

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

    def per_role(writer: _Writer, header: str, name: str, masks: list[list[tuple[int, int]]]) -> list[str]:
        """A function returning one mask per role, ``name0, name1, ...``."""
        lines = [header, *writer.body()]
        for role, bits in enumerate(masks):
            lines += writer.mask(f"{name}{role}", bits)
        return [*lines, f"    return ({', '.join(f'{name}{role}' for role in range(len(masks)))},)"]

    def goal_values(writer: _Writer) -> list[str]:
        return per_role(writer, "def goals(s):", "goal", goals)

    changing = [(i, node) for i, node in enumerate(net.next) if node != i]
    identity = sum(1 << i for i, node in enumerate(net.next) if node == i)

    def successor(writer: _Writer) -> list[str]:
        lines = ["def successor(s, d):", *writer.body(), *writer.mask("state", changing)]
        return [*lines, f"    return state | s & {constant(identity)}"]

    def percepts(writer: _Writer) -> list[str]:
        return per_role(writer, "def percepts(s, d):", "sees", sees)

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
