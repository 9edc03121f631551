"""The README's quick start: ``make demo`` needs only the runtime dependencies, and its commands print no
error or warning from gdl (run here in-process, as the Makefile spells them)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from support.timing import slack

from gdl.cli import main

ROOT = Path(__file__).resolve().parent.parent
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def _recipe(target: str) -> tuple[str, list[str]]:
    """The prerequisites of a Makefile target and its command lines."""
    match = re.search(rf"^{target}:(.*)\n((?:\t.*\n)+)", MAKEFILE, re.MULTILINE)
    assert match, f"no target {target} in the Makefile"
    return match.group(1).strip(), [line.strip() for line in match.group(2).splitlines()]


def test_the_demo_installs_only_the_runtime_dependencies() -> None:
    prerequisites, _ = _recipe("demo")
    assert prerequisites == "$(RUNTIME)"
    _, install = _recipe(r"\$\(RUNTIME\)")
    assert any(line.endswith("pip install --quiet -e .") for line in install)
    assert not any("[" in line for line in install), "the runtime install names an extra"


def test_the_demo_commands_print_no_error_or_warning(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    _, commands = _recipe("demo")
    assert commands and all(line.startswith("$(BIN)/gdl ") for line in commands)
    for line in commands:
        argv = shlex.split(line.removeprefix("$(BIN)/gdl "))
        if argv[0] == "check":  # the shell expands the glob
            argv = ["check", *sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("games/*.kif"))]
        if "--play-clock" in argv:  # the clock the demo gives on an idle machine, stretched by the load
            at = argv.index("--play-clock") + 1
            argv[at] = f"{slack(float(argv[at])):.2f}"
        assert main(argv) == 0, line
        out, err = capsys.readouterr()
        assert not re.search(r"error|warning|deprecated|Traceback", err, re.IGNORECASE), (line, err)
        assert not re.search(r"\b(error|warning)\b:", out) and "\n  ! " not in out, (line, out)
        assert "0 error(s), 0 warning(s)" in out if argv[0] == "check" else out
