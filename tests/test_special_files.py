"""Files that are not regular files, or larger than gdl reads, are refused by kind and size before they
are read: a symlink to /dev/zero, a FIFO (no writer ever comes), a sparse file past the cap."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from gdl.errors import UnreadableFileError
from gdl.files import MAX_BYTES, read_text_file

#: Every command that reads a game file, with ``F`` for the file (given each suffix it reads).
COMMANDS = [
    ["check", "F.kif"],
    ["play", "F.kif", "-q", "--max-steps", "1"],
    ["solve", "F.kif"],
    ["solve", "F.json"],
    ["solve", "F.efg"],
    ["convert", "F.efg", "OUT.json"],
    ["bench", "F.kif", "--time-limit", "1"],
    ["network", "F.kif"],
    ["tournament", "F.kif", "-p", "random", "-p", "random", "--matches", "1"],
    ["bandits", "F.txt"],
]

#: Runs the commands in one process and prints their exit statuses and the last line of their errors.
DRIVER = """
import contextlib, io, json, sys
from gdl.cli import main
results = []
for argv in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = main(argv)
        except SystemExit as exit:
            status = exit.code
    results.append((status, (err.getvalue().strip().splitlines() or [""])[-1]))
print(json.dumps(results))
"""


def special_files(folder: Path) -> dict[str, Path]:
    """A folder per kind, each holding the kind under every suffix the commands read."""
    kinds = {}
    for kind in ("zero", "fifo", "sparse"):
        place = folder / kind
        place.mkdir()
        for suffix in (".kif", ".json", ".efg", ".txt"):
            path = place / f"F{suffix}"
            if kind == "zero":
                path.symlink_to("/dev/zero")
            elif kind == "fifo":
                os.mkfifo(path)
            else:
                with path.open("wb") as file:
                    file.truncate(MAX_BYTES + 1)  # no block written: sparse
        kinds[kind] = place
    return kinds


def _limited() -> None:
    # Today's main reads /dev/zero until memory runs out: let that fail fast in the child alone.
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


@pytest.mark.parametrize("kind", ["zero", "fifo", "sparse"])
def test_every_command_refuses_a_special_or_oversized_file_unread(kind: str, tmp_path: Path) -> None:
    place = special_files(tmp_path)[kind]
    argv = [[str(place / arg) if arg.startswith(("F.", "OUT.")) else arg for arg in cmd] for cmd in COMMANDS]
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(argv)], capture_output=True, text=True, timeout=120,
        preexec_fn=_limited, env={**os.environ, "GDL_TRACEBACK": ""},
    )
    results = json.loads(done.stdout)
    expected = "not a regular file" if kind != "sparse" else f"more than the {MAX_BYTES} allowed"
    assert len(results) == len(COMMANDS)
    for command, (status, last) in zip(COMMANDS, results, strict=True):
        assert status == 2, (command, last)
        assert expected in last, (command, last)


def test_a_file_is_read_only_up_to_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "game.kif"
    path.write_text("(role a)\r\n(init (p 1))\r\n")
    assert read_text_file(path) == "(role a)\n(init (p 1))\n"
    with pytest.raises(UnreadableFileError, match="more than the 10 allowed"):
        read_text_file(path, max_bytes=10)
    with pytest.raises(UnreadableFileError, match="not a regular file \\(a character device\\)"):
        read_text_file("/dev/zero")
    with pytest.raises(UnreadableFileError, match="is a directory"):
        read_text_file(tmp_path)
