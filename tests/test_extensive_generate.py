"""The extensive form generated on the compiled network (gdl.extensive.generate) is the game the import
over State objects makes: the same nodes, information sets, actions and payoffs, or the same error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import CORPUS, GAMES, shared_path

import gdl
from gdl.errors import GdlError
from gdl.extensive.count import count_infosets, count_tree
from gdl.extensive.from_gdl import GdlExtensiveGame, extensive_from_gdl
from gdl.extensive.generate import ArraysUnsupportedError, GameTree, generate_tree


def both(game: gdl.Game) -> tuple[GdlExtensiveGame | str, GdlExtensiveGame | str]:
    """The game made on the network and over objects, or each one's error (its type and message)."""
    made: list[GdlExtensiveGame | str] = []
    for objects in (False, True):
        try:
            made.append(extensive_from_gdl(game, objects=objects, seconds=60))
        except (GdlError, ValueError) as problem:
            made.append(f"{type(problem).__name__}: {problem}")
    return made[0], made[1]


def assert_same(game: gdl.Game) -> GdlExtensiveGame | str:
    fast, slow = both(game)
    assert fast == slow
    if isinstance(fast, GdlExtensiveGame):
        assert isinstance(slow, GdlExtensiveGame)
        assert list(fast.infosets.values()) == list(slow.infosets.values())  # the same walk order
        assert fast.goal_offset == slow.goal_offset
    return fast


@pytest.mark.parametrize(
    ("name", "nodes", "infosets"),
    [("kuhn", 55, 12), ("leduc", 9451, 936), ("montyhall", 43, 7), ("dice", 43, 6), ("spoof", 16381, 2411)],
)
def test_bundled_games_are_the_same(name: str, nodes: int, infosets: int) -> None:
    made = assert_same(gdl.load(GAMES / f"{name}.kif"))
    assert isinstance(made, GdlExtensiveGame)
    assert (sum(made.sizes.values()), len(made.infosets)) == (nodes, infosets)


def test_the_tree_is_arrays() -> None:
    game = gdl.load(GAMES / "kuhn.kif")
    tree = generate_tree(game)
    assert isinstance(tree, GameTree)
    assert tree.sizes == {"terminal": 30, "chance": 1, "decision": 24}
    assert len(tree.set_player) == 12 and tree.goal_offset == 50
    keys = list(extensive_from_gdl(game, objects=True).infosets)
    assert [tree.infoset_key(k) for k in range(12)] == keys
    assert keys[0] == "(view player1 (step noop (seen (yourcard jack))) (legal bet check))"


#: Cells of krieg-tictactoe marked (and known to their owner) before play starts.
PREFILLED = [
    ("(cell 1 1 x)", "(cell 1 2 o)", "(cell 1 3 x)", "(cell 2 1 o)", "(cell 3 3 o)", "(cell 2 3 x)",
     "(cell 3 1 x)"),
    pytest.param(
        ("(cell 1 1 x)", "(cell 1 2 o)", "(cell 1 3 x)", "(cell 2 1 o)", "(cell 3 3 o)", "(cell 2 3 x)"),
        marks=pytest.mark.slow,
    ),
    pytest.param(
        ("(cell 1 1 x)", "(cell 2 2 o)", "(cell 1 3 x)", "(cell 3 1 o)", "(cell 3 3 x)"),
        marks=pytest.mark.slow,
    ),
]


@pytest.mark.parametrize("marked", PREFILLED)
def test_kriegtictactoe_from_a_late_start_is_the_same(marked: tuple[str, ...]) -> None:
    text = (GAMES / "kriegtictactoe.kif").read_text()
    for cell in marked:
        found = re.fullmatch(r"\(cell (\d) (\d) ([xo])\)", cell)
        assert found is not None
        m, n, mark = found.groups()
        owner = "xplayer" if mark == "x" else "oplayer"
        text = text.replace(f"(init (cell {m} {n} b))", f"(init {cell}) (init (known {owner} {m} {n}))")
    made = assert_same(gdl.parse(text, file="krieg.kif"))
    assert isinstance(made, GdlExtensiveGame)
    assert len(made.infosets) > 10


def _corpus(name: str) -> Path:
    return shared_path(CORPUS / "gdl2" / name)


@pytest.mark.parametrize(
    "name",
    ["MontyHall.gdl", "MontyHall2.gdl", "MontyHall-20door.gdl", "CabbageGoatWolf.gdl", "minesweeper1.gdl"],
)
def test_small_corpus_games_are_the_same(name: str) -> None:
    """MontyHall is a game; the others are refused, with the same error (not constant-sum, no goal,
    plays too long)."""
    assert_same(gdl.load(_corpus(name)))


def test_a_game_without_a_network_is_made_over_objects() -> None:
    game = gdl.load(GAMES / "kuhn.kif", engine="datalog")
    with pytest.raises(ArraysUnsupportedError):
        generate_tree(game)
    assert extensive_from_gdl(game) == extensive_from_gdl(gdl.load(GAMES / "kuhn.kif"))


@st.composite
def gdl2_games(draw: st.DrawFn) -> str:
    """A small acyclic game of two players, maybe with nature, maybe with percepts: states s0..sN,
    each role's moves and each player's percepts per state and joint move drawn."""
    states = draw(st.integers(2, 6))
    chance = draw(st.booleans())
    percepts = draw(st.booleans())
    roles = ["random", "p1", "p2"] if chance else ["p1", "p2"]
    lines = [f"(role {r})" for r in roles] + ["(init (at s0))"]
    constant = draw(st.sampled_from([100, 100, 100, 80]))
    for s in range(states):
        last = s == states - 1
        if last or (s > 0 and draw(st.booleans())):
            lines.append(f"(<= terminal (true (at s{s})))")
            first = draw(st.sampled_from([0, 25, 50, 100]))
            second = constant - first if draw(st.integers(0, 9)) else 100 - first
            lines.append(f"(<= (goal p1 {first}) (true (at s{s})))")
            lines.append(f"(<= (goal p2 {second}) (true (at s{s})))")
            continue
        counts = [draw(st.integers(1, 3)) for _ in roles]
        for role, n in zip(roles, counts, strict=True):
            lines += [f"(<= (legal {role} m{m}) (true (at s{s})))" for m in range(n)]
        for joint in _product(counts):
            does = " ".join(f"(does {r} m{m})" for r, m in zip(roles, joint, strict=True))
            target = draw(st.integers(s + 1, states - 1))
            lines.append(f"(<= (next (at s{target})) (true (at s{s})) {does})")
            if percepts:
                for player in ("p1", "p2"):
                    seen = draw(st.sampled_from(["", "c0", "c1", f"(m{joint[-1]})"]))
                    if seen:
                        lines.append(f"(<= (sees {player} {seen}) (true (at s{s})) {does})")
    return "\n".join(lines)


def _product(counts: list[int]) -> list[tuple[int, ...]]:
    joints: list[tuple[int, ...]] = [()]
    for n in counts:
        joints = [(*j, m) for j in joints for m in range(n)]
    return joints


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gdl2_games())
def test_random_gdl2_games_are_the_same(text: str) -> None:
    try:
        game = gdl.parse(text, file="random.kif")
    except GdlError:
        return  # a drawn game that breaks GDL (a role without goals): nothing to compare
    assert_same(game)


@pytest.mark.parametrize("name", ["kuhn", "leduc", "montyhall", "dice", "spoof"])
def test_counts_over_states_are_the_tree_sizes(name: str) -> None:
    game = gdl.load(GAMES / f"{name}.kif")
    tree = generate_tree(game)
    size = count_tree(game)
    assert (size.nodes, size.terminals, size.saturated) == (tree.nodes, tree.sizes["terminal"], False)
    for number, player in enumerate(game.players):
        counted = count_infosets(game, player)
        assert counted.complete and counted.infosets == int((tree.set_player == number).sum())


def test_kriegtictactoe_is_counted_without_its_histories() -> None:
    size = count_tree(gdl.load(GAMES / "kriegtictactoe.kif"))
    # Its 16 billion nodes: the same count as a memoised recursion over Game/State objects finds.
    assert (size.nodes, size.terminals) == (16_363_068_211, 9_829_101_024)
    assert size.states == 415_123 and not size.saturated


def test_an_interrupted_infoset_count_says_so() -> None:
    counted = count_infosets(gdl.load(GAMES / "kriegtictactoe.kif"), "xplayer", memory=1 << 20)
    assert not counted.complete and "would pass" in counted.stopped and counted.infosets > 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gdl2_games())
def test_random_gdl2_games_are_counted_as_generated(text: str) -> None:
    try:
        game = gdl.parse(text, file="random.kif")
        tree = generate_tree(game)
    except (GdlError, ArraysUnsupportedError):
        return  # not a game of arrays (see the test above for the error it gives)
    assert count_tree(game).nodes == tree.nodes
    for number, player in enumerate(game.players):
        assert count_infosets(game, player).infosets == int((tree.set_player == number).sum())


def test_the_warm_up_game_is_the_same() -> None:
    from gdl.extensive.warm import WARM_UP_GAME, warm_up

    warm_up()
    made = assert_same(gdl.parse(WARM_UP_GAME, file="warm-up.kif"))
    assert isinstance(made, GdlExtensiveGame) and made.sizes == {"terminal": 8, "chance": 1, "decision": 6}


def test_a_count_past_2_to_the_62_saturates() -> None:
    """Seventy steps of two moves each over a chain of states: 2^71 - 1 nodes, counted as at least
    2^62 (saturated), not overflowed."""
    steps = 70
    succ = " ".join(f"(succ {k} {k + 1})" for k in range(steps))
    text = f"""
    (role random) (role p) {succ} (init (step 0))
    (<= (legal random noop) (true (step ?k)))
    (<= (legal p a) (true (step ?k))) (<= (legal p b) (true (step ?k)))
    (<= (next (step ?n)) (true (step ?k)) (succ ?k ?n))
    (<= (sees p tick) (true (step ?k)))
    (<= terminal (true (step {steps}))) (<= (goal p 100) (true (step {steps})))
    (<= (goal p 0) (not (true (step {steps}))))
    """
    size = count_tree(gdl.parse(text, file="chain.kif"))
    assert size.saturated and size.nodes == size.terminals == 2**62 and size.states == steps + 1
