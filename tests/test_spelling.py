"""Names keep the spelling of the rules in everything gdl sends, records and shows, while matching
ignores case (ggp-base compares names case-sensitively)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from support.protocol import Background, FirstLegal, request, scripted, serving
from support.timing import clock

import gdl
from gdl.cli.play import render
from gdl.match import Match
from gdl.players import make_player
from gdl.players.human import HumanPlayer
from gdl.protocol.manager import Network, host
from gdl.protocol.messages import Play, Start, Stop
from gdl.protocol.server import PlayerServer
from gdl.syntax.reader import parse_term, read

#: A one-player game whose names are written in mixed case, and not always the same way.
CAPITALS = """
(role Robot)
(init (Cell 0))
(succ 0 1) (succ 1 2)
(<= (legal Robot moveRight) (true (cell ?x)))
(<= (legal robot Wait) (true (Cell ?x)))
(<= (next (Cell ?y)) (does ROBOT moveright) (true (cell ?x)) (succ ?x ?y))
(<= (next (cell ?x)) (does robot wait) (true (cell ?x)))
(<= terminal (true (Cell 2)))
(<= (goal Robot 100) (true (cell 2)))
(<= (goal robot 0) (not (true (cell 2))))
"""


@pytest.fixture(scope="module")
def game() -> gdl.Game:
    return gdl.parse(CAPITALS)


def test_the_reader_keeps_each_name_s_first_spelling() -> None:
    program = read(CAPITALS).program
    assert program.spellings == {"robot": "Robot", "cell": "Cell", "moveright": "moveRight", "wait": "Wait"}
    # Matching ignores case: the clause model is canonical.
    assert read("(role ROBOT)").program.rules == read("(role robot)").program.rules


def test_game_spell_writes_terms_rules_and_roles_as_the_rules_do(game: gdl.Game) -> None:
    assert game.roles == ("robot",)
    moves = game.initial_state().legal_moves("ROBOT")
    assert sorted(map(game.spell, moves)) == ["Wait", "moveRight"]
    assert game.spell(parse_term("(cell 2)")) == "(Cell 2)"
    assert game.spell("robot") == "Robot"
    assert game.spell(game.checked.program.rules[0]) == "(role Robot)"
    # Variables and keywords are not names of the game.
    assert "(does Robot moveRight)" in " ".join(map(game.spell, game.checked.program.rules))


def test_match_records_and_displays_spell_names_as_the_rules(game: gdl.Game) -> None:
    record = Match(game, {"robot": make_player("legal")}, play_clock=1.0).run()
    assert record.completed
    assert {step["robot"] for step in record.moves} <= {"Wait", "moveRight"}
    data = record.to_json()
    assert data["roles"] == ["Robot"]
    assert "( Cell 0 )" in data["states"][0]
    assert "Cell" in render(game.initial_state())


def test_a_human_sees_the_rules_spelling_and_may_type_any_case(game: gdl.Game) -> None:
    shown = io.StringIO()
    player = HumanPlayer(io.StringIO("MOVERIGHT\n"), shown)
    player.start(game, "robot", 1.0, 1.0)
    move = player.play(game.initial_state(), 0.0)
    assert game.spell(move) == "moveRight"
    assert "moveRight" in shown.getvalue() and "Robot>" in shown.getvalue()


def post(url: str, text: str) -> tuple[int, str]:
    status, _, body = request(url, text.encode())
    return status, body.decode()


def test_the_player_server_answers_moves_as_the_rules_spell_them(game: gdl.Game) -> None:
    with serving(PlayerServer(FirstLegal, margin=0.1)) as url:
        assert post(url, f"(START caps.1 Robot ({CAPITALS}) 10 5)") == (200, "ready")
        status, move = post(url, "(PLAY caps.1 NIL)")
        assert (status, move) == (200, "moveRight")  # the first legal move, spelled as the rules do
        # The manager may report moves in any case: matching ignores it.
        assert post(url, "(PLAY caps.1 (WAIT))") == (200, "moveRight")
        assert post(url, "(PLAY caps.1 (wait))") == (200, "moveRight")
        assert post(url, "(STOP caps.1 (Wait))") == (200, "done")


class Recorder:
    """Keeps every message; answers PLAY with the first move in lower case."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.texts: list[str] = []

    async def __call__(self, message: Any) -> bytes:
        self.messages.append(message)
        if isinstance(message, Play):
            return b"moveright"
        return b"ready" if isinstance(message, Start) else b"done"


@pytest.fixture()
def background() -> Iterator[Background]:
    own = Background()
    yield own
    own.close()


def test_the_manager_sends_and_records_the_rules_spelling(game: gdl.Game, background: Background) -> None:
    recorder = Recorder()
    with Network() as network, scripted(background, recorder) as url:
        record = host(game, {"robot": url}, clock(2), clock(1), network=network, seed=1)
    assert record.completed and record.error_count("robot") == 0  # "moveright" is legal: any case
    assert [step["robot"] for step in record.moves] == ["moveRight", "moveRight"]
    start, first, second, stop = recorder.messages
    assert isinstance(start, Start) and start.role == "robot"  # the parsed message is canonical
    assert isinstance(first, Play) and first.moves is None
    assert isinstance(second, Play) and isinstance(stop, Stop)
    assert record.to_json()["moves"] == [["moveRight"], ["moveRight"]]


def test_the_manager_s_messages_carry_the_spelling(game: gdl.Game, background: Background) -> None:
    bodies: list[str] = []

    async def keep(message: Any) -> bytes:
        return b"moveRight" if isinstance(message, Play) else b"ready"

    from aiohttp import web

    async def handle(request: web.Request) -> web.Response:
        text = (await request.read()).decode()
        bodies.append(text)
        from gdl.protocol.messages import parse_message

        return web.Response(body=await keep(parse_message(text)))

    async def start() -> tuple[web.AppRunner, str]:
        app = web.Application()
        app.router.add_post("/", handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        return runner, f"http://127.0.0.1:{runner.addresses[0][1]}/"

    runner, url = background.run(start())
    try:
        with Network() as network:
            host(game, {"robot": url}, 2.0, 1.0, network=network, seed=1)
    finally:
        background.run(runner.cleanup())
    assert bodies[0].startswith("(START ") and " Robot (" in bodies[0]
    assert "(legal Robot moveRight)" in bodies[0]
    assert bodies[2].startswith("(PLAY ") and bodies[2].endswith("(moveRight))")
    assert bodies[-1].startswith("(STOP ") and bodies[-1].endswith("(moveRight))")
