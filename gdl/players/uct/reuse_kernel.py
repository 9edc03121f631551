"""Tree reuse for the uct player: the subtree of the state reached kept, the rest forgotten, in native
code over the tree's arrays (:mod:`gdl.players.uct.tree`)."""

from __future__ import annotations

from typing import Any

from gdl.engines.native_kernel import _jit
from gdl.players.uct.joint_kernel import joint_base, joint_count
from gdl.players.uct.kernel import insert, words_hash
from gdl.players.uct.layout import EDGES_USED, EXPANDED, FULL, JOINT, NODES_USED


@_jit
def keep_subtree(tree: Any, amaf: Any, root: int, words: Any, kept: Any, queue: Any, edge_at: Any) -> int:
    """Keep only ``root`` and the nodes its edges (or the slots of its joint moves) lead to, at any
    depth (the children of a node where several roles choose among too many joint moves to have slots
    are not linked, and go), with their edges' move averages where ``amaf`` keeps them; the root's new
    number.

    The nodes and edges kept move down in their order, so that each moves to a place already free, and
    the transposition table is filled again. ``kept`` (a slot per node) and ``queue`` (as many) are
    scratch; ``edge_at`` (a slot per edge used) receives each kept edge's new place; ``words`` holds a
    packed state.
    """
    table, states, flags, visits, values, mover, first, counts = tree[:8]
    moves, edge_visits, edge_sums, children, meta = tree[8:]
    nodes = meta[NODES_USED]
    roles = first.shape[1]
    edges = meta[EDGES_USED]
    # The nodes kept and their edges, marked 0 (else -1); then each numbered in its order.
    kept[:nodes] = -1
    edge_at[:edges] = -1
    kept[root] = 0
    queue[0] = root
    head, tail = 0, 1
    while head < tail:
        node = queue[head]
        head += 1
        if not flags[node] & EXPANDED:
            continue
        # The node's edges, then its joint moves' slots: one run.
        start = first[node, 0]
        end = joint_base(tree, node)
        if flags[node] & JOINT:
            end += joint_count(counts, node)
        for e in range(start, end):
            edge_at[e] = 0
            child = children[e]
            if child >= 0 and kept[child] < 0:
                kept[child] = 0
                queue[tail] = child
                tail += 1
    averaged = amaf[0].shape[0] > 0
    placed = 0
    for e in range(edges):
        if edge_at[e] == 0:
            edge_at[e] = placed
            moves[placed] = moves[e]
            edge_visits[placed] = edge_visits[e]
            edge_sums[placed] = edge_sums[e]
            children[placed] = children[e]
            if averaged:
                amaf[0][placed] = amaf[0][e]
                amaf[1][placed] = amaf[1][e]
            placed += 1
    numbered = 0
    for node in range(nodes):
        if kept[node] == 0:
            kept[node] = numbered
            for w in range(states.shape[1]):
                states[numbered, w] = states[node, w]
            flags[numbered] = flags[node]
            visits[numbered] = visits[node]
            mover[numbered] = mover[node]
            for role in range(roles):
                values[numbered, role] = values[node, role]
                counts[numbered, role] = counts[node, role]
                if flags[node] & EXPANDED and counts[node, role] > 0:
                    first[numbered, role] = edge_at[first[node, role]]
                else:
                    first[numbered, role] = placed
            numbered += 1
    for e in range(placed):
        if children[e] >= 0:
            children[e] = kept[children[e]]
    table[:] = -1
    for node in range(numbered):
        for w in range(words.shape[0]):
            words[w] = states[node, w]
        insert(tree, words_hash(words), node)
    meta[NODES_USED] = numbered
    meta[EDGES_USED] = placed
    meta[FULL] = 0
    return int(kept[root])
