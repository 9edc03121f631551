"""The viewer in a real browser (headless Chromium): stepping through a recorded match, each role's
view of a GDL-II match, and the live pages of ``gdl host --view`` and ``gdl tournament --view``."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.browser import chromium
from support.cli import at_a_terminal

import gdl
from gdl.cli import main
from gdl.match import Match
from gdl.players import make_player
from gdl.syntax.reader import parse_terms

ROOT = Path(__file__).resolve().parent.parent
TICTACTOE = ROOT / "games" / "tictactoe.kif"
KRIEG = ROOT / "games" / "kriegtictactoe.kif"
#: The board as the page shows it: each square's (column, row) and value.
CELLS = """return Array.from(document.querySelectorAll('#board g.cell'))
  .map(g => [g.dataset.x, g.dataset.y, g.dataset.value]);"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as session:
        yield session


def expected_board(state: str) -> dict[tuple[str, str], str]:
    """The marks of a recorded tictactoe state, keyed as its hints draw them: (cell row column)."""
    fluents = parse_terms(state.strip()[1:-1])
    return {
        (str(f.args[1]), str(f.args[0])): str(f.args[2])
        for f in fluents
        if f.name == "cell" and str(f.args[2]) != "b"
    }


def shown_board(browser: Any) -> dict[tuple[str, str], str]:
    squares = browser.execute_script(CELLS)
    assert len(squares) == 9
    return {(x, y): value for x, y, value in squares if value}


def shown_step(browser: Any) -> int:
    match = re.match(r"step (\d+) of", browser.find_element("id", "where").text)
    assert match
    return int(match.group(1))


def record_of(game_file: Path, seed: int) -> dict[str, Any]:
    game = gdl.load(game_file)
    players = {r: make_player(f"random:seed={seed + i}") for i, r in enumerate(game.players)}
    return Match(game, players, play_clock=5.0, seed=seed).run().to_json()


def page_of(record: dict[str, Any], game_file: Path, tmp_path: Path) -> str:
    (tmp_path / "match.json").write_text(json.dumps(record))
    page = tmp_path / "match.html"
    assert main(["view", str(tmp_path / "match.json"), "--game", str(game_file), "-o", str(page)]) == 0
    return page.as_uri()


def press(browser: Any, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).send_keys(key).perform()


def test_stepping_forward_and_back_shows_each_recorded_state(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    record = record_of(TICTACTOE, 5)
    states = record["states"]
    browser.get(page_of(record, TICTACTOE, tmp_path))
    assert shown_step(browser) == 0 and shown_board(browser) == {}
    for index in range(1, len(states)):
        press(browser, Keys.ARROW_RIGHT)
        assert shown_step(browser) == index
        assert shown_board(browser) == expected_board(states[index])
        moves = [e.text for e in browser.find_elements("css selector", "#moves td.move")]
        assert moves == [m.replace("( ", "(").replace(" )", ")") for m in record["moves"][index - 1]]
    press(browser, Keys.ARROW_RIGHT)  # past the end: stays on the last step, with the goals
    assert shown_step(browser) == len(states) - 1
    goals = browser.find_element("id", "goals").text
    assert all(
        f"{role} {goal}" in goals for role, goal in zip(record["roles"], record["goalValues"], strict=True)
    )
    for index in range(len(states) - 2, -1, -1):
        press(browser, Keys.ARROW_LEFT)
        assert shown_step(browser) == index
        assert shown_board(browser) == expected_board(states[index])
    press(browser, Keys.END)
    assert shown_step(browser) == len(states) - 1
    browser.execute_script(
        "const s = document.getElementById('slider'); s.value = 3;s.dispatchEvent(new Event('input'));"
    )
    assert shown_step(browser) == 3 and shown_board(browser) == expected_board(states[3])
    assert browser.current_url.endswith("#step-3")
    browser.find_element("id", "link-2").click()
    assert shown_step(browser) == 2 and shown_board(browser) == expected_board(states[2])
    browser.get(browser.current_url.split("#")[0] + "#step-4")  # a link to a step opens it
    browser.refresh()
    assert shown_step(browser) == 4 and shown_board(browser) == expected_board(states[4])


def test_a_gdl2_match_is_seen_whole_or_as_one_role_sees_it(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import Select

    record = record_of(KRIEG, 7)
    last = len(record["states"]) - 1
    browser.get(page_of(record, KRIEG, tmp_path) + f"#step-{last}")
    assert shown_step(browser) == last
    assert shown_board(browser) == expected_board(record["states"][last])
    Select(browser.find_element("id", "view")).select_by_value("xplayer")
    placed = {
        (str(t.args[1]), str(t.args[0]))
        for step in record["percepts"]
        for t in parse_terms(" ".join(step[0]))
        if t.name == "placed"
    }
    assert set(shown_board(browser)) == placed
    moves = [e.text for e in browser.find_elements("css selector", "#moves td.move")]
    assert moves[1] == "?"  # the other role's move is hidden
    percepts = browser.find_element("id", "percepts").text
    assert "xplayer" in percepts and "oplayer" not in percepts


class Command:
    """A gdl command run in the background, its standard error read line by line."""

    def __init__(self, *argv: str) -> None:
        env = {**os.environ, "BROWSER": "true", "PYTHONPATH": os.pathsep.join(sys.path)}
        self.process = subprocess.Popen(
            [sys.executable, "-c", "import sys; from gdl.cli import main; sys.exit(main())", *argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
            preexec_fn=at_a_terminal,
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)

    def wait_for(self, pattern: str, timeout: float = 120) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines:
                if found := re.search(pattern, line):
                    return found
            assert self.process.poll() is None, "".join(self.lines)
            time.sleep(0.1)
        raise AssertionError(f"no {pattern!r} in {''.join(self.lines)}")

    def interrupt(self) -> int:
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(30)


def wait_until(browser: Any, script: str, timeout: float = 120) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout).until(lambda b: b.execute_script(script))


def test_the_live_page_of_a_hosted_match_receives_every_move(browser: Any, tmp_path: Path) -> None:
    saved = tmp_path / "match.json"
    command = Command(
        "host",
        str(TICTACTOE),
        "-p",
        "xplayer=random",
        "-p",
        "oplayer=random",
        "--seed",
        "3",
        "-q",
        "--view",
        "-o",
        str(saved),
    )
    try:
        url = command.wait_for(r"viewer: (http://\S+)").group(1)
        browser.get(url)  # the match starts once the page listens
        wait_until(browser, "return document.body.dataset.finished === 'true';")
        command.wait_for("serving until Ctrl-C")
        record = json.loads(saved.read_text())
        steps = len(record["states"])
        received = browser.execute_script("return window.gdlLive;")
        assert set(range(1, steps)) <= set(received)  # every move came through the event stream
        assert browser.execute_script("return DATA.steps.length;") == steps
        assert shown_step(browser) == steps - 1
        assert shown_board(browser) == expected_board(record["states"][-1])
        goals = browser.find_element("id", "goals").text
        assert all(f"{r} {g}" in goals for r, g in zip(record["roles"], record["goalValues"], strict=True))
    finally:
        status = command.interrupt()
    assert status == 0


def test_the_tournament_page_lists_standings_and_links_each_match(browser: Any) -> None:
    command = Command(
        "tournament",
        str(TICTACTOE),
        "-p",
        "random",
        "-p",
        "random",
        "-n",
        "2",
        "-j",
        "1",
        "--play-clock",
        "1",
        "--seed",
        "1",
        "--view",
    )
    try:
        url = command.wait_for(r"viewer: (http://\S+)").group(1)
        browser.get(url)
        wait_until(browser, "return document.querySelectorAll('#matches a').length === 2;")
        standings = browser.find_element("id", "standings").text
        assert standings.count("random") == 2
        wins = [int(row.split()[1]) for row in standings.splitlines()[1:]]
        draws = [int(row.split()[2]) for row in standings.splitlines()[1:]]
        assert sum(wins) + sum(draws) // 2 == 2
        browser.find_element("css selector", "#matches a").click()
        assert browser.current_url.endswith("/match/0/") or "/match/0/#" in browser.current_url
        assert shown_step(browser) == 0 and shown_board(browser) == {}
    finally:
        status = command.interrupt()
    assert status == 0


def test_a_ggp_base_record_from_gdl_host_opens(browser: Any, tmp_path: Path) -> None:
    saved = tmp_path / "hosted.json"
    argv = ["host", str(TICTACTOE), "-p", "xplayer=random", "-p", "oplayer=random", "--seed", "4", "-q"]
    assert main([*argv, "-o", str(saved)]) == 0
    record = json.loads(saved.read_text())
    assert record["states"][0].startswith("( ( cell 1 1 b )")  # ggp-base's spelling of states
    page = tmp_path / "hosted.html"
    assert main(["view", str(saved), "-o", str(page)]) == 0  # no rules: the board comes from the states
    last = len(record["states"]) - 1
    browser.get(page.as_uri() + f"#step-{last}")
    squares = browser.execute_script(CELLS)
    final = parse_terms(record["states"][-1].strip()[1:-1])
    marks = {(str(f.args[0]), str(f.args[1])): str(f.args[2]) for f in final if f.name == "cell"}
    assert {(x, y): v for x, y, v in squares if v} == {k: v for k, v in marks.items() if v != "b"}


def test_gdl_view_serves_a_record(browser: Any, tmp_path: Path) -> None:
    record = record_of(TICTACTOE, 9)
    saved = tmp_path / "match.json"
    saved.write_text(json.dumps(record))
    command = Command("view", str(saved), "--game", str(TICTACTOE))
    try:
        url = command.wait_for(r"viewer: (http://\S+)").group(1)
        browser.get(url + "#step-1")
        assert shown_step(browser) == 1 and shown_board(browser) == expected_board(record["states"][1])
    finally:
        status = command.interrupt()
    assert status == 0
