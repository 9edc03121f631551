"""The viewer's parts without a browser: boards drawn from the rules, drawing hints, match records,
the page, and the pictures of rules (``gdl graph``, ``gdl check --graph``, ``gdl network --picture``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gdl
from gdl.check import check_text
from gdl.cli import main
from gdl.errors import HintsError, RecordError
from gdl.ground.instantiate import instantiate
from gdl.ground.propnet import build
from gdl.match import Match
from gdl.players import make_player
from gdl.render import base_fluents, keyword_fluents
from gdl.syntax.reader import parse_terms, read
from gdl.view.board import Layout
from gdl.view.graph import RuleGraph
from gdl.view.hints import Hints, load_hints, sidecar
from gdl.view.network import depths, network_svg
from gdl.view.page import MatchPage
from gdl.view.replay import Replay

ROOT = Path(__file__).resolve().parent.parent
BROKEN = ROOT / "tests" / "checking" / "broken_buttons.kif"
#: gdl's keys in a record; a ggp-base record has none of them.
GDL_KEYS = ("gameName", "roles", "moveTimes", "errorMessages", "clockSeconds", "abortReason", "percepts")


def cells(svg: str) -> dict[tuple[str, str], str]:
    """The squares of a drawn board: (column, row) -> value ("" for empty)."""
    found = re.findall(r'<g class="cell" data-x="([^"]*)" data-y="([^"]*)" data-value="([^"]*)"', svg)
    return {(x, y): value for x, y, value in found}


def board_of(fluents: Any) -> dict[tuple[str, str], str]:
    """The non-blank (cell x y v) of a state, keyed as the tictactoe hints draw them: column y, row x."""
    return {
        (str(f.args[1]), str(f.args[0])): str(f.args[2])
        for f in fluents
        if f.name == "cell" and str(f.args[2]) != "b"
    }


@pytest.fixture(scope="module")
def tictactoe_record() -> dict[str, Any]:
    game = gdl.load(ROOT / "games" / "tictactoe.kif")
    players = {"xplayer": make_player("random:seed=3"), "oplayer": make_player("random:seed=4")}
    return Match(game, players, play_clock=5.0, seed=1).run().to_json()


def test_a_tictactoe_board_is_drawn_square_by_square() -> None:
    game = gdl.load(ROOT / "games" / "tictactoe.kif")
    state = game.initial_state().next({"xplayer": "(mark 1 3)", "oplayer": "noop"})
    layout = Layout.infer(
        [*base_fluents(game), *state.fluents()], load_hints(ROOT / "games" / "tictactoe.kif")
    )
    picture = layout.draw(state.fluents(), game.spell)
    drawn = cells(picture.svg)
    assert len(drawn) == 9
    assert {k: v for k, v in drawn.items() if v} == {("3", "1"): "x"}
    assert picture.control == ("oplayer",)
    assert picture.facts == ()
    # the first row is on top, as the hints ask: row 1's squares come first in the picture
    assert [y for (_, y) in drawn][:3] == ["1", "1", "1"]


def test_a_game_without_a_board_gets_counters_control_and_a_list() -> None:
    game = gdl.load(ROOT / "games" / "nim.kif")
    picture = Layout.infer(base_fluents(game)).draw(game.initial_state().fluents())
    assert picture.svg == ""
    assert picture.control == ("first",)
    assert picture.counters == (("stones", "7"),)
    facts = Layout.infer(parse_terms("(holds a b c d e) (flag)")).draw(
        parse_terms("(holds a b c d e) (flag)")
    )
    assert facts.facts == ("(holds a b c d e)", "flag")


def test_three_coordinates_make_one_grid_per_layer() -> None:
    fluents = parse_terms(
        " ".join(
            f"(cell {x} {y} {z} {'red' if x == z else 'b'})" for x in (1, 2) for y in (1, 2) for z in (1, 2)
        )
    )
    layout = Layout.infer(fluents)
    assert layout.grid is not None and layout.grid.layers == ("1", "2")
    svg = layout.draw(fluents).svg
    assert svg.count('class="cell"') == 8
    assert len(re.findall(r'data-layer="1" data-x="1" data-y="[12]" data-value="red"', svg)) == 2


def test_pieces_are_drawn_by_name() -> None:
    fluents = parse_terms("(cell a 1 wk) (cell b 1 bq) (cell a 2 red) (cell b 2 dragon)")
    svg = Layout.infer(fluents).draw(fluents).svg
    assert "♚" in svg and "♛" in svg  # chess pieces as glyphs
    assert 'fill="#d33"' in svg  # a colour name as a disc of that colour
    assert ">dra<" in svg  # anything else labelled


def test_every_bundled_sidecar_is_valid_and_beside_its_game() -> None:
    sidecars = sorted((ROOT / "games").glob("*.view.json"))
    assert len(sidecars) >= 5
    for path in sidecars:
        game = path.with_name(path.name.removesuffix(".view.json") + ".kif")
        assert game.is_file() and sidecar(game) == path
        assert load_hints(game) != Hints() or json.loads(path.read_text()) == {}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"board": 3}, r"\$\.board: 3 is not of type 'string'"),
        ({"pieces": {"x": {"shape": "star"}}}, r"\$\.pieces\.x\.shape: 'star' is not one of"),
        ({"x": 0}, r"\$\.x: 0 is less than the minimum of 1"),
        ({"colour": "red"}, r"\$: Additional properties are not allowed \('colour' was unexpected\)"),
    ],
)
def test_bad_hints_are_refused_with_their_json_path(data: Any, message: str) -> None:
    with pytest.raises(HintsError, match=message):
        Hints.from_json(data, "game.view.json")


def test_a_hints_file_that_is_not_json_is_refused_with_its_position(tmp_path: Path) -> None:
    (tmp_path / "g.kif").write_text("(role a)")
    (tmp_path / "g.view.json").write_text('{"board": ')
    with pytest.raises(HintsError, match=r"g\.view\.json:1:11: not JSON"):
        load_hints(tmp_path / "g.kif")


def test_every_corpus_game_renders(corpus: Path) -> None:
    paths = sorted((corpus / "games").glob("*.kif")) + sorted((corpus / "gdl2").glob("*.gdl"))
    rendered = boards = refused = 0
    for path in paths:
        checked = check_text(path.read_text(encoding="utf-8"), str(path)).checked
        if checked is None:  # the GDL-II games with real defects (see test_corpus_check.py)
            assert path.parent.name == "gdl2", path
            refused += 1
            continue
        init = keyword_fluents(checked, "init")
        picture = Layout.infer([*keyword_fluents(checked, "base"), *init]).draw(init)
        shown = len(cells(picture.svg)) and sum(bool(v) for v in cells(picture.svg).values())
        # every fluent of the initial state is shown: on the board, as control, a counter or listed
        assert shown + len(picture.control) + len(picture.counters) + len(picture.facts) <= len(init)
        rendered += 1
        boards += bool(picture.svg)
    assert rendered + refused == len(paths) >= 200
    assert rendered >= 190 and boards >= 100


def test_a_record_reads_back_with_its_states_and_moves(tictactoe_record: dict[str, Any]) -> None:
    replay = Replay.from_json(tictactoe_record)
    assert replay.roles == ("xplayer", "oplayer")
    assert len(replay.states) == len(replay.moves) + 1 == len(tictactoe_record["states"])
    assert [list(m) for m in replay.moves] == [
        [m.replace("( ", "(").replace(" )", ")") for m in step] for step in tictactoe_record["moves"]
    ]
    assert replay.goals == tuple(tictactoe_record["goalValues"])
    assert replay.completed


def test_a_ggp_base_record_without_gdls_keys_opens(tictactoe_record: dict[str, Any]) -> None:
    bare = {k: v for k, v in tictactoe_record.items() if k not in GDL_KEYS}
    replay = Replay.from_json(bare)
    assert replay.roles == ("role 1", "role 2")
    assert Replay.from_json(bare, ("xplayer", "oplayer")).roles == ("xplayer", "oplayer")
    page = MatchPage(replay)
    last = page.step(len(replay.states) - 1)
    final = parse_terms(tictactoe_record["states"][-1].strip()[1:-1])
    expected = {
        (str(f.args[0]), str(f.args[1])): str(f.args[2])
        for f in final
        if f.name == "cell" and str(f.args[2]) != "b"
    }
    assert {k: v for k, v in cells(last["picture"]["svg"]).items() if v} == expected


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"states": "x"}, r"\$\.states: expected a list"),
        ({"states": []}, r"\$\.states: a match record has at least one state"),
        ({"states": ["( ( cell 1 1 "]}, r"\$\.states\[0\]: not a list of fluents"),
        ({"moves": [["a"]], "states": ["( )", "( )"]}, r"\$\.moves\[0\]: 1 moves for 2 roles"),
        ({"moves": [["a", "b"]] * 5, "states": ["( )"]}, r"\$\.moves: 5 steps do not lead through 1 states"),
        ({"moves": [[1, 2]]}, r"\$\.moves\[0\]: expected a list of strings"),
        ({"goalValues": ["many", 0]}, r"\$\.goalValues\[0\]: a goal is a number or null"),
    ],
)
def test_a_bad_record_is_refused_with_its_json_path(
    tictactoe_record: dict[str, Any], change: dict[str, Any], message: str
) -> None:
    with pytest.raises(RecordError, match=message):
        Replay.from_json({**tictactoe_record, **change})


def test_a_gdl2_page_has_percepts_and_each_roles_own_view() -> None:
    game = gdl.load(ROOT / "games" / "kriegtictactoe.kif")
    players = {r: make_player(f"random:seed={i}") for i, r in enumerate(game.players)}
    record = Match(game, players, play_clock=5.0, seed=2).run()
    page = MatchPage(
        Replay.from_json(record.to_json()),
        base_fluents(game),
        load_hints(ROOT / "games" / "kriegtictactoe.kif"),
    )
    assert page.replay.gdl2
    last = page.step(len(record.states) - 1)
    assert last["percepts"] == [[record.spell(p) for p in record.percepts[-1][r]] for r in record.roles]
    # xplayer's view: the squares it has seen its marks placed on
    placed = {
        tuple(str(a) for a in t.args)
        for step in record.percepts
        for t in parse_terms(" ".join(step["xplayer"]))
        if t.name == "placed"
    }
    seen = {(y, x) for (x, y), v in cells(last["views"][0]["svg"]).items() if v}
    assert seen == placed and placed


def test_the_page_is_self_contained(tictactoe_record: dict[str, Any]) -> None:
    html = MatchPage(Replay.from_json(tictactoe_record)).html()
    assert (
        "<script src" not in html
        and "<link" not in html
        and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    )
    assert html.count("data-x=") == 9 * len(tictactoe_record["states"])


def test_broken_buttons_graph_marks_the_three_problems_gdl_check_reports() -> None:
    result = read(BROKEN.read_text(encoding="utf-8"), str(BROKEN))
    diagnostics = gdl.check.check(result.program, result.diagnostics).diagnostics
    assert len(diagnostics) == 3
    graph = RuleGraph.of(result.program, diagnostics)
    assert set(graph.problems) == {"legal", "tru", ("goal", "does")}
    assert sorted(d.code for found in graph.problems.values() for d in found) == sorted(
        d.code for d in diagnostics
    )
    svg = graph.to_svg()
    assert re.findall(r'class="node error" data-relation="(\w+)"', svg) == ["legal", "tru"]
    assert re.findall(r'class="edge error" data-from="(\w+)" data-to="(\w+)"', svg) == [("goal", "does")]
    dot = graph.to_dot()
    assert '"goal" -> "does" [color="#d93025"' in dot
    assert re.search(r'"tru" \[[^]]*color="#d93025"', dot)


def test_negation_strata_recursion_and_a_negative_cycle_are_marked() -> None:
    text = """(role r) (init (c 1)) (succ 1 2) (succ 2 3)
    (<= (reach ?y) (true (c ?y))) (<= (reach ?y) (reach ?x) (succ ?x ?y))
    (<= (far ?x) (succ ?x ?y) (not (reach ?x)))
    (<= p (not q)) (<= q (not p))
    (<= terminal (far 1)) (<= (legal r a) (far 2)) (<= (goal r 0) p)"""
    result = read(text, "cycle.kif")
    diagnostics = gdl.check.check(result.program, result.diagnostics).diagnostics
    graph = RuleGraph.of(result.program, diagnostics)
    assert graph.recursive >= {"reach", "p", "q"}
    assert graph.strata["far"] == graph.strata["reach"] + 1
    assert any(isinstance(k, tuple) and set(k) == {"p", "q"} for k in graph.problems)
    svg = graph.to_svg()
    assert 'data-from="far" data-to="reach" data-negative="true"' in svg
    assert 'data-from="reach" data-to="reach" data-negative="false"' in svg


def test_gdl_graph_writes_svg_or_dot_and_exits_1_on_errors(tmp_path: Path) -> None:
    out = tmp_path / "b.svg"
    assert main(["graph", str(BROKEN), "-o", str(out)]) == 1
    assert out.read_text().count('class="node error"') == 2
    assert main(["graph", str(ROOT / "games" / "tictactoe.kif"), "--dot", "-o", str(tmp_path / "t.dot")]) == 0
    assert (tmp_path / "t.dot").read_text().startswith("digraph rules {")
    assert main(["graph", str(tmp_path / "missing.kif")]) == 2


def test_gdl_check_graph_links_the_picture_after_the_diagnostics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "--graph", str(tmp_path), str(BROKEN)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == (
        f"{BROKEN}: note: dependency graph with 3 problem(s) marked: "
        f"{(tmp_path / 'broken_buttons.graph.svg').as_uri()}"
    )
    assert (tmp_path / "broken_buttons.graph.svg").read_text().count("error") > 3


def test_the_network_picture_shows_its_sizes_and_depths(tmp_path: Path) -> None:
    checked = check_text((ROOT / "games" / "tictactoe.kif").read_text()).checked
    assert checked is not None
    net = build(instantiate(checked))
    svg = network_svg(net, "tictactoe")
    sizes = net.sizes()
    for kind in ("base", "input", "and", "or", "not"):
        assert f'data-kind="{kind}" data-count="{sizes[kind]}"' in svg
    layers = [int(n) for n in re.findall(r'class="layer" data-depth="\d+" data-count="(\d+)"', svg)]
    assert sum(layers) == len(net.kinds) == len(depths(net))
    out = tmp_path / "net.svg"
    assert main(["network", str(ROOT / "games" / "tictactoe.kif"), "--picture", str(out)]) == 0
    assert out.read_text() == svg


def test_gdl_view_writes_a_page_and_refuses_a_bad_record(
    tmp_path: Path, tictactoe_record: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "match.json"
    record.write_text(json.dumps(tictactoe_record))
    page = tmp_path / "match.html"
    game = str(ROOT / "games" / "tictactoe.kif")
    assert main(["view", str(record), "--game", game, "-o", str(page)]) == 0
    assert page.read_text().count("data-x=") == 9 * len(tictactoe_record["states"])
    record.write_text(json.dumps({**tictactoe_record, "moves": {}}))
    assert main(["view", str(record), "-o", str(page)]) == 2
    assert "$.moves: expected a list, got dict" in capsys.readouterr().err
    record.write_text("{")
    assert main(["view", str(record), "-o", str(page)]) == 2
    assert "match.json:1:2: not JSON" in capsys.readouterr().err


def test_a_tiltyard_shaped_record_opens_with_its_game_named_by_its_meta_url() -> None:
    # The keys Tiltyard's archive gives a match, and its spelling of states and moves.
    data = {
        "randomToken": "abc",
        "playerNamesFromHost": ["Alpha", "Beta"],
        "startTime": 1,
        "playClock": 15,
        "startClock": 60,
        "matchId": "tiltyard.ticTacToe.1",
        "matchHostPK": "pk",
        "isCompleted": True,
        "isAborted": False,
        "gameMetaURL": "http://games.ggp.org/base/games/ticTacToe/v0/",
        "states": ["( ( cell 1 1 b ) ( control xPlayer ) )", "( ( cell 1 1 x ) ( control oPlayer ) )"],
        "moves": [["( mark 1 1 )", "noop"]],
        "stateTimes": [1, 2],
        "errors": [["", ""], ["", "TO"]],
        "goalValues": [100, 0],
    }
    replay = Replay.from_json(data)
    assert replay.game == "ticTacToe"
    assert replay.players == ("Alpha", "Beta")
    assert replay.errors == (("", ""), ("", "TO"))
    page = MatchPage(replay)
    step = page.step(1)
    assert step["moves"] == ["(mark 1 1)", "noop"] and step["errors"] == ["", "TO"]
    assert step["picture"]["control"] == ["oPlayer"]  # spelled as the record spells it


def test_natures_moves_are_shown_as_natures() -> None:
    game = gdl.load(ROOT / "games" / "montyhall.kif")
    record = Match(game, {"candidate": make_player("random:seed=1")}, play_clock=5.0, seed=3).run()
    page = MatchPage(Replay.from_json(record.to_json()), base_fluents(game))
    header = page.header()
    assert header["nature"] and header["gdl2"]
    nature = game.roles.index("random")
    assert header["players"][nature] == "nature"
    played = [page.step(i)["moves"][nature] for i in range(1, len(record.states))]
    assert played == [record.spell(step["random"]) for step in record.moves]
    assert any(move != "noop" for move in played)
    assert header["end"]["goals"][nature] is None  # nature has no goal


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300)
@given(
    key=st.sampled_from(
        [
            "states",
            "moves",
            "errors",
            "errorMessages",
            "goalValues",
            "moveTimes",
            "percepts",
            "roles",
            "playerNamesFromHost",
            "clockSeconds",
            "startClock",
            "playClock",
            "gameMetaURL",
            "matchId",
            "isCompleted",
        ]
    ),
    value=_JSON,
)
def test_any_broken_field_of_a_record_is_a_record_error_or_read(key: str, value: Any) -> None:
    record = {
        "matchId": "m",
        "states": ["( ( cell 1 1 b ) )", "( ( cell 1 1 x ) )"],
        "moves": [["( mark 1 1 )", "noop"]],
        "errors": [["", ""], ["", ""]],
        "goalValues": [100, 0],
        "startClock": 10,
        "playClock": 5,
        "roles": ["x", "o"],
        "percepts": [[["a"], []]],
    }
    try:
        replay = Replay.from_json({**record, key: value})
    except RecordError as problem:
        assert str(problem).startswith("$")
        return
    page = MatchPage(replay)
    for index in range(len(replay.states)):
        json.dumps(page.step(index))
    json.dumps(page.header())


_HINT = st.fixed_dictionaries(
    {},
    optional={
        "board": st.sampled_from(["cell", "control", "step", "nothing"]),
        "x": st.integers(1, 5),
        "y": st.integers(1, 5),
        "layer": st.integers(1, 5),
        "value": st.integers(1, 5),
        "first_row_on_top": st.booleans(),
        "checkered": st.booleans(),
        "pieces": st.dictionaries(
            st.sampled_from(["x", "o", "b"]),
            st.fixed_dictionaries(
                {},
                optional={
                    "shape": st.sampled_from(["disc", "square", "cross", "ring", "glyph", "text"]),
                    "label": st.text(max_size=3),
                },
            ),
        ),
        "counters": st.lists(st.sampled_from(["step", "cell"])),
        "hide": st.lists(st.sampled_from(["control"])),
    },
)


@settings(max_examples=200)
@given(hints=_HINT)
def test_any_valid_hints_draw_tictactoe_without_error(hints: dict[str, Any]) -> None:
    state = parse_terms("(cell 1 1 x) (cell 1 2 o) (cell 2 2 b) (cell 3 3 b) (control oplayer) (step 2)")
    picture = Layout.infer(state, Hints.from_json(hints)).draw(state)
    shown = sum(1 for v in cells(picture.svg).values() if v)
    assert shown + len(picture.control) + len(picture.counters) + len(picture.facts) <= len(state)


def test_a_live_gdl2_match_is_published_step_by_step_with_each_roles_view() -> None:
    import urllib.request

    from gdl.view.live import LiveMatch, ViewServer

    game = gdl.load(ROOT / "games" / "kriegtictactoe.kif")
    players = {r: make_player(f"random:seed={i}") for i, r in enumerate(game.players)}
    with ViewServer() as server:
        live = LiveMatch(server, base_fluents(game), load_hints(ROOT / "games" / "kriegtictactoe.kif"))
        record = Match(game, players, play_clock=5.0, seed=4, on_step=live.on_step).run()
        live.finish(record)
        with urllib.request.urlopen(server.url + "events", timeout=30) as stream:
            events = [json.loads(line[6:]) for line in stream.read().decode().splitlines() if line]
        page = urllib.request.urlopen(server.url, timeout=30).read().decode()
    steps = [e["step"] for e in events if e["type"] == "step"]
    assert [s["index"] for s in steps] == list(range(len(record.states)))
    assert events[-1] == {
        "type": "end",
        "end": {
            "completed": True,
            "aborted": False,
            "abortReason": "",
            "goals": [record.goals[r] for r in record.roles],
        },
    }
    placed = {
        (str(t.args[1]), str(t.args[0]))
        for step in record.percepts
        for t in parse_terms(" ".join(step["xplayer"]))
        if t.name == "placed"
    }
    assert placed and {k for k, v in cells(steps[-1]["views"][0]["svg"]).items() if v} == placed
    assert '"live":true' in page


def test_a_taken_port_is_a_clear_error(
    tictactoe_record: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gdl.errors import ViewerError
    from gdl.view.live import ViewServer

    with ViewServer() as server:
        port = int(server.url.rstrip("/").rsplit(":", 1)[1])
        with pytest.raises(ViewerError, match=f"cannot serve the viewer on 127.0.0.1:{port}"):
            ViewServer(port=port)
        record = tmp_path / "match.json"
        record.write_text(json.dumps(tictactoe_record))
        assert main(["view", str(record), "--port", str(port)]) == 2
        assert f"gdl view: cannot serve the viewer on 127.0.0.1:{port}" in capsys.readouterr().err
