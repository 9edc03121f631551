"""Inputs a careless or hostile user may hand to ``gdl``: shared by the fast CLI tests and the sweep
script ``tests/tools/cli_sweep.py`` (which adds a 50 MB file of facts)."""

from __future__ import annotations

from pathlib import Path

from support.paths import GAMES

TICTACTOE = GAMES / "tictactoe.kif"


def malformed_contents(large: bool = False) -> dict[str, bytes]:
    """File contents by name; ``large`` adds a 50 MB file of repeated facts."""
    tictactoe = TICTACTOE.read_bytes()
    contents = {
        "empty": b"",
        "binary": bytes(range(256)) * 64,
        "latin1": "(role joueur)\n(init (pi\u00e8ce a))\n".encode("latin-1"),
        "unbalanced_open": b"(role x)\n(init (p a)\n",
        "unbalanced_close": b"(role x))\n",
        "huge_number": b"(role x)\n(init (p " + b"9" * 5000 + b"))\n" + tictactoe,
        "huge_goal": tictactoe.replace(b"(goal ?p 100)", b"(goal ?p 1" + b"0" * 5000 + b")"),
        "deep_nesting": b"(role x)\n(init " + b"(f " * 10_000 + b"a" + b")" * 10_000 + b")\n",
        "deep_unclosed": b"(" * 100_000,
        "deep_rule": b"(<= (p ?x) " + b"(or " * 5_000 + b"(q ?x)" + b")" * 5_000 + b")\n",
        "crlf": tictactoe.replace(b"\n", b"\r\n"),
        "bom": b"\xef\xbb\xbf" + tictactoe,
        "comment_at_eof": tictactoe + b"; last words",
        "nul_bytes": b"(role x)\x00\n",
        "only_comment": b"; nothing here",
        "keyword_soup": b"(<= <= <=)\n(not)\n(or)\n(true)\n(does)\n",
    }
    if large:
        contents["many_facts"] = b"".join(b"(fact%d a b c)\n" % i for i in range(1_700_000)) + tictactoe
    return contents


def malformed_paths(directory: Path, large: bool = False) -> dict[str, Path]:
    """The malformed files written to ``directory``, plus a directory (without games) and a missing file."""
    paths: dict[str, Path] = {}
    for name, data in malformed_contents(large).items():
        path = directory / f"{name}.kif"
        path.write_bytes(data)
        paths[name] = path
    paths["directory"] = directory / "folder"
    paths["directory"].mkdir(exist_ok=True)
    paths["missing"] = directory / "no_such_file.kif"
    return paths
