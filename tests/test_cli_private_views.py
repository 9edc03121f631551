"""What people at a terminal are shown of a GDL-II match: people sharing it (hot seat) each see only
their own view, after a hand-over prompt; a host shows only what is public unless told to reveal."""

from __future__ import annotations

import io
import re
import sys

import pytest
from support.paths import GAMES

from gdl.cli import main


def test_hot_seat_shows_each_person_only_its_own_view_after_a_hand_over(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each turn: Enter at the hand-over prompt, then the first legal move.
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n1\n" * 10))
    argv = ["play", str(GAMES / "kuhn.kif"), "-p", "player1=human", "-p", "player2=human", "--seed", "3"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    turns = re.split(r"=== hand the terminal to (player[12]);", out)
    shared, handed = turns[0], list(zip(turns[1::2], turns[2::2], strict=True))
    assert "yourcard" not in shared and len(handed) >= 2
    assert {role for role, _ in handed} == {"player1", "player2"}
    for role, turn in handed:
        other = "player2" if role == "player1" else "player1"
        shown = turn.split("has moved)")[0]  # the turn: its view and its prompt, up to its move
        assert f"What {role} knows:" in shown and f"What {other} knows:" not in shown
        assert len(set(re.findall(r"\(yourcard \w+\)", shown))) == 1
        # After the move, until the next hand-over: only what both may see (no card, no move, no state).
        after = turn.split("has moved)")[1]
        assert "yourcard" not in after and " played " not in after and "(hand " not in after


def test_a_host_shows_only_what_is_public_unless_told_to_reveal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["host", str(GAMES / "montyhall.kif"), "-p", "candidate=random", "--seed", "1",
            "--play-clock", "5"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "goals: candidate" in out and "step 4" in out
    assert "(car " not in out and "hide_car" not in out and "(opened" not in out and "choose" not in out
    assert main([*argv, "--reveal"]) == 0
    out = capsys.readouterr().out
    assert "(car " in out and "hide_car" in out and "candidate played (choose " in out
    assert main([*argv, "--in-process", "-q"]) == 0  # the local player in the host's process
