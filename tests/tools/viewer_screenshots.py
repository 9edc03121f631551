"""The viewer's screenshots in docs/: a tictactoe match, a connect four match (from the shared corpus)
and a Krieg-tictactoe match (GDL-II) seen as xplayer sees it, each played by seeded players and drawn
by ``gdl view``, taken in headless Chromium; and the picture of the broken Buttons game's rules.

Run: ``.venv/bin/python tests/tools/viewer_screenshots.py``
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from support.browser import chromium  # noqa: E402

import gdl  # noqa: E402
from gdl.cli import main  # noqa: E402
from gdl.match import Match  # noqa: E402
from gdl.players import make_player  # noqa: E402

DOCS = ROOT / "docs"
#: (picture, game file, players by role order, step to show, role whose view is shown or None)
SHOTS = [
    ("viewer-tictactoe.png", ROOT / "games/tictactoe.kif", ["minimax", "random:seed=2"], 5, None),
    ("viewer-connectfour.png", ROOT.parent / "shared/corpus/games/connectfour.kif",
     ["mcts:iterations=300", "random:seed=3"], 14, None),
    ("viewer-kriegtictactoe.png", ROOT / "games/kriegtictactoe.kif", ["random:seed=4", "random:seed=5"], 9,
     "xplayer"),
]


def main_() -> None:
    with tempfile.TemporaryDirectory() as scratch, chromium(900, 640) as browser:
        from selenium.webdriver.support.ui import Select

        for name, game_file, specs, step, role in SHOTS:
            game = gdl.load(game_file)
            players = {r: make_player(spec, 7) for r, spec in zip(game.players, specs, strict=True)}
            record = Match(game, players, play_clock=1.0, seed=1).run().to_json()
            saved, page = Path(scratch) / f"{name}.json", Path(scratch) / f"{name}.html"
            saved.write_text(json.dumps(record))
            assert main(["view", str(saved), "--game", str(game_file), "-o", str(page)]) == 0
            browser.get(page.as_uri() + f"#step-{min(step, len(record['states']) - 1)}")
            if role:
                Select(browser.find_element("id", "view")).select_by_value(role)
            browser.save_screenshot(str(DOCS / name))
            print(f"wrote docs/{name}")
        graph = Path(scratch) / "broken_buttons.svg"
        os.chdir(ROOT)  # the picture is titled with the path as given
        main(["graph", "tests/checking/broken_buttons.kif", "-o", str(graph)])
        browser.set_window_size(560, 520)
        browser.get(graph.as_uri())
        browser.save_screenshot(str(DOCS / "graph-broken-buttons.png"))
        print("wrote docs/graph-broken-buttons.png")


if __name__ == "__main__":
    main_()
