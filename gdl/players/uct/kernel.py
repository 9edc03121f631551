"""The numba search of the uct player: selection, expansion, playout and backup over a tree in arrays.

The tree's arrays are described in :mod:`gdl.players.uct.tree`; here they come as one tuple, ``tree``.
The search walks the network of the native kernel (:mod:`gdl.engines.native_kernel`, whose array
``data`` is the search's own copy): the root's network is kept in the kernel's saved copy, and every
iteration starts from it, plays the joint moves it selects by propagating them, and plays the playout
on from there in the same network, with no Python per step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# The kernels allocate nothing, so they are compiled as the native kernel's are (no reference counting).
from gdl.engines.native_kernel import (
    _inline,
    _jit,
    copy,
    evaluate,
    holds,
    live_network,
    section,
)
from gdl.engines.native_layout import (
    GROUP_STARTS,
    GUARDS,
    LITS,
    MEMBERS,
    SAVED,
    SET_SIZES,
    SIZES,
)
from gdl.players.uct.joint_kernel import joint_slot, prove_joint
from gdl.players.uct.layout import (
    BIAS,
    CHANCE,
    EDGES_USED,
    EXPANDED,
    FULL,
    JOINT,
    JOINT_LIMIT,
    MINIMAX,
    NO_ESTIMATE,
    NODES_USED,
    PRIOR,
    PROBE,
    PROBE_VISIT,
    RAVE,
    SIMULTANEOUS,
    SOLVED,
    TERMINAL_NODE,
    THREATS,
    WIN,
)
from gdl.players.uct.playout_kernel import leaf_estimate, mast_update, playout, predict
from gdl.players.uct.probe_kernel import forced_win
from gdl.players.uct.step_kernel import below, legal_count, legal_move, read_rewards, step


@_inline
def state_hash(counters: Any, bases: int, words: Any) -> np.uint64:
    """The network's state as packed words (bit ``b`` of word ``b // 64`` for base proposition ``b``)
    into ``words``, and its hash."""
    words[:] = 0
    for b in range(bases):
        if counters[b] > 0:
            words[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
    return words_hash(words)


@_inline
def words_hash(words: Any) -> np.uint64:
    """The hash of a packed state."""
    key = np.uint64(0x9E3779B97F4A7C15)
    for w in range(words.shape[0]):
        key ^= words[w]
        key *= np.uint64(0xBF58476D1CE4E5B9)
        key ^= key >> np.uint64(31)
    return key


@_inline
def find(tree: Any, key: np.uint64, words: Any) -> int:
    """The node of the packed state ``words`` (hash ``key``), or -1."""
    table, states = tree[0], tree[1]
    mask = table.shape[0] - 1
    slot = np.int64(key & np.uint64(mask))
    while True:
        node = table[slot]
        if node < 0:
            return -1
        same = True
        for w in range(words.shape[0]):
            if states[node, w] != words[w]:
                same = False
                break
        if same:
            return int(node)
        slot = (slot + 1) & mask


@_inline
def insert(tree: Any, key: np.uint64, node: int) -> None:
    table = tree[0]
    mask = table.shape[0] - 1
    slot = np.int64(key & np.uint64(mask))
    while table[slot] >= 0:
        slot = (slot + 1) & mask
    table[slot] = node


@_inline
def add_node(data: Any, tree: Any, goal_values: Any, key: np.uint64, words: Any, goals: Any) -> int:
    """A node for the network's state (packed in ``words``, hash ``key``), or -1 when the tree is full;
    a terminal state's goals are its value, and it is proven; any other has no estimate yet."""
    _, states, flags, visits, values, _, _, _, _, _, _, _, meta = tree
    used = meta[NODES_USED]
    # The table stays at most half full: its probes stay short.
    if used >= states.shape[0] or 2 * used >= tree[0].shape[0]:
        meta[FULL] = 1
        return -1
    node = int(used)
    meta[NODES_USED] = used + 1
    for w in range(words.shape[0]):
        states[node, w] = words[w]
    insert(tree, key, node)
    visits[node] = 0
    flags[node] = 0
    values[node, :] = NO_ESTIMATE
    counters = live_network(data)
    sizes = section(data, SIZES)
    stuck = False
    for role in range(sizes[2]):
        if legal_count(counters, section(data, SET_SIZES), section(data, GUARDS), role) == 0:
            stuck = True
    if stuck or holds(counters, section(data, LITS)[0]):
        read_rewards(data, goal_values, goals, values[node])
        flags[node] = TERMINAL_NODE | SOLVED
    return node


@_inline
def expand(data: Any, tree: Any, amaf: Any, node: int) -> bool:
    """Lay out the edges of ``node`` (whose state the network is in): each role's legal moves, sorted,
    with no statistics (nor move averages, where ``amaf`` keeps them), and where several roles choose
    among at most :data:`JOINT_LIMIT` joint moves, a slot per joint move
    (:mod:`gdl.players.uct.joint_kernel`); False when there is no room for them."""
    _, _, flags, _, _, mover, first, counts, moves, _, _, _, meta = tree
    counters = live_network(data)
    sizes = section(data, SIZES)
    roles = sizes[2]
    set_sizes = section(data, SET_SIZES)
    guards = section(data, GUARDS)
    members = section(data, MEMBERS)
    group_starts = section(data, GROUP_STARTS)
    total = 0
    joint = 1
    choosing = 0
    for role in range(roles):
        count = legal_count(counters, set_sizes, guards, role)
        total += count
        joint *= count
        if count > 1:
            choosing += 1
    if choosing < 2 or joint > JOINT_LIMIT:
        joint = 0
    start = meta[EDGES_USED]
    if start + total + joint > moves.shape[0]:
        meta[FULL] = 1
        return False
    meta[EDGES_USED] = start + total + joint
    choosing = 0
    mover[node] = 0
    at = start
    for role in range(roles):
        count = legal_count(counters, set_sizes, guards, role)
        first[node, role] = at
        counts[node, role] = count
        for i in range(count):
            move = legal_move(members, group_starts, set_sizes, role, i)
            # Insertion sort: the moves in the order of the legal outputs.
            j = at + i
            while j > at and moves[j - 1] > move:
                moves[j] = moves[j - 1]
                j -= 1
            moves[j] = move
        clear_edges(tree, amaf, at, at + count)
        if count > 1:
            choosing += 1
            mover[node] = role
        at += count
    if choosing > 1:
        mover[node] = SIMULTANEOUS
    if joint > 0:
        moves[at : at + joint] = 0
        clear_edges(tree, amaf, at, at + joint)
        flags[node] |= JOINT
    flags[node] |= EXPANDED
    return True


@_inline
def clear_edges(tree: Any, amaf: Any, start: int, end: int) -> None:
    """Edges ``start`` to ``end`` with no statistics, no child and no move averages (where ``amaf`` keeps
    them)."""
    edge_visits, edge_sums, children = tree[9], tree[10], tree[11]
    edge_visits[start:end] = 0
    edge_sums[start:end] = 0.0
    children[start:end] = -1
    if amaf[0].shape[0] > 0:
        amaf[0][start:end] = 0
        amaf[1][start:end] = 0.0


@_inline
def amaf_edge(tree: Any, ref: int, role: int, move: int) -> int:
    """The edge of ``role`` for the legal output ``move`` at node ``ref`` (its edges are sorted), or -1."""
    moves = tree[8]
    low = tree[6][ref, role]
    high = low + tree[7][ref, role]
    while low < high:
        middle = (low + high) >> 1
        if moves[middle] < move:
            low = middle + 1
        else:
            high = middle
    if low < tree[6][ref, role] + tree[7][ref, role] and moves[low] == move:
        return int(low)
    return -1


@_inline
def select(
    tree: Any, amaf: Any, node: int, role: int, chance: int, exploration: float, meta: Any, ref: int,
    bias: float, alpha: float,
) -> int:
    """The edge ``role`` takes at ``node``: a proven child at its value and no more, nature at random.
    Without move averages (``ref`` < 0), untried moves first (at random), then the highest UCB1 score
    on the role's own statistics (decoupled; ties at random where several roles choose). With them
    (GRAVE), each move's mean is blended with its move average at node ``ref`` (all-moves-as-first: the
    rewards of the iterations that played it there or later), whose weight falls as the move's own
    visits grow (``bias``); a move with neither is tried first; ties go at random. With implicit
    minimax (``alpha`` > 0), a move's mean weighs its child's minimax estimate (where it has one) by
    ``alpha``."""
    _, _, flags, visits, values, _, first, counts, moves, edge_visits, edge_sums, children, _ = tree
    start = first[node, role]
    count = counts[node, role]
    if count == 1:
        return int(start)
    if role == chance:
        return int(start + below(meta, count))
    if ref < 0:
        untried = 0
        for e in range(start, start + count):
            if edge_visits[e] == 0:
                untried += 1
        if untried > 0:
            pick = below(meta, untried)
            for e in range(start, start + count):
                if edge_visits[e] == 0:
                    if pick == 0:
                        return int(e)
                    pick -= 1
    amaf_visits, amaf_sums = amaf[0], amaf[1]
    log_n = np.log(max(visits[node], 1))
    # Ties go at random where they are common: with move averages, and where several roles choose (two
    # roles breaking ties alike could otherwise keep to the same joint moves).
    offset = below(meta, count) if ref >= 0 or tree[5][node] == SIMULTANEOUS else 0
    best = start
    best_score = -1.0
    for k in range(count):
        e = start + (k + offset) % count
        n = edge_visits[e]
        child = children[e]
        mean = edge_sums[e] / n if n > 0 else 0.0
        if alpha > 0.0 and n > 0 and child >= 0 and values[child, role] != NO_ESTIMATE:
            mean += alpha * (values[child, role] - mean)
        if child >= 0 and flags[child] & SOLVED:
            # A proven child needs no exploring: its value is known.
            score = values[child, role]
        elif ref < 0:
            # Untried moves were taken above, so n > 0 here.
            score = mean + exploration * np.sqrt(log_n / n)
        else:
            average = e if ref == node else amaf_edge(tree, ref, role, moves[e])
            played = amaf_visits[average] if average >= 0 else 0
            if played > 0:
                beta = played / (played + n + bias * played * n)
                score = (1.0 - beta) * mean + beta * amaf_sums[average] / played
            elif n > 0:
                score = mean
            else:
                score = 2.0
            score += exploration * np.sqrt(log_n / max(n, 1))
        if score > best_score:
            best_score = score
            best = e
    return int(best)


@_inline
def prove(tree: Any, node: int, chance: int) -> None:
    """MCTS-Solver: prove ``node`` when one role alone chooses there (not nature, ``chance``) and one of
    its children is proven a win for it, or all its children are proven (the value then is the child
    best for that role); where several roles choose, as :func:`prove_joint` does."""
    _, _, flags, _, values, mover, first, counts, _, _, _, children, _ = tree
    role = mover[node]
    if flags[node] & SOLVED or not flags[node] & EXPANDED:
        return
    if role == SIMULTANEOUS:
        if flags[node] & JOINT:
            prove_joint(tree, node, chance)
        return
    if role == chance:
        return
    best = -1
    proven = True
    for e in range(first[node, role], first[node, role] + counts[node, role]):
        child = children[e]
        if child < 0 or not flags[child] & SOLVED:
            proven = False
            continue
        if best < 0 or values[child, role] > values[best, role]:
            best = child
    if best >= 0 and (proven or values[best, role] >= WIN):
        for r in range(values.shape[1]):
            values[node, r] = values[best, r]
        flags[node] |= SOLVED


@_inline
def back_up_estimate(tree: Any, node: int) -> None:
    """Implicit minimax: an unproven ``node`` where one role chooses takes the estimate of its child
    best for that role, among the children that have one."""
    _, _, flags, _, values, mover, first, counts, _, _, _, children, _ = tree
    role = mover[node]
    if flags[node] & SOLVED or not flags[node] & EXPANDED or role == SIMULTANEOUS:
        return
    best = -1
    for e in range(first[node, role], first[node, role] + counts[node, role]):
        child = children[e]
        if child < 0 or values[child, role] == NO_ESTIMATE:
            continue
        if best < 0 or values[child, role] > values[best, role]:
            best = child
    if best >= 0:
        for r in range(values.shape[1]):
            values[node, r] = values[best, r]


@_jit
def set_root(data: Any, tree: Any, goal_values: Any, scratch: Any) -> int:
    """Bring the network to the state handed in (the kernel's STATE_IN), save it as the root's, and
    return its node (found in the table, or added; -1 when the tree is full)."""
    evaluate(data)
    copy(section(data, SAVED), live_network(data))
    words, _, _, goals, _ = scratch
    key = state_hash(live_network(data), section(data, SIZES)[1], words)
    node = find(tree, key, words)
    if node < 0:
        node = add_node(data, tree, goal_values, key, words, goals)
    return node


@_jit
def playouts(
    data: Any,
    tree: Any,
    goal_values: Any,
    scratch: Any,
    mast: Any,
    decisive: Any,
    heuristic: Any,
    options: Any,
    limit: int,
    rewards: Any,
    splits: Any,
    states: Any,
) -> None:
    """Playouts from the root's network (saved by :func:`set_root`), as the search plays them, one a row
    of ``rewards`` (each role's reward at its end); the ``i``-th stops for a moment after ``splits[i]``
    moves (or at its end, if sooner) to leave its base propositions in row ``i`` of ``states``, and
    ``splits[i]`` becomes the moves made until then."""
    live = live_network(data)
    saved = section(data, SAVED)
    meta = tree[12]
    previous = scratch[2]
    bases = states.shape[1]
    for i in range(rewards.shape[0]):
        copy(live, saved)
        previous[:] = -1
        splits[i] = playout(data, goal_values, meta, scratch, mast, decisive, heuristic, options, splits[i])
        for b in range(bases):
            states[i, b] = live[b]
        playout(data, goal_values, meta, scratch, mast, decisive, heuristic, options, limit)
        copy(rewards[i], scratch[4])


@_jit
def search(
    data: Any,
    tree: Any,
    goal_values: Any,
    scratch: Any,
    path: Any,
    mast: Any,
    amaf: Any,
    decisive: Any,
    probe: Any,
    heuristic: Any,
    options: Any,
    root: int,
    iterations: int,
    exploration: float,
    limit: int,
) -> int:
    """``iterations`` iterations from ``root`` (or fewer, when the root is proven); how many ran.

    ``scratch`` is space for a packed state, a joint move, the inputs set, each role's goal output and
    reward; ``path`` has a row per level of a descent (the node, then each role's edge), which bounds
    the descent's depth; ``mast``: the move averages of the playouts (sums, counts, and the record of a
    playout's moves), which every iteration's moves feed, in the tree and in the playout;
    ``amaf``: the edges' move averages (visits and sums of rewards; empty arrays where the selection
    uses none), a stamp per legal output and one more for the count, and each role's reference node;
    ``decisive``: the watched literals of :mod:`gdl.players.uct.decisive` and room for a step's flips;
    ``probe``: room for the plies of a search for a forced win (:mod:`gdl.players.uct.probe_kernel`);
    ``heuristic``: the arrays of :mod:`gdl.players.uct.heuristic` (playouts cut off by it, priors
    given by it, implicit minimax's leaves estimated by it);
    ``options``: the fields of :data:`gdl.players.uct.layout.CHANCE` and the others.
    """
    _, _, flags, visits, values, mover, _, counts, edge_moves, edge_visits, edge_sums, children, meta = tree
    sizes = section(data, SIZES)
    roles = sizes[2]
    bases = sizes[1]
    words, chosen, previous, goals, rewards = scratch
    live = live_network(data)
    saved = section(data, SAVED)
    chance = int(options[CHANCE])
    reference = int(options[RAVE])
    bias = options[BIAS]
    refs = amaf[3]
    weight = int(options[PRIOR]) if heuristic[0].shape[0] > 1 else 0
    alpha = options[MINIMAX] if heuristic[0].shape[0] > 1 else 0.0
    plies = int(options[PROBE])
    probe_visit = int(options[PROBE_VISIT])
    threats = int(options[THREATS])
    if weight > 0:
        for role in range(roles):
            heuristic[5][role] = predict(saved, heuristic, role)
    done = 0
    while done < iterations and not flags[root] & SOLVED:
        done += 1
        copy(live, saved)
        previous[:] = -1
        refs[:] = -1
        node = root
        depth = 0
        moves = 0
        # Whether the descent ends in a playout (one call site: the playout is inlined).
        rolling = False
        while True:
            if flags[node] & SOLVED:
                copy(rewards, values[node])
                break
            if (not flags[node] & EXPANDED and not expand(data, tree, amaf, node)) or depth == path.shape[0]:
                rolling = True
                break
            chooser = mover[node]
            winning = -1
            if plies > 0 and visits[node] == probe_visit and chooser >= 0 and chooser != chance:
                # A move by which the role to move wins within the probe's plies is taken now, and the
                # state it leads to proven (the solver then proves this node, when the win is a goal of
                # 100): the player's choice at the root reads its children.
                winning = forced_win(
                    data, goal_values, scratch, decisive, probe, chooser, chance, plies, threats, previous
                )
            path[depth, 0] = node
            for role in range(roles):
                ref = -1
                if reference > 0:
                    # GRAVE: the move averages of the deepest node so far where the role chose and
                    # that has been visited enough, or the node's own.
                    if visits[node] >= reference and counts[node, role] > 1:
                        refs[role] = node
                    ref = refs[role] if refs[role] >= 0 else node
                edge = select(tree, amaf, node, role, chance, exploration, meta, ref, bias, alpha)
                if winning >= 0 and role == chooser:
                    # The proof's move is one of the node's edges (both read from its state).
                    proof_edge = amaf_edge(tree, node, role, winning)
                    if proof_edge >= 0:
                        edge = proof_edge
                    else:
                        winning = -1
                path[depth, 1 + role] = edge
                chosen[role] = edge_moves[edge]
            depth += 1
            step(data, chosen, previous)
            chooser = mover[node]
            edge = path[depth - 1, 1 + chooser] if chooser != SIMULTANEOUS else -1
            # Where the child is linked: the edge of the role that alone chooses, or the joint move's slot.
            link = edge if edge >= 0 else joint_slot(tree, node, path[depth - 1])
            child = children[link] if link >= 0 else -1
            created = False
            if child < 0:
                if weight > 0 and edge >= 0:
                    add_prior(tree, heuristic, live, node, chooser, edge, weight)
                key = state_hash(live, bases, words)
                child = find(tree, key, words)
                created = child < 0
                if created:
                    child = add_node(data, tree, goal_values, key, words, goals)
                    if alpha > 0.0 and child >= 0 and not flags[child] & SOLVED:
                        for role in range(roles):
                            values[child, role] = leaf_estimate(live, heuristic, role)
                if child >= 0 and link >= 0:
                    children[link] = child
            if winning >= 0 and child >= 0 and not flags[child] & SOLVED:
                copy(values[child], rewards)
                flags[child] |= SOLVED
            if child < 0 or created:
                if child >= 0 and flags[child] & SOLVED:
                    copy(rewards, values[child])
                else:
                    rolling = True
                if child >= 0:
                    visits[child] += 1
                break
            node = child
        if rolling:
            moves = playout(data, goal_values, meta, scratch, mast, decisive, heuristic, options, limit)
        mast_update(mast, moves, roles, rewards)
        if reference > 0:
            amaf_update(tree, amaf, path, depth, mast[2], moves, rewards, chance)
        for level in range(depth - 1, -1, -1):
            node = path[level, 0]
            visits[node] += 1
            for role in range(roles):
                edge = path[level, 1 + role]
                edge_visits[edge] += 1
                edge_sums[edge] += rewards[role]
                mast[0][edge_moves[edge]] += rewards[role]
                mast[1][edge_moves[edge]] += 1.0
            prove(tree, node, chance)
            if alpha > 0.0:
                back_up_estimate(tree, node)
        if depth == 0:
            visits[root] += 1
    return done



@_inline
def add_prior(tree: Any, heuristic: Any, counters: Any, node: int, role: int, edge: int, weight: int) -> None:
    """A node prior, as Sancho gives one: ``role``'s first move along ``edge`` from ``node`` (the
    network in the state it leads to) adds ``weight`` visits at the value the heuristic gives that
    state relative to the root's (``heuristic[5]``): a logistic of the difference of their predictions
    over the predictions' spread, stretched around the role's mean at ``node`` (none where the counts
    predict the root's value)."""
    _, _, _, _, _, _, first, counts, _, edge_visits, edge_sums, _, _ = tree
    change = predict(counters, heuristic, role) - heuristic[5][role]
    if change == 0.0:
        return
    likely = 1.0 / (1.0 + np.exp(-change / heuristic[4][role]))
    visits = 0
    total = 0.0
    for e in range(first[node, role], first[node, role] + counts[node, role]):
        visits += edge_visits[e]
        total += edge_sums[e]
    center = total / visits if visits > 0 else 0.5
    value = center + (1.0 - center) * (2.0 * likely - 1.0) if likely >= 0.5 else center * 2.0 * likely
    edge_visits[edge] += weight
    edge_sums[edge] += weight * value


@_inline
def amaf_update(
    tree: Any, amaf: Any, path: Any, depth: int, played: Any, moves: int, rewards: Any, chance: int
) -> None:
    """All moves as first: at each level of the descent, a role's edges whose move it played there or
    later in the iteration (in the tree or the playout, ``played``'s first ``moves`` joint moves) add
    its reward to their move averages."""
    first, counts, edge_moves = tree[6], tree[7], tree[8]
    amaf_visits, amaf_sums, seen = amaf[0], amaf[1], amaf[2]
    roles = first.shape[1]
    stamp = seen[seen.shape[0] - 1] + 1
    seen[seen.shape[0] - 1] = stamp
    for k in range(moves * roles):
        seen[played[k]] = stamp
    for level in range(depth - 1, -1, -1):
        node = path[level, 0]
        for role in range(roles):
            seen[edge_moves[path[level, 1 + role]]] = stamp
        for role in range(roles):
            if role == chance or counts[node, role] < 2:
                continue
            for e in range(first[node, role], first[node, role] + counts[node, role]):
                if seen[edge_moves[e]] == stamp:
                    amaf_visits[e] += 1
                    amaf_sums[e] += rewards[role]
