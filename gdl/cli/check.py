"""``gdl check FILE...``: report every problem of each game at once."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gdl.check import check_text
from gdl.diagnostics import Diagnostic, Level


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("check", help="check games for errors and warnings")
    parser.add_argument("files", nargs="+", metavar="FILE", help="GDL files (.kif)")
    parser.add_argument("--json", action="store_true", help="print the diagnostics as JSON")
    parser.set_defaults(run=run)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except IsADirectoryError:
        print(f"gdl check: {path}: is a directory", file=sys.stderr)
    except FileNotFoundError:
        print(f"gdl check: {path}: no such file", file=sys.stderr)
    except UnicodeDecodeError as problem:
        print(f"gdl check: {path}: not UTF-8 text (byte {problem.start})", file=sys.stderr)
    except OSError as problem:
        print(f"gdl check: {path}: {problem.strerror}", file=sys.stderr)
    return None


def run(args: argparse.Namespace) -> int:
    diagnostics: list[Diagnostic] = []
    unreadable = False
    for name in args.files:
        text = _read(Path(name))
        if text is None:
            unreadable = True
            continue
        diagnostics.extend(check_text(text, name).diagnostics)
    if args.json:
        print(json.dumps([d.to_json() for d in diagnostics], indent=2))
    else:
        for diagnostic in diagnostics:
            print(diagnostic.format())
        errors = sum(d.level is Level.ERROR for d in diagnostics)
        warnings = len(diagnostics) - errors
        print(f"{len(args.files)} file(s) checked: {errors} error(s), {warnings} warning(s)")
    if unreadable:
        return 2
    return 1 if any(d.level is Level.ERROR for d in diagnostics) else 0
