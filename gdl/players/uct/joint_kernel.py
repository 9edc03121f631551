"""The nodes of the uct player's tree where several roles choose at once, in numba: the slots that link
their children by joint move, and their proofs.

A node flagged :data:`gdl.players.uct.layout.JOINT` has, after the edges of its roles (which are
contiguous, role after role), a slot per joint move: the slot of the joint move whose role ``r`` takes
its ``i_r``-th edge is at ``sum(i_r * stride_r)``, with the strides of a mixed radix over the roles'
numbers of edges, role 0 the most significant. A slot's ``children`` entry is the child (or -1); its
other edge fields are unused.

A node where several roles choose is proven where a role has a move that wins against every joint move
of the others (a pure dominance, sound whatever the others play), or where all its children are proven,
two roles choose, and a pure saddle point gives each of them the value it can secure, whatever the
other plays. Any other such node stays unproven even with all its children proven: its value may need
mixed strategies.
"""

from __future__ import annotations

from typing import Any

from gdl.engines.native_kernel import _inline
from gdl.players.uct.layout import JOINT, SOLVED, WIN


@_inline
def joint_base(tree: Any, node: int) -> int:
    """The first slot of ``node``'s joint moves: the edge after its last role's."""
    first, counts = tree[6], tree[7]
    last = first.shape[1] - 1
    return int(first[node, last] + counts[node, last])


@_inline
def joint_count(counts: Any, node: int) -> int:
    """How many joint moves there are at ``node``."""
    total = 1
    for role in range(counts.shape[1]):
        total *= counts[node, role]
    return int(total)


@_inline
def joint_slot(tree: Any, node: int, edges: Any) -> int:
    """The slot of the joint move in which each role ``r`` takes the edge ``edges[1 + r]`` (a row of the
    descent's path) at ``node``; -1 where the node has no slots."""
    flags, first, counts = tree[2], tree[6], tree[7]
    if not flags[node] & JOINT:
        return -1
    slot = 0
    for role in range(first.shape[1]):
        slot = slot * counts[node, role] + (edges[1 + role] - first[node, role])
    return joint_base(tree, node) + int(slot)


@_inline
def stride(counts: Any, node: int, role: int) -> int:
    """How far apart the slots of two successive edges of ``role`` are, the others' edges the same."""
    step = 1
    for other in range(role + 1, counts.shape[1]):
        step *= counts[node, other]
    return int(step)


@_inline
def secured(tree: Any, node: int, role: int, index: int) -> float:
    """The least value ``role`` gets by its ``index``-th edge at ``node``, over every joint move of the
    others, where all those children are proven; -1 otherwise."""
    flags, values, counts, children = tree[2], tree[4], tree[7], tree[11]
    base = joint_base(tree, node)
    count = counts[node, role]
    step = stride(counts, node, role)
    least = 2.0
    for t in range(joint_count(counts, node) // count):
        child = children[base + (t // step) * step * count + index * step + t % step]
        if child < 0 or not flags[child] & SOLVED:
            return -1.0
        least = min(least, values[child, role])
    return least


@_inline
def prove_joint(tree: Any, node: int, chance: int) -> None:
    """Prove ``node``, where several roles choose and its children are linked by joint move, as the
    module doc says (nature, ``chance``, neither wins nor has a saddle point: it plays at random), at
    the value of :func:`settle_win` or of the saddle point's child."""
    flags, values, counts, children = tree[2], tree[4], tree[7], tree[11]
    roles = counts.shape[1]
    base = joint_base(tree, node)
    for role in range(roles):
        if role == chance:
            continue
        for index in range(counts[node, role]):
            if secured(tree, node, role, index) >= WIN:
                settle_win(tree, node, role, index)
                return
    # Both choosing roles' pure security levels: each role's best over its moves of the least over the
    # other's, and the least over the other's moves of its best.
    a, b = -1, -1
    for role in range(roles):
        if counts[node, role] > 1:
            if role == chance:
                return
            if a < 0:
                a = role
            elif b < 0:
                b = role
            else:
                return
    if b < 0:
        return
    for slot in range(base, base + joint_count(counts, node)):
        if children[slot] < 0 or not flags[children[slot]] & SOLVED:
            return
    step_a, step_b = stride(counts, node, a), stride(counts, node, b)
    floor_a, floor_b = -1.0, -1.0
    for i in range(counts[node, a]):
        floor_a = max(floor_a, secured(tree, node, a, i))
    for j in range(counts[node, b]):
        floor_b = max(floor_b, secured(tree, node, b, j))
    for i in range(counts[node, a]):
        for j in range(counts[node, b]):
            child = children[base + i * step_a + j * step_b]
            if values[child, a] != floor_a or values[child, b] != floor_b:
                continue
            # A saddle point: neither role gains by leaving it alone.
            stable = True
            for other in range(counts[node, a]):
                if values[children[base + other * step_a + j * step_b], a] > floor_a:
                    stable = False
            for other in range(counts[node, b]):
                if values[children[base + i * step_a + other * step_b], b] > floor_b:
                    stable = False
            if stable:
                settle(tree, node, child)
                return


@_inline
def settle_win(tree: Any, node: int, role: int, index: int) -> None:
    """Prove ``node`` won by ``role``'s ``index``-th edge: a win for it, and for each other role the
    most it can secure against that move (the best over its moves of the least over the rest's)."""
    flags, values, counts, children = tree[2], tree[4], tree[7], tree[11]
    base = joint_base(tree, node)
    count = counts[node, role]
    step = stride(counts, node, role)
    for other in range(counts.shape[1]):
        if other == role:
            values[node, other] = secured(tree, node, role, index)
            continue
        other_count = counts[node, other]
        other_step = stride(counts, node, other)
        best = -1.0
        for j in range(other_count):
            least = 2.0
            for t in range(joint_count(counts, node) // count):
                slot = (t // step) * step * count + index * step + t % step
                if (slot // other_step) % other_count == j:
                    least = min(least, values[children[base + slot], other])
            best = max(best, least)
        values[node, other] = best
    flags[node] |= SOLVED


@_inline
def settle(tree: Any, node: int, child: int) -> None:
    """Prove ``node`` at the value of its proven ``child``."""
    flags, values = tree[2], tree[4]
    for r in range(values.shape[1]):
        values[node, r] = values[child, r]
    flags[node] |= SOLVED
