"""Random explicit games: gdl.wellformed against brute force over the game graph itself.

Hypothesis draws a small game as a graph (states, terminal flags, goal values that may be missing,
each role's moves, a successor for every joint move), writes it as GDL, and compares the report with
properties computed directly on the graph (networkx for cycles and longest paths, a naive fixpoint
for forced wins).
"""

from __future__ import annotations

import itertools

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.graph_games import GraphGame

import gdl
from gdl.wellformed import PROPERTIES, analyse


@st.composite
def graph_games(draw: st.DrawFn) -> GraphGame:
    names = draw(st.sampled_from([("r0",), ("r0", "r1"), ("r0", "random")]))
    roles = len(names)
    states = draw(st.integers(1, 6))
    terminal = tuple(draw(st.lists(st.booleans(), min_size=states, max_size=states)))
    value = st.one_of(st.none(), st.sampled_from([0, 50, 100]))
    goals = tuple(tuple(draw(st.lists(value, min_size=roles, max_size=roles))) for _ in range(states))
    counts = st.integers(0, 2)
    moves = tuple(tuple(draw(st.lists(counts, min_size=roles, max_size=roles))) for _ in range(states))
    successor = {}
    for state in range(states):
        for joint in itertools.product(*(range(n) for n in moves[state])):
            successor[(state, joint)] = draw(st.integers(0, states - 1))
    return GraphGame(names, terminal, goals, moves, successor)


def expected(game: GraphGame) -> dict[str, object]:
    graph = nx.MultiDiGraph()
    graph.add_node(0)
    frontier = [0]
    while frontier:
        state = frontier.pop()
        if game.terminal[state]:
            continue
        for joint in game.joints(state):
            target = game.successor[(state, joint)]
            if target not in graph:
                frontier.append(target)
            graph.add_edge(state, target, joint=joint)
    reach = list(graph.nodes)
    roles = [r for r, name in enumerate(game.names) if name != "random"]
    acyclic = nx.is_directed_acyclic_graph(graph)
    defined = all(game.goals[s][r] is not None for s in reach for r in roles)
    drops = any((game.goals[b][r] or 0) < (game.goals[a][r] or 0) for a, b in graph.edges() for r in roles)
    ends = [s for s in reach if game.terminal[s]]

    def wins(state: int, role: int) -> bool:
        return game.goals[state][role] == 100

    def forced(role: int) -> bool:
        won = {s for s in ends if wins(s, role)}
        for _ in range(len(reach) + 1):
            for s in reach:
                if s in won or game.terminal[s] or 0 in game.moves[s]:
                    continue
                for mine in range(game.moves[s][role]):
                    joints = [j for j in game.joints(s) if j[role] == mine]
                    if all(game.successor[(s, j)] in won for j in joints):
                        won.add(s)
        return 0 in won

    return {
        "reachable_states": len(reach),
        "terminal_states": len(ends),
        "terminating": acyclic,
        "longest_play": nx.dag_longest_path_length(graph) if acyclic else None,
        "playable": all(0 not in game.moves[s] for s in reach if not game.terminal[s]),
        "goals_defined": all(game.goals[s][r] is not None for s in ends for r in roles),
        "monotonic": defined and not drops,
        "weakly_winnable": all(any(wins(s, r) for s in ends) for r in roles),
        "strongly_winnable": any(forced(r) for r in roles),
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph_games())
def test_verdicts_match_brute_force_on_random_graph_games(game: GraphGame) -> None:
    report = analyse(gdl.parse(game.kif()))
    assert report.complete
    truth = expected(game)
    found = {key: getattr(report, key) for key in truth}
    assert found == truth
    failed = {example.property for example in report.counterexamples}
    # Every property proven false comes with a counterexample, strong winnability of several roles too.
    assert failed == {key for key, value in truth.items() if value is False}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph_games(), st.integers(1, 6))
def test_a_partial_exploration_never_claims_what_is_false(game: GraphGame, max_states: int) -> None:
    report = analyse(gdl.parse(game.kif()), max_states=max_states, playouts=5, depth_limit=20)
    truth = expected(game)
    assert report.reachable_states <= min(max_states, truth["reachable_states"])  # type: ignore[operator]
    for prop in PROPERTIES:
        assert report.verdict(prop) in (None, truth[prop]), prop
        assert (report.counterexample(prop) is not None) == (report.verdict(prop) is False), prop
    if not report.complete:
        assert report.longest_play is None
