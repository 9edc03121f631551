"""The JSON game format: reading, every validation problem with its JSON path, writing, round trips."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.json_games import even_or_odd, json_values, mutated_games
from support.paths import JSON_GAMES, needs_json_games

from gdl.errors import JsonGameError
from gdl.extensive.jsonformat import JsonWriteError, game_from_json, read_json_game, write_json_game
from gdl.extensive.model import Chance, Decision, ExtensiveGame, Node, Terminal

SHARED = JSON_GAMES


def problems(document: Any) -> list[tuple[str, str]]:
    with pytest.raises(JsonGameError) as raised:
        game_from_json(document)
    return [(p.path, p.message) for p in raised.value.problems]


def paths(document: Any) -> list[str]:
    return [path for path, _ in problems(document)]


@needs_json_games
def test_kuhn_json_reads_into_the_model() -> None:
    game = read_json_game(SHARED / "kuhn.json")
    assert game.players == ("1", "2")
    assert game.title == "Kuhn Poker"
    assert game.sizes == {"terminal": 30, "chance": 1, "decision": 24}
    assert isinstance(game.root, Chance) and game.root.probabilities == (Fraction(1, 6),) * 6
    # information set = (player, knowledge): player 2 holding a king after a check, whatever player 1 holds
    assert game.infosets["2:K check"].actions == ("check", "bet")
    assert len(game.infosets_of("1")) == len(game.infosets_of("2")) == 6
    assert game.is_zero_sum()


def test_even_or_odd_has_one_information_set_per_player() -> None:
    game = game_from_json(even_or_odd())
    assert list(game.infosets) == ["1:", "2:"]
    assert isinstance(game.root, Decision) and game.root.actions == ("1", "2")


def test_a_state_reached_along_two_paths_is_copied() -> None:
    document = {
        "start": "deal",
        "states": [
            {"name": "deal", "player": "chance", "actions": [{"a": "guess"}, {"b": "guess"}]},
            {"name": "guess", "player": 1, "knowledge": "", "actions": [{"x": "end"}]},
            {"name": "end", "result": 3},
        ],
    }
    game = game_from_json(document)
    assert game.sizes == {"terminal": 2, "chance": 1, "decision": 2}


def test_actions_of_one_information_set_may_be_listed_in_any_order() -> None:
    document = even_or_odd()
    document["states"][4]["actions"].reverse()
    game = game_from_json(document)
    assert isinstance(game.root, Decision)
    second = game.root.children[1]
    assert isinstance(second, Decision) and second.actions == ("even", "odd")
    assert second.children == (Terminal({"1": -1, "2": 1}), Terminal({"1": 1, "2": -1}))


# --- each problem, with its path -----------------------------------------------------------------


def test_broken_link_names_the_action_and_the_missing_state() -> None:
    document = even_or_odd()
    document["states"][1]["actions"][1] = {"odd": "1 0dd"}
    assert problems(document) == [
        ("states[1].actions[1]", "action 'odd' of state '1' leads to '1 0dd', which is no state"),
        ("states[3]", "state '1 odd' cannot be reached from the start 'pick'"),
    ]


def test_duplicate_state_names() -> None:
    document = even_or_odd()
    document["states"].append({"name": "1 even", "result": 5})
    assert problems(document) == [("states[7].name", "state name '1 even' is already the name of states[2]")]


def test_missing_start_and_a_start_that_is_no_state() -> None:
    document = even_or_odd()
    del document["start"]
    assert problems(document) == [("start", "no start state: the game must name the state it starts in")]
    document["start"] = "pik"
    assert problems(document) == [("start", "the start 'pik' is no state")]


def test_unreachable_states() -> None:
    document = even_or_odd()
    document["states"].append({"name": "orphan", "result": 0})
    assert problems(document) == [("states[7]", "state 'orphan' cannot be reached from the start 'pick'")]


def test_cycles_name_every_state_on_them() -> None:
    document = even_or_odd()
    document["states"][4]["actions"][1] = {"odd": "pick"}
    found = problems(document)
    assert (
        "states[4].actions[1]",
        "action 'odd' of state '2' closes a cycle: 'pick' -> '2' -> 'pick'",
    ) in found
    assert ("states[6]", "state '2 odd' cannot be reached from the start 'pick'") in found


def test_one_information_set_with_different_actions() -> None:
    document = even_or_odd()
    document["states"][4]["actions"][1] = {"odd?": "2 odd"}
    assert problems(document) == [
        (
            "states[4]",
            "states '1' and '2' are one information set of player 2 (knowledge '') but offer different "
            "actions: ['even', 'odd'] and ['even', 'odd?']",
        )
    ]


def test_imperfect_recall_names_both_states_and_histories() -> None:
    # Player 1 moves twice; the second time it has forgotten its first move.
    document = {
        "start": "first",
        "states": [
            {"name": "first", "player": 1, "knowledge": "start", "actions": [{"l": "L"}, {"r": "R"}]},
            {"name": "L", "player": 1, "knowledge": "again", "actions": [{"x": "end"}]},
            {"name": "R", "player": 1, "knowledge": "again", "actions": [{"x": "end"}]},
            {"name": "end", "result": 0},
        ],
    }
    assert problems(document) == [
        (
            "states[2]",
            "imperfect recall: player 1 cannot tell 'L' at (l) from 'R' at (r) (knowledge 'again'), "
            "but its own moves before them differ",
        )
    ]


def test_malformed_actions() -> None:
    document = even_or_odd()
    document["states"][0]["actions"] = [{"1": "1", "2": "2"}, {}, {"3": 7}, {"1": "1"}]
    found = problems(document)
    assert (
        "states[0].actions[0]",
        "an action is an object with one entry, label: next state (2 here)",
    ) in found
    assert (
        "states[0].actions[1]",
        "an action is an object with one entry, label: next state (0 here)",
    ) in found
    assert ("states[0].actions[2]", "action '3' leads to 7, not to a state name") in found
    document["states"][0]["actions"] = [{"1": "1"}, {"1": "2"}]
    assert ("states[0].actions[1]", "state 'pick' has action '1' twice (also actions[0])") in problems(
        document
    )
    document["states"][0]["actions"] = []
    assert ("states[0].actions", "state 'pick' has no actions") in problems(document)


def test_schema_problems_have_their_paths_and_short_messages() -> None:
    document = even_or_odd()
    document["states"][2] = {"name": "1 even", "result": 1, "actions": []}
    document["states"][3] = {"name": "1 odd", "player": 3, "knowledge": "", "actions": [{"a": "pick"}]}
    document["states"][5]["knowledge"] = "secret"
    document["extra"] = 1
    found = dict(problems(document))
    assert found["$"] == "Additional properties are not allowed ('extra' was unexpected)"
    assert found["states[3].player"] == "3 is not one of ['chance', 1, 2]"
    assert found["states[5]"] == "only a decision state (player 1 or 2) has knowledge"
    assert "states[2]" in found  # a result and actions (and no player)
    document = even_or_odd()
    document["states"][0].pop("actions")
    document["states"][1].pop("player")
    listed = problems(document)
    assert ("states[0]", "a state with a player lists its actions") in listed
    assert ("states[1]", "a state with actions names its player (1, 2 or chance)") in listed


def test_every_problem_at_once() -> None:
    document = even_or_odd()
    document["states"][0]["actions"][0] = {"1": "one"}  # broken link, and "1" unreachable
    document["states"].append({"name": "2", "result": 0})  # duplicate
    document["states"][6]["result"] = "1"  # schema
    assert paths(document) == [
        "states[0].actions[0]",
        "states[1]",
        "states[2]",
        "states[3]",
        "states[6].result",
        "states[7].name",
    ]


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("", "line 1 column 1"),
        ("{", "line 1 column 2"),
        ("[]", "$"),
        ("null", "$"),
        ("[" * 100_000 + "]" * 100_000, "$"),
        ('{"start": "a", "states": [{"name": "a", "result": 1' + "0" * 5000 + "}]}", "$"),
    ],
)
def test_any_text_is_a_game_or_a_clear_error(text: str, path: str) -> None:
    with pytest.raises(JsonGameError) as raised:
        read_json_game(text)
    assert raised.value.problems[0].path == path


def test_files_that_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(JsonGameError, match="cannot read the file"):
        read_json_game(tmp_path / "missing.json")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{}")
    with pytest.raises(JsonGameError, match="not UTF-8"):
        read_json_game(binary)


def test_a_game_too_large_to_unfold() -> None:
    # 40 states in a chain, each with two actions to the next: 2**40 paths.
    states: list[dict[str, Any]] = [
        {"name": f"s{i}", "player": "chance", "actions": [{"a": f"s{i + 1}"}, {"b": f"s{i + 1}"}]}
        for i in range(40)
    ]
    states.append({"name": "s40", "result": 0})
    found = problems({"start": "s0", "states": states})
    assert found == [
        (
            "states",
            "the game unfolds into more than 500000 nodes (a state reached along several paths is "
            "copied for each)",
        )
    ]


# --- fuzzing: never a traceback ------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(json_values)
def test_arbitrary_json_is_a_game_or_a_json_game_error(document: Any) -> None:
    try:
        game_from_json(document)
    except JsonGameError as error:
        assert error.problems and all(p.path and p.message for p in error.problems)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200) | json_values.map(json.dumps).map(lambda text: text[: len(text) // 2]))
def test_arbitrary_text_is_a_game_or_a_json_game_error(text: str) -> None:
    try:
        read_json_game(text)
    except JsonGameError as error:
        assert error.problems and all(p.path and p.message for p in error.problems)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_games())
def test_mutated_games_are_games_or_json_game_errors(document: dict[str, Any]) -> None:
    try:
        game = game_from_json(document)
    except JsonGameError as error:
        assert error.problems and all(p.path and p.message for p in error.problems)
    else:
        assert game.players == ("1", "2") and game.is_zero_sum()


# --- writing -------------------------------------------------------------------------------------


@needs_json_games
@pytest.mark.parametrize("name", ["kuhn.json", "even-or-odd.json"])
def test_shared_games_round_trip(name: str) -> None:
    game = read_json_game(SHARED / name)
    text = write_json_game(game, description="again")
    assert read_json_game(text) == game
    assert json.loads(text)["description"] == "again"


@st.composite
def random_games(draw: st.DrawFn) -> ExtensiveGame:
    """Perfect-recall games: each player's information set is its own past plus what it was shown."""

    def node(depth: int, own: dict[str, tuple[str, ...]]) -> Node:
        kind = draw(st.sampled_from(["terminal", "chance", "decision"])) if depth < 4 else "terminal"
        if kind == "terminal":
            result = draw(st.integers(-5, 5))
            return Terminal({"1": result, "2": -result})
        width = draw(st.integers(1, 3))
        labels = [f"a{i}" for i in range(width)]
        if kind == "chance":
            # what nature did is shown to a player, or to nobody
            shown = draw(st.sampled_from(["1", "2", None]))
            children = []
            for label in labels:
                seen = {**own, shown: (*own[shown], f"saw {label}")} if shown else own
                children.append(node(depth + 1, seen))
            return Chance.uniform(labels, children)
        player = draw(st.sampled_from(["1", "2"]))
        key = f"{player}:" + " ".join(own[player]) + f" |{width}"
        kids = [node(depth + 1, {**own, player: (*own[player], f"did {label} at {key}")}) for label in labels]
        return Decision(player, key, labels, kids)

    title = draw(st.text(st.characters(blacklist_categories=("Cc",)), max_size=5))  # printable
    return ExtensiveGame(("1", "2"), node(0, {"1": (), "2": ()}), title=title)


@settings(max_examples=100, deadline=None)
@given(random_games())
def test_random_games_round_trip(game: ExtensiveGame) -> None:
    assert read_json_game(write_json_game(game)) == game


def test_writing_refuses_what_the_format_cannot_hold() -> None:
    end = Terminal({"1": 1, "2": -1})
    biased = ExtensiveGame(("1", "2"), Chance(["h", "t"], [Fraction(1, 3), Fraction(2, 3)], [end, end]))
    with pytest.raises(
        JsonWriteError, match=r"chance is uniform; the chance node at \(\) has probabilities 1/3, 2/3"
    ):
        write_json_game(biased)
    general_sum = ExtensiveGame(("1", "2"), Terminal({"1": 1, "2": 1}))
    with pytest.raises(JsonWriteError, match=r"zero-sum; the terminal at \(\) pays 1 and 1"):
        write_json_game(general_sum)
    halves = ExtensiveGame(("1", "2"), Terminal({"1": Fraction(1, 2), "2": Fraction(-1, 2)}))
    with pytest.raises(JsonWriteError, match="integers; the terminal at \\(\\) pays 1/2"):
        write_json_game(halves)
    three = ExtensiveGame(("a", "b", "c"), Terminal({"a": 0, "b": 0, "c": 0}))
    with pytest.raises(JsonWriteError, match="two players; this game has 3"):
        write_json_game(three)


def test_writing_names_players_in_order_and_keeps_other_keys_as_knowledge() -> None:
    game = ExtensiveGame(
        ("left", "right"),
        Decision(
            "left",
            "(view left)",
            ["x", "y"],
            [Terminal({"left": 2, "right": -2}), Terminal({"left": 0, "right": 0})],
        ),
    )
    document = json.loads(write_json_game(game))
    assert document["states"][0] == {
        "name": "start",
        "player": 1,
        "knowledge": "(view left)",
        "actions": [{"x": "x"}, {"y": "y"}],
    }
    assert [s.get("result") for s in document["states"][1:]] == [2, 0]


def test_module_examples() -> None:
    import doctest

    import gdl.extensive.jsonformat

    result = doctest.testmod(gdl.extensive.jsonformat)
    assert result.attempted >= 3 and result.failed == 0


def test_a_broken_file_lists_its_problems_as_diagnostics(tmp_path: Path) -> None:
    document = even_or_odd()
    document["states"][1]["actions"][1] = {"odd": "1 0dd"}
    document["states"].append({"name": "pick", "result": 0})
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(JsonGameError) as raised:
        read_json_game(path)
    assert str(raised.value).splitlines() == [
        f"{path}: states[1].actions[1]: error: action 'odd' of state '1' leads to '1 0dd', which is no state",
        f"{path}: states[3]: error: state '1 odd' cannot be reached from the start 'pick'",
        f"{path}: states[7].name: error: state name 'pick' is already the name of states[0]",
    ]


def test_hundreds_of_problems_are_counted_past_a_hundred() -> None:
    document = even_or_odd()
    document["states"] += [{"name": f"orphan {i}", "result": 0} for i in range(150)]
    with pytest.raises(JsonGameError) as raised:
        game_from_json(document)
    assert len(raised.value.problems) == 150
    lines = str(raised.value).splitlines()
    assert len(lines) == 101 and lines[-1] == "<json>: note: and 50 more problems"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_games() | json_values)
def test_states_validated_by_shape_find_what_the_whole_schema_finds(document: Any) -> None:
    import jsonschema

    from gdl.extensive import json_schema_check

    schema = json.loads((Path(json_schema_check.__file__).parent / "json-game.schema.json").read_text())
    whole = sorted(
        (json_schema_check.json_path(list(e.absolute_path)), json_schema_check.schema_message(e))
        for e in jsonschema.Draft7Validator(schema).iter_errors(document)
    )
    assert sorted((p.path, p.message) for p in json_schema_check.schema_problems(document)) == whole
