"""Where our games and the shared material are."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
GAMES = ROOT / "games"
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
JSON_GAMES = SHARED / "json-games"
